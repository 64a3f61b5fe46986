// libFuzzer: table metadata JSON (what anyone able to write a catalog can hand floe).
// Invariants: nothing crashes; metadata that parses writes JSON that parses back.
#include <cstdint>
#include <string_view>

#include "floe/iceberg/spec/table_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  auto metadata = floe::iceberg::TableMetadataFromJson(json);
  if (!metadata.ok()) return 0;
  std::string written = floe::iceberg::TableMetadataToJson(**metadata);
  if (!floe::iceberg::TableMetadataFromJson(written).ok()) __builtin_trap();
  return 0;
}
