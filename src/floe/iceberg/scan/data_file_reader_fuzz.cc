// libFuzzer: Parquet data files read through floe's field-id projection (footer, schema
// conversion, nested leaf selection, row-group statistics, the residual filter).
// Invariant: batches that validate, or a clear error naming the file.
#include <cstdint>
#include <string>

#include "arrow/io/memory.h"
#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/iceberg/scan/data_file_reader.h"
#include "floe/iceberg/spec/schema_ddl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto kSchema = *floe::iceberg::ParseSchemaText(
      "id long, s struct<a: int, b: string>, l list<struct<x: double, y: string>>, "
      "m map<string, int>, d decimal(9, 2), ts timestamptz");
  static const auto kIo = *floe::MakeArrowFileIO();
  static const auto kFilter = floe::RewriteNot(
      *floe::Bind(*floe::ParseFilter("id > 3 OR s.a IS NULL OR d < 1.5"), *kSchema));
  const std::string location = "memory://fuzz/data.parquet";
  if (!kIo->WriteAll(location, std::string(reinterpret_cast<const char*>(data), size))
           .ok())
    return 0;
  floe::iceberg::DataFile file;
  file.file_path = location;
  file.record_count = 1;
  floe::iceberg::DataFileReadOptions options;
  options.read_schema = kSchema;
  options.output_schema = floe::SelectFields(*kSchema, {1, 7, 10});
  options.filter = kFilter;
  auto reader = floe::iceberg::ReadDataFile(
      kIo, file, options, *floe::iceberg::PartitionSpec::Unpartitioned(), nullptr);
  if (!reader.ok()) return 0;
  for (int i = 0; i < 64; ++i) {
    std::shared_ptr<arrow::RecordBatch> batch;
    if (!(*reader)->ReadNext(&batch).ok() || !batch) break;
    if (!batch->ValidateFull().ok()) __builtin_trap();
  }
  return 0;
}
