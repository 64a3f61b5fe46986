// Schemas the unit tests of several layers share (types only, so a shared layer's tests
// may use them as Iceberg's do).
#pragma once

#include "floe/types/schema.h"
#include "floe/types/type.h"

namespace floe::testing {

/// Schema 3: a required id (the identifier field), a list of point structs, a string map
/// and a decimal; field ids 1 to 9, nested ids after the top level.
inline SchemaPtr NestedSchema() {
  auto point = types::Struct({types::Required(5, "x", types::Double()),
                              types::Optional(6, "y", types::Double())});
  auto schema = Schema::Make(
      3,
      {types::Required(1, "id", types::Long()),
       types::Optional(2, "points", types::List(4, point, true)),
       types::Optional(3, "attrs",
                       types::Map(7, types::String(), 8, types::String(), false)),
       types::Optional(9, "price", types::Decimal(9, 2))},
      {1});
  return *schema;
}

}  // namespace floe::testing
