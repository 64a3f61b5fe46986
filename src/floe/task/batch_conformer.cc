#include "floe/task/batch_conformer.h"

#include <map>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/compute/api.h"
#include "arrow/compute/initialize.h"
#include "arrow/extension_type.h"
#include "arrow/record_batch.h"
#include "arrow/util/decimal.h"
#include "floe/util/error.h"

namespace floe {
namespace {

// `table` is what names the table ("table db.t", "Delta table /data/t").
arrow::Status Bad(const std::string& table, const std::string& column,
                  const std::string& why) {
  return MakeError(ErrorKind::kInvalidInput, table + ", column '" + column + "': " + why);
}

std::string Join(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

// Columns are matched by name, so a name the input holds twice at one level cannot be
// matched (Arrow's lookup by name finds neither): say so instead of "missing" or nulls.
arrow::Status CheckUniqueNames(const arrow::FieldVector& fields, const std::string& table,
                               const std::string& path) {
  std::map<std::string, int> seen;
  for (const auto& field : fields) {
    if (++seen[field->name()] == 2) {
      return Bad(table, Join(path, field->name()),
                 "the input has more than one column of this name");
    }
  }
  return arrow::Status::OK();
}

arrow::Status CheckType(const arrow::DataType& input, const arrow::Field& target,
                        const std::string& table, const std::string& path) {
  if (target.type()->id() == arrow::Type::EXTENSION) {
    // Written as its storage type (uuid: 16 fixed bytes).
    return CheckType(
        input,
        *target.WithType(
            static_cast<const arrow::ExtensionType&>(*target.type()).storage_type()),
        table, path);
  }
  const arrow::DataType& target_type = *target.type();
  const arrow::DataType* source = &input;
  if (source->id() == arrow::Type::DICTIONARY) {
    source = static_cast<const arrow::DictionaryType&>(*source).value_type().get();
  }
  if (source->id() == arrow::Type::EXTENSION) {
    source = static_cast<const arrow::ExtensionType&>(*source).storage_type().get();
  }
  switch (target_type.id()) {
    case arrow::Type::STRUCT: {
      if (source->id() != arrow::Type::STRUCT) {
        return Bad(table, path, "expected a struct, the input has " + input.ToString());
      }
      const auto& target_struct = static_cast<const arrow::StructType&>(target_type);
      const auto& source_struct = static_cast<const arrow::StructType&>(*source);
      ARROW_RETURN_NOT_OK(CheckUniqueNames(source->fields(), table, path));
      for (const auto& child : source->fields()) {
        auto target_child = target_struct.GetFieldByName(child->name());
        if (!target_child)
          return Bad(table, Join(path, child->name()), "not in the table schema");
        ARROW_RETURN_NOT_OK(
            CheckType(*child->type(), *target_child, table, Join(path, child->name())));
      }
      for (const auto& child : target_type.fields()) {
        if (!child->nullable() && source_struct.GetFieldIndex(child->name()) < 0) {
          return Bad(table, Join(path, child->name()),
                     "required but missing from the input");
        }
      }
      return arrow::Status::OK();
    }
    case arrow::Type::LIST: {
      if (source->id() != arrow::Type::LIST && source->id() != arrow::Type::LARGE_LIST &&
          source->id() != arrow::Type::FIXED_SIZE_LIST &&
          source->id() != arrow::Type::LIST_VIEW) {
        return Bad(table, path, "expected a list, the input has " + input.ToString());
      }
      return CheckType(*source->field(0)->type(), *target_type.field(0), table,
                       path + ".element");
    }
    case arrow::Type::MAP: {
      if (source->id() != arrow::Type::MAP) {
        return Bad(table, path, "expected a map, the input has " + input.ToString());
      }
      const auto& map = static_cast<const arrow::MapType&>(*source);
      const auto& target_map = static_cast<const arrow::MapType&>(target_type);
      ARROW_RETURN_NOT_OK(
          CheckType(*map.key_type(), *target_map.key_field(), table, path + ".key"));
      return CheckType(*map.item_type(), *target_map.item_field(), table,
                       path + ".value");
    }
    default:
      if (!source->Equals(target_type) &&
          !arrow::compute::CanCast(*source, target_type)) {
        return Bad(table, path,
                   "cannot write " + input.ToString() + " values into a column of " +
                       target_type.ToString());
      }
      return arrow::Status::OK();
  }
}

arrow::Result<std::shared_ptr<arrow::Array>> ConformArray(
    const std::shared_ptr<arrow::Array>& input, const arrow::Field& target,
    const std::string& table, const std::string& path);

// A struct's children by name; children the input lacks as nulls.
arrow::Result<std::shared_ptr<arrow::Array>> ConformStruct(
    const std::shared_ptr<arrow::Array>& array,
    const std::shared_ptr<arrow::DataType>& target_type, const std::string& table,
    const std::string& path) {
  const auto& source = static_cast<const arrow::StructArray&>(*array);
  arrow::ArrayVector children;
  for (const auto& child : target_type->fields()) {
    auto column = source.GetFieldByName(child->name());
    // field() already accounts for the parent's offset and length.
    if (!column) {
      ARROW_ASSIGN_OR_RAISE(column,
                            arrow::MakeArrayOfNull(child->type(), source.length()));
    }
    ARROW_ASSIGN_OR_RAISE(auto conformed,
                          ConformArray(column, *child, table, Join(path, child->name())));
    children.push_back(std::move(conformed));
  }
  std::shared_ptr<arrow::Buffer> validity;
  if (source.null_count() > 0) {
    // IsValid gives a boolean bitmap at offset 0, which is exactly a validity bitmap.
    ARROW_ASSIGN_OR_RAISE(auto valid, arrow::compute::IsValid(array));
    validity = valid.make_array()->data()->buffers[1];
  }
  return arrow::StructArray::Make(children, target_type->fields(), validity,
                                  source.null_count());
}

// A list's elements, or a map's keys and values; large and view lists become lists.
arrow::Result<std::shared_ptr<arrow::Array>> ConformListOrMap(
    const std::shared_ptr<arrow::Array>& array,
    const std::shared_ptr<arrow::DataType>& target_type, const std::string& table,
    const std::string& path) {
  std::shared_ptr<arrow::Array> list = array;
  if (array->type_id() != arrow::Type::LIST && array->type_id() != arrow::Type::MAP) {
    ARROW_ASSIGN_OR_RAISE(
        list, arrow::compute::Cast(*array, arrow::list(array->type()->field(0))));
  }
  const auto& source = static_cast<const arrow::ListArray&>(*list);
  std::shared_ptr<arrow::Array> values = source.values();
  std::shared_ptr<arrow::Array> conformed_values;
  if (target_type->id() == arrow::Type::LIST) {
    ARROW_ASSIGN_OR_RAISE(conformed_values, ConformArray(values, *target_type->field(0),
                                                         table, path + ".element"));
  } else {
    // A map's values are a struct of key and value.
    const auto& entries = static_cast<const arrow::StructArray&>(*values);
    const auto& target_map = static_cast<const arrow::MapType&>(*target_type);
    ARROW_ASSIGN_OR_RAISE(
        auto keys,
        ConformArray(entries.field(0), *target_map.key_field(), table, path + ".key"));
    ARROW_ASSIGN_OR_RAISE(
        auto items,
        ConformArray(entries.field(1), *target_map.item_field(), table, path + ".value"));
    ARROW_ASSIGN_OR_RAISE(
        conformed_values,
        arrow::StructArray::Make({keys, items}, target_map.value_type()->fields()));
  }
  auto data = list->data()->Copy();
  data->type = target_type;
  data->child_data = {conformed_values->data()};
  return arrow::MakeArray(data);
}

// Parsers (CSV) and some producers hand over decimals wider than their declared
// precision: such a value is an error naming it.
arrow::Status CheckDecimalPrecision(const arrow::Array& result, const std::string& table,
                                    const std::string& path) {
  if (result.type_id() != arrow::Type::DECIMAL128) return arrow::Status::OK();
  const auto& decimals = static_cast<const arrow::Decimal128Array&>(result);
  int32_t precision =
      static_cast<const arrow::Decimal128Type&>(*result.type()).precision();
  for (int64_t i = 0; i < decimals.length(); ++i) {
    if (decimals.IsValid(i) &&
        !arrow::Decimal128(decimals.GetValue(i)).FitsInPrecision(precision)) {
      return Bad(table, path,
                 "value " + decimals.FormatValue(i) + " does not fit " +
                     result.type()->ToString());
    }
  }
  return arrow::Status::OK();
}

arrow::Result<std::shared_ptr<arrow::Array>> ConformArray(
    const std::shared_ptr<arrow::Array>& input, const arrow::Field& target,
    const std::string& table, const std::string& path) {
  std::shared_ptr<arrow::Array> array = input;
  if (array->type_id() == arrow::Type::EXTENSION) {
    array = static_cast<const arrow::ExtensionArray&>(*array).storage();
  }
  if (target.type()->id() == arrow::Type::EXTENSION) {
    const auto& extension = static_cast<const arrow::ExtensionType&>(*target.type());
    ARROW_ASSIGN_OR_RAISE(
        auto storage,
        ConformArray(array, *target.WithType(extension.storage_type()), table, path));
    return arrow::ExtensionType::WrapArray(target.type(), storage);
  }
  const auto& target_type = target.type();
  std::shared_ptr<arrow::Array> result;
  switch (target_type->id()) {
    case arrow::Type::STRUCT: {
      ARROW_ASSIGN_OR_RAISE(result, ConformStruct(array, target_type, table, path));
      break;
    }
    case arrow::Type::LIST:
    case arrow::Type::MAP: {
      ARROW_ASSIGN_OR_RAISE(result, ConformListOrMap(array, target_type, table, path));
      break;
    }
    default: {
      if (array->type()->Equals(*target_type)) {
        result = array;
      } else {
        auto cast = arrow::compute::Cast(*array, target_type,
                                         arrow::compute::CastOptions::Safe());
        if (!cast.ok()) return Bad(table, path, cast.status().message());
        result = *cast;
      }
      break;
    }
  }
  ARROW_RETURN_NOT_OK(CheckDecimalPrecision(*result, table, path));
  if (!target.nullable() && result->null_count() > 0) {
    return Bad(table, path,
               "required, but the input has " + std::to_string(result->null_count()) +
                   " null values");
  }
  return result;
}

// The input schema checked against the target: what Make checks once.
arrow::Status CheckInput(const arrow::Schema& input, const arrow::Schema& target,
                         const std::string& what) {
  ARROW_RETURN_NOT_OK(CheckUniqueNames(input.fields(), what, ""));
  for (const auto& field : input.fields()) {
    auto target_field = target.GetFieldByName(field->name());
    if (!target_field) {
      return Bad(what, field->name(), "the input column is not in the table schema");
    }
    ARROW_RETURN_NOT_OK(CheckType(*field->type(), *target_field, what, field->name()));
  }
  for (const auto& field : target.fields()) {
    if (!field->nullable() && input.GetFieldIndex(field->name()) < 0) {
      return Bad(what, field->name(), "required but missing from the input");
    }
  }
  return arrow::Status::OK();
}

// The batch's columns fitted to the target (its schema checked already).
arrow::Result<std::shared_ptr<arrow::RecordBatch>> ConformColumns(
    const arrow::RecordBatch& batch, const std::shared_ptr<arrow::Schema>& target,
    const std::string& what) {
  arrow::ArrayVector columns;
  for (const auto& field : target->fields()) {
    auto column = batch.GetColumnByName(field->name());
    if (!column) {
      ARROW_ASSIGN_OR_RAISE(column,
                            arrow::MakeArrayOfNull(field->type(), batch.num_rows()));
    }
    ARROW_ASSIGN_OR_RAISE(auto conformed,
                          ConformArray(column, *field, what, field->name()));
    columns.push_back(std::move(conformed));
  }
  return arrow::RecordBatch::Make(target, batch.num_rows(), std::move(columns));
}

}  // namespace

arrow::Result<std::unique_ptr<BatchConformer>> BatchConformer::Make(
    const arrow::Schema& input, std::shared_ptr<arrow::Schema> target, std::string what) {
  // The compute functions conforming calls (casts, is_valid) are registered here, so a
  // program that never initialised Arrow's compute module conforms as the command does.
  ARROW_RETURN_NOT_OK(arrow::compute::Initialize());
  ARROW_RETURN_NOT_OK(CheckInput(input, *target, what));
  std::unique_ptr<BatchConformer> conformer(new BatchConformer());
  conformer->target_ = std::move(target);
  conformer->input_ = std::make_shared<arrow::Schema>(input.fields());
  conformer->what_ = std::move(what);
  return conformer;
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> BatchConformer::Conform(
    const arrow::RecordBatch& batch) const {
  if (!batch.schema()->Equals(*input_, /*check_metadata=*/false)) {
    return MakeError(ErrorKind::kInvalidInput,
                     what_ + ": a batch's schema differs from the input's");
  }
  return ConformColumns(batch, target_, what_);
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> ConformBatch(
    const arrow::RecordBatch& batch, const std::shared_ptr<arrow::Schema>& target,
    const std::string& what) {
  ARROW_RETURN_NOT_OK(arrow::compute::Initialize());
  ARROW_RETURN_NOT_OK(CheckInput(*batch.schema(), *target, what));
  return ConformColumns(batch, target, what);
}

}  // namespace floe
