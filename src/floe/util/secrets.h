// Recognising credentials, so that they never reach errors, logs or printed output.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace floe {

/// True for property keys that hold credentials: names containing "secret", "password",
/// "passwd", "token", "credential", "access-key" or "private-key", or ending in ".key"
/// (any case).
bool IsSecretPropertyKey(std::string_view key);

/// The value to print for a property: "***" for secrets, the value otherwise.
std::string PrintableProperty(std::string_view key, std::string_view value);

/// `text` with every occurrence of each non-empty string of `secrets` replaced by "***":
/// for messages that a library wrote about a connection string it was given (libpq
/// quotes the whole URI back when it cannot parse it).
std::string RedactSecrets(std::string text, const std::vector<std::string>& secrets);

/// The secrets a connection URI carries: its user-info password (as written and
/// percent-decoded) and the values of password, secret, token, credential and key query
/// parameters. For RedactSecrets.
std::vector<std::string> SecretsOfUri(std::string_view uri);

/// `uri` with the password of its `user:password@host` and the values of the secret
/// query parameters SecretsOfUri looks for replaced by "***", for messages.
std::string RedactUri(std::string_view uri);

}  // namespace floe
