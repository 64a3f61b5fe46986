// A compact text form for schemas on the command line:
//   "id long not null, name string, price decimal(12, 2), tags list<string>,
//    address struct<city: string, zip int not null>, attrs map<string, double>"
// Types are Iceberg's names (plus the aliases bigint, integer, bool, varchar, text,
// bytes); `not null` makes a field (or a list element / map value, inside the brackets)
// required. Names with other characters go in backquotes. Field ids are assigned as for a
// new table.
#pragma once

#include <string_view>

#include "arrow/result.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// Parses the text form; mistakes give InvalidInput naming the position and what was
/// expected. Text that starts with '{' is read as Iceberg schema JSON instead (ids kept).
arrow::Result<SchemaPtr> ParseSchemaText(std::string_view text);

}  // namespace floe::iceberg
