#include "floe/iceberg/spec/json_internal.h"

#include "floe/util/json_depth_internal.h"
#include "floe/util/json_number_internal.h"

namespace floe::iceberg::json_internal {
namespace {

arrow::Status Missing(std::string_view key, std::string_view what) {
  return MakeError(
      ErrorKind::kInvalidMetadata,
      std::string(what) + ": missing or invalid field '" + std::string(key) + "'");
}

}  // namespace

arrow::Result<Json> Parse(std::string_view text, std::string_view what) {
  if (JsonNestsDeeperThan(text)) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     std::string(what) + " nests JSON deeper than " +
                         std::to_string(kMaxJsonDepth) + " levels");
  }
  Json parsed =
      Json::parse(text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     std::string(what) + " is not valid JSON");
  }
  return parsed;
}

arrow::Result<const Json*> Member(const Json& object, std::string_view key,
                                  std::string_view what) {
  if (!object.is_object()) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     std::string(what) + " is not a JSON object");
  }
  auto found = object.find(key);
  if (found == object.end()) return Missing(key, what);
  return &*found;
}

arrow::Result<int64_t> GetLong(const Json& object, std::string_view key,
                               std::string_view what) {
  ARROW_ASSIGN_OR_RAISE(const Json* value, Member(object, key, what));
  const std::optional<int64_t> number = JsonInt64(*value);
  if (!number) return Missing(key, what);
  return *number;
}

arrow::Result<int> GetInt(const Json& object, std::string_view key,
                          std::string_view what) {
  ARROW_ASSIGN_OR_RAISE(int64_t value, GetLong(object, key, what));
  if (value < std::numeric_limits<int>::min() ||
      value > std::numeric_limits<int>::max()) {
    return Missing(key, what);
  }
  return static_cast<int>(value);
}

arrow::Result<std::string> GetString(const Json& object, std::string_view key,
                                     std::string_view what) {
  ARROW_ASSIGN_OR_RAISE(const Json* value, Member(object, key, what));
  if (!value->is_string()) return Missing(key, what);
  return value->get<std::string>();
}

arrow::Result<bool> GetBool(const Json& object, std::string_view key,
                            std::string_view what) {
  ARROW_ASSIGN_OR_RAISE(const Json* value, Member(object, key, what));
  if (!value->is_boolean()) return Missing(key, what);
  return value->get<bool>();
}

arrow::Result<std::optional<int64_t>> GetOptionalLong(const Json& object,
                                                      std::string_view key,
                                                      std::string_view what) {
  if (!object.is_object()) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     std::string(what) + " is not a JSON object");
  }
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return std::optional<int64_t>();
  const std::optional<int64_t> number = JsonInt64(*found);
  if (!number) return Missing(key, what);
  return number;
}

}  // namespace floe::iceberg::json_internal
