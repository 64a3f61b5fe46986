// libFuzzer: the --where parser, binder and printer. Invariants: nothing crashes; a
// filter that parses prints to text that parses again; binding never crashes on any
// parse.
#include <cstdint>
#include <string_view>

#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/types/schema.h"
#include "floe/types/type.h"

namespace {

// The schema text "id long, f double, s string, d decimal(9, 2), dt date, ts
// timestamptz, t timestamp, b boolean, u uuid, x fixed[4], st struct<a: int, b: string>,
// l list<int>": the top-level fields 1 to 12, then st's (13, 14), then l's element (15).
floe::SchemaPtr FuzzSchema() {
  namespace types = floe::types;
  return *floe::Schema::Make(
      0,
      {types::Optional(1, "id", types::Long()), types::Optional(2, "f", types::Double()),
       types::Optional(3, "s", types::String()),
       types::Optional(4, "d", types::Decimal(9, 2)),
       types::Optional(5, "dt", types::Date()),
       types::Optional(6, "ts", types::TimestampTz()),
       types::Optional(7, "t", types::Timestamp()),
       types::Optional(8, "b", types::Boolean()), types::Optional(9, "u", types::Uuid()),
       types::Optional(10, "x", types::Fixed(4)),
       types::Optional(11, "st",
                       types::Struct({types::Optional(13, "a", types::Int()),
                                      types::Optional(14, "b", types::String())})),
       types::Optional(12, "l",
                       types::List(15, types::Int(), /*element_required=*/false))});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto kSchema = FuzzSchema();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = floe::ParseFilter(text);
  if (!parsed.ok()) return 0;
  auto printed = (*parsed)->ToString();
  if (!floe::ParseFilter(printed).ok()) __builtin_trap();
  auto bound = floe::Bind(*parsed, *kSchema);
  if (bound.ok()) {
    auto rewritten = floe::RewriteNot(*bound);
    (void)rewritten->ToString();
    (void)floe::ReferencedFieldIds(*rewritten);
  }
  return 0;
}
