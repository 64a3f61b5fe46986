// How `floe scan` prints rows: an aligned text table, CSV, JSON lines, or a Parquet file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/types/schema.h"

namespace floe::cli {

struct OutputOptions {
  std::string format = "table";  ///< table, csv, jsonl or parquet
  std::string path;              ///< Required for parquet; stdout otherwise when empty.
  std::optional<int64_t> limit;  ///< At most this many rows.
  /// Local folders `path` must not be in (the scanned table's folders) and files it must
  /// not be (the catalog's database): see
  /// CheckOutputOutsideTables.
  std::vector<std::string> protected_folders;
  std::vector<std::string> protected_files;
};

/// Refuses (InvalidInput, naming what it would overwrite) an output file that would
/// replace a table's or the catalog's files: one inside `protected_folders`, equal to one
/// of `protected_files` (or its SQLite journal: "-wal", "-shm", "-journal"), or inside
/// any folder holding a table (a `_delta_log` folder, or a `metadata` folder with Iceberg
/// metadata files), found by walking up from the output's folder. Links are resolved
/// first, so a link to a table's file is refused too.
arrow::Status CheckOutputOutsideTables(const std::string& path,
                                       const std::vector<std::string>& protected_folders,
                                       const std::vector<std::string>& protected_files);

/// Writes the rows of `reader` (whose columns are `schema`'s fields, used to render
/// values the way Iceberg types read: uuid text, ISO timestamps, decimals, base64
/// binary). Returns the number of rows written.
arrow::Result<int64_t> WriteRows(arrow::RecordBatchReader& reader, const Schema& schema,
                                 const OutputOptions& options, std::ostream& out);

/// Writes `reader`'s rows as `options` say: to `options.path` through a temporary file
/// beside it, renamed over it only once every row is written (a failed scan leaves an
/// existing file as it was), or to stdout. What `floe scan` does with a scan's rows, for
/// either table format.
arrow::Result<int64_t> WriteScanOutput(arrow::RecordBatchReader& reader,
                                       const Schema& schema, OutputOptions options);

/// Output to `target` through a temporary file beside it (a hidden name in the same
/// directory), moved over `target` by Commit; destroyed without Commit, it removes the
/// temporary file, so a failed write never truncates or half-replaces `target`. A target
/// that is a link to a file replaces the file (the link stays); one that exists but is
/// not a regular file (/dev/null, a FIFO) is written in place and never replaced.
class ReplacingOutput {
 public:
  /// InvalidInput when `target` is a directory or its directory does not exist.
  static arrow::Result<std::unique_ptr<ReplacingOutput>> Make(const std::string& target);
  ~ReplacingOutput();
  ReplacingOutput(const ReplacingOutput&) = delete;
  ReplacingOutput& operator=(const ReplacingOutput&) = delete;

  const std::string& target() const { return target_; }
  /// Where to write: the temporary file, or the target itself when it is not replaced.
  const std::string& temporary() const { return temporary_; }
  /// Renames the temporary file over the target (atomically, on one file system).
  arrow::Status Commit();

 private:
  ReplacingOutput(std::string target, std::string temporary, bool replaces)
      : target_(std::move(target)),
        temporary_(std::move(temporary)),
        replaces_(replaces) {}
  std::string target_;
  std::string temporary_;
  bool replaces_;  // false: written in place
  bool committed_ = false;
};

/// The error for output that could not be written in full (a full disk, a closed pipe),
/// naming `where` and errno.
arrow::Status WriteFailed(const std::string& where);

/// One value as text (for tables and messages).
std::string FormatValue(const arrow::Array& array, int64_t row, const Type& type);

}  // namespace floe::cli
