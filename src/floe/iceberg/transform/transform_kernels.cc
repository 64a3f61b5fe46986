#include "floe/iceberg/transform/transform_kernels.h"

#include <cstring>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/builder.h"
#include "arrow/compute/api.h"
#include "arrow/util/decimal.h"
#include "floe/iceberg/transform/temporal_internal.h"
#include "floe/types/arrow_schema.h"
#include "floe/types/value.h"
#include "floe/util/date_time.h"
#include "floe/util/error.h"
#include "floe/util/murmur3_internal.h"

namespace floe::iceberg {
namespace {

// Values of a primitive Arrow array, by position, whatever its concrete offsets type.
std::string_view BinaryView(const arrow::Array& array, int64_t row) {
  switch (array.type_id()) {
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return static_cast<const arrow::LargeBinaryArray&>(array).GetView(row);
    case arrow::Type::STRING_VIEW:
    case arrow::Type::BINARY_VIEW:
      return static_cast<const arrow::BinaryViewArray&>(array).GetView(row);
    case arrow::Type::FIXED_SIZE_BINARY:
      return static_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(row);
    default:
      return static_cast<const arrow::BinaryArray&>(array).GetView(row);
  }
}

__int128 DecimalAt(const arrow::Array& array, int64_t row) {
  arrow::Decimal128 value(
      static_cast<const arrow::Decimal128Array&>(array).GetValue(row));
  return (static_cast<__int128>(value.high_bits()) << 64) |
         static_cast<__int128>(value.low_bits());
}

// Applies `compute(row) -> int32` to the valid rows; nulls stay null.
template <typename Compute>
arrow::Result<std::shared_ptr<arrow::Array>> IntResults(
    const arrow::Array& input, const std::shared_ptr<arrow::DataType>& type,
    Compute compute) {
  arrow::NumericBuilder<arrow::Int32Type> builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(input.length()));
  for (int64_t row = 0; row < input.length(); ++row) {
    if (input.IsNull(row)) {
      builder.UnsafeAppendNull();
    } else {
      ARROW_ASSIGN_OR_RAISE(int32_t value, compute(row));
      builder.UnsafeAppend(value);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  if (type->id() == arrow::Type::INT32) return result;
  return result->View(type);
}

// The bytes iceberg-java's BucketUtil hashes for one value, as a murmur3 hash.
int32_t BucketHash(const arrow::Array& array, int64_t row, TypeId type) {
  switch (type) {
    case TypeId::kInt:
    case TypeId::kDate:
      return Murmur3HashLong(array.data()->GetValues<int32_t>(1)[row]);
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return Murmur3HashLong(array.data()->GetValues<int64_t>(1)[row]);
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      // Nanoseconds are floored to microseconds first.
      return Murmur3HashLong(FloorDiv(array.data()->GetValues<int64_t>(1)[row], 1000));
    case TypeId::kDecimal: {
      Bytes bytes = DecimalToBytes(DecimalAt(array, row));
      return Murmur3Hash32(bytes.data(), bytes.size());
    }
    default: {
      std::string_view bytes = BinaryView(array, row);
      return Murmur3Hash32(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
  }
}

// Java's truncate over ints and longs: v - (((v % w) + w) % w), wrapping on overflow.
template <typename T>
T TruncateInteger(T value, T width) {
  using Unsigned = std::make_unsigned_t<T>;
  T remainder = static_cast<T>(((value % width) + width) % width);
  return static_cast<T>(static_cast<Unsigned>(value) - static_cast<Unsigned>(remainder));
}

// The byte length of the first `count` code points of UTF-8 text.
size_t CodePointPrefix(std::string_view text, int count) {
  size_t position = 0;
  for (int seen = 0; seen < count && position < text.size(); ++seen) {
    auto lead = static_cast<unsigned char>(text[position]);
    size_t length = lead < 0x80           ? 1
                    : (lead >> 5) == 0x6  ? 2
                    : (lead >> 4) == 0xE  ? 3
                    : (lead >> 3) == 0x1E ? 4
                                          : 1;
    position = std::min(text.size(), position + length);
  }
  return position;
}

arrow::Result<std::shared_ptr<arrow::Array>> Truncate(const arrow::Array& input,
                                                      TypeId type, int width) {
  const int64_t rows = input.length();
  switch (type) {
    case TypeId::kInt: {
      arrow::Int32Builder builder;
      ARROW_RETURN_NOT_OK(builder.Reserve(rows));
      const auto* values = input.data()->GetValues<int32_t>(1);
      for (int64_t row = 0; row < rows; ++row) {
        if (input.IsNull(row)) {
          builder.UnsafeAppendNull();
        } else {
          builder.UnsafeAppend(TruncateInteger<int32_t>(values[row], width));
        }
      }
      return builder.Finish();
    }
    case TypeId::kLong: {
      arrow::Int64Builder builder;
      ARROW_RETURN_NOT_OK(builder.Reserve(rows));
      const auto* values = input.data()->GetValues<int64_t>(1);
      for (int64_t row = 0; row < rows; ++row) {
        if (input.IsNull(row)) {
          builder.UnsafeAppendNull();
        } else {
          builder.UnsafeAppend(TruncateInteger<int64_t>(values[row], width));
        }
      }
      return builder.Finish();
    }
    case TypeId::kDecimal: {
      arrow::Decimal128Builder builder(input.type());
      ARROW_RETURN_NOT_OK(builder.Reserve(rows));
      for (int64_t row = 0; row < rows; ++row) {
        if (input.IsNull(row)) {
          builder.UnsafeAppendNull();
          continue;
        }
        // BigInteger arithmetic on the unscaled value; the width is never rescaled.
        __int128 value = DecimalAt(input, row);
        __int128 remainder = ((value % width) + width) % width;
        __int128 truncated = value - remainder;
        builder.UnsafeAppend(arrow::Decimal128(static_cast<int64_t>(truncated >> 64),
                                               static_cast<uint64_t>(truncated)));
      }
      return builder.Finish();
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      std::unique_ptr<arrow::ArrayBuilder> builder;
      if (type == TypeId::kString) {
        builder = std::make_unique<arrow::StringBuilder>();
      } else {
        builder = std::make_unique<arrow::BinaryBuilder>();
      }
      auto* binary = static_cast<arrow::BinaryBuilder*>(builder.get());
      ARROW_RETURN_NOT_OK(binary->Reserve(rows));
      for (int64_t row = 0; row < rows; ++row) {
        if (input.IsNull(row)) {
          ARROW_RETURN_NOT_OK(binary->AppendNull());
          continue;
        }
        std::string_view value = BinaryView(input, row);
        size_t keep = type == TypeId::kString
                          ? CodePointPrefix(value, width)
                          : std::min(value.size(), static_cast<size_t>(width));
        ARROW_RETURN_NOT_OK(binary->Append(value.data(), static_cast<int32_t>(keep)));
      }
      std::shared_ptr<arrow::Array> result;
      ARROW_RETURN_NOT_OK(builder->Finish(&result));
      return result;
    }
    default:
      break;
  }
  return MakeError(ErrorKind::kInvalidInput, "truncate cannot apply to this type");
}

arrow::Result<std::shared_ptr<arrow::Array>> Temporal(
    const arrow::Array& input, TypeId type, TimeGranularity granularity,
    const std::shared_ptr<arrow::DataType>& result_type) {
  if (type == TypeId::kDate) {
    const auto* days = input.data()->GetValues<int32_t>(1);
    return IntResults(input, result_type, [&](int64_t row) -> arrow::Result<int32_t> {
      return TransformDays(days[row], granularity);
    });
  }
  const auto* values = input.data()->GetValues<int64_t>(1);
  const int64_t per_second =
      (type == TypeId::kTimestampNs || type == TypeId::kTimestampTzNs) ? 1000000000
                                                                       : 1000000;
  // Non-negative values are plain floor divisions for hours and days: a fast path.
  if (granularity == TimeGranularity::kHour || granularity == TimeGranularity::kDay) {
    const int64_t unit =
        per_second * (granularity == TimeGranularity::kHour ? 3600 : 86400);
    return IntResults(input, result_type, [&](int64_t row) -> arrow::Result<int32_t> {
      int64_t value = values[row];
      if (value >= 0 && per_second == 1000000) {
        return static_cast<int32_t>(
            static_cast<uint32_t>(static_cast<uint64_t>(value / unit)));
      }
      return TransformTimestamp(value, per_second, granularity);
    });
  }
  return IntResults(input, result_type, [&](int64_t row) -> arrow::Result<int32_t> {
    return TransformTimestamp(values[row], per_second, granularity);
  });
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Array>> ApplyTransform(
    const Transform& transform, const Type& source_type,
    const std::shared_ptr<arrow::Array>& raw_input) {
  if (!transform.CanTransform(source_type)) {
    return MakeError(ErrorKind::kInvalidInput, "transform " + transform.ToString() +
                                                   " cannot apply to " +
                                                   source_type.ToString());
  }
  std::shared_ptr<arrow::Array> input = raw_input;
  if (input->type_id() == arrow::Type::DICTIONARY) {
    ARROW_ASSIGN_OR_RAISE(
        auto decoded,
        arrow::compute::Cast(
            *input,
            static_cast<const arrow::DictionaryType&>(*input->type()).value_type()));
    input = std::move(decoded);
  }
  if (input->type_id() == arrow::Type::EXTENSION) {
    input = static_cast<const arrow::ExtensionArray&>(*input).storage();
  }
  const TypeId type = source_type.id();
  switch (transform.kind()) {
    case TransformKind::kIdentity:
      return input;
    case TransformKind::kVoid: {
      ARROW_ASSIGN_OR_RAISE(auto arrow_type, ToArrowType(source_type));
      return arrow::MakeArrayOfNull(arrow_type, input->length());
    }
    case TransformKind::kBucket: {
      const int32_t buckets = transform.parameter();
      return IntResults(*input, arrow::int32(),
                        [&](int64_t row) -> arrow::Result<int32_t> {
                          return (BucketHash(*input, row, type) & 0x7FFFFFFF) % buckets;
                        });
    }
    case TransformKind::kTruncate:
      return Truncate(*input, type, transform.parameter());
    case TransformKind::kYear:
      return Temporal(*input, type, TimeGranularity::kYear, arrow::int32());
    case TransformKind::kMonth:
      return Temporal(*input, type, TimeGranularity::kMonth, arrow::int32());
    case TransformKind::kDay:
      return Temporal(*input, type, TimeGranularity::kDay, arrow::date32());
    case TransformKind::kHour:
      return Temporal(*input, type, TimeGranularity::kHour, arrow::int32());
    case TransformKind::kUnknown:
      break;
  }
  return MakeError(ErrorKind::kNotSupported,
                   "transform " + transform.ToString() + " cannot be computed by floe");
}

}  // namespace floe::iceberg
