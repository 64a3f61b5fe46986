// Integers read from JSON that other programs wrote (table metadata, Delta log actions
// and statistics, REST responses, write plans). nlohmann keeps an integer above int64's
// range as an unsigned number and get<int64_t>() then wraps it; get<int32_t>() truncates
// any integer. These read an integer only when it fits, so a hostile or corrupt number is
// refused instead of becoming another number.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace floe {

/// `value` as an int64 when it is a JSON integer within int64's range; nullopt for any
/// other JSON value (a float such as 1e3, a string, an unsigned number above INT64_MAX).
template <typename Json>
std::optional<int64_t> JsonInt64(const Json& value) {
  if (value.is_number_unsigned()) {
    const auto unsigned_value = value.template get<uint64_t>();
    if (unsigned_value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return std::nullopt;
    return static_cast<int64_t>(unsigned_value);
  }
  if (value.is_number_integer()) return value.template get<int64_t>();
  return std::nullopt;
}

/// `value` as an int32 when it is a JSON integer within int32's range; nullopt otherwise.
template <typename Json>
std::optional<int32_t> JsonInt32(const Json& value) {
  const std::optional<int64_t> wide = JsonInt64(value);
  if (!wide || *wide < std::numeric_limits<int32_t>::min() ||
      *wide > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(*wide);
}

}  // namespace floe
