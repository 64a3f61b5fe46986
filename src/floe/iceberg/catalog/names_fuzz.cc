// libFuzzer: table identifiers and catalog URIs as users type them. Invariants: nothing
// crashes; an identifier that parses has no name that could leave the warehouse;
// redaction never lets a password through.
#include <cstdint>
#include <string>
#include <string_view>

#include "floe/iceberg/catalog/catalog.h"
#include "floe/util/secrets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto id = floe::iceberg::TableIdentifier::Parse(text);
  if (id.ok()) {
    auto check = [](const std::string& name) {
      if (name.empty() || name == "." || name == ".." ||
          name.find('/') != std::string::npos || name.find('\0') != std::string::npos) {
        __builtin_trap();
      }
    };
    check(id->name);
    for (const auto& level : id->ns) check(level);
  }
  std::string uri = "postgresql://user:" + std::string(text) + "@host/db";
  std::string redacted = floe::RedactUri(uri);
  // A password without URI delimiters is masked whole.
  if (text.find_first_of("@/:?&#") == std::string_view::npos &&
      redacted != "postgresql://user:***@host/db") {
    __builtin_trap();
  }
  (void)floe::RedactUri(text);
  return 0;
}
