// libFuzzer: CSV input files for `floe append` (parsed straight into the table's types).
// Invariant: rows or a clear error naming the file, never a crash or a silent NULL for a
// value that does not convert.
#include <cstdint>
#include <cstdio>
#include <string>

#include <unistd.h>

#include "floe/cli/input_files.h"
#include "floe/iceberg/spec/schema_ddl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto kSchema = *floe::iceberg::ParseSchemaText(
      "id long not null, name string, price decimal(9, 2), ts timestamptz, d date, ok "
      "boolean, "
      "score double");
  static const std::string kPath = "/tmp/floe-fuzz-" + std::to_string(getpid()) + ".csv";
  FILE* file = std::fopen(kPath.c_str(), "wb");
  if (file == nullptr) return 0;
  std::fwrite(data, 1, size, file);
  std::fclose(file);
  auto reader = floe::cli::OpenInputFiles({kPath}, "csv", kSchema, "fuzz.t",
                                          [](const std::string&) {});
  if (!reader.ok()) return 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    if (!(*reader)->ReadNext(&batch).ok() || !batch) break;
    if (!batch->ValidateFull().ok()) __builtin_trap();
  }
  return 0;
}
