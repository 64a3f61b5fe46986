// libFuzzer: the schema.name-mapping.default property (any writer of table metadata sets
// it). Invariant: a clear error or a mapping whose lookups terminate, never a crash.
#include <cstdint>
#include <string_view>

#include "floe/iceberg/spec/name_mapping.h"

namespace {

void Walk(const std::vector<floe::iceberg::MappedField>& fields, int depth) {
  if (depth > 2000) __builtin_trap();  // the JSON depth bound keeps mappings shallow
  for (const auto& field : fields) {
    for (const auto& name : field.names)
      (void)floe::iceberg::FindMappedField(fields, name);
    Walk(field.fields, depth + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto mapping = floe::iceberg::ParseNameMapping(text);
  if (mapping.ok()) Walk(**mapping, 0);
  return 0;
}
