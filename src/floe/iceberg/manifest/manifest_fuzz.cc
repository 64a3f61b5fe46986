// libFuzzer: Avro object-container files as manifests and manifest lists (the bytes other
// engines write). Invariant: a clear error or a decoded value, never a crash or a huge
// allocation from a length the bytes do not hold.
#include <cstdint>
#include <string_view>

#include "floe/iceberg/manifest/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto manifest = floe::iceberg::ReadManifest(bytes);
  if (manifest.ok()) {
    floe::iceberg::ManifestFile summary;
    summary.added_snapshot_id = 1;
    summary.sequence_number = 1;
    floe::iceberg::InheritManifestMetadata(summary, 2, &manifest->entries);
  }
  (void)floe::iceberg::ReadManifestList(bytes);
  return 0;
}
