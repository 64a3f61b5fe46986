// How `floe scan` prints rows: an aligned text table, CSV, JSON lines, or a Parquet file.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "arrow/record_batch.h"
#include "floe/spec/schema.h"

namespace floe::cli {

struct OutputOptions {
  std::string format = "table";  ///< table, csv, jsonl or parquet
  std::string path;              ///< Required for parquet; stdout otherwise when empty.
  std::optional<int64_t> limit;  ///< At most this many rows.
};

/// Writes the rows of `reader` (whose columns are `schema`'s fields, used to render
/// values the way Iceberg types read: uuid text, ISO timestamps, decimals, base64
/// binary). Returns the number of rows written.
arrow::Result<int64_t> WriteRows(arrow::RecordBatchReader& reader, const Schema& schema,
                                 const OutputOptions& options, std::ostream& out);

/// One value as text (for tables and messages).
std::string FormatValue(const arrow::Array& array, int64_t row, const Type& type);

}  // namespace floe::cli
