// Row-level operations on a Table: copy-on-write delete and overwrite by filter.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "arrow/compute/api.h"
#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/expr/row_filter.h"
#include "floe/io/file_io.h"
#include "floe/scan/delete_files.h"
#include "floe/spec/arrow_schema.h"
#include "floe/spec/arrow_value.h"
#include "floe/spec/location_provider.h"
#include "floe/spec/metadata_columns.h"
#include "floe/table/table.h"
#include "floe/transform/partition_path.h"
#include "floe/util/error.h"
#include "floe/util/test_hooks.h"
#include "floe/util/text.h"
#include "floe/util/uuid.h"
#include "floe/write/deletion_vector_writer.h"
#include "floe/write/position_delete_writer.h"

namespace floe {
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

// The candidate files of the filter (pruned by partitions and metrics) and how many of
// each file's rows match, read through the filter's columns only. Rows the file's delete
// files delete neither match nor count as live: a copy-on-write rewrite drops them, as
// iceberg-java's does.
arrow::Result<std::vector<FileMatch>> MatchFiles(const std::shared_ptr<FileIO>& io,
                                                 const TableMetadataPtr& metadata,
                                                 const std::string& filter_text,
                                                 ExpressionPtr* bound_filter,
                                                 bool positions = false) {
  ScanOptions options;
  options.filter = filter_text;
  ARROW_ASSIGN_OR_RAISE(auto scan, TableScan::Make(io, metadata, options));
  *bound_filter = scan->filter();
  ARROW_ASSIGN_OR_RAISE(auto tasks, scan->PlanFiles());
  SchemaPtr schema = metadata->CurrentSchema();
  DataFileReadOptions read;
  std::set<int> read_ids = ReferencedFieldIds(*scan->filter());
  // Equality deletes compare their columns: those are read too.
  for (const auto& task : tasks) {
    for (const auto& entry : task.deletes) {
      for (int id : entry->file.equality_ids) read_ids.insert(id);
    }
  }
  read.read_schema = SelectFields(*schema, read_ids);
  if (positions) {
    // The rows' positions in their file (`_pos`, counted before deletes drop rows), last.
    std::vector<NestedField> fields = read.read_schema->fields();
    fields.push_back(*FindMetadataColumn(kPosColumnId));
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
    ARROW_ASSIGN_OR_RAISE(
        auto reader, ReadDataFile(io, task.file, read, *task.spec, nullptr, deletes));
    FileMatch match{std::move(task), 0, 0, {}, std::move(deletes)};
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      match.live += batch->num_rows();
      ARROW_ASSIGN_OR_RAISE(auto mask, EvaluateFilter(*scan->filter(), batch));
      ARROW_ASSIGN_OR_RAISE(int64_t matched, CountTrue(mask));
      match.matched += matched;
      if (positions && matched > 0) {
        const auto& selected = static_cast<const arrow::BooleanArray&>(*mask);
        const auto& pos = static_cast<const arrow::Int64Array&>(
            *batch->column(batch->num_columns() - 1));
        for (int64_t i = 0; i < selected.length(); ++i) {
          if (selected.IsValid(i) && selected.Value(i))
            match.positions.push_back(pos.Value(i));
        }
      }
    }
    if (match.matched > 0) matches.push_back(std::move(match));
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

// One column an update sets, on the rows its filter selects: to `value` (a null scalar
// for NULL).
struct Assignment {
  int field_id = 0;
  std::shared_ptr<arrow::Scalar> value;
};

// The rows of the given files, file after file, in the rewrite's schema: without the
// rows the filter selects (a delete's kept rows), or, given assignments, all of them with
// the assignments applied to the selected ones (an update's); an updated row of a
// rewrite that keeps lineage keeps its _row_id and gets a null
// _last_updated_sequence_number, which the new file's sequence number fills, as
// iceberg-java's copy-on-write UPDATE writes it.
class KeptRowsReader final : public arrow::RecordBatchReader {
 public:
  KeptRowsReader(std::shared_ptr<FileIO> io, std::vector<FileScanTask> files,
                 const RewriteSchema& schema, ExpressionPtr filter,
                 std::shared_ptr<const NameMapping> name_mapping, SchemaPtr table_schema,
                 std::vector<Assignment> assignments = {})
      : io_(std::move(io)),
        files_(std::move(files)),
        filter_(std::move(filter)),
        arrow_schema_(schema.arrow_schema),
        deletes_(io_, std::move(table_schema), name_mapping),
        assignments_(std::move(assignments)) {
    if (schema.row_lineage && !assignments_.empty()) {
      assignments_.push_back(
          {kLastUpdatedColumnId, arrow::MakeNullScalar(arrow::int64())});
    }
    options_.read_schema = schema.schema;
    options_.output_schema = schema.schema;
    options_.name_mapping = std::move(name_mapping);
  }

  std::shared_ptr<arrow::Schema> schema() const override { return arrow_schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (true) {
      if (!current_) {
        if (next_ >= files_.size()) {
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
      ARROW_ASSIGN_OR_RAISE(auto mask, EvaluateFilter(*filter_, batch));
      // Keep what the filter does not select: false and unknown.
      ARROW_ASSIGN_OR_RAISE(
          auto selected,
          arrow::compute::CallFunction("coalesce", {mask, arrow::MakeScalar(false)}));
      if (!assignments_.empty()) {
        ARROW_ASSIGN_OR_RAISE(*out, Assign(batch, selected));
        rows_ += batch->num_rows();
        return arrow::Status::OK();
      }
      ARROW_ASSIGN_OR_RAISE(auto keep, arrow::compute::Invert(selected));
      ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(batch, keep));
      if (kept.record_batch()->num_rows() == 0) continue;
      rows_ += kept.record_batch()->num_rows();
      *out = kept.record_batch();
      return arrow::Status::OK();
    }
  }

  int64_t rows() const { return rows_; }
  int64_t updated() const { return updated_; }

 private:
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> Assign(
      const std::shared_ptr<arrow::RecordBatch>& batch, const arrow::Datum& selected) {
    updated_ +=
        static_cast<const arrow::BooleanArray&>(*selected.make_array()).true_count();
    auto columns = batch->columns();
    for (const auto& assignment : assignments_) {
      for (int i = 0; i < batch->num_columns(); ++i) {
        if (ArrowFieldId(*batch->schema()->field(i)) != assignment.field_id) continue;
        ARROW_ASSIGN_OR_RAISE(auto assigned,
                              arrow::compute::CallFunction(
                                  "if_else", {selected, assignment.value, columns[i]}));
        columns[i] = assigned.make_array();
      }
    }
    return arrow::RecordBatch::Make(arrow_schema_, batch->num_rows(), std::move(columns));
  }

  std::shared_ptr<FileIO> io_;
  std::vector<FileScanTask> files_;
  ExpressionPtr filter_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  DataFileReadOptions options_;
  DeleteLoader deletes_;
  size_t next_ = 0;
  std::shared_ptr<arrow::RecordBatchReader> current_;
  std::vector<Assignment> assignments_;
  int64_t rows_ = 0;
  int64_t updated_ = 0;
};

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

// Whether `bound` reads only identity-partition source columns of `spec`: its value is
// then the same for every row of a file written with the spec.
bool ByPartition(const Expression& bound, const PartitionSpec& spec) {
  const std::set<int> filter_ids = ReferencedFieldIds(bound);
  std::set<int> identity;
  for (const auto& field : spec.fields()) {
    if (field.transform.kind() == TransformKind::kIdentity)
      identity.insert(field.source_id);
  }
  return std::includes(identity.begin(), identity.end(), filter_ids.begin(),
                       filter_ids.end());
}

// A delete whose filter selects whole partitions is a metadata delete in Spark (a
// DeleteFiles by row filter), whose manifest filter removes the delete files of those
// partitions along with their data files: every delete file in the partitions of the
// matched files goes too.
void RemovePartitionDeletes(const Expression& bound,
                            const std::vector<FileMatch>& matches,
                            OverwriteFiles* overwrite) {
  for (const auto& match : matches) {
    if (ByPartition(bound, *match.task.spec)) {
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

// "a = 1, b = 'x, y'" split at the commas outside single quotes ('' inside quotes is a
// quote).
std::vector<std::string> SplitAssignments(const std::string& text) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (char c : text) {
    if (c == '\'') quoted = !quoted;
    if (c == ',' && !quoted) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

std::string Trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

// An update's --set: each "column = literal" parsed and bound as the filter
// "column = literal" is (so the literal converts to the column's type the same way), or
// "column = NULL" for an optional column.
arrow::Result<std::vector<Assignment>> ParseAssignments(const std::string& text,
                                                        const Schema& schema) {
  std::vector<Assignment> assignments;
  std::set<int> assigned;
  for (const std::string& raw : SplitAssignments(text)) {
    const std::string part = Trimmed(raw);
    const auto equals = part.find('=');
    auto bad = [&](const std::string& why) {
      return MakeError(ErrorKind::kInvalidInput, "--set '" + part + "': " + why);
    };
    if (equals == std::string::npos) return bad("expected column = value");
    const std::string name = Trimmed(part.substr(0, equals));
    const std::string value = Trimmed(part.substr(equals + 1));
    if (name.empty() || value.empty()) return bad("expected column = value");
    const NestedField* field = nullptr;
    for (const auto& top : schema.fields()) {
      if (top.name == name) field = &top;
    }
    if (field == nullptr) {
      return bad("no top-level column " + name + " (nested fields cannot be set yet)");
    }
    if (!field->type->is_primitive()) {
      return bad("column " + name + " is not of a primitive type");
    }
    if (!assigned.insert(field->id).second)
      return bad("column " + name + " is set twice");
    Assignment assignment;
    assignment.field_id = field->id;
    if (AsciiLower(value) == "null") {
      if (field->required)
        return bad("column " + name + " is required: it cannot be NULL");
      ARROW_ASSIGN_OR_RAISE(assignment.value, ValueToArrowScalar(Value{}, *field->type));
    } else {
      // The filter syntax quotes names that need it: the field is named as parsed.
      std::string quoted;
      for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      auto parsed = ParseFilter("\"" + quoted + "\" = " + value);
      if (!parsed.ok() || (*parsed)->op != Operation::kEq) {
        return bad("the value is not a literal of the filter syntax");
      }
      auto bound = Bind(*parsed, schema);
      if (!bound.ok()) return bad(bound.status().message());
      if (!(*bound)->is_predicate() || (*bound)->values.size() != 1) {
        return bad("the value is not a literal of column " + name + "'s type");
      }
      ARROW_ASSIGN_OR_RAISE(assignment.value,
                            ValueToArrowScalar((*bound)->value(), *field->type));
    }
    assignments.push_back(std::move(assignment));
  }
  return assignments;
}

}  // namespace

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
  ExpressionPtr bound;
  ARROW_ASSIGN_OR_RAISE(auto matches, MatchFiles(io(), state_.metadata, filter, &bound));
  RowLevelResult result;
  if (matches.empty()) return result;
  auto overwrite = NewOverwrite(isolation, bound);
  std::vector<FileScanTask> files;
  for (auto& match : matches) {
    overwrite->DeleteFile(match.task.file.file_path);
    files.push_back(std::move(match.task));
  }
  result.files_removed = static_cast<int64_t>(files.size());
  result.files_rewritten = result.files_removed;
  ARROW_ASSIGN_OR_RAISE(auto rewrite, RewriteSchemaOf(*state_.metadata));
  ARROW_ASSIGN_OR_RAISE(auto name_mapping, TableNameMapping(metadata()->properties));
  KeptRowsReader rows(io(), std::move(files), rewrite, bound, std::move(name_mapping),
                      schema, std::move(assignments));
  ARROW_ASSIGN_OR_RAISE(auto written,
                        Write(rows, options, std::move(overwrite),
                              /*commit_if_empty=*/true, nullptr, rewrite.row_lineage));
  result.committed = true;
  result.commit = written.commit;
  result.rows_updated = rows.updated();
  result.rows_written = rows.rows();
  result.data_files_written = written.data_files;
  return result;
}

arrow::Result<RowLevelResult> Table::DeleteByPositions(const std::string& filter,
                                                       IsolationLevel isolation,
                                                       const PropertyMap& properties) {
  ExpressionPtr bound;
  ARROW_ASSIGN_OR_RAISE(auto matches, MatchFiles(io(), state_.metadata, filter, &bound,
                                                 /*positions=*/true));
  RowLevelResult result;
  if (matches.empty()) return result;
  auto overwrite = NewOverwrite(isolation, bound);
  // Spark deletes by metadata when every file holding a matching row matches whole,
  // deleted rows included (its strict evaluation of the filter on partition values and
  // metrics); otherwise each such file gets a deletion vector (v3) or a position delete
  // file (v2), however many of its rows match. floe knows a file matches whole when every
  // one of its rows matched, or when the filter reads only identity-partition columns of
  // the file's spec.
  const bool whole_files =
      std::all_of(matches.begin(), matches.end(), [&](const FileMatch& match) {
        return match.matched == match.task.file.record_count ||
               ByPartition(*bound, *match.task.spec);
      });
  for (const auto& match : matches) result.rows_removed += match.matched;
  if (whole_files) {
    for (const auto& match : matches) overwrite->DeleteFile(match.task.file.file_path);
    RemovePartitionDeletes(*bound, matches, overwrite.get());
    result.files_removed = static_cast<int64_t>(matches.size());
    TestPausePoint("commit");
    ARROW_ASSIGN_OR_RAISE(result.commit, overwrite->Commit(state_));
    state_ = result.commit.state;
    result.committed = true;
    return result;
  }
  std::set<std::string> referenced;
  std::vector<std::vector<int64_t>> positions;
  for (const auto& match : matches) {
    positions.push_back(MergedPositions(match));
    referenced.insert(match.task.file.file_path);
    // The file-scoped deletes merged into the new one go (iceberg-java's
    // rewrittenDeleteFiles); a partition-scoped position delete file stays.
    for (const auto& entry : match.task.deletes) {
      if (ScopedTo(entry->file, match.task.file.file_path)) {
        overwrite->RemoveDeleteFile(entry->file);
      }
    }
  }
  // Named as a write task names its files ("-deletes" added, as iceberg-java adds it).
  const std::string operation_id = Uuid::Random(commit_target().env).ToString();
  auto file_name = [&](size_t count, const char* extension) {
    char name[128];
    std::snprintf(name, sizeof(name), "00000-0-%s-%05zu-deletes.%s", operation_id.c_str(),
                  count, extension);
    return std::string(name);
  };
  const LocationProvider locations(state_.metadata->location, properties);
  std::vector<DataFile> delete_files;
  std::vector<std::string> written;  // deleted again if the commit fails
  auto delete_written = [&]() {
    for (const auto& location : written) {
      DeleteBestEffort(*io(), location, "delete file", "after a failed delete");
    }
  };
  if (state_.metadata->format_version >= 3) {
    // One Puffin file for the whole delete, at the data location's top, as iceberg-java's
    // DV writer places it.
    std::vector<DeletionVectorInput> vectors;
    for (size_t i = 0; i < matches.size(); ++i) {
      vectors.push_back({matches[i].task.file.file_path, std::move(positions[i])});
    }
    ARROW_ASSIGN_OR_RAISE(
        auto puffin,
        WriteDeletionVectors(*io(), locations.NewDataLocation("", file_name(1, "puffin")),
                             vectors, "floe version " FLOE_VERSION));
    written.push_back(puffin.location);
    for (size_t i = 0; i < matches.size(); ++i) {
      const WrittenDeletionVector& vector = puffin.vectors[i];
      DataFile dv;
      dv.content = FileContent::kPositionDeletes;
      dv.file_format = FileFormat::kPuffin;
      dv.file_path = puffin.location;
      dv.file_size_in_bytes = puffin.size;
      dv.record_count = vector.cardinality;
      dv.referenced_data_file = matches[i].task.file.file_path;
      dv.content_offset = vector.offset;
      dv.content_size_in_bytes = vector.length;
      delete_files.push_back(std::move(dv));
    }
  } else {
    // Format v2: a position delete file per data file, in the data file's partition
    // folder (iceberg-java's file granularity, its default). Every location is known
    // before the first file is written.
    const SchemaPtr schema = state_.metadata->CurrentSchema();
    std::vector<std::string> targets;
    for (size_t i = 0; i < matches.size(); ++i) {
      const FileScanTask& task = matches[i].task;
      std::string partition_path;
      if (!task.spec->fields().empty()) {
        ARROW_ASSIGN_OR_RAISE(auto type, task.spec->PartitionType(*schema));
        partition_path = PartitionToPath(*task.spec, *type, task.file.partition);
      }
      targets.push_back(
          locations.NewDataLocation(partition_path, file_name(i + 1, "parquet")));
    }
    for (size_t i = 0; i < matches.size(); ++i) {
      const FileScanTask& task = matches[i].task;
      const std::string& location = targets[i];
      auto file = WritePositionDeleteFile(io(), location, task.file.file_path,
                                          positions[i], properties);
      if (!file.ok()) {
        delete_written();
        return file.status();
      }
      written.push_back(location);
      delete_files.push_back(std::move(*file));
    }
  }
  for (size_t i = 0; i < matches.size(); ++i) {
    delete_files[i].spec_id = matches[i].task.file.spec_id;
    delete_files[i].partition = matches[i].task.file.partition;
    overwrite->AddDeleteFile(std::move(delete_files[i]));
  }
  overwrite->ValidateDataFilesExist(std::move(referenced));
  TestPausePoint("commit");
  auto committed = overwrite->Commit(state_);
  if (!committed.ok()) {
    // Nothing references the delete files unless the commit may have happened.
    if (KindOf(committed.status()) != ErrorKind::kCommitStateUnknown) delete_written();
    return committed.status();
  }
  result.commit = *committed;
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
  ARROW_ASSIGN_OR_RAISE(auto matches, MatchFiles(io(), state_.metadata, filter, &bound));
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
  } else {
    RemovePartitionDeletes(*bound, matches, overwrite.get());
  }
  result.files_removed = static_cast<int64_t>(matches.size());
  result.files_rewritten = static_cast<int64_t>(partial.size());

  ARROW_ASSIGN_OR_RAISE(auto rewrite, RewriteSchemaOf(*state_.metadata));
  ARROW_ASSIGN_OR_RAISE(auto name_mapping, TableNameMapping(metadata()->properties));
  KeptRowsReader kept(io(), std::move(partial), rewrite, bound, std::move(name_mapping),
                      state_.metadata->CurrentSchema());
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
  // Only deletes conflict with a rewrite: the rows stay the same whatever was appended.
  auto overwrite = NewOverwrite(IsolationLevel::kSnapshot, nullptr);
  overwrite->RewriteFiles();
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
  result.files_removed = static_cast<int64_t>(chosen.size());
  result.files_rewritten = result.files_removed;
  ARROW_ASSIGN_OR_RAISE(auto rewrite, RewriteSchemaOf(*state_.metadata));
  ARROW_ASSIGN_OR_RAISE(auto name_mapping, TableNameMapping(metadata()->properties));
  KeptRowsReader rows(io(), std::move(chosen), rewrite, AlwaysFalse(),
                      std::move(name_mapping), state_.metadata->CurrentSchema());
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
  ARROW_ASSIGN_OR_RAISE(auto matches, MatchFiles(io(), state_.metadata, filter, &bound));
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

}  // namespace floe
