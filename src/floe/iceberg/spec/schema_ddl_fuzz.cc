// libFuzzer: the --schema and --partition-by texts (the first line is a schema, the rest
// a partition spec). Invariant: a clear error or a valid schema and spec, never a crash.
#include <cstdint>
#include <string_view>

#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/table_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t newline = text.find('\n');
  std::string_view schema_text = text.substr(0, newline);
  auto schema = floe::iceberg::ParseSchemaText(schema_text);
  if (!schema.ok()) return 0;
  (void)floe::iceberg::SchemaToJson(**schema);
  if (newline == std::string_view::npos) return 0;
  auto spec = floe::iceberg::ParsePartitionBy(text.substr(newline + 1), **schema);
  if (spec.ok()) (void)(*spec)->PartitionType(**schema);
  return 0;
}
