// libFuzzer: the TaskCommit message a committer receives from a task (possibly another
// process). Invariants: nothing crashes; a message that decodes re-encodes to the same
// bytes.
#include <cstdint>
#include <string_view>

#include "floe/iceberg/manifest/manifest.h"
#include "floe/task/task_commit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)floe::DecodeTaskCommitLocations(bytes);
  auto decoded = floe::DecodeTaskCommit(bytes);
  if (!decoded.ok()) return 0;
  if (floe::EncodeTaskCommit(*decoded) != bytes) __builtin_trap();
  if (!decoded->files.empty()) (void)floe::iceberg::ReadManifest(decoded->files);
  return 0;
}
