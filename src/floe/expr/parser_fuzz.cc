// libFuzzer: the --where parser, binder and printer. Invariants: nothing crashes; a
// filter that parses prints to text that parses again; binding never crashes on any
// parse.
#include <cstdint>
#include <string_view>

#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/spec/schema_ddl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto schema = *floe::ParseSchemaText(
      "id long, f double, s string, d decimal(9, 2), dt date, ts timestamptz, t "
      "timestamp, "
      "b boolean, u uuid, x fixed[4], st struct<a: int, b: string>, l list<int>");
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = floe::ParseFilter(text);
  if (!parsed.ok()) return 0;
  auto printed = (*parsed)->ToString();
  if (!floe::ParseFilter(printed).ok()) __builtin_trap();
  auto bound = floe::Bind(*parsed, *schema);
  if (bound.ok()) {
    auto rewritten = floe::RewriteNot(*bound);
    (void)rewritten->ToString();
    (void)floe::ReferencedFieldIds(*rewritten);
  }
  return 0;
}
