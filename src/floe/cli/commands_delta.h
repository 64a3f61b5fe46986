// The commands' Delta side: a table argument that is a path names a Delta table by path
// (`floe scan /data/events`), read with floe::delta.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "arrow/status.h"
#include "floe/cli/output.h"
#include "floe/lakehouse/delta_tables.h"

namespace floe::cli {

/// The storage configuration of a table given by path: the command's --catalog-property
/// values (iceberg-java's s3.* keys for an s3:// table; see docs/storage.md, "Object
/// storage"). A catalog-managed table uses its catalog's.
using StorageProperties = std::map<std::string, std::string>;

struct DeltaScanArguments {
  std::string path;
  std::vector<std::string> columns;
  std::string filter;
  std::optional<int64_t> version;
  std::optional<int64_t> as_of_ms;
  OutputOptions output;
  bool stats = false;
  const CatalogDeltaTable* catalog = nullptr;
  StorageProperties storage;
};

arrow::Status ScanDelta(const DeltaScanArguments& arguments);
arrow::Status DescribeDelta(const std::string& path, const StorageProperties& storage,
                            const CatalogDeltaTable* catalog = nullptr);
arrow::Status ListDeltaVersions(const std::string& path, const StorageProperties& storage,
                                const CatalogDeltaTable* catalog = nullptr);
arrow::Status ListDeltaFiles(const std::string& path, std::optional<int64_t> version,
                             const StorageProperties& storage,
                             const CatalogDeltaTable* catalog = nullptr);

/// `floe vacuum PATH`: the unreferenced data files older than the retention deleted (or
/// listed, with `dry_run`).
arrow::Status VacuumDelta(const std::string& path, const StorageProperties& storage,
                          std::optional<int64_t> retention_ms, bool dry_run,
                          bool any_name, bool check_retention);

/// `floe create PATH`: a Delta table with `schema`, partitioned by `partition_columns`.
arrow::Status CreateDelta(const std::string& path, const StorageProperties& storage,
                          const arrow::Schema& schema,
                          const std::vector<std::string>& partition_columns,
                          const std::map<std::string, std::string>& properties);
/// `floe append PATH FILES` and `floe overwrite PATH FILES` (the whole table, or with
/// `predicate` the rows it selects: a replaceWhere; a blank one is refused); `txn`
/// ("APP_ID:VERSION", or empty) makes the write idempotent; `threads` write tasks run (0:
/// one per core), their Parquet writers within `memory_limit` bytes together (0: no
/// limit).
arrow::Status WriteDelta(const std::string& path, const StorageProperties& storage,
                         const std::vector<std::string>& files,
                         const std::string& input_format, bool overwrite,
                         const std::string& txn = "", int threads = 0,
                         const CatalogDeltaTable* catalog = nullptr,
                         const std::optional<std::string>& predicate = std::nullopt,
                         int64_t memory_limit = 0);
/// `floe delete PATH --where PREDICATE`: the rows it selects deleted (copy-on-write).
arrow::Status DeleteDelta(const std::string& path, const StorageProperties& storage,
                          const std::string& predicate, int threads,
                          const CatalogDeltaTable* catalog = nullptr);
/// `floe rewrite PATH`: small files compacted (delta-spark's OPTIMIZE), in the
/// partitions `predicate` selects (every one when empty).
arrow::Status CompactDelta(const std::string& path, const StorageProperties& storage,
                           const std::string& predicate, int64_t min_file_size,
                           int64_t max_file_size, int threads,
                           const CatalogDeltaTable* catalog = nullptr);

}  // namespace floe::cli
