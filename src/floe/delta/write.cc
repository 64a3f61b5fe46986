#include "floe/delta/write.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "arrow/array/util.h"
#include "arrow/compute/api.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/delta/schema.h"
#include "floe/delta/write_format.h"
#include "floe/task/task_commit.h"
#include "floe/task/write_task.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/location.h"
#include "floe/util/log.h"
#include "floe/util/uuid.h"

namespace floe::delta {
namespace {

using OJson = nlohmann::ordered_json;

std::string Dump(const OJson& json) {
  return json.dump(-1, ' ', false, OJson::error_handler_t::replace);
}

std::string EngineInfo() { return std::string("floe/") + FLOE_VERSION; }

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
      "delta.enableExpiredLogCleanup",
  };
  return kKnown;
}

// Writer features floe implements (those that ask nothing of an append or overwrite
// beyond what floe does, or whose rule floe enforces).
const std::set<std::string>& WritableFeatures() {
  static const std::set<std::string> kWritable = {"appendOnly", "timestampNtz",
                                                  "invariants"};
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

// Writes `text` as `target` only if no file is there: a temporary file beside it, renamed
// without replacing. AlreadyExists when another writer has the name.
arrow::Status PutIfAbsent(FileIO& io, const std::string& target, const std::string& text,
                          Env* env) {
  const std::string folder = target.substr(0, target.rfind('/'));
  const std::string temporary = folder + "/." + target.substr(folder.size() + 1) + "." +
                                Uuid::Random(env).ToString() + ".tmp";
  arrow::Status written = io.WriteAll(temporary, text);
  if (!written.ok()) {
    DeleteBestEffort(io, temporary, "temporary commit file", "after a failed write");
    return written;
  }
  arrow::Status renamed = io.RenameNoReplace(temporary, target);
  if (!renamed.ok())
    DeleteBestEffort(io, temporary, "temporary commit file", "after a failed commit");
  return renamed;
}

// The batch with the table's columns, in its order and types.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> Conform(
    const std::shared_ptr<arrow::RecordBatch>& batch, const arrow::Schema& table,
    const std::string& where) {
  const auto& input = *batch->schema();
  for (const auto& field : input.fields()) {
    if (table.GetFieldIndex(field->name()) < 0) {
      return MakeError(ErrorKind::kInvalidInput, "the input's column " + field->name() +
                                                     " is not a column of " + where);
    }
  }
  arrow::ArrayVector columns;
  for (const auto& field : table.fields()) {
    int index = input.GetFieldIndex(field->name());
    std::shared_ptr<arrow::Array> column;
    if (index < 0) {
      if (!field->nullable()) {
        return MakeError(ErrorKind::kInvalidInput, "the input has no column " +
                                                       field->name() + ", which " +
                                                       where + " requires");
      }
      ARROW_ASSIGN_OR_RAISE(column,
                            arrow::MakeArrayOfNull(field->type(), batch->num_rows()));
    } else {
      column = batch->column(index);
      if (!column->type()->Equals(*field->type())) {
        auto cast = arrow::compute::Cast(*column, field->type(),
                                         arrow::compute::CastOptions::Safe());
        if (!cast.ok()) {
          return MakeError(ErrorKind::kInvalidInput,
                           "the input's column " + field->name() + " (" +
                               column->type()->ToString() + ") does not fit " + where +
                               "'s type " + field->type()->ToString() + ": " +
                               cast.status().message());
        }
        column = std::move(*cast);
      }
      if (!field->nullable() && column->null_count() > 0) {
        return MakeError(ErrorKind::kInvalidInput, "the input's column " + field->name() +
                                                       " has nulls; it is NOT NULL in " +
                                                       where);
      }
    }
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(arrow::schema(table.fields()), batch->num_rows(),
                                  std::move(columns));
}

std::string PartitionByText(const std::vector<std::string>& columns) {
  OJson list = OJson::array();
  for (const auto& column : columns) list.push_back(column);
  return Dump(list);
}

}  // namespace

arrow::Result<int64_t> CreateTable(FileIO& io, const std::string& table_root,
                                   const arrow::Schema& schema,
                                   const CreateTableOptions& options) {
  const std::string root = StripTrailingSlash(table_root);
  ARROW_RETURN_NOT_OK(CheckSupportedLocation(root));
  ARROW_ASSIGN_OR_RAISE(bool exists, IsDeltaTable(io, root));
  if (exists) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "a Delta table already exists at " + root);
  }
  if (schema.num_fields() == 0) {
    return MakeError(ErrorKind::kInvalidInput, "a Delta table needs at least one column");
  }
  std::set<std::string> lower;
  for (const auto& field : schema.fields()) {
    std::string name = field->name();
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (!lower.insert(name).second) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "column names must differ ignoring case in Delta: " + field->name());
    }
  }
  ARROW_ASSIGN_OR_RAISE(std::string schema_string, SchemaToJson(schema));
  // Partition columns: validated by the write format's own rules.
  DeltaWriteFormatOptions check;
  check.schema = std::make_shared<arrow::Schema>(schema);
  check.partition_columns = options.partition_columns;
  check.table_root = root;
  ARROW_RETURN_NOT_OK(DeltaWriteFormat::Make(std::move(check)).status());

  std::set<std::string> features;
  if (HasNtz(*arrow::struct_(schema.fields()))) features.insert("timestampNtz");
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
      features.insert(feature);
      continue;
    }
    if (key.rfind("delta.", 0) == 0 && KnownProperties().count(key) == 0) {
      return MakeError(ErrorKind::kNotSupported,
                       "floe does not write Delta tables with table property " + key);
    }
    configuration[key] = value;
  }
  OJson protocol;
  if (features.empty()) {
    protocol = {{"minReaderVersion", 1}, {"minWriterVersion", 2}};
  } else {
    // Table features: reader version 3 lists the reader-writer ones, writer version 7
    // all.
    OJson reader = OJson::array(), writer = OJson::array();
    for (const auto& feature : features) {
      if (feature == "timestampNtz") reader.push_back(feature);
      writer.push_back(feature);
    }
    if (reader.empty()) {
      protocol = {
          {"minReaderVersion", 1}, {"minWriterVersion", 7}, {"writerFeatures", writer}};
    } else {
      protocol = {{"minReaderVersion", 3},
                  {"minWriterVersion", 7},
                  {"readerFeatures", reader},
                  {"writerFeatures", writer}};
    }
  }
  Env* env = options.env;
  const int64_t now = env->NowMillis();
  OJson commit_info = {{"timestamp", now},
                       {"operation", "CREATE TABLE"},
                       {"operationParameters",
                        {{"isManaged", "false"},
                         {"description", options.description},
                         {"partitionBy", PartitionByText(options.partition_columns)},
                         {"properties", Dump(configuration)}}},
                       {"isolationLevel", "Serializable"},
                       {"isBlindAppend", true},
                       {"operationMetrics", OJson::object()},
                       {"engineInfo", EngineInfo()},
                       {"txnId", Uuid::Random(env).ToString()}};
  OJson metadata = {{"id", Uuid::Random(env).ToString()}};
  if (!options.name.empty()) metadata["name"] = options.name;
  if (!options.description.empty()) metadata["description"] = options.description;
  metadata["format"] = {{"provider", "parquet"}, {"options", OJson::object()}};
  metadata["schemaString"] = schema_string;
  metadata["partitionColumns"] = options.partition_columns;
  metadata["configuration"] = configuration;
  metadata["createdTime"] = now;
  std::string text = Dump({{"commitInfo", commit_info}}) + "\n" +
                     Dump({{"protocol", protocol}}) + "\n" +
                     Dump({{"metaData", metadata}}) + "\n";
  arrow::Status put = PutIfAbsent(io, CommitLocation(root, 0), text, env);
  if (KindOf(put) == ErrorKind::kAlreadyExists) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "a Delta table was created at " + root + " by another writer first");
  }
  ARROW_RETURN_NOT_OK(put);
  return 0;
}

arrow::Status CheckWritable(const Snapshot& snapshot, DeltaWriteMode mode) {
  std::vector<std::string> reasons;
  const Protocol& protocol = snapshot.protocol;
  if (protocol.min_writer_version > 7) {
    reasons.push_back("writer version " + std::to_string(protocol.min_writer_version));
  }
  if (protocol.min_writer_version == 7) {
    for (const auto& feature :
         protocol.writer_features.value_or(std::vector<std::string>())) {
      if (WritableFeatures().count(feature) == 0)
        reasons.push_back("writer feature " + feature);
    }
  } else {
    // Legacy versions name their features by number (PROTOCOL.md's requirements table).
    if (protocol.min_writer_version >= 3)
      reasons.push_back("writer version " + std::to_string(protocol.min_writer_version) +
                        " (CHECK constraints and later)");
  }
  for (const auto& [key, value] : snapshot.metadata.configuration) {
    // delta.constraints.* (CHECK constraints) among them.
    if (key.rfind("delta.", 0) == 0 && KnownProperties().count(key) == 0) {
      reasons.push_back("table property " + key);
    }
  }
  auto append_only = snapshot.metadata.configuration.find("delta.appendOnly");
  if (mode == DeltaWriteMode::kOverwrite &&
      append_only != snapshot.metadata.configuration.end() &&
      append_only->second == "true") {
    reasons.push_back("table property delta.appendOnly (an overwrite removes files)");
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
                                      const DeltaWriteOptions& options) {
  const std::string root = StripTrailingSlash(table_root);
  Env* env = options.env;
  ARROW_ASSIGN_OR_RAISE(Snapshot read, LoadSnapshot(*io, root));
  if (options.mode == DeltaWriteMode::kOverwrite)
    ARROW_RETURN_NOT_OK(CheckReadable(read));
  for (const char* name : {"catalogManaged", "catalogOwned-preview"}) {
    if (read.protocol.HasWriterFeature(name)) {
      return MakeError(ErrorKind::kInvalidInput,
                       "Delta table " + root + " is catalog-managed (table feature " +
                           name + "): commit to it through its catalog, not by path");
    }
  }
  ARROW_RETURN_NOT_OK(CheckWritable(read, options.mode));
  ARROW_ASSIGN_OR_RAISE(auto schema, SchemaFromJson(read.metadata.schema_string));
  const std::string where = "Delta table " + root;

  const std::string operation_id = Uuid::Random(env).ToString();
  DeltaWriteFormatOptions format_options;
  format_options.table_root = root;
  format_options.io = io;
  format_options.schema = schema;
  format_options.partition_columns = read.metadata.partition_columns;
  format_options.operation_id = operation_id;
  format_options.settings.codec = "snappy";  // Spark's and delta-rs's default
  format_options.target_file_size = options.target_file_size;
  format_options.modification_time_ms = env->NowMillis();
  const auto& configuration = read.metadata.configuration;
  if (auto it = configuration.find("delta.dataSkippingNumIndexedCols");
      it != configuration.end()) {
    try {
      format_options.indexed_columns = std::stoi(it->second);
    } catch (...) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       where + " has a malformed delta.dataSkippingNumIndexedCols");
    }
  }
  if (auto it = configuration.find("delta.dataSkippingStatsColumns");
      it != configuration.end()) {
    std::vector<std::string> columns;
    std::string column;
    for (char c : it->second + ",") {
      if (c == ',') {
        auto first = column.find_first_not_of(' ');
        auto last = column.find_last_not_of(' ');
        if (first != std::string::npos)
          columns.push_back(column.substr(first, last - first + 1));
        column.clear();
      } else {
        column.push_back(c);
      }
    }
    format_options.stats_columns = std::move(columns);
  }
  ARROW_ASSIGN_OR_RAISE(auto format, DeltaWriteFormat::Make(std::move(format_options)));
  ARROW_ASSIGN_OR_RAISE(auto task, WriteTask::Make(format, 0, 0, env));
  DeltaWriteResult result;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(input.ReadNext(&batch));
    if (!batch) break;
    ARROW_RETURN_NOT_OK(CheckCancelled("the Delta write"));
    if (batch->num_rows() == 0) continue;
    ARROW_ASSIGN_OR_RAISE(auto conformed, Conform(batch, *schema, where));
    result.rows += conformed->num_rows();
    ARROW_RETURN_NOT_OK(task->Write(conformed));
  }
  ARROW_ASSIGN_OR_RAISE(std::string message, task->Finish());
  ARROW_ASSIGN_OR_RAISE(TaskCommit decoded, DecodeTaskCommit(message));
  std::string adds = decoded.files;
  for (char c : adds) result.files_added += c == '\n' ? 1 : 0;
  {
    std::istringstream lines(adds);
    for (std::string line; std::getline(lines, line);) {
      auto json = OJson::parse(line, nullptr, false);
      if (json.is_object() && json.contains("add"))
        result.bytes += json["add"].value("size", int64_t{0});
    }
  }
  std::string removes;
  if (options.mode == DeltaWriteMode::kOverwrite) {
    const int64_t now = env->NowMillis();
    for (const auto& file : read.files) {
      OJson values = OJson::object();
      for (const auto& [name, value] : file.partition_values) {
        values[name] = value ? OJson(*value) : OJson();
      }
      OJson remove = {{"path", file.path},         {"deletionTimestamp", now},
                      {"dataChange", true},        {"extendedFileMetadata", true},
                      {"partitionValues", values}, {"size", file.size}};
      removes += Dump({{"remove", remove}}) + "\n";
      ++result.files_removed;
    }
  }
  const bool blind_append = options.mode == DeltaWriteMode::kAppend;
  int64_t version = read.version + 1;
  const std::string txn_id = Uuid::Random(env).ToString();
  for (int attempt = 1;; ++attempt) {
    ARROW_RETURN_NOT_OK(CheckCancelled("the Delta commit"));
    result.attempts = attempt;
    OJson metrics = {{"numFiles", std::to_string(result.files_added)},
                     {"numOutputRows", std::to_string(result.rows)},
                     {"numOutputBytes", std::to_string(result.bytes)}};
    if (!blind_append) metrics["numRemovedFiles"] = std::to_string(result.files_removed);
    OJson commit_info = {
        {"timestamp", env->NowMillis()},
        {"operation", "WRITE"},
        {"operationParameters",
         {{"mode", blind_append ? "Append" : "Overwrite"},
          {"partitionBy", PartitionByText(read.metadata.partition_columns)}}},
        {"readVersion", read.version},
        {"isolationLevel", "Serializable"},
        {"isBlindAppend", blind_append},
        {"operationMetrics", metrics},
        {"engineInfo", EngineInfo()},
        {"txnId", txn_id}};
    const std::string text = Dump({{"commitInfo", commit_info}}) + "\n" + removes + adds;
    const std::string target = CommitLocation(root, version);
    arrow::Status put = PutIfAbsent(*io, target, text, env);
    if (put.ok()) {
      task->Acknowledge();
      result.version = version;
      return result;
    }
    if (KindOf(put) != ErrorKind::kAlreadyExists) {
      // Did the rename land anyway? Only our txnId says so.
      auto landed = ReadCommitActions(*io, root, version);
      if (landed.ok() && landed->txn_id == txn_id) {
        task->Acknowledge();
        result.version = version;
        return result;
      }
      if (!landed.ok() && KindOf(landed.status()) != ErrorKind::kNotFound &&
          !landed.status().IsIOError()) {
        task->Acknowledge();  // the files stay for the version that may hold them
        return MakeError(ErrorKind::kCommitStateUnknown,
                         "the commit of version " + std::to_string(version) + " of " +
                             where + " may or may not have happened: " + put.message());
      }
      return WithContext(
          put, "committing version " + std::to_string(version) + " of " + where);
    }
    // Lost the race: read every version committed since, fail on a real conflict.
    for (;; ++version) {
      auto winner = ReadCommitActions(*io, root, version);
      if (!winner.ok()) {
        if (KindOf(winner.status()) == ErrorKind::kNotFound ||
            winner.status().IsIOError())
          break;
        return winner.status();
      }
      if (winner->protocol || winner->metadata) {
        return MakeError(ErrorKind::kValidationFailed,
                         where + " changed its protocol or metadata in version " +
                             std::to_string(version) +
                             ", committed concurrently; nothing "
                             "was committed");
      }
      if (!blind_append && (winner->adds > 0 || winner->removes > 0)) {
        return MakeError(
            ErrorKind::kValidationFailed,
            "version " + std::to_string(version) + " of " + where +
                " changed the files this overwrite replaces (a concurrent "
                "append or delete, as delta-spark's ConcurrentAppendException "
                "says); nothing was committed");
      }
    }
    if (attempt >= options.max_attempts) {
      return MakeError(ErrorKind::kCommitFailed, where + ": lost the race to commit " +
                                                     std::to_string(attempt) +
                                                     " times; nothing was committed");
    }
    Log(LogLevel::kInfo, where +
                             ": version taken by another writer; retrying at version " +
                             std::to_string(version));
  }
}

}  // namespace floe::delta
