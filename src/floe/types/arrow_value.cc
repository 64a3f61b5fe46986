#include "floe/types/arrow_value.h"

#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "arrow/array.h"
#include "arrow/extension_type.h"
#include "arrow/scalar.h"
#include "arrow/util/decimal.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"

namespace floe {

arrow::Result<Value> ValueFromArrow(const arrow::Array& array, int64_t index,
                                    const Type& type) {
  if (array.IsNull(index)) return Value();
  if (array.type_id() == arrow::Type::DICTIONARY) {
    const auto& dictionary = static_cast<const arrow::DictionaryArray&>(array);
    return ValueFromArrow(*dictionary.dictionary(), dictionary.GetValueIndex(index),
                          type);
  }
  if (array.type_id() == arrow::Type::EXTENSION) {
    return ValueFromArrow(*static_cast<const arrow::ExtensionArray&>(array).storage(),
                          index, type);
  }
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      return Value(static_cast<const arrow::BooleanArray&>(array).Value(index));
    case arrow::Type::INT32:
    case arrow::Type::DATE32: {
      int32_t raw = array.data()->GetValues<int32_t>(1)[index];
      if (type.id() == TypeId::kLong) return Value(int64_t{raw});
      return Value(raw);
    }
    case arrow::Type::INT64:
    case arrow::Type::TIME64:
    case arrow::Type::TIMESTAMP: {
      const auto* values = array.data()->GetValues<int64_t>(1);
      return Value(values[index]);
    }
    case arrow::Type::FLOAT: {
      float raw = static_cast<const arrow::FloatArray&>(array).Value(index);
      if (type.id() == TypeId::kDouble) return Value(double{raw});
      return Value(raw);
    }
    case arrow::Type::DOUBLE:
      return Value(static_cast<const arrow::DoubleArray&>(array).Value(index));
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      auto view = static_cast<const arrow::BinaryArray&>(array).GetView(index);
      if (type.id() == TypeId::kString) return Value(std::string(view));
      return Value(Bytes(view.begin(), view.end()));
    }
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY: {
      auto view = static_cast<const arrow::LargeBinaryArray&>(array).GetView(index);
      if (type.id() == TypeId::kString) return Value(std::string(view));
      return Value(Bytes(view.begin(), view.end()));
    }
    case arrow::Type::STRING_VIEW:
    case arrow::Type::BINARY_VIEW: {
      auto view = static_cast<const arrow::BinaryViewArray&>(array).GetView(index);
      if (type.id() == TypeId::kString) return Value(std::string(view));
      return Value(Bytes(view.begin(), view.end()));
    }
    case arrow::Type::FIXED_SIZE_BINARY: {
      auto view = static_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(index);
      return Value(Bytes(view.begin(), view.end()));
    }
    case arrow::Type::DECIMAL128: {
      arrow::Decimal128 decimal(
          static_cast<const arrow::Decimal128Array&>(array).GetValue(index));
      __int128 unscaled = (static_cast<__int128>(decimal.high_bits()) << 64) |
                          static_cast<__int128>(decimal.low_bits());
      return Value(Decimal{unscaled});
    }
    default:
      break;
  }
  return MakeError(ErrorKind::kNotSupported, "cannot read a " + type.ToString() +
                                                 " value from an Arrow " +
                                                 array.type()->ToString() + " array");
}

arrow::Result<std::shared_ptr<arrow::Scalar>> ValueToArrowScalar(const Value& value,
                                                                 const Type& type) {
  ARROW_ASSIGN_OR_RAISE(auto arrow_type, ToArrowType(type));
  if (IsNull(value)) return arrow::MakeNullScalar(arrow_type);
  switch (type.id()) {
    case TypeId::kBoolean:
      return arrow::MakeScalar(arrow_type, std::get<bool>(value));
    case TypeId::kInt:
    case TypeId::kDate:
      return arrow::MakeScalar(arrow_type, std::get<int32_t>(value));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return arrow::MakeScalar(arrow_type, std::get<int64_t>(value));
    case TypeId::kFloat:
      return arrow::MakeScalar(arrow_type, std::get<float>(value));
    case TypeId::kDouble:
      return arrow::MakeScalar(arrow_type, std::get<double>(value));
    case TypeId::kString:
      return std::static_pointer_cast<arrow::Scalar>(
          std::make_shared<arrow::StringScalar>(std::get<std::string>(value)));
    case TypeId::kBinary: {
      const auto& bytes = std::get<Bytes>(value);
      return std::static_pointer_cast<arrow::Scalar>(
          std::make_shared<arrow::BinaryScalar>(std::string(bytes.begin(), bytes.end())));
    }
    case TypeId::kUuid:
    case TypeId::kFixed: {
      const auto& bytes = std::get<Bytes>(value);
      auto storage_type =
          arrow_type->id() == arrow::Type::EXTENSION
              ? static_cast<const arrow::ExtensionType&>(*arrow_type).storage_type()
              : arrow_type;
      auto storage = std::make_shared<arrow::FixedSizeBinaryScalar>(
          arrow::Buffer::FromString(std::string(bytes.begin(), bytes.end())),
          storage_type);
      if (arrow_type->id() != arrow::Type::EXTENSION)
        return std::static_pointer_cast<arrow::Scalar>(storage);
      return std::static_pointer_cast<arrow::Scalar>(
          std::make_shared<arrow::ExtensionScalar>(std::move(storage), arrow_type));
    }
    case TypeId::kDecimal: {
      __int128 unscaled = std::get<Decimal>(value).unscaled;
      arrow::Decimal128 decimal(static_cast<int64_t>(unscaled >> 64),
                                static_cast<uint64_t>(unscaled));
      return std::static_pointer_cast<arrow::Scalar>(
          std::make_shared<arrow::Decimal128Scalar>(decimal, arrow_type));
    }
    default:
      break;
  }
  return MakeError(ErrorKind::kNotSupported,
                   "no Arrow scalar for type " + type.ToString());
}

namespace {

// Variable-length bytes in a key: their length first, so keys of several columns cannot
// run into each other.
void AppendSizedKey(std::string_view view, std::string* key) {
  auto size = static_cast<uint32_t>(view.size());
  key->append(reinterpret_cast<const char*>(&size), sizeof(size));
  key->append(view.data(), view.size());
}

}  // namespace

void AppendValueKey(const arrow::Array& array, int64_t row, std::string* key) {
  if (array.IsNull(row)) {
    key->push_back('\0');
    return;
  }
  key->push_back('\1');
  switch (array.type_id()) {
    case arrow::Type::FLOAT: {
      float value = static_cast<const arrow::FloatArray&>(array).Value(row);
      if (std::isnan(value)) value = std::numeric_limits<float>::quiet_NaN();
      key->append(reinterpret_cast<const char*>(&value), sizeof(value));
      return;
    }
    case arrow::Type::DOUBLE: {
      double value = static_cast<const arrow::DoubleArray&>(array).Value(row);
      if (std::isnan(value)) value = std::numeric_limits<double>::quiet_NaN();
      key->append(reinterpret_cast<const char*>(&value), sizeof(value));
      return;
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      AppendSizedKey(static_cast<const arrow::BinaryArray&>(array).GetView(row), key);
      return;
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      AppendSizedKey(static_cast<const arrow::LargeBinaryArray&>(array).GetView(row),
                     key);
      return;
    case arrow::Type::BOOL:
      key->push_back(static_cast<const arrow::BooleanArray&>(array).Value(row) ? '\1'
                                                                               : '\0');
      return;
    default: {
      // Fixed-width values: the raw bytes.
      const auto& fixed = static_cast<const arrow::FixedWidthType&>(*array.type());
      int width = fixed.bit_width() / 8;
      const auto* values = array.data()->GetValues<uint8_t>(1, 0);
      key->append(reinterpret_cast<const char*>(values + (array.offset() + row) * width),
                  static_cast<size_t>(width));
      return;
    }
  }
}

}  // namespace floe
