#include "floe/iceberg/spec/transform.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "floe/util/error.h"
#include "floe/util/number_text.h"
#include "floe/util/text.h"

namespace floe::iceberg {
namespace {

bool IsWordCharacter(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

arrow::Result<Transform> Transform::Parse(std::string_view text) {
  // iceberg-java: the pattern (\w+)\[(\d+)\] first, then the bare names; anything else is
  // an UnknownTransform that keeps its text.
  size_t open = text.find('[');
  if (open != std::string_view::npos && open > 0 && text.back() == ']' &&
      std::all_of(text.begin(), text.begin() + open, IsWordCharacter)) {
    std::string_view digits = text.substr(open + 1, text.size() - open - 2);
    bool all_digits =
        !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                       [](char c) { return c >= '0' && c <= '9'; });
    std::string name = AsciiLower(text.substr(0, open));
    if (all_digits && (name == "bucket" || name == "truncate")) {
      const int32_t value = ParseJavaInt(digits).value_or(0);
      if (value <= 0) {
        return MakeError(
            ErrorKind::kInvalidMetadata,
            "invalid " + name + " width in transform '" + std::string(text) + "'");
      }
      return name == "bucket" ? Bucket(value) : Truncate(value);
    }
  }
  std::string name = AsciiLower(text);
  if (name == "identity") return Identity();
  if (name == "year") return Year();
  if (name == "month") return Month();
  if (name == "day") return Day();
  if (name == "hour") return Hour();
  if (name == "void") return Void();
  Transform unknown(TransformKind::kUnknown, 0);
  unknown.unknown_text_ = std::string(text);
  return unknown;
}

std::string Transform::ToString() const {
  switch (kind_) {
    case TransformKind::kIdentity:
      return "identity";
    case TransformKind::kBucket:
      return "bucket[" + std::to_string(parameter_) + "]";
    case TransformKind::kTruncate:
      return "truncate[" + std::to_string(parameter_) + "]";
    case TransformKind::kYear:
      return "year";
    case TransformKind::kMonth:
      return "month";
    case TransformKind::kDay:
      return "day";
    case TransformKind::kHour:
      return "hour";
    case TransformKind::kVoid:
      return "void";
    case TransformKind::kUnknown:
      return unknown_text_;
  }
  return unknown_text_;
}

std::string_view Transform::DefaultNameSuffix() const {
  switch (kind_) {
    case TransformKind::kIdentity:
      return "";
    case TransformKind::kBucket:
      return "_bucket";
    case TransformKind::kTruncate:
      return "_trunc";
    case TransformKind::kYear:
      return "_year";
    case TransformKind::kMonth:
      return "_month";
    case TransformKind::kDay:
      return "_day";
    case TransformKind::kHour:
      return "_hour";
    case TransformKind::kVoid:
      return "_null";
    case TransformKind::kUnknown:
      return "_unknown";
  }
  return "";
}

bool Transform::CanTransform(const Type& source) const {
  TypeId id = source.id();
  switch (kind_) {
    case TransformKind::kIdentity:
      return source.is_primitive() && id != TypeId::kVariant && id != TypeId::kGeometry &&
             id != TypeId::kGeography && id != TypeId::kUnknown;
    case TransformKind::kBucket:
      return id == TypeId::kInt || id == TypeId::kLong || id == TypeId::kDate ||
             id == TypeId::kTime || IsTimestamp(id) || id == TypeId::kString ||
             id == TypeId::kBinary || id == TypeId::kFixed || id == TypeId::kDecimal ||
             id == TypeId::kUuid;
    case TransformKind::kTruncate:
      return id == TypeId::kInt || id == TypeId::kLong || id == TypeId::kString ||
             id == TypeId::kBinary || id == TypeId::kDecimal;
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
      return id == TypeId::kDate || IsTimestamp(id);
    case TransformKind::kHour:
      return IsTimestamp(id);
    case TransformKind::kVoid:
      return true;
    case TransformKind::kUnknown:
      return false;
  }
  return false;
}

TypePtr Transform::ResultType(const TypePtr& source) const {
  switch (kind_) {
    case TransformKind::kBucket:
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kHour:
      return types::Int();
    case TransformKind::kDay:
      return types::Date();
    default:
      return source;
  }
}

bool Transform::PreservesOrder() const {
  // iceberg-java: bucket, void and unknown transforms do not preserve order.
  return kind_ != TransformKind::kBucket && kind_ != TransformKind::kVoid &&
         kind_ != TransformKind::kUnknown;
}

}  // namespace floe::iceberg
