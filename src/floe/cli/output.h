// How `floe scan` prints rows: an aligned text table, CSV, JSON lines, or a Parquet file.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <memory>
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

/// Output to `target` through a temporary file beside it (a hidden name in the same
/// directory), moved over `target` by Commit; destroyed without Commit, it removes the
/// temporary file, so a failed write never truncates or half-replaces `target`.
class ReplacingOutput {
 public:
  /// InvalidInput when `target` is a directory or its directory does not exist.
  static arrow::Result<std::unique_ptr<ReplacingOutput>> Make(const std::string& target);
  ~ReplacingOutput();
  ReplacingOutput(const ReplacingOutput&) = delete;
  ReplacingOutput& operator=(const ReplacingOutput&) = delete;

  const std::string& target() const { return target_; }
  const std::string& temporary() const { return temporary_; }
  /// Renames the temporary file over the target (atomically, on one file system).
  arrow::Status Commit();

 private:
  ReplacingOutput(std::string target, std::string temporary)
      : target_(std::move(target)), temporary_(std::move(temporary)) {}
  std::string target_;
  std::string temporary_;
  bool committed_ = false;
};

/// The error for output that could not be written in full (a full disk, a closed pipe),
/// naming `where` and errno.
arrow::Status WriteFailed(const std::string& where);

/// One value as text (for tables and messages).
std::string FormatValue(const arrow::Array& array, int64_t row, const Type& type);

}  // namespace floe::cli
