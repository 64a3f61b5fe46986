#include "floe/types/arrow_schema.h"

#include <vector>

#include "arrow/extension/uuid.h"
#include "arrow/extension_type.h"
#include "arrow/record_batch.h"
#include "arrow/type.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/util/error.h"

namespace floe {
namespace {

std::shared_ptr<const arrow::KeyValueMetadata> FieldIdMetadata(int id) {
  return arrow::key_value_metadata({kParquetFieldIdKey}, {std::to_string(id)});
}

// Converts an Arrow type; `assign` hands out fresh ids when ids are being assigned,
// otherwise ids are read from the fields' metadata.
class ArrowToIceberg {
 public:
  explicit ArrowToIceberg(bool assign_ids) : assign_ids_(assign_ids) {}

  arrow::Result<std::vector<NestedField>> Fields(const arrow::FieldVector& fields,
                                                 const std::string& path) {
    std::vector<NestedField> result;
    std::vector<int> ids;
    for (const auto& field : fields) {
      ARROW_ASSIGN_OR_RAISE(int id, IdOf(*field, path));
      ids.push_back(id);
    }
    // Fresh ids go breadth-first: a struct's fields first, then their children.
    for (size_t i = 0; i < fields.size(); ++i) {
      const auto& field = fields[i];
      std::string name = path.empty() ? field->name() : path + "." + field->name();
      ARROW_ASSIGN_OR_RAISE(TypePtr type, Convert(*field->type(), name));
      result.push_back(
          NestedField{ids[i], field->name(), !field->nullable(), std::move(type)});
    }
    return result;
  }

 private:
  arrow::Result<int> IdOf(const arrow::Field& field, const std::string& path) {
    if (assign_ids_) return ++last_id_;
    int id = ArrowFieldId(field);
    if (id < 0) {
      return MakeError(ErrorKind::kInvalidInput,
                       "Arrow field '" +
                           (path.empty() ? field.name() : path + "." + field.name()) +
                           "' has no " + kParquetFieldIdKey + " metadata");
    }
    return id;
  }

  arrow::Result<TypePtr> Convert(const arrow::DataType& type, const std::string& path) {
    switch (type.id()) {
      case arrow::Type::BOOL:
        return types::Boolean();
      case arrow::Type::INT8:
      case arrow::Type::INT16:
      case arrow::Type::UINT8:
      case arrow::Type::UINT16:
        if (!assign_ids_) break;
        return types::Int();
      case arrow::Type::INT32:
        return types::Int();
      case arrow::Type::UINT32:
        if (!assign_ids_) break;
        return types::Long();
      case arrow::Type::INT64:
        return types::Long();
      case arrow::Type::FLOAT:
        return types::Float();
      case arrow::Type::DOUBLE:
        return types::Double();
      case arrow::Type::DECIMAL128:
      case arrow::Type::DECIMAL64:
      case arrow::Type::DECIMAL32: {
        const auto& decimal = static_cast<const arrow::DecimalType&>(type);
        if (decimal.precision() > 38) break;
        return types::Decimal(decimal.precision(), decimal.scale());
      }
      case arrow::Type::DATE32:
        return types::Date();
      case arrow::Type::DATE64:
        if (!assign_ids_) break;
        return types::Date();
      case arrow::Type::TIME32:
      case arrow::Type::TIME64:
        return types::Time();
      case arrow::Type::TIMESTAMP: {
        const auto& timestamp = static_cast<const arrow::TimestampType&>(type);
        bool zoned = !timestamp.timezone().empty();
        if (timestamp.unit() == arrow::TimeUnit::NANO) {
          return zoned ? types::TimestampTzNs() : types::TimestampNs();
        }
        return zoned ? types::TimestampTz() : types::Timestamp();
      }
      case arrow::Type::STRING:
      case arrow::Type::LARGE_STRING:
      case arrow::Type::STRING_VIEW:
        return types::String();
      case arrow::Type::BINARY:
      case arrow::Type::LARGE_BINARY:
      case arrow::Type::BINARY_VIEW:
        return types::Binary();
      case arrow::Type::FIXED_SIZE_BINARY: {
        int width = static_cast<const arrow::FixedSizeBinaryType&>(type).byte_width();
        return types::Fixed(width);
      }
      case arrow::Type::EXTENSION: {
        const auto& extension = static_cast<const arrow::ExtensionType&>(type);
        if (extension.extension_name() == "arrow.uuid") return types::Uuid();
        return Convert(*extension.storage_type(), path);
      }
      case arrow::Type::STRUCT: {
        ARROW_ASSIGN_OR_RAISE(auto fields, Fields(type.fields(), path));
        return std::static_pointer_cast<const Type>(types::Struct(std::move(fields)));
      }
      case arrow::Type::LIST:
      case arrow::Type::LARGE_LIST:
      case arrow::Type::LIST_VIEW:
      case arrow::Type::LARGE_LIST_VIEW:
      case arrow::Type::FIXED_SIZE_LIST: {
        const auto& element = *type.field(0);
        ARROW_ASSIGN_OR_RAISE(int id, IdOf(element, path));
        ARROW_ASSIGN_OR_RAISE(TypePtr element_type,
                              Convert(*element.type(), path + ".element"));
        return std::static_pointer_cast<const Type>(std::make_shared<ListType>(
            NestedField{id, "element", !element.nullable(), std::move(element_type)}));
      }
      case arrow::Type::MAP: {
        const auto& map = static_cast<const arrow::MapType&>(type);
        ARROW_ASSIGN_OR_RAISE(int key_id, IdOf(*map.key_field(), path));
        ARROW_ASSIGN_OR_RAISE(int value_id, IdOf(*map.item_field(), path));
        ARROW_ASSIGN_OR_RAISE(TypePtr key_type, Convert(*map.key_type(), path + ".key"));
        ARROW_ASSIGN_OR_RAISE(TypePtr value_type,
                              Convert(*map.item_type(), path + ".value"));
        return std::static_pointer_cast<const Type>(std::make_shared<MapType>(
            NestedField{key_id, "key", true, std::move(key_type)},
            NestedField{value_id, "value", !map.item_field()->nullable(),
                        std::move(value_type)}));
      }
      case arrow::Type::DICTIONARY:
        return Convert(*static_cast<const arrow::DictionaryType&>(type).value_type(),
                       path);
      default:
        break;
    }
    return MakeError(ErrorKind::kInvalidInput, "column '" + path + "' has Arrow type " +
                                                   type.ToString() +
                                                   ", which has no Iceberg equivalent");
  }

  bool assign_ids_;
  int last_id_ = 0;
};

}  // namespace

arrow::Result<std::shared_ptr<arrow::DataType>> ToArrowType(const Type& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return arrow::boolean();
    case TypeId::kInt:
      return arrow::int32();
    case TypeId::kLong:
      return arrow::int64();
    case TypeId::kFloat:
      return arrow::float32();
    case TypeId::kDouble:
      return arrow::float64();
    case TypeId::kDecimal: {
      const auto& decimal = static_cast<const PrimitiveType&>(type);
      return arrow::decimal128(decimal.precision(), decimal.scale());
    }
    case TypeId::kDate:
      return arrow::date32();
    case TypeId::kTime:
      return arrow::time64(arrow::TimeUnit::MICRO);
    case TypeId::kTimestamp:
      return arrow::timestamp(arrow::TimeUnit::MICRO);
    case TypeId::kTimestampTz:
      return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    case TypeId::kTimestampNs:
      return arrow::timestamp(arrow::TimeUnit::NANO);
    case TypeId::kTimestampTzNs:
      return arrow::timestamp(arrow::TimeUnit::NANO, "UTC");
    case TypeId::kString:
      return arrow::utf8();
    // The arrow.uuid extension type: Parquet files get the UUID logical type (as
    // iceberg-java writes it), and readers see uuids rather than anonymous 16-byte
    // values.
    case TypeId::kUuid:
      return arrow::extension::uuid();
    case TypeId::kFixed:
      return arrow::fixed_size_binary(static_cast<const PrimitiveType&>(type).length());
    case TypeId::kBinary:
      return arrow::binary();
    case TypeId::kStruct: {
      arrow::FieldVector fields;
      for (const auto& field : static_cast<const StructType&>(type).fields()) {
        ARROW_ASSIGN_OR_RAISE(auto arrow_field, ToArrowField(field));
        fields.push_back(std::move(arrow_field));
      }
      return arrow::struct_(fields);
    }
    case TypeId::kList: {
      ARROW_ASSIGN_OR_RAISE(auto element,
                            ToArrowField(static_cast<const ListType&>(type).element()));
      return arrow::list(std::move(element));
    }
    case TypeId::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      ARROW_ASSIGN_OR_RAISE(auto key, ToArrowField(map.key()));
      ARROW_ASSIGN_OR_RAISE(auto value, ToArrowField(map.value()));
      return std::make_shared<arrow::MapType>(std::move(key), std::move(value));
    }
    default:
      break;
  }
  return MakeError(
      ErrorKind::kNotSupported,
      "Iceberg type " + type.ToString() + " cannot be read or written by floe yet");
}

arrow::Result<std::shared_ptr<arrow::Field>> ToArrowField(const NestedField& field) {
  ARROW_ASSIGN_OR_RAISE(auto type, ToArrowType(*field.type));
  return arrow::field(field.name, std::move(type), !field.required,
                      FieldIdMetadata(field.id));
}

arrow::Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const Schema& schema) {
  arrow::FieldVector fields;
  for (const auto& field : schema.fields()) {
    auto arrow_field = ToArrowField(field);
    if (!arrow_field.ok())
      return WithContext(arrow_field.status(), "column '" + field.name + "'");
    fields.push_back(std::move(*arrow_field));
  }
  return arrow::schema(std::move(fields));
}

arrow::Result<SchemaPtr> FromArrowSchema(const arrow::Schema& schema, int schema_id) {
  ArrowToIceberg converter(/*assign_ids=*/false);
  ARROW_ASSIGN_OR_RAISE(auto fields, converter.Fields(schema.fields(), ""));
  return Schema::Make(schema_id, std::move(fields));
}

arrow::Result<SchemaPtr> FromArrowSchemaAssigningIds(const arrow::Schema& schema) {
  ArrowToIceberg converter(/*assign_ids=*/true);
  ARROW_ASSIGN_OR_RAISE(auto fields, converter.Fields(schema.fields(), ""));
  int last_id = 0;
  auto made = Schema::Make(0, AssignFreshIds(fields, &last_id));
  // The schema is the caller's (a repeated column name, say): what is wrong is input.
  if (!made.ok() && KindOf(made.status()) == ErrorKind::kInvalidMetadata)
    return MakeError(ErrorKind::kInvalidInput, made.status().message());
  return made;
}

std::shared_ptr<arrow::ArrayData> Retype(const std::shared_ptr<arrow::ArrayData>& data,
                                         const std::shared_ptr<arrow::DataType>& type) {
  auto copy = std::make_shared<arrow::ArrayData>(*data);
  copy->type = type;
  // An extension type's children are its storage type's.
  const arrow::DataType& layout =
      type->id() == arrow::Type::EXTENSION
          ? *static_cast<const arrow::ExtensionType&>(*type).storage_type()
          : *type;
  for (size_t i = 0;
       i < copy->child_data.size() && static_cast<int>(i) < layout.num_fields(); ++i) {
    copy->child_data[i] =
        Retype(data->child_data[i], layout.field(static_cast<int>(i))->type());
  }
  return copy;
}

std::shared_ptr<arrow::RecordBatch> Retype(const arrow::RecordBatch& batch,
                                           const std::shared_ptr<arrow::Schema>& schema) {
  std::vector<std::shared_ptr<arrow::ArrayData>> columns;
  for (int i = 0; i < batch.num_columns(); ++i)
    columns.push_back(Retype(batch.column_data(i), schema->field(i)->type()));
  return arrow::RecordBatch::Make(schema, batch.num_rows(), std::move(columns));
}

}  // namespace floe
