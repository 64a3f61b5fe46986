// floe._floe.Table (and WriteArgs, the options every write takes): an Iceberg table's
// metadata, writes, row-level changes, maintenance, scans, and the table's side of the
// split write (planning it and making its committer).
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bindings_internal.h"
#include "floe/iceberg/gate/gate.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/iceberg/table/maintenance.h"
#include "floe/iceberg/table/orphan_files.h"
#include "floe/iceberg/table/table.h"
#include "floe/iceberg/write/write_plan.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"

using namespace nb::literals;

namespace floe::python {

// ---- Results as dicts (the Python layer makes its result objects of them) -------------

nb::dict CommitDict(const iceberg::CommitReport& commit) {
  nb::dict out;
  if (commit.snapshot) {
    out["snapshot_id"] = commit.snapshot->snapshot_id;
    out["operation"] = commit.snapshot->summary.operation;
    out["sequence_number"] = commit.snapshot->sequence_number;
  }
  out["attempts"] = commit.attempts;
  out["metadata_location"] = commit.state.metadata_location;
  return out;
}

namespace {

nb::dict AppendDict(const iceberg::AppendResult& result) {
  nb::dict out;
  out["committed"] = result.committed;
  out["rows"] = result.rows;
  out["data_files"] = result.data_files;
  if (result.committed) out["commit"] = CommitDict(result.commit);
  return out;
}

nb::dict RowLevelDict(const iceberg::RowLevelResult& result) {
  nb::dict out;
  out["committed"] = result.committed;
  out["files_removed"] = result.files_removed;
  out["files_rewritten"] = result.files_rewritten;
  out["rows_removed"] = result.rows_removed;
  out["delete_files"] = result.delete_files_written;
  out["delete_files_removed"] = result.delete_files_removed;
  out["rows_updated"] = result.rows_updated;
  out["rows_inserted"] = result.rows_inserted;
  out["rows"] = result.rows_written;
  out["data_files"] = result.data_files_written;
  if (result.committed) out["commit"] = CommitDict(result.commit);
  return out;
}

iceberg::WriteOperation ParseOperation(const std::string& operation) {
  if (operation == "append") return iceberg::WriteOperation::kAppend;
  if (operation == "dynamic-overwrite") return iceberg::WriteOperation::kDynamicOverwrite;
  if (operation == "overwrite") return iceberg::WriteOperation::kOverwriteByFilter;
  if (operation == "abort-only") return iceberg::WriteOperation::kAbortOnly;
  Throw(
      MakeError(ErrorKind::kInvalidInput,
                "operation must be 'append', 'dynamic-overwrite' or 'overwrite', not '" +
                    operation + "'"));
}

iceberg::AppendOptions ToAppendOptions(const WriteArgs& args) {
  iceberg::AppendOptions options;
  options.options = args.options;
  options.threads = args.threads;
  options.memory_limit = args.memory_limit;
  return options;
}

}  // namespace

// ---- Table ----------------------------------------------------------------------------

std::string PyTable::Identifier() const { return table_->id().ToString(); }
std::vector<std::string> PyTable::NamespaceLevels() const { return table_->id().ns; }
std::string PyTable::Name() const { return table_->id().name; }
std::string PyTable::MetadataJson() {
  return iceberg::TableMetadataToJson(*State().metadata);
}
std::string PyTable::MetadataLocation() { return State().metadata_location; }
nb::capsule PyTable::Schema() {
  return ExportSchema(*Unwrap(ToArrowSchema(*State().metadata->CurrentSchema())));
}
void PyTable::Refresh() {
  Locked([&] {
    Check(table_->Refresh());
    return 0;
  });
}

std::pair<std::vector<std::string>, nb::dict> PyTable::ExplainWrite(
    const std::map<std::string, std::string>& options) {
  auto [gate, plan] = Locked([&] {
    iceberg::GateResult gate = table_->ExplainWrite(options);
    std::shared_ptr<const iceberg::WritePlan> plan;
    if (gate.supported())
      plan = Unwrap(iceberg::WritePlan::Make(*table_->metadata(), options));
    return std::make_pair(gate, plan);
  });
  nb::dict facts;
  if (plan) {
    facts["mode"] = std::string(WriterModeName(plan->mode));
    facts["distribution"] = std::string(iceberg::DistributionName(plan->distribution));
    facts["sorts_rows"] = plan->sorts_rows();
    facts["target_file_size_bytes"] = plan->target_file_size_bytes;
    facts["row_group_size_bytes"] = plan->parquet.row_group_size_bytes;
    facts["page_size_bytes"] = plan->parquet.page_size_bytes;
    facts["page_row_limit"] = plan->parquet.page_row_limit;
    facts["codec"] = plan->parquet.codec;
    facts["compression_level"] = plan->parquet.compression_level;
  }
  return {gate.reasons, facts};
}

nb::dict PyTable::Append(nb::handle stream, const WriteArgs& args, bool clustered,
                         bool dynamic_overwrite, const nb::object& progress) {
  auto input = ImportStream(stream);
  iceberg::AppendOptions options = ToAppendOptions(args);
  options.input_clustered = clustered;
  options.replace_partitions = dynamic_overwrite;
  ProgressBox box;
  options.progress = [&box](const iceberg::WriteProgress& p) { box.Set(p); };
  auto result =
      Locked([&] { return Unwrap(table_->Append(*input, options)); }, &box, progress);
  return AppendDict(result);
}

nb::dict PyTable::Overwrite(nb::handle stream, const std::string& where,
                            const WriteArgs& args) {
  auto input = ImportStream(stream);
  iceberg::AppendOptions options = ToAppendOptions(args);
  auto result = Locked([&] { return Unwrap(table_->Overwrite(*input, where, options)); });
  return RowLevelDict(result);
}

nb::dict PyTable::Delete(const std::string& where, const WriteArgs& args) {
  iceberg::AppendOptions options = ToAppendOptions(args);
  return RowLevelDict(Locked([&] { return Unwrap(table_->Delete(where, options)); }));
}

nb::dict PyTable::Update(const std::string& set, const std::string& where,
                         const WriteArgs& args) {
  iceberg::AppendOptions options = ToAppendOptions(args);
  return RowLevelDict(
      Locked([&] { return Unwrap(table_->Update(where, set, options)); }));
}

nb::dict PyTable::Upsert(nb::handle stream, const std::vector<std::string>& keys,
                         bool update_matched, bool insert_unmatched,
                         const WriteArgs& args) {
  auto input = ImportStream(stream);
  iceberg::AppendOptions options = ToAppendOptions(args);
  iceberg::UpsertOptions upsert;
  upsert.keys = keys;
  upsert.update_matched = update_matched;
  upsert.insert_unmatched = insert_unmatched;
  return RowLevelDict(
      Locked([&] { return Unwrap(table_->Upsert(*input, upsert, options)); }));
}

nb::dict PyTable::Rewrite(const std::string& where, int min_input_files,
                          const WriteArgs& args, bool remove_dangling_deletes) {
  iceberg::AppendOptions options = ToAppendOptions(args);
  return RowLevelDict(Locked([&] {
    iceberg::RowLevelResult result =
        Unwrap(table_->Rewrite(where, min_input_files, options));
    if (remove_dangling_deletes && result.committed) {
      // After a rewrite that committed, a second snapshot, as Spark's
      // remove-dangling-deletes makes; the result's commit is the last one made.
      iceberg::RowLevelResult removed = Unwrap(table_->RemoveDanglingDeletes());
      result.delete_files_removed += removed.delete_files_removed;
      if (removed.committed) {
        result.committed = true;
        result.commit = removed.commit;
      }
    }
    return result;
  }));
}

nb::dict PyTable::RewritePositionDeletes(const std::string& where, int min_input_files,
                                         bool rewrite_all, const WriteArgs& args) {
  iceberg::RewriteDeletesOptions options;
  options.min_input_files = min_input_files;
  options.rewrite_all = rewrite_all;
  options.options = ToAppendOptions(args).options;
  return RowLevelDict(
      Locked([&] { return Unwrap(table_->RewritePositionDeletes(where, options)); }));
}

nb::dict PyTable::ExpireSnapshots(std::optional<int64_t> older_than_ms,
                                  std::optional<int> retain_last,
                                  const std::vector<int64_t>& snapshot_ids,
                                  bool clean_files, bool dry_run) {
  iceberg::ExpireSnapshotsOptions options;
  options.older_than_ms = older_than_ms;
  options.retain_last = retain_last;
  options.snapshot_ids = snapshot_ids;
  options.clean_files = clean_files;
  options.dry_run = dry_run;
  auto report = Locked([&] {
    auto expired = Unwrap(floe::iceberg::ExpireSnapshots(*table_, options));
    if (!dry_run) Check(table_->Refresh());
    return expired;
  });
  nb::dict out;
  out["expired"] = report.expired;
  out["removed_refs"] = report.removed_refs;
  out["data_files"] = report.data_files;
  out["manifests"] = report.manifests;
  out["manifest_lists"] = report.manifest_lists;
  out["statistics_files"] = report.statistics_files;
  out["kept_outside"] = report.kept_outside;
  out["delete_failures"] = report.delete_failures;
  out["cleanup_error"] = report.cleanup_error;
  out["attempts"] = report.attempts;
  return out;
}

nb::dict PyTable::RemoveOrphans(int64_t older_than_ms, bool dry_run, bool any_name,
                                bool no_concurrent_writes) {
  iceberg::RemoveOrphanFilesOptions options;
  options.older_than_ms = older_than_ms;
  options.no_concurrent_writes = no_concurrent_writes;
  options.dry_run = dry_run;
  options.any_name = any_name;
  auto report =
      Locked([&] { return Unwrap(iceberg::RemoveOrphanFiles(*table_, options)); });
  nb::dict out;
  std::vector<std::string> orphans;
  int64_t bytes = 0;
  for (const auto& orphan : report.orphans) {
    orphans.push_back(orphan.location);
    bytes += orphan.size;
  }
  out["orphans"] = orphans;
  out["bytes"] = bytes;
  out["folders"] = report.folders;
  out["referenced"] = report.referenced;
  out["listed"] = report.listed;
  out["too_recent"] = report.too_recent;
  out["unrecognised"] = report.unrecognised;
  out["hidden"] = report.hidden;
  out["symbolic_links"] = report.symbolic_links;
  out["other_tables"] = report.other_tables;
  out["delete_failures"] = report.delete_failures;
  return out;
}

PyScan* PyTable::Scan(
    const std::vector<std::string>& columns, const std::string& where,
    std::optional<int64_t> snapshot_id, std::optional<int64_t> as_of_ms,
    std::optional<int64_t> limit, const std::vector<std::string>& files,
    const std::vector<std::tuple<std::string, int64_t, int64_t>>& splits) {
  iceberg::ScanOptions options;
  options.files = files;
  for (const auto& [path, start, length] : splits) {
    options.splits.push_back({path, start, length});
  }
  options.columns = columns;
  options.filter = where;
  options.metadata_column_filters = true;
  options.snapshot_id = snapshot_id;
  options.as_of_ms = as_of_ms;
  auto scan = Locked([&] { return Unwrap(table_->NewScan(options)); });
  return new PyScan(std::move(scan), limit);
}

nb::bytes PyTable::PlanWrite(const std::map<std::string, std::string>& options, int tasks,
                             int64_t memory_limit, bool clustered,
                             const std::string& row_filter) {
  iceberg::WritePlanOptions plan_options;
  plan_options.row_filter = row_filter;
  plan_options.tasks = tasks;
  plan_options.memory_limit = memory_limit;
  plan_options.input_clustered = clustered;
  std::string text = Locked([&] {
    Check(table_->Refresh());
    return Unwrap(table_->PlanWrite(options, plan_options))->Serialize();
  });
  return nb::bytes(text.data(), text.size());
}

PyCommitter* PyTable::NewCommitter(const nb::bytes& plan_text,
                                   const std::string& operation) {
  std::string text(plan_text.c_str(), plan_text.size());
  iceberg::WriteOperation op = ParseOperation(operation);
  auto committer = Locked([&] {
    auto plan = Unwrap(iceberg::WritePlan::Deserialize(text));
    return Unwrap(table_->NewCommitter(*plan, op));
  });
  return new PyCommitter(std::move(committer));
}

void BindTable(nb::module_& m) {
  nb::class_<WriteArgs>(m, "WriteArgs")
      .def(nb::init<>())
      .def_rw("options", &WriteArgs::options)
      .def_rw("threads", &WriteArgs::threads)
      .def_rw("memory_limit", &WriteArgs::memory_limit);

  nb::class_<PyTable>(m, "Table")
      .def_prop_ro("identifier", &PyTable::Identifier)
      .def_prop_ro("namespace", &PyTable::NamespaceLevels)
      .def_prop_ro("name", &PyTable::Name)
      .def("metadata_json", &PyTable::MetadataJson)
      .def("metadata_location", &PyTable::MetadataLocation)
      .def("schema", &PyTable::Schema)
      .def("refresh", &PyTable::Refresh)
      .def("explain_write", &PyTable::ExplainWrite, "options"_a)
      .def("append", &PyTable::Append, "stream"_a, "args"_a, "clustered"_a,
           "dynamic_overwrite"_a, "progress"_a.none())
      .def("overwrite", &PyTable::Overwrite, "stream"_a, "where"_a, "args"_a)
      .def("delete", &PyTable::Delete, "where"_a, "args"_a)
      .def("update", &PyTable::Update, "set"_a, "where"_a, "args"_a)
      .def("upsert", &PyTable::Upsert, "stream"_a, "keys"_a, "update_matched"_a,
           "insert_unmatched"_a, "args"_a)
      .def("rewrite", &PyTable::Rewrite, "where"_a, "min_input_files"_a, "args"_a,
           "remove_dangling_deletes"_a)
      .def("rewrite_position_deletes", &PyTable::RewritePositionDeletes, "where"_a,
           "min_input_files"_a, "rewrite_all"_a, "args"_a)
      .def("expire_snapshots", &PyTable::ExpireSnapshots, "older_than_ms"_a.none(),
           "retain_last"_a.none(), "snapshot_ids"_a, "clean_files"_a, "dry_run"_a)
      .def("remove_orphans", &PyTable::RemoveOrphans, "older_than_ms"_a, "dry_run"_a,
           "any_name"_a, "no_concurrent_writes"_a = false)
      .def("scan", &PyTable::Scan, "columns"_a, "where"_a, "snapshot_id"_a.none(),
           "as_of_ms"_a.none(), "limit"_a.none(), "files"_a = std::vector<std::string>{},
           "splits"_a = std::vector<std::tuple<std::string, int64_t, int64_t>>{})
      .def("plan_write", &PyTable::PlanWrite, "options"_a, "tasks"_a, "memory_limit"_a,
           "clustered"_a, "row_filter"_a = "")
      .def("new_committer", &PyTable::NewCommitter, "plan"_a, "operation"_a);
}

}  // namespace floe::python
