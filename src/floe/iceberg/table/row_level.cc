// Row-level operations on a Table: delete, update and upsert (copy-on-write or
// merge-on-read), overwrite by filter and compaction.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/builder.h"
#include "arrow/compute/api.h"
#include "arrow/table.h"
#include "floe/expr/binder.h"
#include "floe/expr/evaluators.h"
#include "floe/expr/parser.h"
#include "floe/expr/row_filter.h"
#include "floe/iceberg/expr/metrics_summaries_internal.h"
#include "floe/iceberg/expr/projection.h"
#include "floe/iceberg/manifest/snapshot_manifests.h"
#include "floe/iceberg/scan/delete_files.h"
#include "floe/iceberg/spec/metadata_columns.h"
#include "floe/iceberg/table/assignments_internal.h"
#include "floe/iceberg/table/delete_file_writing_internal.h"
#include "floe/iceberg/table/table.h"
#include "floe/iceberg/transform/partition_path.h"
#include "floe/iceberg/write/batch_conformer.h"
#include "floe/io/file_io.h"
#include "floe/types/arrow_schema.h"
#include "floe/types/arrow_value.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/log.h"
#include "floe/util/test_hooks_internal.h"
#include "floe/util/text.h"

namespace floe::iceberg {
namespace {

struct FileMatch {
  FileScanTask task;
  int64_t matched = 0;
  int64_t live = 0;  ///< Rows its delete files leave (record_count without any).
  std::vector<int64_t> positions;  ///< Of the matched rows, when asked for (ascending).
  std::shared_ptr<const FileDeletes> deletes;  ///< What its delete files delete.
};

// Rows of a mask that are TRUE (null and false are not).
arrow::Result<int64_t> CountTrue(const std::shared_ptr<arrow::Array>& mask) {
  const auto& booleans = static_cast<const arrow::BooleanArray&>(*mask);
  return booleans.true_count();
}

// Spark's compaction (BinPackRewriteFilePlanner) rewrites a file whose file-scoped
// deletes (deletion vectors, and position delete files that name it) delete at least this
// share of its rows, whatever its size: its delete-ratio-threshold option's default.
constexpr double kDeleteRatioThreshold = 0.3;

// iceberg-java's ContentFileUtil.isFileScoped, for one data file: whether `deletes` is a
// position delete of the data file at `data_path` and of no other (a deletion vector, or
// a position delete file naming it by referenced_data_file or its file_path bounds).
bool ScopedTo(const DataFile& deletes, const std::string& data_path) {
  auto referenced = ReferencedDataFile(deletes);
  return referenced && *referenced == data_path;
}

bool TooHighDeleteRatio(const FileScanTask& task) {
  const int64_t rows = task.file.record_count;
  if (task.deletes.empty() || rows <= 0) return false;
  int64_t deleted = 0;
  for (const auto& entry : task.deletes) {
    if (ScopedTo(entry->file, task.file.file_path)) deleted += entry->file.record_count;
  }
  return static_cast<double>(std::min(deleted, rows)) / static_cast<double>(rows) >=
         kDeleteRatioThreshold;
}

// Selects rows of a batch of a file's rows (a boolean mask; null selects nothing).
using RowMatcher = std::function<arrow::Result<std::shared_ptr<arrow::Array>>(
    const arrow::RecordBatch&)>;

// What MatchFiles reads and how it matches rows.
struct MatchRequest {
  /// The filter (`--where` syntax): it prunes files and, without `matcher`, selects rows.
  std::string filter;
  /// Collect the matching rows' positions (FileMatch::positions): `_pos` is read, last.
  bool positions = false;
  /// More table columns to read (an upsert's keys), by field id.
  std::set<int> columns;
  /// Read each row's `_row_id` too (format v3), before `_pos`.
  bool row_ids = false;
  /// Selects the rows in place of the filter; it sees every batch of every candidate file
  /// in order.
  RowMatcher matcher;
  /// Return the candidate files in which no live row matched too.
  bool keep_unmatched = false;
};

// The candidate files of the filter (pruned by partitions and metrics) and how many of
// each file's rows match, read through the filter's columns only. Rows the file's delete
// files delete neither match nor count as live: a copy-on-write rewrite drops them, as
// iceberg-java's does.
arrow::Result<std::vector<FileMatch>> MatchFiles(const std::shared_ptr<FileIO>& io,
                                                 const TableMetadataPtr& metadata,
                                                 const MatchRequest& request,
                                                 ExpressionPtr* bound_filter) {
  ScanOptions options;
  options.filter = request.filter;
  ARROW_ASSIGN_OR_RAISE(auto scan, TableScan::Make(io, metadata, options));
  *bound_filter = scan->filter();
  ARROW_ASSIGN_OR_RAISE(auto tasks, scan->PlanFiles());
  SchemaPtr schema = metadata->CurrentSchema();
  DataFileReadOptions read;
  std::set<int> read_ids = request.columns;
  if (!request.matcher) {
    const std::set<int> filter_ids = ReferencedFieldIds(*scan->filter());
    read_ids.insert(filter_ids.begin(), filter_ids.end());
  }
  // Equality deletes compare their columns: those are read too.
  for (const auto& task : tasks) {
    for (const auto& entry : task.deletes) {
      for (int id : entry->file.equality_ids) read_ids.insert(id);
    }
  }
  read.read_schema = SelectFields(*schema, read_ids);
  if (request.positions || request.row_ids) {
    // Metadata columns after the table's: `_row_id`, then the rows' positions in their
    // file (`_pos`, counted before deletes drop rows), last.
    std::vector<NestedField> fields = read.read_schema->fields();
    if (request.row_ids) fields.push_back(*FindMetadataColumn(kRowIdColumnId));
    if (request.positions) fields.push_back(*FindMetadataColumn(kPosColumnId));
    ARROW_ASSIGN_OR_RAISE(read.read_schema,
                          Schema::Make(schema->schema_id(), std::move(fields), {}));
  }
  read.output_schema = read.read_schema;
  ARROW_ASSIGN_OR_RAISE(read.name_mapping, TableNameMapping(metadata->properties));
  DeleteLoader loader(io, schema, read.name_mapping);
  std::vector<FileMatch> matches;
  for (auto& task : tasks) {
    ARROW_ASSIGN_OR_RAISE(auto deletes,
                          loader.LoadShared(task.deletes, task.file.file_path));
    ARROW_ASSIGN_OR_RAISE(auto reader,
                          ReadDataFile(io, task.file, read, *task.spec, nullptr, deletes,
                                       task.data_sequence_number));
    FileMatch match{std::move(task), 0, 0, {}, std::move(deletes)};
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      match.live += batch->num_rows();
      std::shared_ptr<arrow::Array> mask;
      if (request.matcher) {
        ARROW_ASSIGN_OR_RAISE(mask, request.matcher(*batch));
      } else {
        ARROW_ASSIGN_OR_RAISE(mask, EvaluateFilter(*scan->filter(), batch));
      }
      ARROW_ASSIGN_OR_RAISE(int64_t matched, CountTrue(mask));
      match.matched += matched;
      if (request.positions && matched > 0) {
        const auto& selected = static_cast<const arrow::BooleanArray&>(*mask);
        const auto& pos = static_cast<const arrow::Int64Array&>(
            *batch->column(batch->num_columns() - 1));
        for (int64_t i = 0; i < selected.length(); ++i) {
          if (selected.IsValid(i) && selected.Value(i))
            match.positions.push_back(pos.Value(i));
        }
      }
    }
    if (match.matched > 0 || request.keep_unmatched) matches.push_back(std::move(match));
  }
  return matches;
}

// What a rewrite of a table's rows reads and writes: the table's columns and, on a
// format-v3 table, each row's `_row_id` and `_last_updated_sequence_number` after them
// (read as iceberg-java reads them: the file's own or inherited), which the rewritten
// files keep, as iceberg-java's copy-on-write writers and compaction keep them.
struct RewriteSchema {
  SchemaPtr schema;
  std::shared_ptr<arrow::Schema> arrow_schema;
  bool row_lineage = false;
};

arrow::Result<RewriteSchema> RewriteSchemaOf(const TableMetadata& metadata) {
  RewriteSchema rewrite;
  rewrite.schema = metadata.CurrentSchema();
  rewrite.row_lineage = metadata.format_version >= 3;
  if (rewrite.row_lineage) {
    ARROW_ASSIGN_OR_RAISE(rewrite.schema, WithRowLineage(*rewrite.schema));
  }
  ARROW_ASSIGN_OR_RAISE(rewrite.arrow_schema, ToArrowSchema(*rewrite.schema));
  return rewrite;
}

// What a rewrite does to a batch of a rewritten file's rows (in the rewrite's schema):
// the rows to write in their place (none: null or empty).
using BatchEdit = std::function<arrow::Result<std::shared_ptr<arrow::RecordBatch>>(
    const std::shared_ptr<arrow::RecordBatch>&)>;

// The rows of the given files, file after file, in the rewrite's schema (the rows their
// delete files delete left out), each batch through `edit` (none: as read), then the
// batches of `then` (an upsert's new rows).
class RewrittenRowsReader final : public arrow::RecordBatchReader {
 public:
  RewrittenRowsReader(std::shared_ptr<FileIO> io, std::vector<FileScanTask> files,
                      const RewriteSchema& schema,
                      std::shared_ptr<const NameMapping> name_mapping,
                      SchemaPtr table_schema, BatchEdit edit,
                      std::vector<std::shared_ptr<arrow::RecordBatch>> then = {})
      : io_(std::move(io)),
        files_(std::move(files)),
        arrow_schema_(schema.arrow_schema),
        deletes_(io_, std::move(table_schema), name_mapping),
        edit_(std::move(edit)),
        then_(std::move(then)) {
    options_.read_schema = schema.schema;
    options_.output_schema = schema.schema;
    options_.name_mapping = std::move(name_mapping);
  }

  std::shared_ptr<arrow::Schema> schema() const override { return arrow_schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (true) {
      if (!current_) {
        if (next_ >= files_.size()) {
          if (next_then_ < then_.size()) {
            *out = std::move(then_[next_then_++]);
            rows_ += (*out)->num_rows();
            return arrow::Status::OK();
          }
          *out = nullptr;
          return arrow::Status::OK();
        }
        const auto& task = files_[next_++];
        // The rows the file's delete files delete are not kept.
        ARROW_ASSIGN_OR_RAISE(auto deletes,
                              deletes_.LoadShared(task.deletes, task.file.file_path));
        ARROW_ASSIGN_OR_RAISE(
            current_, ReadDataFile(io_, task.file, options_, *task.spec, nullptr,
                                   std::move(deletes), task.data_sequence_number));
      }
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(current_->ReadNext(&batch));
      if (!batch) {
        current_.reset();
        continue;
      }
      if (edit_) {
        ARROW_ASSIGN_OR_RAISE(batch, edit_(batch));
        if (!batch || batch->num_rows() == 0) continue;
      }
      rows_ += batch->num_rows();
      *out = std::move(batch);
      return arrow::Status::OK();
    }
  }

  int64_t rows() const { return rows_; }

 private:
  std::shared_ptr<FileIO> io_;
  std::vector<FileScanTask> files_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  DataFileReadOptions options_;
  DeleteLoader deletes_;
  BatchEdit edit_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> then_;
  size_t next_ = 0;
  size_t next_then_ = 0;
  std::shared_ptr<arrow::RecordBatchReader> current_;
  int64_t rows_ = 0;
};

// Which rows of a batch `filter` selects (null counts as not selected).
arrow::Result<arrow::Datum> Selected(const Expression& filter,
                                     const std::shared_ptr<arrow::RecordBatch>& batch) {
  ARROW_ASSIGN_OR_RAISE(auto mask, EvaluateFilter(filter, batch));
  return arrow::compute::CallFunction("coalesce", {mask, arrow::MakeScalar(false)});
}

// A delete's edit: the rows `filter` does not select (false and unknown).
BatchEdit KeepUnselected(ExpressionPtr filter) {
  return [filter = std::move(filter)](const std::shared_ptr<arrow::RecordBatch>& batch)
             -> arrow::Result<std::shared_ptr<arrow::RecordBatch>> {
    ARROW_ASSIGN_OR_RAISE(auto selected, Selected(*filter, batch));
    ARROW_ASSIGN_OR_RAISE(auto keep, arrow::compute::Invert(selected));
    ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(batch, keep));
    return kept.record_batch();
  };
}

// An update's edit: every row, with `assignments` applied to those `filter` selects
// (counted in `*updated`), each value computed from the row as it was; in a rewrite that
// keeps lineage an updated row keeps its _row_id and gets a null
// _last_updated_sequence_number, which the new file's sequence number fills, as
// iceberg-java's copy-on-write UPDATE writes it. With `only_updated` (a merge-on-read
// update's new rows) the other rows are left out. A value that cannot be computed (an
// overflow) or is NULL for a required column fails, quoting the assignment.
BatchEdit Assign(ExpressionPtr filter, std::vector<Assignment> assignments,
                 const RewriteSchema& schema, int64_t* updated, bool only_updated) {
  if (schema.row_lineage) {
    Assignment lineage;
    lineage.field_id = kLastUpdatedColumnId;
    lineage.evaluate = [null = arrow::Datum(arrow::MakeNullScalar(arrow::int64()))](
                           const arrow::RecordBatch&) {
      return arrow::Result<arrow::Datum>(null);
    };
    assignments.push_back(std::move(lineage));
  }
  return [filter = std::move(filter), assignments = std::move(assignments),
          arrow_schema = schema.arrow_schema, updated,
          only_updated](const std::shared_ptr<arrow::RecordBatch>& batch)
             -> arrow::Result<std::shared_ptr<arrow::RecordBatch>> {
    ARROW_ASSIGN_OR_RAISE(auto selected, Selected(*filter, batch));
    const int64_t count =
        static_cast<const arrow::BooleanArray&>(*selected.make_array()).true_count();
    *updated += count;
    if (count == 0) {
      return only_updated ? batch->Slice(0, 0) : batch;
    }
    // Values are computed for the updated rows only (as they were), so a row the update
    // leaves alone can never fail it (an overflow there is not the update's).
    ARROW_ASSIGN_OR_RAISE(auto updating, arrow::compute::Filter(batch, selected));
    const auto& rows = *updating.record_batch();
    auto columns = batch->columns();
    for (const auto& assignment : assignments) {
      for (int i = 0; i < batch->num_columns(); ++i) {
        if (ArrowFieldId(*batch->schema()->field(i)) != assignment.field_id) continue;
        auto failed = [&](const arrow::Status& status) {
          return MakeError(ErrorKind::kInvalidInput,
                           "--set '" + assignment.text + "': " + status.message());
        };
        auto value = assignment.evaluate(rows);
        if (!value.ok()) return failed(value.status());
        auto assigned =
            value->is_scalar()
                ? arrow::compute::CallFunction("if_else", {selected, *value, columns[i]})
                : arrow::compute::CallFunction("replace_with_mask",
                                               {columns[i], selected, *value});
        if (!assigned.ok()) return failed(assigned.status());
        columns[i] = assigned->make_array();
        if (assignment.required && columns[i]->null_count() > 0) {
          return failed(arrow::Status::Invalid(
              "it gives NULL for a row it updates, and the column is required"));
        }
      }
    }
    auto assigned =
        arrow::RecordBatch::Make(arrow_schema, batch->num_rows(), std::move(columns));
    if (!only_updated) return assigned;
    ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(assigned, selected));
    return kept.record_batch();
  };
}

class EmptyReader final : public arrow::RecordBatchReader {
 public:
  explicit EmptyReader(std::shared_ptr<arrow::Schema> schema)
      : schema_(std::move(schema)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    return arrow::Status::OK();
  }

 private:
  std::shared_ptr<arrow::Schema> schema_;
};

// Whether a filter's strict projection (ProjectStrict, iceberg-java's Projections.strict)
// holds for a file's partition tuple: then every row of the file satisfies the filter, as
// Spark's Evaluator over the projection decides it. Projected once per spec.
class StrictPartitionProof {
 public:
  StrictPartitionProof(ExpressionPtr bound, const Schema& schema)
      : bound_(std::move(bound)), schema_(schema) {}

  bool Holds(const FileScanTask& task) {
    const PartitionSpec& spec = *task.spec;
    auto projected = by_spec_.find(spec.spec_id());
    if (projected == by_spec_.end()) {
      projected =
          by_spec_.emplace(spec.spec_id(), ProjectStrict(bound_, spec, schema_)).first;
    }
    const DataFile& file = task.file;
    std::map<int, ColumnSummary> partition;
    for (size_t p = 0; p < spec.fields().size() && p < file.partition.size(); ++p) {
      const PartitionField& field = spec.fields()[p];
      const NestedField* source = schema_.FindField(field.source_id);
      if (source == nullptr || !field.transform.CanTransform(*source->type)) continue;
      partition.emplace(
          field.field_id,
          SummaryFromValue(file.partition[p], *field.transform.ResultType(source->type)));
    }
    return MustMatch(*projected->second, [&](int id) -> const ColumnSummary* {
      auto found = partition.find(id);
      return found == partition.end() ? nullptr : &found->second;
    });
  }

 private:
  ExpressionPtr bound_;
  const Schema& schema_;
  std::map<int, ExpressionPtr> by_spec_;
};

// Whether every row of `task`'s data file (deleted rows included) satisfies `bound`, as
// Spark proves it before it deletes by metadata (SparkTable.canDeleteUsingMetadata): the
// filter's strict projection holds for the file's partition, or iceberg-java's
// StrictMetricsEvaluator over the file's metrics says so.
bool StrictlyMatches(const Expression& bound, StrictPartitionProof* by_partition,
                     const FileScanTask& task, const Schema& schema) {
  const DataFile& file = task.file;
  if (file.record_count <= 0) return true;
  if (by_partition->Holds(task)) return true;
  std::map<int, ColumnSummary> metrics;
  return MustMatch(bound, [&](int id) -> const ColumnSummary* {
    auto found = metrics.find(id);
    if (found == metrics.end()) {
      const NestedField* field = schema.FindField(id);
      if (field == nullptr) return nullptr;
      found = metrics.emplace(id, SummaryFromMetrics(file, id, *field->type)).first;
    }
    return &found->second;
  });
}

// A delete by metadata is a DeleteFiles by row filter in Spark, whose manifest filter
// also removes the delete files the filter's strict projection proves whole (their
// partition's): every delete file in the partition of a matched file so proved goes too.
// `by_partition` is the caller's proof of the same filter (its projections are kept).
void RemovePartitionDeletes(StrictPartitionProof* by_partition,
                            const std::vector<FileMatch>& matches,
                            OverwriteFiles* overwrite) {
  for (const auto& match : matches) {
    if (by_partition->Holds(match.task)) {
      overwrite->RemoveDeletesInPartitionOf(match.task.file);
    }
  }
}

// The positions a merge-on-read delete's deletion vector for `match` holds: the rows it
// deletes now and every position its delete files already delete, as iceberg-java's
// BaseDVFileWriter merges the previous deletes of the file into its one vector.
std::vector<int64_t> MergedPositions(const FileMatch& match) {
  std::vector<int64_t> merged;
  const std::vector<int64_t> none;
  const auto& old = match.deletes ? match.deletes->positions : none;
  merged.reserve(match.positions.size() + old.size());
  std::set_union(match.positions.begin(), match.positions.end(), old.begin(), old.end(),
                 std::back_inserter(merged));
  return merged;
}

// A merge-on-read operation's delete files, as iceberg-java's Spark writer writes them
// (WriteDeletes): for each of `matches` (with positions) one deletion vector or position
// delete file holding the matched positions merged with what the file's delete files
// delete (with partition granularity, one file per partition of the new positions).
// `overwrite` adds them, removes the file-scoped deletes they replace, and will fail if a
// data file they name is gone. Returns the locations written: the caller deletes them if
// its commit fails (except when its state is unknown). On failure nothing it wrote is
// left. `properties`: the table's, overlaid with the operation's options.
arrow::Result<std::vector<std::string>> WriteDeleteFiles(
    const Table& table, const std::vector<FileMatch>& matches,
    const PropertyMap& properties, OverwriteFiles* overwrite) {
  std::set<std::string> referenced;
  std::vector<DeleteTarget> targets;
  // With partition granularity (v2) the new files hold only the new deletes and the
  // earlier ones stay, as iceberg-java rewrites earlier deletes only for deletion vectors
  // and file granularity (SparkPositionDeltaWrite.shouldRewriteDeletes).
  const bool merge = !PartitionGranularity(table, properties);
  for (const auto& match : matches) {
    targets.push_back({&match.task.file, match.task.spec,
                       merge ? MergedPositions(match) : match.positions});
    referenced.insert(match.task.file.file_path);
    if (!merge) continue;
    // The file-scoped deletes merged into the new one go (iceberg-java's
    // rewrittenDeleteFiles); a partition-scoped position delete file stays.
    for (const auto& entry : match.task.deletes) {
      if (ScopedTo(entry->file, match.task.file.file_path)) {
        overwrite->RemoveDeleteFile(entry->file);
      }
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto written, WriteDeletes(table, targets, properties));
  for (auto& file : written.files) overwrite->AddDeleteFile(std::move(file));
  overwrite->ValidateDataFilesExist(std::move(referenced));
  return std::move(written.locations);
}

// The key columns of an upsert named `names` (the schema's identifier fields when
// empty): top-level primitive columns, not floating-point (SQL equality makes -0.0 equal
// 0.0 and NaN equal nothing, so such keys would not say which rows are the same).
arrow::Result<std::vector<const NestedField*>> UpsertKeys(
    const Schema& schema, const std::vector<std::string>& names,
    const std::string& table) {
  std::vector<const NestedField*> keys;
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorKind::kInvalidInput, "upsert into " + table + ": " + why);
  };
  if (names.empty()) {
    for (int id : schema.identifier_field_ids()) {
      const NestedField* found = nullptr;
      for (const auto& field : schema.fields()) {
        if (field.id == id) found = &field;
      }
      if (found == nullptr) {
        return bad("identifier field " + std::to_string(id) +
                   " is nested; name top-level key columns (--on, join_cols)");
      }
      keys.push_back(found);
    }
    if (keys.empty()) {
      return bad(
          "no key columns: name them (--on, join_cols) or set the table's identifier "
          "fields");
    }
  }
  for (const auto& name : names) {
    const NestedField* found = nullptr;
    for (const auto& field : schema.fields()) {
      if (field.name == name) found = &field;
    }
    if (found == nullptr) return bad("no top-level column " + name + " to join on");
    if (std::find(keys.begin(), keys.end(), found) != keys.end()) {
      return bad("key column " + name + " is named twice");
    }
    keys.push_back(found);
  }
  for (const NestedField* key : keys) {
    if (!key->type->is_primitive()) {
      return bad("key column " + key->name + " is not of a primitive type");
    }
    const TypeId id = key->type->id();
    if (id == TypeId::kFloat || id == TypeId::kDouble) {
      return bad("key column " + key->name +
                 " is floating-point, whose equality (-0.0 = 0.0, NaN equal to nothing) "
                 "cannot identify rows");
    }
  }
  return keys;
}

// An upsert's input, loaded whole in the table's Arrow form (as an append conforms it).
arrow::Result<std::shared_ptr<arrow::RecordBatch>> LoadUpsertInput(
    arrow::RecordBatchReader& input, const SchemaPtr& schema,
    const std::vector<const NestedField*>& keys, const std::string& table) {
  for (const NestedField* key : keys) {
    // A missing optional column would read as NULL keys: every row would be inserted.
    if (input.schema()->GetFieldIndex(key->name) < 0) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "upsert into " + table + ": the input has no key column " + key->name);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto conformer,
                        MakeBatchConformer(*input.schema(), *schema, table));
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(input.ReadNext(&batch));
    if (!batch) break;
    ARROW_ASSIGN_OR_RAISE(auto conformed, conformer->Conform(*batch));
    batches.push_back(std::move(conformed));
  }
  ARROW_ASSIGN_OR_RAISE(auto rows,
                        arrow::Table::FromRecordBatches(conformer->target(), batches));
  return rows->CombineChunksToBatch();
}

// The columns of `batch` holding the fields `ids`, in order (-1 where it has none).
std::vector<int> ColumnsOf(const arrow::RecordBatch& batch, const std::vector<int>& ids) {
  std::vector<int> columns;
  for (int id : ids) {
    int found = -1;
    for (int i = 0; i < batch.num_columns(); ++i) {
      if (ArrowFieldId(*batch.schema()->field(i)) == id) found = i;
    }
    columns.push_back(found);
  }
  return columns;
}

// An upsert's input rows by key: which input row has the key of a table row. Keys
// compare as SQL's `=` does for the key types allowed (exact values); a key with a
// NULL part equals nothing, so such an input row is inserted, as MERGE inserts it.
class InputKeys {
 public:
  // InvalidInput naming the key and both rows when two input rows share a key.
  static arrow::Result<InputKeys> Make(const arrow::RecordBatch& rows,
                                       const std::vector<const NestedField*>& keys,
                                       const std::string& table) {
    InputKeys index;
    for (const NestedField* key : keys) index.ids_.push_back(key->id);
    const std::vector<int> columns = ColumnsOf(rows, index.ids_);
    // One key of 32 or 64 bits (an int, long, date, time or timestamp): its value is the
    // key, without building bytes for each row.
    if (columns.size() == 1) {
      const auto& type = *rows.column(columns[0])->type();
      const auto id = type.id();
      if (id == arrow::Type::INT32 || id == arrow::Type::DATE32 ||
          id == arrow::Type::INT64 || id == arrow::Type::TIMESTAMP ||
          id == arrow::Type::TIME64) {
        index.width_ = static_cast<const arrow::FixedWidthType&>(type).bit_width() / 8;
      }
    }
    std::string key;
    for (int64_t row = 0; row < rows.num_rows(); ++row) {
      int64_t first = row;
      if (index.width_ > 0) {
        auto value = index.IntegerAt(*rows.column(columns[0]), row);
        if (!value) continue;
        first = index.integers_.emplace(*value, row).first->second;
      } else {
        if (!index.KeyOf(rows, columns, row, &key)) continue;
        first = index.rows_.emplace(key, row).first->second;
      }
      if (first != row) {
        std::string shown;
        for (size_t k = 0; k < keys.size(); ++k) {
          auto scalar = rows.column(columns[k])->GetScalar(row);
          shown += (k ? ", " : "") + keys[k]->name + "=" +
                   (scalar.ok() ? (*scalar)->ToString() : std::string("?"));
        }
        return MakeError(ErrorKind::kInvalidInput,
                         "upsert into " + table + ": the input holds the key (" + shown +
                             ") twice, in rows " + std::to_string(first + 1) + " and " +
                             std::to_string(row + 1) +
                             "; each key may appear once (nothing was written)");
      }
    }
    return index;
  }

  // The key columns of `batch` (a table file's rows), by field id.
  std::vector<int> Columns(const arrow::RecordBatch& batch) const {
    return ColumnsOf(batch, ids_);
  }

  // The input row whose key is row `row`'s of `batch`, or -1.
  int64_t Find(const arrow::RecordBatch& batch, const std::vector<int>& columns,
               int64_t row, std::string* scratch) const {
    if (width_ > 0) {
      auto value = IntegerAt(*batch.column(columns[0]), row);
      if (!value) return -1;
      auto found = integers_.find(*value);
      return found == integers_.end() ? -1 : found->second;
    }
    if (!KeyOf(batch, columns, row, scratch)) return -1;
    auto found = rows_.find(*scratch);
    return found == rows_.end() ? -1 : found->second;
  }

 private:
  // False when a part of the key is NULL.
  bool KeyOf(const arrow::RecordBatch& batch, const std::vector<int>& columns,
             int64_t row, std::string* key) const {
    key->clear();
    for (int column : columns) {
      const arrow::Array& array = *batch.column(column);
      if (array.IsNull(row)) return false;
      AppendValueKey(array, row, key);
    }
    return true;
  }

  // The value of a one-column key of width_ bytes (the table's Arrow type, in the input
  // and in the files read alike); none when NULL.
  std::optional<int64_t> IntegerAt(const arrow::Array& array, int64_t row) const {
    if (array.IsNull(row)) return std::nullopt;
    if (width_ == 4) return array.data()->GetValues<int32_t>(1)[row];
    return array.data()->GetValues<int64_t>(1)[row];
  }

  std::vector<int> ids_;
  int width_ = 0;  // one integer-like key of this many bytes; 0: keys as bytes
  std::unordered_map<int64_t, int64_t> integers_;
  std::unordered_map<std::string, int64_t> rows_;
};

// A filter that every table row whose key an input row has satisfies: each key column
// between the input's least and greatest value (FALSE when a key column is all NULL).
// It prunes the files an upsert reads by their partitions and metrics, and is the
// upsert's conflict filter.
arrow::Result<std::string> KeyRangeFilter(const arrow::RecordBatch& rows,
                                          const std::vector<const NestedField*>& keys) {
  ExpressionPtr filter = AlwaysTrue();
  std::vector<int> ids;
  for (const NestedField* key : keys) ids.push_back(key->id);
  const std::vector<int> columns = ColumnsOf(rows, ids);
  for (size_t k = 0; k < keys.size(); ++k) {
    const auto& column = rows.column(columns[k]);
    if (column->null_count() == column->length()) return std::string("FALSE");
    auto min_max = arrow::compute::MinMax(column);
    if (!min_max.ok()) continue;  // a type without an order here: no pruning by it
    const auto& pair = static_cast<const arrow::StructScalar&>(*min_max->scalar());
    std::vector<Value> bounds;
    for (const auto& scalar : pair.value) {
      ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*scalar, 1));
      ARROW_ASSIGN_OR_RAISE(auto value, ValueFromArrow(*array, 0, *keys[k]->type));
      bounds.push_back(std::move(value));
    }
    filter =
        MakeAnd(filter, MakeBoundPredicate(Operation::kGtEq, keys[k]->id, keys[k]->type,
                                           {bounds[0]}, keys[k]->name));
    filter =
        MakeAnd(filter, MakeBoundPredicate(Operation::kLtEq, keys[k]->id, keys[k]->type,
                                           {bounds[1]}, keys[k]->name));
  }
  return filter->ToString();
}

// The input rows `indices` as new rows of a rewrite of `schema`: on format v3 with
// `row_ids` (a replaced row keeps the _row_id of the row it replaces; null: new ids) and
// a null _last_updated_sequence_number, which the new file's sequence number fills.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> NewRows(
    const std::shared_ptr<arrow::RecordBatch>& input, const std::vector<int64_t>& indices,
    std::shared_ptr<arrow::Array> row_ids, const RewriteSchema& schema) {
  arrow::Int64Builder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(indices));
  ARROW_ASSIGN_OR_RAISE(auto take, builder.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(input, take));
  auto columns = taken.record_batch()->columns();
  const auto rows = static_cast<int64_t>(indices.size());
  if (schema.row_lineage) {
    if (!row_ids) {
      ARROW_ASSIGN_OR_RAISE(row_ids, arrow::MakeArrayOfNull(arrow::int64(), rows));
    }
    columns.push_back(std::move(row_ids));
    ARROW_ASSIGN_OR_RAISE(auto last_updated,
                          arrow::MakeArrayOfNull(arrow::int64(), rows));
    columns.push_back(std::move(last_updated));
  }
  return arrow::RecordBatch::Make(schema.arrow_schema, rows, std::move(columns));
}

// Which table rows an upsert's input rows replace, as its matcher finds them.
struct UpsertMatches {
  std::vector<char> replaces;        // per input row, whether it has a table row's key
  std::vector<int64_t> replaced_by;  // per replaced table row, its input row
  arrow::Int64Builder replaced_ids;  // per replaced table row, its _row_id (v3)
};

// An upsert's matcher: selects the table rows whose key an input row of `index` has
// (when `update_matched`), recording them in `*found`; with `row_lineage` the batches
// hold `_row_id`, kept for the replacing rows.
RowMatcher MatchInputKeys(const InputKeys& index, bool row_lineage, bool update_matched,
                          UpsertMatches* found) {
  return [&index, row_lineage, update_matched, found](const arrow::RecordBatch& batch)
             -> arrow::Result<std::shared_ptr<arrow::Array>> {
    const std::vector<int> columns = index.Columns(batch);
    const arrow::Int64Array* row_ids = nullptr;
    if (row_lineage) {
      row_ids = static_cast<const arrow::Int64Array*>(
          batch.column(ColumnsOf(batch, {kRowIdColumnId})[0]).get());
    }
    arrow::BooleanBuilder mask;
    ARROW_RETURN_NOT_OK(mask.Reserve(batch.num_rows()));
    std::string scratch;
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      const int64_t input_row = index.Find(batch, columns, row, &scratch);
      // Left alone unless matched rows are replaced; the input row is not inserted.
      mask.UnsafeAppend(input_row >= 0 && update_matched);
      if (input_row < 0) continue;
      found->replaces[static_cast<size_t>(input_row)] = 1;
      if (!update_matched) continue;
      found->replaced_by.push_back(input_row);
      if (row_ids && row_ids->IsValid(row)) {
        ARROW_RETURN_NOT_OK(found->replaced_ids.Append(row_ids->Value(row)));
      } else if (row_ids) {
        ARROW_RETURN_NOT_OK(found->replaced_ids.AppendNull());
      }
    }
    return mask.Finish();
  };
}

// The new rows of an upsert: each replaced row's input row (keeping its _row_id on v3),
// then the input rows that replace nothing (`*inserted_rows` of them, when
// `insert_unmatched`). None when there is nothing to write.
arrow::Result<std::vector<std::shared_ptr<arrow::RecordBatch>>> UpsertNewRows(
    const std::shared_ptr<arrow::RecordBatch>& rows, UpsertMatches* found,
    bool insert_unmatched, const RewriteSchema& rewrite, int64_t* inserted_rows) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> new_rows;
  if (!found->replaced_by.empty()) {
    std::shared_ptr<arrow::Array> ids;
    if (rewrite.row_lineage) ARROW_RETURN_NOT_OK(found->replaced_ids.Finish(&ids));
    ARROW_ASSIGN_OR_RAISE(auto replacing,
                          NewRows(rows, found->replaced_by, ids, rewrite));
    new_rows.push_back(std::move(replacing));
  }
  std::vector<int64_t> inserted;
  for (int64_t row = 0; insert_unmatched && row < rows->num_rows(); ++row) {
    if (!found->replaces[static_cast<size_t>(row)]) inserted.push_back(row);
  }
  *inserted_rows = static_cast<int64_t>(inserted.size());
  if (new_rows.empty() && inserted.empty()) return new_rows;  // nothing to write
  if (!inserted.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto inserting, NewRows(rows, inserted, nullptr, rewrite));
    new_rows.push_back(std::move(inserting));
  }
  return new_rows;
}

// How an upsert removes the table rows it replaces, in `overwrite`: merge-on-read (as
// Spark's MERGE) their positions go into delete files, whose locations it returns;
// copy-on-write each file holding one is deleted and goes to `rewritten`, to be written
// anew without it.
arrow::Result<std::vector<std::string>> RemoveReplacedRows(
    const Table& table, std::vector<FileMatch> matches, bool merge_on_read,
    const PropertyMap& properties, OverwriteFiles* overwrite,
    std::vector<FileScanTask>* rewritten, RowLevelResult* result) {
  std::vector<std::string> delete_files;
  if (merge_on_read) {
    if (!matches.empty()) {
      ARROW_ASSIGN_OR_RAISE(delete_files,
                            WriteDeleteFiles(table, matches, properties, overwrite));
    }
    result->delete_files_written = static_cast<int64_t>(matches.size());
  } else {
    for (auto& match : matches) {
      overwrite->DeleteFile(match.task.file.file_path);
      rewritten->push_back(std::move(match.task));
    }
    result->files_removed = static_cast<int64_t>(rewritten->size());
    result->files_rewritten = result->files_removed;
  }
  return delete_files;
}

// An upsert's edit of a rewritten file's rows: the rows whose key no input row has.
BatchEdit DropReplaced(const InputKeys& index) {
  return [&index](const std::shared_ptr<arrow::RecordBatch>& batch)
             -> arrow::Result<std::shared_ptr<arrow::RecordBatch>> {
    const std::vector<int> columns = index.Columns(*batch);
    arrow::BooleanBuilder keep;
    ARROW_RETURN_NOT_OK(keep.Reserve(batch->num_rows()));
    std::string scratch;
    for (int64_t row = 0; row < batch->num_rows(); ++row) {
      keep.UnsafeAppend(index.Find(*batch, columns, row, &scratch) < 0);
    }
    ARROW_ASSIGN_OR_RAISE(auto mask, keep.Finish());
    ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(batch, mask));
    return kept.record_batch();
  };
}

}  // namespace

arrow::Result<AppendResult> Table::WriteAfterDeletes(
    arrow::RecordBatchReader& input, const AppendOptions& options,
    std::unique_ptr<SnapshotProducer> producer, bool row_lineage,
    const std::vector<std::string>& delete_files) {
  auto written = Write(input, options, std::move(producer),
                       /*commit_if_empty=*/true, nullptr, row_lineage);
  // Nothing references the delete files unless the commit may have happened.
  if (!written.ok() && KindOf(written.status()) != ErrorKind::kCommitStateUnknown) {
    DeleteWritten(*io(), delete_files);
  }
  return written;
}

arrow::Result<RowLevelResult> Table::Update(const std::string& filter,
                                            const std::string& set,
                                            const AppendOptions& options) {
  if (filter.empty()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "an update needs a filter (use --where TRUE to update every row)");
  }
  if (set.empty()) {
    return MakeError(ErrorKind::kInvalidInput, "an update needs --set column = value");
  }
  ARROW_RETURN_NOT_OK(CheckGate(options.options));
  ARROW_RETURN_NOT_OK(Declined(
      CheckRowRewrite(*state_.metadata, options.options, RowRewrite::kUpdate), "update"));
  std::string level = properties::kUpdateIsolationLevel.Get(state_.metadata->properties);
  ARROW_ASSIGN_OR_RAISE(
      auto isolation, ParseIsolationLevel(level, properties::kUpdateIsolationLevel.key));
  const SchemaPtr schema = state_.metadata->CurrentSchema();
  ARROW_ASSIGN_OR_RAISE(auto assignments, ParseAssignments(set, *schema));
  PropertyMap effective = state_.metadata->properties;
  for (const auto& [key, value] : options.options) effective[key] = value;
  // Merge-on-read (as Spark's): the updated rows' positions go into delete files and the
  // updated rows alone are written anew.
  const bool merge_on_read =
      AsciiLower(properties::kUpdateMode.Get(effective)) == "merge-on-read";
  ExpressionPtr bound;
  ARROW_ASSIGN_OR_RAISE(
      auto matches, MatchFiles(io(), state_.metadata,
                               {.filter = filter, .positions = merge_on_read}, &bound));
  RowLevelResult result;
  if (matches.empty()) return result;
  auto overwrite = NewOverwrite(isolation, bound);
  std::vector<std::string> delete_files;
  if (merge_on_read) {
    ARROW_ASSIGN_OR_RAISE(delete_files,
                          WriteDeleteFiles(*this, matches, effective, overwrite.get()));
    result.delete_files_written = static_cast<int64_t>(matches.size());
  } else {
    for (const auto& match : matches) overwrite->DeleteFile(match.task.file.file_path);
    result.files_removed = static_cast<int64_t>(matches.size());
    result.files_rewritten = result.files_removed;
  }
  std::vector<FileScanTask> files;
  for (auto& match : matches) files.push_back(std::move(match.task));
  ARROW_ASSIGN_OR_RAISE(auto rewrite, RewriteSchemaOf(*state_.metadata));
  ARROW_ASSIGN_OR_RAISE(auto name_mapping, TableNameMapping(metadata()->properties));
  int64_t updated = 0;
  RewrittenRowsReader rows(io(), std::move(files), rewrite, std::move(name_mapping),
                           schema,
                           Assign(bound, std::move(assignments), rewrite, &updated,
                                  /*only_updated=*/merge_on_read));
  ARROW_ASSIGN_OR_RAISE(auto written,
                        WriteAfterDeletes(rows, options, std::move(overwrite),
                                          rewrite.row_lineage, delete_files));
  result.committed = true;
  result.commit = written.commit;
  result.rows_updated = updated;
  result.rows_written = rows.rows();
  result.data_files_written = written.data_files;
  return result;
}

arrow::Result<RowLevelResult> Table::DeleteByPositions(const std::string& filter,
                                                       IsolationLevel isolation,
                                                       const PropertyMap& properties) {
  ExpressionPtr bound;
  ARROW_ASSIGN_OR_RAISE(
      auto candidates,
      MatchFiles(io(), state_.metadata,
                 {.filter = filter, .positions = true, .keep_unmatched = true}, &bound));
  // Spark deletes by metadata when it can prove, for every file the filter's scan plans,
  // that all of its rows match (deleted rows included): StrictlyMatches. Otherwise each
  // file holding a matching row gets a deletion vector (v3) or a position delete file
  // (v2), however many of its rows match.
  const Schema& schema = *state_.metadata->CurrentSchema();
  StrictPartitionProof by_partition(bound, schema);
  bool whole_files = !candidates.empty();
  for (const auto& candidate : candidates) {
    if (!StrictlyMatches(*bound, &by_partition, candidate.task, schema)) {
      whole_files = false;
      break;
    }
    // The rows read must agree (every live row matched): if they do not, the proof was
    // wrong, and removing the file would lose rows. Delete by positions instead.
    if (candidate.matched != candidate.live) {
      Log(LogLevel::kWarning, "table " + id_.ToString() + ": the metrics of " +
                                  candidate.task.file.file_path +
                                  " say every row matches the delete's filter, but " +
                                  std::to_string(candidate.live - candidate.matched) +
                                  " of its rows do not; deleting by positions instead");
      whole_files = false;
      break;
    }
  }
  std::vector<FileMatch> matches;
  for (auto& candidate : candidates) {
    if (whole_files || candidate.matched > 0) matches.push_back(std::move(candidate));
  }
  RowLevelResult result;
  if (matches.empty()) return result;
  auto overwrite = NewOverwrite(isolation, bound);
  for (const auto& match : matches) result.rows_removed += match.matched;
  if (whole_files) {
    for (const auto& match : matches) overwrite->DeleteFile(match.task.file.file_path);
    RemovePartitionDeletes(&by_partition, matches, overwrite.get());
    result.files_removed = static_cast<int64_t>(matches.size());
    TestPausePoint("commit");
    ARROW_ASSIGN_OR_RAISE(result.commit, overwrite->Commit(state_));
    state_ = result.commit.state;
    result.committed = true;
    return result;
  }
  overwrite->ValidateAsMergeOnReadDelete();
  ARROW_ASSIGN_OR_RAISE(auto written,
                        WriteDeleteFiles(*this, matches, properties, overwrite.get()));
  TestPausePoint("commit");
  ARROW_ASSIGN_OR_RAISE(result.commit,
                        CommitWithDeleteFiles(*overwrite, state_, *io(), written,
                                              "deleting rows of " + id_.ToString()));
  state_ = result.commit.state;
  result.committed = true;
  result.delete_files_written = static_cast<int64_t>(matches.size());
  return result;
}

arrow::Result<RowLevelResult> Table::Delete(const std::string& filter,
                                            const AppendOptions& options) {
  if (filter.empty()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "a delete needs a filter (use --where TRUE to delete every row)");
  }
  ARROW_RETURN_NOT_OK(CheckGate(options.options));
  std::string level = properties::kDeleteIsolationLevel.Get(state_.metadata->properties);
  ARROW_ASSIGN_OR_RAISE(
      auto isolation, ParseIsolationLevel(level, properties::kDeleteIsolationLevel.key));
  PropertyMap effective = state_.metadata->properties;
  for (const auto& [key, value] : options.options) effective[key] = value;
  const std::string mode = AsciiLower(properties::kDeleteMode.Get(effective));
  if (mode != "copy-on-write") {
    // Declined before anything is read where floe does not write the delete files
    // iceberg-java would (position delete files, format v2), or the mode is unknown.
    ARROW_RETURN_NOT_OK(
        Declined(CheckRowRewrite(*state_.metadata, options.options, RowRewrite::kDelete),
                 "delete rows of"));
    return DeleteByPositions(filter, isolation, effective);
  }
  ExpressionPtr bound;
  ARROW_ASSIGN_OR_RAISE(auto matches,
                        MatchFiles(io(), state_.metadata,
                                   {.filter = filter, .keep_unmatched = true}, &bound));
  // Spark deletes by metadata (a DeleteFiles by row filter, which also removes the delete
  // files of the partitions it proves) only when it proves every planned file whole;
  // otherwise it rewrites the files holding matches, and their partitions' delete files
  // stay.
  const Schema& schema = *state_.metadata->CurrentSchema();
  StrictPartitionProof by_partition(bound, schema);
  bool by_metadata = !matches.empty();
  for (const auto& match : matches) {
    if (match.matched != match.live ||
        !StrictlyMatches(*bound, &by_partition, match.task, schema)) {
      by_metadata = false;
      break;
    }
  }
  std::erase_if(matches, [](const FileMatch& match) { return match.matched == 0; });
  RowLevelResult result;
  if (matches.empty()) return result;

  auto overwrite = NewOverwrite(isolation, bound);
  std::vector<FileScanTask> partial;
  for (auto& match : matches) {
    overwrite->DeleteFile(match.task.file.file_path);
    result.rows_removed += match.matched;
    if (match.matched < match.live) partial.push_back(match.task);
  }
  if (!partial.empty()) {
    // Keeping some rows of a file means writing them anew: declined where iceberg-java
    // would write them differently (still before any file is written).
    ARROW_RETURN_NOT_OK(
        Declined(CheckRowRewrite(*state_.metadata, options.options, RowRewrite::kDelete),
                 "delete rows of"));
  } else if (by_metadata) {
    RemovePartitionDeletes(&by_partition, matches, overwrite.get());
  }
  result.files_removed = static_cast<int64_t>(matches.size());
  result.files_rewritten = static_cast<int64_t>(partial.size());

  ARROW_ASSIGN_OR_RAISE(auto rewrite, RewriteSchemaOf(*state_.metadata));
  ARROW_ASSIGN_OR_RAISE(auto name_mapping, TableNameMapping(metadata()->properties));
  RewrittenRowsReader kept(io(), std::move(partial), rewrite, std::move(name_mapping),
                           state_.metadata->CurrentSchema(), KeepUnselected(bound));
  ARROW_ASSIGN_OR_RAISE(auto written,
                        Write(kept, options, std::move(overwrite),
                              /*commit_if_empty=*/true, nullptr, rewrite.row_lineage));
  result.committed = true;
  result.commit = written.commit;
  result.rows_written = kept.rows();
  result.data_files_written = written.data_files;
  return result;
}

arrow::Result<RowLevelResult> Table::Rewrite(const std::string& filter,
                                             int min_input_files,
                                             const AppendOptions& options) {
  ARROW_RETURN_NOT_OK(CheckGate(options.options));
  ARROW_RETURN_NOT_OK(Declined(
      CheckRowRewrite(*state_.metadata, options.options, RowRewrite::kCompaction),
      "rewrite"));
  if (min_input_files < 1) {
    return MakeError(ErrorKind::kInvalidInput, "--min-input-files must be at least 1");
  }
  RowLevelResult result;
  if (!state_.metadata->CurrentSnapshot()) return result;
  ScanOptions scan_options;
  scan_options.filter = filter;
  ARROW_ASSIGN_OR_RAISE(auto scan, TableScan::Make(io(), state_.metadata, scan_options));
  ARROW_ASSIGN_OR_RAISE(auto tasks, scan->PlanFiles());
  PropertyMap effective = state_.metadata->properties;
  for (const auto& [key, value] : options.options) effective[key] = value;
  ARROW_ASSIGN_OR_RAISE(int64_t target,
                        properties::kTargetFileSizeBytes.Parse(effective));
  const double min_size = 0.75 * static_cast<double>(target);
  const double max_size = 1.8 * static_cast<double>(target);
  // Spark's BinPackRewriteFilePlanner: candidates per partition (files outside the size
  // range, or with too many of their rows deleted), then groups worth rewriting. The
  // rewritten rows leave out what the files' delete files delete.
  std::map<std::string, std::vector<FileScanTask>> groups;
  for (auto& task : tasks) {
    const auto size = static_cast<double>(task.file.file_size_in_bytes);
    if (size >= min_size && size <= max_size && !TooHighDeleteRatio(task)) continue;
    std::string key = std::to_string(task.file.spec_id) + "/";
    if (auto type = task.spec->PartitionType(*state_.metadata->CurrentSchema());
        type.ok()) {
      key += PartitionToPath(*task.spec, **type, task.file.partition);
    }
    groups[key].push_back(std::move(task));
  }
  // Only deletes of the rewritten files conflict with a rewrite: its rows stay the same
  // whatever was appended or deleted elsewhere (iceberg-java's RewriteFiles validation).
  // The new files take the starting snapshot's sequence number, as Spark's
  // rewrite_data_files gives them (use-starting-sequence-number, on by default): equality
  // deletes committed meanwhile still apply to the rows they hold.
  auto overwrite = std::make_unique<OverwriteFiles>(commit_target());
  overwrite->ValidateFromSnapshot(current_snapshot_id());
  overwrite->RewriteFiles();
  overwrite->DataSequenceNumber(state_.metadata->CurrentSnapshot()->sequence_number);
  std::vector<FileScanTask> chosen;
  for (auto& [key, files] : groups) {
    int64_t bytes = 0;
    for (const auto& file : files) bytes += file.file.file_size_in_bytes;
    const bool deletes = std::any_of(files.begin(), files.end(), TooHighDeleteRatio);
    if (!deletes) {
      if (static_cast<int>(files.size()) < min_input_files && bytes <= target) continue;
      if (files.size() == 1 && bytes <= static_cast<int64_t>(max_size)) continue;
    }
    for (auto& file : files) {
      // Its deletion vector goes with it (OverwriteFiles, on v3); position delete files
      // stay until no live data file is older than they are, as iceberg-java keeps them.
      overwrite->DeleteFile(file.file.file_path);
      chosen.push_back(std::move(file));
    }
  }
  if (chosen.empty()) return result;
  std::vector<DataFile> replaced;
  std::set<std::string> vectors;  // the replaced files' DVs, which the commit removes
  for (const auto& task : chosen) {
    replaced.push_back(task.file);
    for (const auto& deletes : task.deletes) {
      if (deletes->file.file_format == FileFormat::kPuffin) {
        vectors.insert(deletes->file.file_path + "#" +
                       std::to_string(deletes->file.content_offset.value_or(-1)));
      }
    }
  }
  result.delete_files_removed = static_cast<int64_t>(vectors.size());
  overwrite->ValidateNoNewDeletesFor(std::move(replaced));
  result.files_removed = static_cast<int64_t>(chosen.size());
  result.files_rewritten = result.files_removed;
  ARROW_ASSIGN_OR_RAISE(auto rewrite, RewriteSchemaOf(*state_.metadata));
  ARROW_ASSIGN_OR_RAISE(auto name_mapping, TableNameMapping(metadata()->properties));
  RewrittenRowsReader rows(io(), std::move(chosen), rewrite, std::move(name_mapping),
                           state_.metadata->CurrentSchema(), nullptr);
  // The files come partition by partition: one task with the clustered writer leaves one
  // file per partition (more only past the target size), as Spark's one job per group.
  AppendOptions write = options;
  write.threads = 1;
  write.input_clustered = true;
  ARROW_ASSIGN_OR_RAISE(auto written,
                        Write(rows, write, std::move(overwrite),
                              /*commit_if_empty=*/true, nullptr, rewrite.row_lineage));
  result.committed = true;
  result.commit = written.commit;
  result.rows_written = rows.rows();
  result.data_files_written = written.data_files;
  return result;
}

arrow::Result<RowLevelResult> Table::RemoveDanglingDeletes() {
  RowLevelResult result;
  const TableMetadata& metadata = *state_.metadata;
  SnapshotPtr snapshot = metadata.CurrentSnapshot();
  if (!snapshot || metadata.format_version < 2) return result;
  if (metadata.specs.size() == 1 && metadata.DefaultSpec()->IsUnpartitioned()) {
    return result;
  }
  ARROW_ASSIGN_OR_RAISE(auto manifests, ReadSnapshotManifests(*io(), *snapshot));
  std::map<std::string, int64_t> min_data_sequence;  // by OverwriteFiles::PartitionKey
  std::optional<int64_t> oldest_data;                // over the whole table
  std::set<std::string> live_data;
  std::vector<ManifestEntry> deletes;
  for (const auto& manifest : manifests) {
    ARROW_ASSIGN_OR_RAISE(auto contents, ReadTableManifest(*io(), metadata, manifest));
    for (auto& entry : contents.entries) {
      if (entry.status == EntryStatus::kDeleted) continue;
      if (manifest.content == ManifestContent::kDeletes) {
        deletes.push_back(std::move(entry));
        continue;
      }
      const int64_t sequence = entry.sequence_number.value_or(0);
      auto [it, inserted] = min_data_sequence.emplace(
          OverwriteFiles::PartitionKey(entry.data_file), sequence);
      if (!inserted) it->second = std::min(it->second, sequence);
      oldest_data = std::min(oldest_data.value_or(sequence), sequence);
      live_data.insert(entry.data_file.file_path);
    }
  }
  auto overwrite = std::make_unique<OverwriteFiles>(commit_target());
  overwrite->RewriteFiles();
  for (const auto& entry : deletes) {
    const DataFile& file = entry.data_file;
    const int64_t sequence = entry.sequence_number.value_or(0);
    auto oldest = min_data_sequence.find(OverwriteFiles::PartitionKey(file));
    bool dangling =
        oldest == min_data_sequence.end() ||
        (file.content == FileContent::kPositionDeletes && sequence < oldest->second) ||
        (file.content == FileContent::kEqualityDeletes && sequence <= oldest->second);
    // An equality delete written with an unpartitioned spec applies to the data of every
    // spec and partition (DeleteIndex): it is dangling only when no live data file is
    // older. Spark's action looks only at its own (spec, partition) and would remove one
    // that still deletes rows of files of a newer spec (a compaction into the new spec
    // that raced it keeps its starting sequence number): floe keeps it.
    if (file.content == FileContent::kEqualityDeletes) {
      auto spec = metadata.SpecById(file.spec_id);
      if (spec && spec->IsUnpartitioned()) {
        dangling = !oldest_data || sequence <= *oldest_data;
      }
    }
    if (file.file_format == FileFormat::kPuffin && file.referenced_data_file &&
        !live_data.count(*file.referenced_data_file)) {
      dangling = true;
    }
    if (!dangling) continue;
    overwrite->RemoveDeleteFile(file);
    ++result.delete_files_removed;
  }
  if (result.delete_files_removed == 0) return result;
  ARROW_ASSIGN_OR_RAISE(result.commit, overwrite->Commit(state_));
  state_ = result.commit.state;
  result.committed = true;
  return result;
}

arrow::Status CheckRowsMatchFilter(const Expression& bound,
                                   const arrow::RecordBatch& batch, int64_t* row_offset) {
  auto shared =
      arrow::RecordBatch::Make(batch.schema(), batch.num_rows(), batch.columns());
  ARROW_ASSIGN_OR_RAISE(auto mask, EvaluateFilter(bound, shared));
  const auto& booleans = static_cast<const arrow::BooleanArray&>(*mask);
  for (int64_t i = 0; i < booleans.length(); ++i) {
    if (booleans.IsNull(i) || !booleans.Value(i)) {
      return MakeError(ErrorKind::kInvalidInput,
                       "row " + std::to_string(*row_offset + i + 1) +
                           " of the input does not match the overwrite filter " +
                           bound.ToString());
    }
  }
  *row_offset += batch.num_rows();
  return arrow::Status::OK();
}

arrow::Result<ExpressionPtr> Table::DeleteFilesMatching(const std::string& filter,
                                                        OverwriteFiles* overwrite,
                                                        RowLevelResult* result) const {
  ExpressionPtr bound;
  ARROW_ASSIGN_OR_RAISE(auto matches,
                        MatchFiles(io(), state_.metadata, {.filter = filter}, &bound));
  for (const auto& match : matches) {
    if (match.matched < match.live) {
      return MakeError(ErrorKind::kValidationFailed,
                       "Cannot delete file where some, but not all, rows match filter " +
                           bound->ToString() + ": " + match.task.file.file_path + " (" +
                           std::to_string(match.matched) + " of " +
                           std::to_string(match.live) +
                           " rows match); use floe delete for a row-level delete");
    }
    if (overwrite) overwrite->DeleteFile(match.task.file.file_path);
    if (result) result->rows_removed += match.matched;
  }
  if (result) result->files_removed = static_cast<int64_t>(matches.size());
  // Concurrent commits are checked for rows the filter selects.
  if (overwrite)
    overwrite->ConflictDetectionFilter(bound, state_.metadata->CurrentSchema());
  return bound;
}

arrow::Result<RowLevelResult> Table::Overwrite(arrow::RecordBatchReader& input,
                                               const std::string& filter,
                                               const AppendOptions& options) {
  if (filter.empty()) {
    return MakeError(ErrorKind::kInvalidInput, "an overwrite needs a filter (--where)");
  }
  ARROW_RETURN_NOT_OK(CheckGate(options.options));
  std::string level = properties::kIsolationLevelOption.Get(options.options);
  ARROW_ASSIGN_OR_RAISE(auto isolation, ParseIsolationLevel(level, "isolation-level"));
  RowLevelResult result;
  auto overwrite = NewOverwrite(isolation, nullptr);
  ARROW_ASSIGN_OR_RAISE(auto bound,
                        DeleteFilesMatching(filter, overwrite.get(), &result));
  // Every new row must fall under the filter it replaces (iceberg-java validates the
  // added files the same way).
  int64_t row_offset = 0;
  RowCheck check = [&](const arrow::RecordBatch& batch) {
    return CheckRowsMatchFilter(*bound, batch, &row_offset);
  };
  ARROW_ASSIGN_OR_RAISE(auto written, Write(input, options, std::move(overwrite),
                                            /*commit_if_empty=*/true, check));
  result.committed = true;
  result.commit = written.commit;
  result.rows_written = written.rows;
  result.data_files_written = written.data_files;
  return result;
}

arrow::Result<RowLevelResult> Table::Upsert(arrow::RecordBatchReader& input,
                                            const UpsertOptions& upsert,
                                            const AppendOptions& options) {
  const std::string table = id_.ToString();
  if (!upsert.update_matched && !upsert.insert_unmatched) {
    return MakeError(ErrorKind::kInvalidInput,
                     "upsert into " + table +
                         ": neither replacing matched rows nor inserting the others "
                         "leaves nothing to do");
  }
  ARROW_RETURN_NOT_OK(CheckGate(options.options));
  ARROW_RETURN_NOT_OK(
      Declined(CheckRowRewrite(*state_.metadata, options.options, RowRewrite::kMerge),
               "upsert into"));
  PropertyMap effective = state_.metadata->properties;
  for (const auto& [key, value] : options.options) effective[key] = value;
  std::string level = properties::kMergeIsolationLevel.Get(effective);
  ARROW_ASSIGN_OR_RAISE(auto isolation,
                        ParseIsolationLevel(level, properties::kMergeIsolationLevel.key));
  const bool merge_on_read =
      AsciiLower(properties::kMergeMode.Get(effective)) == "merge-on-read";
  const SchemaPtr schema = state_.metadata->CurrentSchema();
  ARROW_ASSIGN_OR_RAISE(auto key_fields, UpsertKeys(*schema, upsert.keys, table));
  // Loaded whole: its keys are indexed, and any duplicate fails before a file is read.
  ARROW_ASSIGN_OR_RAISE(auto rows, LoadUpsertInput(input, schema, key_fields, table));
  ARROW_ASSIGN_OR_RAISE(auto index, InputKeys::Make(*rows, key_fields, table));
  RowLevelResult result;
  if (rows->num_rows() == 0) return result;
  ARROW_ASSIGN_OR_RAISE(auto rewrite, RewriteSchemaOf(*state_.metadata));

  // Which table rows an input row replaces: the candidate files (pruned by the keys'
  // range) read through their key columns (and _row_id on v3).
  UpsertMatches found;
  found.replaces.assign(static_cast<size_t>(rows->num_rows()), 0);
  MatchRequest request;
  ARROW_ASSIGN_OR_RAISE(request.filter, KeyRangeFilter(*rows, key_fields));
  request.positions = merge_on_read;
  for (const NestedField* key : key_fields) request.columns.insert(key->id);
  request.row_ids = rewrite.row_lineage;
  request.matcher =
      MatchInputKeys(index, rewrite.row_lineage, upsert.update_matched, &found);
  ExpressionPtr bound;
  ARROW_ASSIGN_OR_RAISE(auto matches, MatchFiles(io(), state_.metadata, request, &bound));

  int64_t inserted = 0;
  ARROW_ASSIGN_OR_RAISE(
      auto new_rows,
      UpsertNewRows(rows, &found, upsert.insert_unmatched, rewrite, &inserted));
  if (new_rows.empty()) return result;  // nothing to write
  result.rows_updated = static_cast<int64_t>(found.replaced_by.size());
  result.rows_inserted = inserted;

  // Concurrent commits are checked for rows in the keys' range (a concurrent insert of
  // one of the keys conflicts under serializable isolation).
  auto overwrite = NewOverwrite(isolation, bound);
  std::vector<FileScanTask> rewritten;
  ARROW_ASSIGN_OR_RAISE(
      auto delete_files,
      RemoveReplacedRows(*this, std::move(matches), merge_on_read, effective,
                         overwrite.get(), &rewritten, &result));
  ARROW_ASSIGN_OR_RAISE(auto name_mapping, TableNameMapping(metadata()->properties));
  RewrittenRowsReader written_rows(io(), std::move(rewritten), rewrite,
                                   std::move(name_mapping), schema, DropReplaced(index),
                                   std::move(new_rows));
  ARROW_ASSIGN_OR_RAISE(auto written,
                        WriteAfterDeletes(written_rows, options, std::move(overwrite),
                                          rewrite.row_lineage, delete_files));
  result.committed = true;
  result.commit = written.commit;
  result.rows_written = written_rows.rows();
  result.data_files_written = written.data_files;
  return result;
}

}  // namespace floe::iceberg
