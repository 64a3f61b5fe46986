// UTF-8 validation for text that ends up in JSON metadata or Avro strings.
#pragma once

#include <string_view>

namespace floe {

/// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points
/// past U+10FFFF; NUL is allowed).
bool IsValidUtf8(std::string_view text);

}  // namespace floe
