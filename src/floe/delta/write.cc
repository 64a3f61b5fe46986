#include "floe/delta/write.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/compute/api.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/delta/calendar_interval.h"
#include "floe/delta/checkpoint.h"
#include "floe/delta/filter.h"
#include "floe/delta/scan.h"
#include "floe/delta/schema.h"
#include "floe/delta/transaction_internal.h"
#include "floe/delta/write_format.h"
#include "floe/io/s3_file_io.h"
#include "floe/task/batch_conformer.h"
#include "floe/task/limited_memory_pool.h"
#include "floe/task/task_commit.h"
#include "floe/task/write_driver.h"
#include "floe/task/write_task.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/first_error_internal.h"
#include "floe/util/location.h"
#include "floe/util/log.h"
#include "floe/util/number_text.h"
#include "floe/util/test_hooks_internal.h"
#include "floe/util/text.h"
#include "floe/util/uuid.h"

namespace floe::delta {
namespace {

// Table properties floe writes exactly (every one it honours or that changes nothing a
// writer does); any other delta.* property is declined, named.
const std::set<std::string>& KnownProperties() {
  static const std::set<std::string> kKnown = {
      "delta.appendOnly",
      "delta.dataSkippingNumIndexedCols",
      "delta.dataSkippingStatsColumns",
      "delta.checkpointInterval",
      "delta.logRetentionDuration",
      "delta.deletedFileRetentionDuration",
      "delta.setTransactionRetentionDuration",
      "delta.isolationLevel",
      "delta.minReaderVersion",
      "delta.minWriterVersion",
      "delta.checkpoint.writeStatsAsJson",
      "delta.checkpoint.writeStatsAsStruct",
      "delta.enableExpiredLogCleanup",
      "delta.enableInCommitTimestamps",
      "delta.inCommitTimestampEnablementVersion",
      "delta.inCommitTimestampEnablementTimestamp",
  };
  return kKnown;
}

// Writer features floe implements (those that ask nothing of an append or overwrite
// beyond what floe does, or whose rule floe enforces).
const std::set<std::string>& WritableFeatures() {
  // catalogManaged: only through a catalog committer (ValidateCommitType);
  // vacuumProtocolCheck binds vacuum alone, which floe does not run.
  static const std::set<std::string> kWritable = {
      "appendOnly",        "timestampNtz",   "invariants",
      "inCommitTimestamp", "catalogManaged", "vacuumProtocolCheck"};
  return kWritable;
}

bool HasNtz(const arrow::DataType& type) {
  if (type.id() == arrow::Type::TIMESTAMP) {
    return static_cast<const arrow::TimestampType&>(type).timezone().empty();
  }
  for (const auto& child : type.fields()) {
    if (HasNtz(*child->type())) return true;
  }
  return false;
}

bool HasFieldMetadata(const arrow::Field& field, std::string_view key) {
  if (field.metadata()) {
    auto found = field.metadata()->Get(std::string(kFieldMetadataKey));
    if (found.ok() &&
        found->find(std::string("\"") + std::string(key)) != std::string::npos) {
      return true;
    }
  }
  for (const auto& child : field.type()->fields()) {
    if (HasFieldMetadata(*child, key)) return true;
  }
  return false;
}

// A predicate write's input to the tasks: the rows of the files it rewrites that the
// predicate does not select (copied), then, for a replaceWhere, the new rows, every one
// of which must match the predicate (delta-spark's replaceWhere constraint check).
class PredicateInput : public arrow::RecordBatchReader {
 public:
  PredicateInput(std::unique_ptr<arrow::RecordBatchReader> copied,
                 const DeltaFilter* filter, arrow::RecordBatchReader* input,
                 std::shared_ptr<arrow::Schema> target, std::string where)
      : copied_(std::move(copied)),
        filter_(filter),
        input_(input),
        target_(std::move(target)),
        where_(std::move(where)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return target_; }
  int64_t rows_copied() const { return rows_copied_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (copied_) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(copied_->ReadNext(&batch));
      if (!batch) {
        copied_.reset();
        break;
      }
      ARROW_ASSIGN_OR_RAISE(auto mask, filter_->Evaluate(*batch));
      // Kept: false and unknown (null) alike, as a SQL DELETE keeps them.
      ARROW_ASSIGN_OR_RAISE(
          arrow::Datum selected,
          arrow::compute::CallFunction("coalesce", {mask, arrow::MakeScalar(false)}));
      ARROW_ASSIGN_OR_RAISE(arrow::Datum kept, arrow::compute::Invert(selected));
      ARROW_ASSIGN_OR_RAISE(arrow::Datum rows, arrow::compute::Filter(batch, kept));
      if (rows.record_batch()->num_rows() == 0) continue;
      rows_copied_ += rows.record_batch()->num_rows();
      *out = rows.record_batch();
      return arrow::Status::OK();
    }
    if (input_ == nullptr) {
      *out = nullptr;
      return arrow::Status::OK();
    }
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(WithContext(input_->ReadNext(&batch), "reading the input"));
    if (!batch || batch->num_rows() == 0) {
      *out = batch;
      return arrow::Status::OK();
    }
    ARROW_ASSIGN_OR_RAISE(auto conformed, ConformBatch(*batch, target_, where_));
    ARROW_ASSIGN_OR_RAISE(auto mask, filter_->Evaluate(*conformed));
    const auto& matches = static_cast<const arrow::BooleanArray&>(*mask);
    if (matches.true_count() != matches.length()) {
      return MakeError(ErrorKind::kInvalidInput,
                       "the input has rows that do not match the overwrite's predicate " +
                           filter_->text() + " (" +
                           std::to_string(matches.length() - matches.true_count()) +
                           " in a batch of " + std::to_string(matches.length()) +
                           "); a replaceWhere writes only rows it selects. Nothing was "
                           "committed to " +
                           where_);
    }
    *out = std::move(conformed);
    return arrow::Status::OK();
  }

 private:
  std::unique_ptr<arrow::RecordBatchReader> copied_;
  const DeltaFilter* filter_;
  arrow::RecordBatchReader* input_;
  std::shared_ptr<arrow::Schema> target_;
  std::string where_;
  int64_t rows_copied_ = 0;
};

// The files a predicate write removes (every one holding a row it selects) and rewrites
// (those also holding other rows), found by reading only the predicate's columns of the
// files data skipping keeps.
struct PredicateMatch {
  std::unique_ptr<DeltaFilter> filter;
  std::unique_ptr<DeltaScan> scan;  // holds the files below
  std::set<std::string> read;       // decoded paths of the files read
  std::vector<const AddFile*> removed;
  std::vector<const AddFile*> rewritten;
  int64_t rows_deleted = 0;
};

arrow::Result<PredicateMatch> MatchPredicate(const std::shared_ptr<FileIO>& io,
                                             const Snapshot& read,
                                             const std::shared_ptr<arrow::Schema>& schema,
                                             const std::string& predicate) {
  PredicateMatch match;
  ARROW_ASSIGN_OR_RAISE(
      auto filter, DeltaFilter::Make(schema, read.metadata.partition_columns, predicate,
                                     read.table_root));
  match.filter = std::make_unique<DeltaFilter>(std::move(filter));
  DeltaScanOptions columns;
  columns.columns = match.filter->columns();
  ARROW_ASSIGN_OR_RAISE(match.scan, DeltaScan::Make(io, read, columns));
  const DeltaScan* counter = match.scan.get();
  for (const AddFile* file : counter->files()) {
    if (!match.filter->MightMatch(*file)) continue;
    ARROW_RETURN_NOT_OK(CheckCancelled("the Delta predicate's file matching"));
    match.read.insert(file->location);
    ARROW_ASSIGN_OR_RAISE(auto reader, counter->ReadFiles({file}));
    int64_t rows = 0;
    int64_t matched = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      ARROW_ASSIGN_OR_RAISE(auto mask, match.filter->Evaluate(*batch));
      rows += batch->num_rows();
      matched += static_cast<const arrow::BooleanArray&>(*mask).true_count();
    }
    if (matched == 0) continue;
    match.rows_deleted += matched;
    match.removed.push_back(file);
    if (matched < rows) match.rewritten.push_back(file);
  }
  return match;
}

// Writes the input's batches (conformed to the table's columns) with
// `options.threads` write tasks (DriveWriteTasks: a partitioned table's partitions dealt
// to one task each, big batches in 128 Ki-row slices, the tasks after the first joining
// in as the input passes `rows_per_task` rows a task when that is not 0) and returns them
// unfinished. On any error every task is destroyed, deleting every file it wrote.
arrow::Result<std::vector<std::unique_ptr<WriteTask>>> RunTasks(
    const std::shared_ptr<const WriteFormat>& format, arrow::RecordBatchReader& input,
    const std::shared_ptr<arrow::Schema>& schema, bool partitioned,
    const std::string& where, const DeltaWriteOptions& options, int64_t rows_per_task,
    DeltaWriteResult* result) {
  const int threads = std::max(1, options.threads);
  std::vector<std::unique_ptr<WriteTask>> tasks;
  std::vector<WriteTask*> driven;
  for (int i = 0; i < threads; ++i) {
    ARROW_ASSIGN_OR_RAISE(auto task, WriteTask::Make(format, i, 0, options.env));
    driven.push_back(task.get());
    tasks.push_back(std::move(task));
  }
  // One schema object for every conformed batch, its lazily computed fingerprints
  // computed here, before batches reach other threads.
  auto target = arrow::schema(schema->fields());
  (void)target->fingerprint();
  (void)target->metadata_fingerprint();
  WriteDriverOptions driver;
  driver.share_partitions = partitioned;
  driver.slice_rows = kDefaultTaskRows;
  driver.rows_per_task = rows_per_task;
  driver.skip_empty_batches = true;
  driver.what = "the Delta write";
  WriteDriverHooks hooks;
  hooks.conform = [&](const std::shared_ptr<arrow::RecordBatch>& batch) {
    return ConformBatch(*batch, target, where);
  };
  hooks.fed = [&](int64_t rows) { result->rows += rows; };
  // On an error the tasks go, and their files with them.
  ARROW_RETURN_NOT_OK(DriveWriteTasks(driven, input, driver, hooks));
  return tasks;
}

// A compaction's bins (delta-spark's OptimizeExecutor without ZORDER BY): per partition,
// the files under min_file_size, smallest first, packed while their sizes sum to at most
// max_file_size; a bin of one file is left alone (rewriting it changes nothing).
arrow::Result<std::vector<std::vector<const AddFile*>>> PlanCompaction(
    const Snapshot& read, const std::shared_ptr<arrow::Schema>& schema,
    const DeltaWriteOptions& options, const std::string& where) {
  std::unique_ptr<DeltaFilter> filter;
  if (options.predicate) {
    ARROW_ASSIGN_OR_RAISE(auto made,
                          DeltaFilter::Make(schema, read.metadata.partition_columns,
                                            *options.predicate, read.table_root));
    if (!made.OnlyPartitionColumns()) {
      return MakeError(ErrorKind::kInvalidInput,
                       "a compaction's predicate names partition columns only (as "
                       "delta-spark's OPTIMIZE ... WHERE); " +
                           *options.predicate + " names others of " + where);
    }
    filter = std::make_unique<DeltaFilter>(std::move(made));
  }
  std::map<std::map<std::string, std::optional<std::string>>, std::vector<const AddFile*>>
      partitions;
  for (const AddFile& file : read.files) {
    if (file.size >= options.min_file_size) continue;
    if (filter && !filter->MightMatchPartition(file.partition_values)) continue;
    partitions[file.partition_values].push_back(&file);
  }
  std::vector<std::vector<const AddFile*>> bins;
  for (auto& [values, files] : partitions) {
    std::stable_sort(files.begin(), files.end(), [](const AddFile* a, const AddFile* b) {
      return a->size < b->size;
    });
    std::vector<const AddFile*> bin;
    int64_t bin_size = 0;
    auto close = [&] {
      if (bin.size() > 1) bins.push_back(std::move(bin));
      bin.clear();
      bin_size = 0;
    };
    for (const AddFile* file : files) {
      if (!bin.empty() && bin_size + file->size > options.target_file_size) close();
      bin.push_back(file);
      bin_size += file->size;
    }
    close();
  }
  return bins;
}

// Writes each bin's rows (its files read whole, in the table's columns) with a write task
// of its own, so that each bin becomes one file, `options.threads` bins at a time; the
// tasks are returned unfinished. On any error every task is destroyed, deleting every
// file it wrote.
arrow::Result<std::vector<std::unique_ptr<WriteTask>>> CompactBins(
    const std::shared_ptr<const WriteFormat>& format, const std::shared_ptr<FileIO>& io,
    const Snapshot& read, const std::vector<std::vector<const AddFile*>>& bins,
    const std::shared_ptr<arrow::Schema>& schema, const std::string& where,
    const DeltaWriteOptions& options, DeltaWriteResult* result) {
  auto target = arrow::schema(schema->fields());
  (void)target->fingerprint();
  (void)target->metadata_fingerprint();
  std::vector<std::unique_ptr<WriteTask>> tasks(bins.size());
  std::vector<int64_t> rows(bins.size(), 0);
  std::atomic<size_t> next{0};
  FirstError first_error;
  auto work = [&]() -> arrow::Status {
    // A scan of its own per worker (a scan's reading statistics are not shared safely).
    std::unique_ptr<DeltaScan> scan;
    for (size_t i = next++; i < bins.size(); i = next++) {
      if (!first_error.ok()) return arrow::Status::OK();
      ARROW_RETURN_NOT_OK(CheckCancelled("the Delta compaction"));
      if (!scan) {
        ARROW_ASSIGN_OR_RAISE(scan, DeltaScan::Make(io, read, DeltaScanOptions{}));
      }
      ARROW_ASSIGN_OR_RAISE(tasks[i],
                            WriteTask::Make(format, static_cast<int>(i), 0, options.env));
      ARROW_ASSIGN_OR_RAISE(auto reader, scan->ReadFiles(bins[i]));
      while (true) {
        std::shared_ptr<arrow::RecordBatch> batch;
        ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
        if (!batch) break;
        if (batch->num_rows() == 0) continue;
        ARROW_ASSIGN_OR_RAISE(auto conformed, ConformBatch(*batch, target, where));
        rows[i] += conformed->num_rows();
        ARROW_RETURN_NOT_OK(tasks[i]->Write(conformed));
      }
    }
    return arrow::Status::OK();
  };
  auto run = [&] { first_error.Record(work()); };
  const size_t threads =
      std::min(bins.size(), static_cast<size_t>(std::max(1, options.threads)));
  std::vector<std::thread> workers;
  for (size_t i = 1; i < threads; ++i) workers.push_back(StartOperationThread(run));
  run();
  for (auto& worker : workers) worker.join();
  if (!first_error.ok())
    return first_error.status();  // the tasks go, and their files with them
  for (int64_t count : rows) result->rows += count;
  return tasks;
}

std::shared_ptr<Committer> CommitterOr(const std::shared_ptr<Committer>& committer,
                                       const std::shared_ptr<FileIO>& io) {
  return committer ? committer : std::make_shared<FilesystemCommitter>(io);
}

// Every Delta commit floe makes is a put-if-absent (FileIO::WriteIfAbsent): a no-replace
// rename on disk, a conditional PUT on object storage, which floe signs itself and so
// needs static credentials for. Checked before any file is written.
arrow::Status CheckDeltaStorage(FileIO& io, const std::string& root) {
  ARROW_RETURN_NOT_OK(CheckSupportedLocation(root));
  return WithContext(io.CheckWriteIfAbsent(root + "/_delta_log/"),
                     "Delta table " + root +
                         ": floe commits Delta versions by a conditional write, and "
                         "cannot here");
}

// delta.dataSkippingNumIndexedCols and delta.dataSkippingStatsColumns of `configuration`
// into `options`. Stats columns are comma-separated, each a dotted path whose parts may
// be quoted in backticks (as Spark parses attribute names); malformed values are errors
// naming `where` and the property.
template <typename Map>
arrow::Status StatsOptions(const Map& configuration, const std::string& where,
                           DeltaWriteFormatOptions* options) {
  if (auto it = configuration.find("delta.dataSkippingNumIndexedCols");
      it != configuration.end()) {
    // delta-spark reads it with Integer.parseInt and accepts -1 (every column) or more.
    const std::optional<int32_t> count = ParseJavaInt(it->second);
    if (!count || *count < -1) {
      return MakeError(ErrorKind::kInvalidInput,
                       where +
                           " has a malformed delta.dataSkippingNumIndexedCols (an "
                           "integer of -1 or more)");
    }
    options->indexed_columns = *count;
  }
  auto it = configuration.find("delta.dataSkippingStatsColumns");
  if (it == configuration.end()) return arrow::Status::OK();
  std::vector<std::vector<std::string>> columns;
  std::vector<std::string> column;  // the name parts of the column being read
  std::string part;
  bool quoted = false;
  auto end_part = [&]() {
    auto first = part.find_first_not_of(' ');
    auto last = part.find_last_not_of(' ');
    std::string trimmed =
        first == std::string::npos ? "" : part.substr(first, last - first + 1);
    if (trimmed.size() >= 2 && trimmed.front() == '`' && trimmed.back() == '`') {
      trimmed = trimmed.substr(1, trimmed.size() - 2);
    }
    column.push_back(std::move(trimmed));
    part.clear();
  };
  for (char c : it->second + ",") {
    if (c == '`') quoted = !quoted;
    if (!quoted && c == '.') {
      end_part();
    } else if (!quoted && c == ',') {
      end_part();
      if (column.size() > 1 || !column.front().empty()) columns.push_back(column);
      column.clear();
    } else {
      part.push_back(c);
    }
  }
  if (quoted) {
    return MakeError(ErrorKind::kInvalidInput,
                     where +
                         " has a malformed delta.dataSkippingStatsColumns (a backtick "
                         "is not closed)");
  }
  options->stats_columns = std::move(columns);
  return arrow::Status::OK();
}

// The isolation level a table's data-changing commits take: delta.isolationLevel,
// Serializable when unset. WriteSerializable (Databricks' default, which delta-spark
// honours on a table that has it) lets a delete or overwrite commit past a concurrent
// blind append. Any other value gives InvalidInput.
template <typename Map>
arrow::Result<std::string> IsolationLevelOf(const Map& configuration) {
  auto it = configuration.find("delta.isolationLevel");
  if (it == configuration.end()) return std::string("Serializable");
  if (it->second == "Serializable" || it->second == "WriteSerializable")
    return it->second;
  return MakeError(ErrorKind::kInvalidInput,
                   "table property delta.isolationLevel takes Serializable or "
                   "WriteSerializable");
}

// The predicate fits the mode: none for an append, a non-blank one for a delete and for
// an overwrite given one (a compaction's predicate only chooses partitions:
// PlanCompaction).
arrow::Status CheckPredicate(const DeltaWriteOptions& options, const std::string& root) {
  const bool compact = options.mode == DeltaWriteMode::kCompact;
  const bool by_predicate = options.predicate.has_value() && !compact;
  if (options.predicate && TrimSpace(*options.predicate).empty() && !compact) {
    return MakeError(
        ErrorKind::kInvalidInput,
        std::string(options.mode == DeltaWriteMode::kOverwrite ? "an overwrite"
                                                               : "a delete") +
            " of Delta table " + root +
            " was given an empty predicate: nothing committed (" +
            (options.mode == DeltaWriteMode::kOverwrite
                 ? "to replace every row, give no predicate at all"
                 : "name the rows to delete") +
            ")");
  }
  if (options.mode == DeltaWriteMode::kDelete && !by_predicate) {
    return MakeError(
        ErrorKind::kInvalidInput,
        "a delete from Delta table " + root + " needs a predicate (the rows to delete)");
  }
  if (options.mode == DeltaWriteMode::kAppend && by_predicate) {
    return MakeError(ErrorKind::kInvalidInput,
                     "an append to Delta table " + root +
                         " takes no predicate; an overwrite with one replaces the rows "
                         "it selects");
  }
  return arrow::Status::OK();
}

// The data files' format for a write to `read`'s table: `*limited` made when the options
// set a memory limit (the caller keeps it alive as long as the format and its tasks).
arrow::Result<DeltaWriteFormatOptions> FormatOptionsFor(
    const std::shared_ptr<FileIO>& io, const std::string& root, const Snapshot& read,
    const std::shared_ptr<arrow::Schema>& schema, const DeltaWriteOptions& options,
    bool data_change, std::unique_ptr<LimitedMemoryPool>* limited) {
  Env* env = options.env;
  DeltaWriteFormatOptions format_options;
  format_options.table_root = root;
  format_options.io = io;
  format_options.schema = schema;
  format_options.partition_columns = read.metadata.partition_columns;
  format_options.operation_id = Uuid::Random(env).ToString();
  format_options.settings.codec = "snappy";  // Spark's and delta-rs's default
  format_options.target_file_size = options.target_file_size;
  format_options.modification_time_ms = env->NowMillis();
  format_options.data_change = data_change;
  // As an Iceberg write's plan budgets them: a task's open files buffer one row group's
  // worth (before, a Delta write had no budget without a memory limit and buffered a row
  // group per open partition).
  format_options.buffer_budget = format_options.settings.row_group_size_bytes;
  if (options.memory_limit > 0) {
    *limited = std::make_unique<LimitedMemoryPool>(arrow::default_memory_pool(),
                                                   options.memory_limit);
    format_options.pool = limited->get();
    // As an Iceberg write's plan shares it: half for the open files' buffered rows.
    format_options.buffer_budget = options.memory_limit / 2 / options.threads;
  }
  ARROW_RETURN_NOT_OK(
      StatsOptions(read.metadata.configuration, "Delta table " + root, &format_options));
  return format_options;
}

// The sizes of the add actions in `adds` (JSON lines).
std::vector<int64_t> AddedSizes(const std::string& adds) {
  std::vector<int64_t> sizes;
  std::istringstream lines(adds);
  for (std::string line; std::getline(lines, line);) {
    auto json = OJson::parse(line, nullptr, false);
    if (json.is_object() && json.contains("add"))
      sizes.push_back(json["add"].value("size", int64_t{0}));
  }
  return sizes;
}

arrow::Status CheckNewTableColumns(const arrow::Schema& schema) {
  if (schema.num_fields() == 0) {
    return MakeError(ErrorKind::kInvalidInput, "a Delta table needs at least one column");
  }
  std::set<std::string> lower;
  for (const auto& field : schema.fields()) {
    const std::string name = AsciiLower(field->name());
    if (!lower.insert(name).second) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "column names must differ ignoring case in Delta: " + field->name());
    }
  }
  return arrow::Status::OK();
}

// A new table's configuration from its properties, and the table features they ask for
// (delta.feature.<name>=supported) or imply (catalog-managed tables, in-commit
// timestamps) added to `*features`; *catalog_managed and *ict say whether it is
// catalog-managed and has in-commit timestamps.
arrow::Result<OJson> NewTableConfiguration(const CreateTableOptions& options,
                                           std::set<std::string>* features,
                                           bool* catalog_managed, bool* ict) {
  OJson configuration = OJson::object();
  for (const auto& [key, value] : options.properties) {
    if (key.rfind("delta.feature.", 0) == 0) {
      std::string feature = key.substr(14);
      if (value != "supported" && value != "enabled") {
        return MakeError(ErrorKind::kInvalidInput,
                         "table property " + key + " takes 'supported'");
      }
      if (WritableFeatures().count(feature) == 0) {
        return MakeError(ErrorKind::kNotSupported,
                         "floe does not write Delta table feature " + feature +
                             " (table property " + key + ")");
      }
      features->insert(feature);
      continue;
    }
    if (key.rfind("delta.", 0) == 0 && KnownProperties().count(key) == 0) {
      return MakeError(ErrorKind::kNotSupported,
                       "floe does not write Delta tables with table property " + key);
    }
    // delta-spark validates an interval property when it is set (validateConfigurations).
    if (key.ends_with("RetentionDuration")) {
      auto millis = IntervalPropertyMillis(key, value);
      if (!millis.ok()) {
        return MakeError(ErrorKind::kInvalidInput, millis.status().message());
      }
    }
    configuration[key] = value;
  }
  *catalog_managed = options.catalog_managed || features->count("catalogManaged") > 0 ||
                     features->count("catalogOwned-preview") > 0;
  if (*catalog_managed) {
    // The protocol makes in-commit timestamps mandatory on a catalog-managed table (a
    // published commit's mtime means nothing), and delta-spark pairs it with
    // vacuumProtocolCheck, as tables Spark creates in Unity Catalog show.
    auto ict_property = configuration.find("delta.enableInCommitTimestamps");
    if (ict_property != configuration.end() && *ict_property != "true") {
      return MakeError(ErrorKind::kInvalidInput,
                       "a catalog-managed Delta table needs in-commit timestamps: table "
                       "property delta.enableInCommitTimestamps must be true");
    }
    configuration["delta.enableInCommitTimestamps"] = "true";
    features->insert("catalogManaged");
    features->insert("vacuumProtocolCheck");
  }
  *ict = configuration.contains("delta.enableInCommitTimestamps") &&
         ParseJavaBoolean(
             configuration["delta.enableInCommitTimestamps"].get<std::string>());
  if (*ict) features->insert("inCommitTimestamp");
  return configuration;
}

// The protocol action of a new table with `features` (which gains the two that writer
// version 2 implied when there are any).
OJson NewTableProtocol(std::set<std::string>* features) {
  if (features->empty()) return {{"minReaderVersion", 1}, {"minWriterVersion", 2}};
  // Table features: reader version 3 lists the reader-writer ones, writer version 7
  // all, with the two that writer version 2 implied (as delta-spark lists them, so
  // delta.appendOnly and invariants still bind).
  features->insert("appendOnly");
  features->insert("invariants");
  OJson reader = OJson::array(), writer = OJson::array();
  for (const auto& feature : *features) {
    if (feature == "timestampNtz" || feature == "catalogManaged" ||
        feature == "vacuumProtocolCheck")
      reader.push_back(feature);
    writer.push_back(feature);
  }
  if (reader.empty()) {
    return {{"minReaderVersion", 1}, {"minWriterVersion", 7}, {"writerFeatures", writer}};
  }
  return {{"minReaderVersion", 3},
          {"minWriterVersion", 7},
          {"readerFeatures", reader},
          {"writerFeatures", writer}};
}

// A write that commits nothing: the version read stays the table's.
DeltaWriteResult Skipped(DeltaWriteResult result, const Snapshot& read) {
  result.skipped = true;
  result.version = read.version;
  return result;
}

// A compaction's bins of files, planned before any file is written; none (logged) when
// no partition has two or more files to compact.
arrow::Result<std::vector<std::vector<const AddFile*>>> CompactionBins(
    const Snapshot& read, const std::shared_ptr<arrow::Schema>& schema,
    const DeltaWriteOptions& options, const std::string& where) {
  if (options.min_file_size < 0 || options.target_file_size <= 0) {
    return MakeError(ErrorKind::kInvalidInput,
                     "a compaction of " + where +
                         " needs a positive maximum file size and a minimum file size "
                         "of 0 or more");
  }
  ARROW_ASSIGN_OR_RAISE(auto bins, PlanCompaction(read, schema, options, where));
  if (bins.empty()) {
    Log(LogLevel::kInfo, where +
                             ": no partition has two or more files to compact; no "
                             "version committed");
  }
  return bins;
}

// Whether an idempotent write's application already committed its version (logged);
// an error when only one of the application id and the version is given.
arrow::Result<bool> AlreadyCommitted(const Snapshot& read,
                                     const DeltaWriteOptions& options,
                                     const std::string& where) {
  const bool idempotent = options.app_version.has_value();
  if (idempotent != !options.app_id.empty()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "an idempotent write to " + where +
                         " needs both an application id and a version");
  }
  if (!idempotent) return false;
  auto done = read.app_versions.find(options.app_id);
  if (done == read.app_versions.end() || done->second < *options.app_version)
    return false;
  Log(LogLevel::kInfo, where + ": application " + options.app_id +
                           " already committed version " + std::to_string(done->second) +
                           "; nothing written");
  return true;
}

// A write by predicate (a delete, or a replaceWhere overwrite): the files the predicate
// matches, and the input that copies their rows it does not select and then, for an
// overwrite, reads the new rows.
struct Replacement {
  PredicateMatch match;
  std::unique_ptr<DeltaScan> rows_scan;  // reads the matched files' rows
  std::unique_ptr<PredicateInput> input;
};

arrow::Result<Replacement> Replace(const std::shared_ptr<FileIO>& io,
                                   const Snapshot& read,
                                   const std::shared_ptr<arrow::Schema>& schema,
                                   const DeltaWriteOptions& options,
                                   arrow::RecordBatchReader& input,
                                   const std::string& where) {
  Replacement replacement;
  ARROW_ASSIGN_OR_RAISE(replacement.match,
                        MatchPredicate(io, read, schema, *options.predicate));
  std::unique_ptr<arrow::RecordBatchReader> copied;
  if (!replacement.match.rewritten.empty()) {
    ARROW_ASSIGN_OR_RAISE(replacement.rows_scan,
                          DeltaScan::Make(io, read, DeltaScanOptions{}));
    ARROW_ASSIGN_OR_RAISE(copied,
                          replacement.rows_scan->ReadFiles(replacement.match.rewritten));
  }
  replacement.input = std::make_unique<PredicateInput>(
      std::move(copied), replacement.match.filter.get(),
      options.mode == DeltaWriteMode::kOverwrite ? &input : nullptr,
      arrow::schema(schema->fields()), where);
  return replacement;
}

// Finishes every task: the add actions of their files (JSON lines) into `*adds`, every
// location they wrote into `*written`.
arrow::Status FinishTasks(const std::vector<std::unique_ptr<WriteTask>>& tasks,
                          std::string* adds, std::vector<std::string>* written) {
  for (const auto& task : tasks) {
    ARROW_ASSIGN_OR_RAISE(std::string message, task->Finish());
    ARROW_ASSIGN_OR_RAISE(TaskCommit decoded, DecodeTaskCommit(message));
    *adds += decoded.files;
    written->insert(written->end(), decoded.locations.begin(), decoded.locations.end());
  }
  return arrow::Status::OK();
}

// The second half of a write: finishes the tasks, makes their files durable, and commits
// them with the remove actions of what they replace (`matched`, a compaction's `bins`,
// or every file read) as `txn` (whose read, options and flags are set) says, then
// checkpoints when due. A compaction whose files held no rows commits nothing.
arrow::Status CommitTasks(const std::vector<std::unique_ptr<WriteTask>>& tasks,
                          const std::vector<const AddFile*>& matched,
                          const std::vector<std::vector<const AddFile*>>& bins,
                          WriteTransaction* txn, DeltaWriteResult* result) {
  ARROW_RETURN_NOT_OK(FinishTasks(tasks, &txn->adds, &txn->written));
  // The tasks closed (fsynced) their files; their names are durable before any log entry
  // names them (docs/storage.md, "Durability").
  ARROW_RETURN_NOT_OK(SyncNewFiles(*txn->io, txn->written));
  auto acknowledge = [&tasks] {
    for (const auto& task : tasks) task->Acknowledge();
  };
  for (char c : txn->adds) result->files_added += c == '\n' ? 1 : 0;
  txn->added_sizes = AddedSizes(txn->adds);
  for (int64_t size : txn->added_sizes) result->bytes += size;
  if (txn->compact && txn->added_sizes.empty()) {
    // Every compacted file was empty: delta-spark's OPTIMIZE commits only when it wrote a
    // file, and so does floe (the empty files stay).
    Log(LogLevel::kInfo,
        txn->where + ": the files to compact hold no rows; no version committed");
    *result = Skipped(*result, *txn->read);
    return arrow::Status::OK();
  }
  if (!txn->blind_append) {
    std::vector<const AddFile*> removed = matched;
    if (!bins.empty()) {
      for (const auto& bin : bins) removed.insert(removed.end(), bin.begin(), bin.end());
    } else if (!txn->by_predicate) {
      for (const auto& file : txn->read->files) removed.push_back(&file);
    }
    txn->removes = MakeRemoveActions(removed, txn->env->NowMillis(),
                                     /*data_change=*/!txn->compact);
    result->files_removed = txn->removes.count;
  }
  for (const auto& bin : bins) {
    for (const AddFile* file : bin) txn->compacted.insert(file->location);
  }
  ARROW_RETURN_NOT_OK(CommitTransaction(*txn, acknowledge, result));
  CheckpointIfDue(*txn, result);
  return arrow::Status::OK();
}

// A new table's version 0 but its commitInfo: its protocol and metaData actions (JSON
// lines) and the same as a snapshot holds them, for CreateTable and a write that creates
// the table it writes (DeltaWriteOptions::create_if_missing).
struct NewTable {
  std::string actions;
  Protocol protocol;
  Metadata metadata;
  bool ict = false;     // in-commit timestamps
  OJson configuration;  // metaData.configuration
};

Protocol ProtocolOf(const OJson& json) {
  Protocol protocol;
  protocol.min_reader_version = json.at("minReaderVersion").get<int>();
  protocol.min_writer_version = json.at("minWriterVersion").get<int>();
  if (json.contains("readerFeatures")) {
    protocol.reader_features = json.at("readerFeatures").get<std::vector<std::string>>();
  }
  if (json.contains("writerFeatures")) {
    protocol.writer_features = json.at("writerFeatures").get<std::vector<std::string>>();
  }
  return protocol;
}

// Validates a new table's columns, partition columns and properties, and makes its
// protocol and metadata (created at `now`).
arrow::Result<NewTable> MakeNewTable(const std::string& root, const arrow::Schema& schema,
                                     const CreateTableOptions& options, int64_t now) {
  ARROW_RETURN_NOT_OK(CheckNewTableColumns(schema));
  ARROW_ASSIGN_OR_RAISE(std::string schema_string, SchemaToJson(schema));
  // Partition columns: validated by the write format's own rules.
  DeltaWriteFormatOptions check;
  check.schema = std::make_shared<arrow::Schema>(schema);
  check.partition_columns = options.partition_columns;
  check.table_root = root;
  ARROW_RETURN_NOT_OK(
      StatsOptions(options.properties, "the new table at " + root, &check));
  ARROW_RETURN_NOT_OK(IsolationLevelOf(options.properties).status());
  ARROW_RETURN_NOT_OK(DeltaWriteFormat::Make(std::move(check)).status());

  std::set<std::string> features;
  if (HasNtz(*arrow::struct_(schema.fields()))) features.insert("timestampNtz");
  bool catalog_managed = false;
  NewTable table;
  ARROW_ASSIGN_OR_RAISE(
      table.configuration,
      NewTableConfiguration(options, &features, &catalog_managed, &table.ict));
  const OJson protocol = NewTableProtocol(&features);
  OJson metadata = {{"id", options.table_id.empty() ? Uuid::Random(options.env).ToString()
                                                    : options.table_id}};
  if (!options.name.empty()) metadata["name"] = options.name;
  if (!options.description.empty()) metadata["description"] = options.description;
  metadata["format"] = {{"provider", "parquet"}, {"options", OJson::object()}};
  metadata["schemaString"] = schema_string;
  metadata["partitionColumns"] = options.partition_columns;
  metadata["configuration"] = table.configuration;
  metadata["createdTime"] = now;
  table.actions =
      Dump({{"protocol", protocol}}) + "\n" + Dump({{"metaData", metadata}}) + "\n";
  table.protocol = ProtocolOf(protocol);
  table.metadata.id = metadata["id"].get<std::string>();
  table.metadata.name = options.name;
  table.metadata.description = options.description;
  table.metadata.schema_string = schema_string;
  table.metadata.partition_columns = options.partition_columns;
  for (const auto& [key, value] : table.configuration.items()) {
    table.metadata.configuration[key] = value.get<std::string>();
  }
  table.metadata.created_time_ms = now;
  return table;
}

std::string Listed(const std::vector<std::string>& names) {
  return "[" + JoinText(names) + "]";
}

// The snapshot a write reads: the table's latest; or, with create_if_missing and no table
// at `root`, the new table's (version -1: its protocol and metadata, no file), its
// version 0's protocol and metaData actions in `*created`.
arrow::Result<Snapshot> ReadOrCreate(FileIO& io, const std::string& root,
                                     Committer& committer, const arrow::Schema& input,
                                     const DeltaWriteOptions& options,
                                     std::optional<NewTable>* created) {
  const auto& create = options.create_if_missing;
  if (create) {
    if (options.mode != DeltaWriteMode::kAppend &&
        options.mode != DeltaWriteMode::kOverwrite) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "only an append or an overwrite creates the Delta table it writes");
    }
    ARROW_ASSIGN_OR_RAISE(bool exists, IsDeltaTable(io, root));
    if (!exists) {
      if (create->catalog_managed) {
        return MakeError(ErrorKind::kInvalidInput,
                         "a catalog-managed Delta table is created through its catalog, "
                         "not by a write to " +
                             root);
      }
      CreateTableOptions create_options = *create;
      create_options.env = options.env;  // the write's machine names and dates the table
      ARROW_ASSIGN_OR_RAISE(NewTable table, MakeNewTable(root, input, create_options,
                                                         options.env->NowMillis()));
      *created = std::move(table);
      Snapshot snapshot;
      snapshot.table_root = root;
      snapshot.protocol = (*created)->protocol;
      snapshot.metadata = (*created)->metadata;
      return snapshot;
    }
  }
  // A catalog-managed table's log is the published files plus its catalog's tail.
  SnapshotOptions read_options;
  ARROW_ASSIGN_OR_RAISE(read_options.tail, committer.Tail());
  ARROW_ASSIGN_OR_RAISE(Snapshot read, LoadSnapshot(io, root, read_options));
  if (create && !create->properties.empty()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "table properties apply to the table a write creates; Delta table " +
                         root + " exists");
  }
  // As write_deltalake: partition columns asked for must be the table's.
  if (create && !create->partition_columns.empty() &&
      create->partition_columns != read.metadata.partition_columns) {
    return MakeError(ErrorKind::kInvalidInput,
                     "Delta table " + root + " is partitioned by " +
                         Listed(read.metadata.partition_columns) + ", not " +
                         Listed(create->partition_columns) + " as the write asks");
  }
  return read;
}

}  // namespace

arrow::Result<int64_t> CreateTable(const std::shared_ptr<FileIO>& io,
                                   const std::string& table_root,
                                   const arrow::Schema& schema,
                                   const CreateTableOptions& options) {
  const std::string root = StripTrailingSlash(table_root);
  ARROW_RETURN_NOT_OK(CheckDeltaStorage(*io, root));
  ARROW_ASSIGN_OR_RAISE(bool exists, IsDeltaTable(*io, root));
  if (exists) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "a Delta table already exists at " + root);
  }
  Env* env = options.env;
  const int64_t now = env->NowMillis();
  ARROW_ASSIGN_OR_RAISE(NewTable table, MakeNewTable(root, schema, options, now));
  // With in-commit timestamps, delta-spark writes inCommitTimestamp first and the same
  // value as timestamp.
  OJson commit_info = OJson::object();
  if (table.ict) commit_info["inCommitTimestamp"] = now;
  commit_info["timestamp"] = now;
  commit_info.update(OJson{{"operation", "CREATE TABLE"},
                           {"operationParameters",
                            {{"isManaged", "false"},
                             {"description", options.description},
                             {"partitionBy", PartitionByText(options.partition_columns)},
                             {"properties", Dump(table.configuration)}}},
                           {"isolationLevel", "Serializable"},
                           {"isBlindAppend", true},
                           {"operationMetrics", OJson::object()},
                           {"engineInfo", EngineInfo()},
                           {"txnId", Uuid::Random(env).ToString()}});
  std::string text = Dump({{"commitInfo", commit_info}}) + "\n" + table.actions;
  auto committer = CommitterOr(options.committer, io);
  CommitMetadata commit(root, 0, CommitTypeOf(table.protocol, /*create=*/true), now, -1,
                        env);
  auto response = committer->Commit(text, commit);
  ARROW_RETURN_NOT_OK(response.status());
  if (std::holds_alternative<Conflict>(*response)) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "a Delta table was created at " + root + " by another writer first");
  }
  return 0;
}

arrow::Status CheckWritable(const Snapshot& snapshot, DeltaWriteMode mode) {
  std::vector<std::string> reasons;
  const Protocol& protocol = snapshot.protocol;
  if (protocol.min_writer_version > 7) {
    reasons.push_back("writer version " + std::to_string(protocol.min_writer_version) +
                      " (newer than the Delta protocol floe knows)");
  } else if (protocol.min_writer_version == 7) {
    for (const auto& feature :
         protocol.writer_features.value_or(std::vector<std::string>())) {
      if (WritableFeatures().count(feature) == 0)
        reasons.push_back("writer feature " + feature);
    }
  } else {
    // Legacy versions name their features by number (PROTOCOL.md's requirements table):
    // each requires what it introduced and everything below it.
    static constexpr const char* kIntroduced[] = {
        "",
        "",
        "",
        "CHECK constraints",
        "change data feed and generated columns",
        "column mapping",
        "identity columns"};
    std::string features;
    for (int version = 3; version <= protocol.min_writer_version; ++version) {
      features += (features.empty() ? "" : ", ") + std::string(kIntroduced[version]);
    }
    if (!features.empty()) {
      reasons.push_back("writer version " + std::to_string(protocol.min_writer_version) +
                        " (which requires " + features + ")");
    }
  }
  for (const auto& [key, value] : snapshot.metadata.configuration) {
    // delta.constraints.* (CHECK constraints) among them.
    if (key.rfind("delta.", 0) == 0 && KnownProperties().count(key) == 0) {
      reasons.push_back("table property " + key);
    }
  }
  if (!IsolationLevelOf(snapshot.metadata.configuration).ok()) {
    reasons.emplace_back(
        "table property delta.isolationLevel (floe writes at Serializable and "
        "WriteSerializable only)");
  }
  auto append_only = snapshot.metadata.configuration.find("delta.appendOnly");
  // A compaction's removes change no data: delta-spark allows them on an append-only
  // table (DeltaLog.assertRemovable binds removes with dataChange true).
  if (mode != DeltaWriteMode::kAppend && mode != DeltaWriteMode::kCompact &&
      append_only != snapshot.metadata.configuration.end() &&
      // delta-spark reads it with Scala's toBoolean: "TRUE" is append-only too.
      ParseJavaBoolean(append_only->second)) {
    reasons.emplace_back(
        "table property delta.appendOnly (an overwrite or a delete removes "
        "files)");
  }
  auto schema = SchemaFromJson(snapshot.metadata.schema_string);
  if (!schema.ok()) {
    reasons.push_back(schema.status().message());
  } else {
    for (const auto& field : (*schema)->fields()) {
      for (const char* key : {"delta.generationExpression", "delta.identity.",
                              "delta.invariants", "delta.columnMapping."}) {
        if (HasFieldMetadata(*field, key)) {
          reasons.push_back(std::string("column metadata ") + key + " (column " +
                            field->name() + ")");
        }
      }
    }
  }
  if (reasons.empty()) return arrow::Status::OK();
  std::string listed;
  for (const auto& reason : reasons) listed += (listed.empty() ? "" : "; ") + reason;
  return MakeDeclinedError(
      "floe declines to write Delta table " + snapshot.table_root +
          ", whose protocol or properties it does not write exactly as "
          "Delta writers do: " +
          listed,
      std::move(reasons));
}

arrow::Result<DeltaWriteResult> Write(const std::shared_ptr<FileIO>& io,
                                      const std::string& table_root,
                                      arrow::RecordBatchReader& input,
                                      const DeltaWriteOptions& given) {
  const std::string root = StripTrailingSlash(table_root);
  Env* env = given.env;
  ARROW_RETURN_NOT_OK(CheckDeltaStorage(*io, root));
  if (given.threads < 0 || given.threads > kMaxWriteThreads) {
    return MakeError(ErrorKind::kInvalidInput, "a write to Delta table " + root +
                                                   " runs 1 to " +
                                                   std::to_string(kMaxWriteThreads) +
                                                   " tasks (0: one per core), not " +
                                                   std::to_string(given.threads));
  }
  // The task count resolved: the default is one per core, joining in as the input grows.
  DeltaWriteOptions options = given;
  const int64_t rows_per_task = given.threads == 0 ? kDefaultTaskRows : 0;
  if (given.threads == 0) options.threads = DefaultWriteTasks(given.memory_limit);
  auto committer = CommitterOr(options.committer, io);
  std::optional<NewTable> created;
  ARROW_ASSIGN_OR_RAISE(Snapshot read, ReadOrCreate(*io, root, *committer,
                                                    *input.schema(), options, &created));
  const bool compact = options.mode == DeltaWriteMode::kCompact;
  ARROW_RETURN_NOT_OK(CheckPredicate(options, root));
  const bool by_predicate = options.predicate.has_value() && !compact;
  if (options.mode != DeltaWriteMode::kAppend) ARROW_RETURN_NOT_OK(CheckReadable(read));
  const CommitType commit_type = CommitTypeOf(read.protocol, created.has_value());
  ARROW_RETURN_NOT_OK(ValidateCommitType(*committer, commit_type, root));
  ARROW_RETURN_NOT_OK(CheckWritable(read, options.mode));
  ARROW_ASSIGN_OR_RAISE(auto schema, SchemaFromJson(read.metadata.schema_string));
  const std::string where = "Delta table " + root;
  DeltaWriteResult result;
  const bool idempotent = options.app_version.has_value();
  ARROW_ASSIGN_OR_RAISE(bool committed_before, AlreadyCommitted(read, options, where));
  if (committed_before) return Skipped(result, read);

  if (options.memory_limit < 0) {
    return MakeError(ErrorKind::kInvalidInput,
                     "a write's memory limit is 0 (none) or more bytes, not " +
                         std::to_string(options.memory_limit));
  }
  // Declared before the format and the tasks, which allocate from it.
  std::unique_ptr<LimitedMemoryPool> limited;
  ARROW_ASSIGN_OR_RAISE(DeltaWriteFormatOptions format_options,
                        FormatOptionsFor(io, root, read, schema, options,
                                         /*data_change=*/!compact, &limited));
  // A compaction's bins, planned before any file is written.
  std::vector<std::vector<const AddFile*>> bins;
  if (compact) {
    ARROW_ASSIGN_OR_RAISE(bins, CompactionBins(read, schema, options, where));
    if (bins.empty()) return Skipped(result, read);
  }
  // A predicate's files, found before any file is written.
  Replacement replacement;
  const PredicateMatch& match = replacement.match;
  if (by_predicate) {
    ARROW_ASSIGN_OR_RAISE(replacement, Replace(io, read, schema, options, input, where));
    result.rows_deleted = match.rows_deleted;
    if (options.mode == DeltaWriteMode::kDelete && match.removed.empty()) {
      Log(LogLevel::kInfo, where + ": no row matches " + *options.predicate +
                               "; nothing deleted, no version committed");
      return Skipped(result, read);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto format, DeltaWriteFormat::Make(std::move(format_options)));
  std::vector<std::unique_ptr<WriteTask>> tasks;
  if (compact) {
    ARROW_ASSIGN_OR_RAISE(
        tasks, CompactBins(format, io, read, bins, schema, where, options, &result));
  } else {
    PredicateInput* replaced = replacement.input.get();
    ARROW_ASSIGN_OR_RAISE(tasks, RunTasks(format, replaced ? *replaced : input, schema,
                                          !read.metadata.partition_columns.empty(), where,
                                          options, rows_per_task, &result));
    if (replaced) {
      result.rows_copied = replaced->rows_copied();
      result.rows -= result.rows_copied;
    }
  }
  WriteTransaction txn;
  txn.io = io;
  txn.committer = committer;
  txn.root = root;
  txn.where = where;
  txn.read = &read;
  txn.commit_type = commit_type;
  txn.env = env;
  txn.options = &options;
  ARROW_ASSIGN_OR_RAISE(txn.isolation, IsolationLevelOf(read.metadata.configuration));
  txn.compact = compact;
  txn.by_predicate = by_predicate;
  txn.blind_append = options.mode == DeltaWriteMode::kAppend;
  txn.idempotent = idempotent;
  txn.filter = match.filter.get();
  txn.files_read = &match.read;
  if (created) txn.create_actions = created->actions;
  ARROW_RETURN_NOT_OK(CommitTasks(tasks, match.removed, bins, &txn, &result));
  return result;
}

arrow::Result<DeltaWriteResult> Compact(const std::shared_ptr<FileIO>& io,
                                        const std::string& table_root,
                                        const DeltaCompactOptions& options) {
  DeltaWriteOptions write;
  write.mode = DeltaWriteMode::kCompact;
  if (!options.predicate.empty()) write.predicate = options.predicate;
  write.min_file_size = options.min_file_size;
  write.target_file_size = options.max_file_size;
  write.threads = options.threads;
  write.memory_limit = options.memory_limit;
  write.max_attempts = options.max_attempts;
  write.committer = options.committer;
  write.write_checkpoints = options.write_checkpoints;
  write.env = options.env;
  auto none = arrow::RecordBatchReader::Make({}, arrow::schema({}));
  if (!none.ok()) return none.status();
  return Write(io, table_root, **none, write);
}

}  // namespace floe::delta
