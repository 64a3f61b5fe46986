#include "floe/iceberg/table/table.h"

#include <algorithm>

#include "floe/iceberg/commit/committer.h"
#include "floe/iceberg/commit/fast_append.h"
#include "floe/iceberg/spec/location_provider.h"
#include "floe/iceberg/table/file_ownership.h"
#include "floe/task/write_driver.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/test_hooks_internal.h"

namespace floe::iceberg {

Table::Table(std::shared_ptr<Catalog> catalog, TableIdentifier id, TableState state,
             std::shared_ptr<FileIO> io)
    : catalog_(std::move(catalog)),
      id_(std::move(id)),
      state_(std::move(state)),
      io_(std::move(io)) {}

arrow::Result<std::shared_ptr<Table>> Table::Load(std::shared_ptr<Catalog> catalog,
                                                  const TableIdentifier& id) {
  ARROW_ASSIGN_OR_RAISE(auto state, catalog->LoadTable(id));
  ARROW_ASSIGN_OR_RAISE(auto io, catalog->TableIO(id, state));
  return std::make_shared<Table>(std::move(catalog), id, std::move(state), std::move(io));
}

arrow::Result<std::shared_ptr<Table>> Table::Create(std::shared_ptr<Catalog> catalog,
                                                    const TableIdentifier& id,
                                                    const CreateTableOptions& options) {
  if (!options.schema)
    return MakeError(ErrorKind::kInvalidInput, "a new table needs a schema");
  // An existing table is AlreadyExists, whatever its folder holds (the location check
  // below would otherwise report the table's own files).
  auto existing = catalog->LoadTable(id);
  if (existing.ok()) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "table '" + id.ToString() + "' already exists");
  }
  std::string location = options.location;
  if (location.empty()) {
    ARROW_ASSIGN_OR_RAISE(location, catalog->DefaultTableLocation(id));
  }
  auto spec = options.spec ? options.spec : PartitionSpec::Unpartitioned();
  auto order = options.sort_order ? options.sort_order : SortOrder::Unsorted();
  ARROW_ASSIGN_OR_RAISE(auto metadata,
                        NewTableMetadata(*options.schema, *spec, *order, location,
                                         options.properties, catalog->env()));
  // Nothing may already be where the new table's files go, nor overlap another table's.
  bool check_after_create = false;
  ARROW_RETURN_NOT_OK(CheckNewTableLocation(catalog, id, *metadata, &check_after_create));
  ARROW_ASSIGN_OR_RAISE(auto state, catalog->CreateTable(id, *metadata));
  ARROW_ASSIGN_OR_RAISE(auto io, catalog->TableIO(id, state));
  if (check_after_create) {
    // A catalog that vends each table's storage: its folders are listed with the
    // table's credentials, now that it has them. Dropping from such a catalog (REST)
    // never deletes files.
    arrow::Status empty = CheckNewTableFoldersEmpty(*io, id, state);
    if (!empty.ok()) {
      arrow::Status dropped = catalog->DropTable(id);
      if (!dropped.ok()) {
        return MakeError(ErrorKind::kInvalidInput,
                         empty.message() +
                             "; the table, created meanwhile, could not "
                             "be dropped again: " +
                             dropped.message());
      }
      return empty;
    }
  }
  return std::make_shared<Table>(std::move(catalog), id, std::move(state), std::move(io));
}

arrow::Status Table::Refresh() {
  ARROW_ASSIGN_OR_RAISE(state_, catalog_->LoadTable(id_));
  return arrow::Status::OK();
}

GateResult Table::ExplainWrite(const PropertyMap& options) const {
  return CheckWrite(*state_.metadata, options);
}

arrow::Result<std::unique_ptr<TableScan>> Table::NewScan(ScanOptions options) const {
  return TableScan::Make(io(), state_.metadata, std::move(options));
}

arrow::Status Table::Declined(const GateResult& gate, std::string_view what) const {
  if (gate.supported()) return arrow::Status::OK();
  return MakeDeclinedError("floe declines to " + std::string(what) + " table " +
                               id_.ToString() + ": " + gate.ToString(),
                           gate.reasons);
}

arrow::Status Table::CheckGate(const PropertyMap& options) const {
  // Nothing can be committed to a read-only catalog: say so before any file is written.
  ARROW_RETURN_NOT_OK(
      WithContext(catalog_->CheckWritable(), "cannot write table " + id_.ToString()));
  return Declined(CheckWrite(*state_.metadata, options), "write");
}

arrow::Result<AppendResult> Table::Append(arrow::RecordBatchReader& input,
                                          const AppendOptions& options) {
  ARROW_RETURN_NOT_OK(CheckGate(options.options));
  const WriteOperation operation = options.replace_partitions
                                       ? WriteOperation::kDynamicOverwrite
                                       : WriteOperation::kAppend;
  ARROW_ASSIGN_OR_RAISE(
      auto producer, NewProducer(operation, options.options, current_snapshot_id(), ""));
  // An append of no rows commits a snapshot, as iceberg-java's Spark writer and
  // pyiceberg do; a dynamic overwrite of none does not (iceberg-java's Spark writer:
  // "Dynamic overwrite is empty, skipping commit").
  return Write(input, options, std::move(producer),
               /*commit_if_empty=*/operation == WriteOperation::kAppend, nullptr);
}

arrow::Result<std::unique_ptr<SnapshotProducer>> Table::NewProducer(
    WriteOperation operation, const PropertyMap& options,
    std::optional<int64_t> read_snapshot_id, const std::string& row_filter) const {
  if (!row_filter.empty() && operation != WriteOperation::kOverwriteByFilter &&
      operation != WriteOperation::kAbortOnly) {
    return MakeError(ErrorKind::kInvalidInput,
                     "a plan with a row filter commits as an overwrite by filter");
  }
  switch (operation) {
    case WriteOperation::kAppend:
      // table.newAppend() as iceberg-java's Spark writer commits it: a merge append.
      return std::make_unique<FastAppend>(commit_target(), /*merge=*/true);
    case WriteOperation::kAbortOnly:
      return std::make_unique<FastAppend>(commit_target(), /*merge=*/false);
    case WriteOperation::kDynamicOverwrite:
    case WriteOperation::kOverwriteByFilter:
      break;
  }
  std::string level = properties::kIsolationLevelOption.Get(options);
  ARROW_ASSIGN_OR_RAISE(auto isolation, ParseIsolationLevel(level, "isolation-level"));
  auto overwrite = NewOverwrite(isolation, nullptr, read_snapshot_id);
  if (operation == WriteOperation::kDynamicOverwrite) {
    overwrite->ReplacePartitions();
  } else if (row_filter.empty()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "an overwrite by filter needs a plan made with a row filter");
  } else {
    ARROW_RETURN_NOT_OK(
        DeleteFilesMatching(row_filter, overwrite.get(), nullptr).status());
  }
  return overwrite;
}

arrow::Result<std::shared_ptr<const WritePlan>> Table::PlanWrite(
    const PropertyMap& options, WritePlanOptions plan_options) const {
  ARROW_RETURN_NOT_OK(CheckGate(options));
  // A conflict an overwrite by filter cannot resolve fails now, before any task runs.
  if (!plan_options.row_filter.empty()) {
    ARROW_RETURN_NOT_OK(DeleteFilesMatching(plan_options.row_filter, nullptr, nullptr));
  }
  plan_options.env = commit_target().env;
  return WritePlan::Make(*state_.metadata, options, plan_options);
}

arrow::Result<std::unique_ptr<Committer>> Table::NewCommitter(
    const WritePlan& plan, WriteOperation operation) const {
  // Tasks of another table's plan wrote under that table's location: committing their
  // files here would make this table reference another's files.
  if (plan.table_location != state_.metadata->location) {
    return MakeError(ErrorKind::kInvalidInput,
                     "the write plan is for the table at " + plan.table_location +
                         ", not " + id_.ToString() + " at " + state_.metadata->location);
  }
  ARROW_ASSIGN_OR_RAISE(
      auto producer,
      NewProducer(operation, plan.properties, plan.base_snapshot_id, plan.row_filter));
  // One plan may serve several committers; its files are committed at most once.
  producer->RefuseFilesCommittedSince(plan.base_snapshot_id);
  auto committer = std::make_unique<Committer>(
      std::move(producer), state_,
      LocationProvider(plan.table_location, plan.properties).data_location());
  if (operation == WriteOperation::kAbortOnly) committer->AbortOnly();
  // Tasks of a split write run elsewhere and may die without a word, or lose a race
  // to a speculative twin: their files are found by the write's operation id.
  committer->DeleteUnreportedFiles(
      plan.operation_id,
      [io = io_](const TableState& state) -> arrow::Result<std::set<std::string>> {
        ARROW_ASSIGN_OR_RAISE(auto files, ReadReferencedFiles(*io, state));
        return std::move(files.all);
      });
  return committer;
}

std::optional<int64_t> Table::current_snapshot_id() const {
  if (auto current = state_.metadata->CurrentSnapshot()) return current->snapshot_id;
  return std::nullopt;
}

std::unique_ptr<OverwriteFiles> Table::NewOverwrite(IsolationLevel isolation,
                                                    ExpressionPtr conflict_filter) const {
  return NewOverwrite(isolation, std::move(conflict_filter), current_snapshot_id());
}

std::unique_ptr<OverwriteFiles> Table::NewOverwrite(
    IsolationLevel isolation, ExpressionPtr conflict_filter,
    std::optional<int64_t> read_snapshot_id) const {
  auto overwrite = std::make_unique<OverwriteFiles>(commit_target());
  overwrite->ValidateFromSnapshot(read_snapshot_id);
  if (conflict_filter) {
    overwrite->ConflictDetectionFilter(std::move(conflict_filter),
                                       state_.metadata->CurrentSchema());
  }
  if (isolation == IsolationLevel::kSerializable) overwrite->ValidateNoConflictingData();
  overwrite->ValidateNoConflictingDeletes();
  return overwrite;
}

arrow::Result<AppendResult> Table::Write(arrow::RecordBatchReader& input,
                                         const AppendOptions& options,
                                         std::unique_ptr<SnapshotProducer> producer,
                                         bool commit_if_empty, const RowCheck& check_rows,
                                         bool row_lineage) {
  // Plan time: the gate ran; now everything the tasks need. Nothing is written yet.
  WritePlanOptions plan_options;
  plan_options.input_clustered = options.input_clustered;
  plan_options.tasks = options.threads == 0 ? DefaultWriteTasks(options.memory_limit)
                                            : std::max(1, options.threads);
  plan_options.memory_limit = options.memory_limit;
  plan_options.env = commit_target().env;
  plan_options.row_lineage = row_lineage;
  ARROW_ASSIGN_OR_RAISE(auto plan,
                        WritePlan::Make(*state_.metadata, options.options, plan_options));
  Committer committer(
      std::move(producer), state_,
      LocationProvider(plan->table_location, plan->properties).data_location());
  WriteJobOptions job_options;
  job_options.threads = plan_options.tasks;
  if (options.threads == 0) job_options.rows_per_task = kDefaultTaskRows;
  job_options.memory_limit = options.memory_limit;
  job_options.progress = options.progress;
  job_options.check_rows = check_rows;
  job_options.env = catalog_->env();
  WriteJob job(plan, io_, &committer, id_.ToString(), std::move(job_options));
  ARROW_ASSIGN_OR_RAISE(auto written, job.Run(input));
  TestPausePoint("commit");
  // The last moment a signal can stop the write: the commit either happens or not.
  if (CancelRequested()) {
    committer.Abort();
    return job.CancelledError();
  }
  AppendResult result;
  result.rows = written.rows;
  result.data_files = committer.files();
  if (!commit_if_empty && result.data_files == 0) {
    committer.Abort();
    result.committed = false;
    return result;
  }
  ARROW_ASSIGN_OR_RAISE(result.commit, committer.Commit());
  state_ = result.commit.state;
  return result;
}

}  // namespace floe::iceberg
