// The files `floe append` reads: Parquet and CSV, streamed batch by batch.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/types/schema.h"

namespace floe::cli {

/// OK when `path` is a regular file (symbolic links followed). NotFound when it is
/// missing; InvalidInput naming what it is otherwise: opening a FIFO would block until a
/// writer comes, and a directory or device is never an input.
arrow::Status CheckInputFile(const std::string& path);

/// Opens `paths` in order as one stream of batches in the table's Arrow form. Each file
/// is matched to the table by column name when it is opened (CSV values are parsed
/// straight into the table's column types). `format` is "auto" (by extension), "parquet"
/// or "csv". `on_file` is told each file as it is opened. A file without one of
/// `required_columns` (by name; an upsert's keys, which would otherwise read as NULL)
/// fails with InvalidInput naming both. Errors name the file.
arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> OpenInputFiles(
    const std::vector<std::string>& paths, const std::string& format,
    SchemaPtr table_schema, const std::string& table_name,
    std::function<void(const std::string&)> on_file,
    std::vector<std::string> required_columns = {});

}  // namespace floe::cli
