// Recognising credentials, so that they never reach errors, logs or printed output.
#pragma once

#include <string>
#include <string_view>

namespace floe {

/// True for property keys that hold credentials: names containing "secret", "password",
/// "passwd", "token", "credential", "access-key" or "private-key", or ending in ".key"
/// (any case).
bool IsSecretPropertyKey(std::string_view key);

/// The value to print for a property: "***" for secrets, the value otherwise.
std::string PrintableProperty(std::string_view key, std::string_view value);

}  // namespace floe
