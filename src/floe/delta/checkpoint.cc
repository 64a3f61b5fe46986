#include "floe/delta/checkpoint.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

#include <nlohmann/json.hpp>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/record_batch.h"
#include "floe/delta/calendar_interval.h"
#include "floe/delta/schema.h"
#include "floe/parquet/file_writer.h"
#include "floe/util/error.h"
#include "floe/util/json_number_internal.h"
#include "floe/util/log.h"
#include "floe/util/number_text.h"
#include "floe/util/uuid.h"

namespace floe::delta {
namespace {

using Json = nlohmann::json;
using OJson = nlohmann::ordered_json;

std::shared_ptr<arrow::DataType> StringMap() {
  return arrow::map(arrow::utf8(), arrow::utf8());
}

std::shared_ptr<arrow::DataType> DeletionVectorType() {
  return arrow::struct_({arrow::field("storageType", arrow::utf8()),
                         arrow::field("pathOrInlineDv", arrow::utf8()),
                         arrow::field("offset", arrow::int32()),
                         arrow::field("sizeInBytes", arrow::int32()),
                         arrow::field("cardinality", arrow::int64()),
                         arrow::field("maxRowIndex", arrow::int64())});
}

// The columns of delta-spark 4.0's V1 checkpoints, in its order (`add` without its
// partitionValues_parsed, which follows the table's partition columns).
std::vector<std::shared_ptr<arrow::Field>> CheckpointFields() {
  auto list = arrow::list(arrow::utf8());
  return {
      arrow::field("txn", arrow::struct_({arrow::field("appId", arrow::utf8()),
                                          arrow::field("version", arrow::int64()),
                                          arrow::field("lastUpdated", arrow::int64())})),
      arrow::field(
          "add", arrow::struct_({arrow::field("path", arrow::utf8()),
                                 arrow::field("partitionValues", StringMap()),
                                 arrow::field("size", arrow::int64()),
                                 arrow::field("modificationTime", arrow::int64()),
                                 arrow::field("dataChange", arrow::boolean()),
                                 arrow::field("tags", StringMap()),
                                 arrow::field("deletionVector", DeletionVectorType()),
                                 arrow::field("baseRowId", arrow::int64()),
                                 arrow::field("defaultRowCommitVersion", arrow::int64()),
                                 arrow::field("clusteringProvider", arrow::utf8()),
                                 arrow::field("stats", arrow::utf8())})),
      arrow::field(
          "remove",
          arrow::struct_({arrow::field("path", arrow::utf8()),
                          arrow::field("deletionTimestamp", arrow::int64()),
                          arrow::field("dataChange", arrow::boolean()),
                          arrow::field("extendedFileMetadata", arrow::boolean()),
                          arrow::field("partitionValues", StringMap()),
                          arrow::field("size", arrow::int64()),
                          arrow::field("deletionVector", DeletionVectorType()),
                          arrow::field("baseRowId", arrow::int64()),
                          arrow::field("defaultRowCommitVersion", arrow::int64())})),
      arrow::field(
          "metaData",
          arrow::struct_(
              {arrow::field("id", arrow::utf8()), arrow::field("name", arrow::utf8()),
               arrow::field("description", arrow::utf8()),
               arrow::field("format",
                            arrow::struct_({arrow::field("provider", arrow::utf8()),
                                            arrow::field("options", StringMap())})),
               arrow::field("schemaString", arrow::utf8()),
               arrow::field("partitionColumns", list),
               arrow::field("configuration", StringMap()),
               arrow::field("createdTime", arrow::int64())})),
      arrow::field("protocol",
                   arrow::struct_({arrow::field("minReaderVersion", arrow::int32()),
                                   arrow::field("minWriterVersion", arrow::int32()),
                                   arrow::field("readerFeatures", list),
                                   arrow::field("writerFeatures", list)})),
      arrow::field("domainMetadata",
                   arrow::struct_({arrow::field("domain", arrow::utf8()),
                                   arrow::field("configuration", arrow::utf8()),
                                   arrow::field("removed", arrow::boolean())})),
  };
}

// Appends `value` (null, or JSON of the builder's shape) to a builder MakeBuilder made
// for one of the checkpoint's types.
// A value of another shape (a hostile log's string where a number belongs, a number
// past the column's range) is InvalidMetadata: never a thrown exception, never wrapped.
arrow::Status AppendJson(arrow::ArrayBuilder* builder, const Json& value) {
  if (value.is_null()) return builder->AppendNull();
  auto mismatch = [&] {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "a log action's value does not fit the checkpoint's " +
                         builder->type()->ToString() + " column");
  };
  switch (builder->type()->id()) {
    case arrow::Type::STRING:
      if (!value.is_string()) return mismatch();
      return static_cast<arrow::StringBuilder*>(builder)->Append(
          value.get<std::string>());
    case arrow::Type::INT64:
      if (!JsonInt64(value)) return mismatch();
      return static_cast<arrow::Int64Builder*>(builder)->Append(*JsonInt64(value));
    case arrow::Type::INT32:
      if (!JsonInt32(value)) return mismatch();
      return static_cast<arrow::Int32Builder*>(builder)->Append(*JsonInt32(value));
    case arrow::Type::BOOL:
      if (!value.is_boolean()) return mismatch();
      return static_cast<arrow::BooleanBuilder*>(builder)->Append(value.get<bool>());
    case arrow::Type::LIST: {
      if (!value.is_array()) return mismatch();
      auto* list = static_cast<arrow::ListBuilder*>(builder);
      ARROW_RETURN_NOT_OK(list->Append());
      for (const auto& element : value) {
        ARROW_RETURN_NOT_OK(AppendJson(list->value_builder(), element));
      }
      return arrow::Status::OK();
    }
    case arrow::Type::MAP: {
      if (!value.is_object()) return mismatch();
      auto* map = static_cast<arrow::MapBuilder*>(builder);
      ARROW_RETURN_NOT_OK(map->Append());
      for (auto it = value.begin(); it != value.end(); ++it) {
        ARROW_RETURN_NOT_OK(AppendJson(map->key_builder(), Json(it.key())));
        ARROW_RETURN_NOT_OK(AppendJson(map->item_builder(), *it));
      }
      return arrow::Status::OK();
    }
    case arrow::Type::STRUCT: {
      if (!value.is_object()) return mismatch();
      auto* structure = static_cast<arrow::StructBuilder*>(builder);
      // type() builds the type afresh: hold it while its fields are read.
      const std::shared_ptr<arrow::DataType> held = builder->type();
      const auto& type = static_cast<const arrow::StructType&>(*held);
      ARROW_RETURN_NOT_OK(structure->Append());
      for (int i = 0; i < type.num_fields(); ++i) {
        auto found = value.find(type.field(i)->name());
        ARROW_RETURN_NOT_OK(AppendJson(structure->field_builder(i),
                                       found == value.end() ? Json() : *found));
      }
      return arrow::Status::OK();
    }
    default:
      return arrow::Status::Invalid("checkpoint column of type ", builder->type());
  }
}

Json StringMapJson(const std::map<std::string, std::optional<std::string>>& values) {
  Json object = Json::object();
  for (const auto& [key, value] : values) object[key] = value ? Json(*value) : Json();
  return object;
}

Json DeletionVectorJson(const std::optional<DeletionVector>& dv) {
  if (!dv) return Json();
  Json json = {{"storageType", dv->storage_type},
               {"pathOrInlineDv", dv->path_or_inline},
               {"sizeInBytes", dv->size_in_bytes},
               {"cardinality", dv->cardinality}};
  if (dv->offset) json["offset"] = *dv->offset;
  return json;
}

// One row per action: which column it fills, and its JSON.
struct Row {
  int column = 0;
  Json value;
  const AddFile* add = nullptr;  // for partitionValues_parsed
};

std::string LogFolderOf(const std::string& root) { return root + "/_delta_log"; }

std::string PaddedVersion(int64_t version) {
  char padded[32];
  std::snprintf(padded, sizeof(padded), "%020lld", static_cast<long long>(version));
  return padded;
}

// Writes `text` at `target` through a temporary file renamed into place, replacing what
// is there (a hint: a reader that finds none lists the log).
arrow::Status ReplaceHint(FileIO& io, const std::string& target, const std::string& text,
                          Env* env) {
  // Object storage replaces a file whole at once.
  if (io.WritesAppearWhole(target)) return io.WriteAll(target, text);
  const std::string temporary =
      LogFolderOf(target.substr(0, target.rfind("/_delta_log/"))) +
      "/._last_checkpoint." + Uuid::Random(env).ToString() + ".tmp";
  arrow::Status status = io.WriteAll(temporary, text);
  if (status.ok()) {
    arrow::Status deleted = io.Delete(target);
    if (!deleted.ok() && KindOf(deleted) != ErrorKind::kNotFound) status = deleted;
  }
  if (status.ok()) status = io.RenameNoReplace(temporary, target);
  if (!status.ok()) {
    DeleteBestEffort(io, temporary, "temporary _last_checkpoint", "after a failed write");
    // A racing checkpointer put its hint there first: as good as ours.
    if (KindOf(status) == ErrorKind::kAlreadyExists) return arrow::Status::OK();
  }
  return status;
}

// The add column with partitionValues_parsed (the partition values typed) as its last
// child.
arrow::Result<std::shared_ptr<arrow::Array>> WithParsedPartitionValues(
    const std::shared_ptr<arrow::Array>& column, const std::vector<Row>& rows,
    const std::vector<std::shared_ptr<arrow::Field>>& partition_fields) {
  arrow::ArrayVector parsed;
  for (const auto& field : partition_fields) {
    std::unique_ptr<arrow::ArrayBuilder> value_builder;
    ARROW_RETURN_NOT_OK(
        arrow::MakeBuilder(arrow::default_memory_pool(), field->type(), &value_builder));
    for (const auto& row : rows) {
      if (row.add == nullptr) {
        ARROW_RETURN_NOT_OK(value_builder->AppendNull());
        continue;
      }
      auto found = row.add->partition_values.find(field->name());
      std::optional<std::string> text;
      if (found != row.add->partition_values.end()) text = found->second;
      ARROW_ASSIGN_OR_RAISE(auto scalar,
                            ParsePartitionValue(text, field->type(), field->name()));
      ARROW_RETURN_NOT_OK(value_builder->AppendScalar(*scalar));
    }
    std::shared_ptr<arrow::Array> values;
    ARROW_RETURN_NOT_OK(value_builder->Finish(&values));
    parsed.push_back(std::move(values));
  }
  ARROW_ASSIGN_OR_RAISE(auto parsed_struct,
                        arrow::StructArray::Make(parsed, partition_fields));
  const auto& add = static_cast<const arrow::StructArray&>(*column);
  arrow::ArrayVector children = add.fields();
  auto add_fields = add.struct_type()->fields();
  children.push_back(parsed_struct);
  add_fields.push_back(arrow::field("partitionValues_parsed", parsed_struct->type()));
  return arrow::StructArray::Make(children, add_fields, add.null_bitmap(),
                                  add.null_count());
}

}  // namespace

int64_t CheckpointInterval(const std::map<std::string, std::string>& configuration) {
  auto found = configuration.find("delta.checkpointInterval");
  if (found == configuration.end()) return 10;
  // delta-spark reads it with Integer.parseInt and accepts only positive values.
  const std::optional<int32_t> interval = ParseJavaInt(found->second);
  return interval && *interval > 0 ? *interval : 10;
}

namespace {

// The partition columns' fields for partitionValues_parsed, or none when the table is
// unpartitioned or asks for no parsed values.
arrow::Result<std::vector<std::shared_ptr<arrow::Field>>> ParsedPartitionFields(
    const Metadata& metadata, const std::string& where) {
  std::vector<std::shared_ptr<arrow::Field>> partition_fields;
  if (metadata.partition_columns.empty()) return partition_fields;
  if (auto it = metadata.configuration.find("delta.checkpoint.writeStatsAsStruct");
      it != metadata.configuration.end() && it->second == "false") {
    return partition_fields;
  }
  ARROW_ASSIGN_OR_RAISE(auto schema, SchemaFromJson(metadata.schema_string));
  for (const auto& column : metadata.partition_columns) {
    auto field = schema->GetFieldByName(column);
    if (!field) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       where + ": partition column " + column + " is not in the schema");
    }
    partition_fields.push_back(field->WithNullable(true));
  }
  return partition_fields;
}

// The checkpoint's actions, one row each: protocol, metaData, the transactions updated
// after `txn_cutoff`, every add, and the tombstones removed after `tombstone_cutoff`.
std::vector<Row> CheckpointRows(const Snapshot& snapshot, int64_t tombstone_cutoff,
                                std::optional<int64_t> txn_cutoff,
                                CheckpointResult* result) {
  std::vector<Row> rows;
  const Protocol& protocol = snapshot.protocol;
  Json protocol_json = {{"minReaderVersion", protocol.min_reader_version},
                        {"minWriterVersion", protocol.min_writer_version}};
  if (protocol.reader_features)
    protocol_json["readerFeatures"] = *protocol.reader_features;
  if (protocol.writer_features)
    protocol_json["writerFeatures"] = *protocol.writer_features;
  rows.push_back({4, protocol_json});
  const Metadata& metadata = snapshot.metadata;
  Json metadata_json = {
      {"id", metadata.id},
      {"format", {{"provider", "parquet"}, {"options", Json::object()}}},
      {"schemaString", metadata.schema_string},
      {"partitionColumns", metadata.partition_columns},
      {"configuration", Json(metadata.configuration)}};
  if (!metadata.name.empty()) metadata_json["name"] = metadata.name;
  if (!metadata.description.empty()) metadata_json["description"] = metadata.description;
  if (metadata.created_time_ms) metadata_json["createdTime"] = *metadata.created_time_ms;
  rows.push_back({3, metadata_json});
  for (const auto& [app, txn] : snapshot.app_transactions) {
    if (txn_cutoff && txn.last_updated_ms && *txn.last_updated_ms < *txn_cutoff) continue;
    Json json = {{"appId", app}, {"version", txn.version}};
    if (txn.last_updated_ms) json["lastUpdated"] = *txn.last_updated_ms;
    rows.push_back({0, json});
  }
  for (const auto& file : snapshot.files) {
    Json json = {{"path", file.path},
                 {"partitionValues", StringMapJson(file.partition_values)},
                 {"size", file.size},
                 {"modificationTime", file.modification_time_ms},
                 {"dataChange", false},
                 {"deletionVector", DeletionVectorJson(file.deletion_vector)}};
    if (file.tags) json["tags"] = StringMapJson(*file.tags);
    if (file.stats) json["stats"] = *file.stats;
    rows.push_back({1, json, &file});
    ++result->add_files;
  }
  for (const auto& remove : snapshot.tombstones) {
    if (remove.deletion_timestamp_ms && *remove.deletion_timestamp_ms <= tombstone_cutoff)
      continue;
    Json json = {{"path", remove.path},
                 {"dataChange", false},
                 {"deletionVector", DeletionVectorJson(remove.deletion_vector)}};
    if (remove.deletion_timestamp_ms)
      json["deletionTimestamp"] = *remove.deletion_timestamp_ms;
    if (remove.extended_file_metadata)
      json["extendedFileMetadata"] = *remove.extended_file_metadata;
    if (remove.partition_values)
      json["partitionValues"] = StringMapJson(*remove.partition_values);
    if (remove.size) json["size"] = *remove.size;
    rows.push_back({2, json});
    ++result->tombstones;
  }
  result->rows = static_cast<int64_t>(rows.size());
  return rows;
}

// The rows as one batch of the checkpoint's columns, each filled from its rows and null
// elsewhere.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> CheckpointBatch(
    const std::vector<Row>& rows,
    const std::vector<std::shared_ptr<arrow::Field>>& partition_fields,
    const std::string& where) {
  auto fields = CheckpointFields();
  arrow::ArrayVector columns;
  for (int c = 0; c < static_cast<int>(fields.size()); ++c) {
    std::unique_ptr<arrow::ArrayBuilder> builder;
    ARROW_RETURN_NOT_OK(
        arrow::MakeBuilder(arrow::default_memory_pool(), fields[c]->type(), &builder));
    for (const auto& row : rows) {
      arrow::Status appended =
          AppendJson(builder.get(), row.column == c ? row.value : Json());
      if (!appended.ok()) return WithContext(appended, where);
    }
    std::shared_ptr<arrow::Array> column;
    ARROW_RETURN_NOT_OK(builder->Finish(&column));
    if (c == 1 && !partition_fields.empty()) {
      ARROW_ASSIGN_OR_RAISE(column,
                            WithParsedPartitionValues(column, rows, partition_fields));
      fields[c] = arrow::field("add", column->type());
    }
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(arrow::schema(fields),
                                  static_cast<int64_t>(rows.size()), std::move(columns));
}

// Writes `batch` as the checkpoint file at `location`, durable; its size into `*result`.
// A checkpoint of the version another writer wrote first is the same state, kept.
arrow::Status WriteCheckpointFile(const std::shared_ptr<FileIO>& io,
                                  const arrow::RecordBatch& batch,
                                  const std::string& folder, const std::string& name,
                                  Env* env, CheckpointResult* result) {
  const std::string& location = result->location;
  // On object storage a file appears only whole, so it is written in place (a racing
  // checkpointer of this version writes the same state); elsewhere it is renamed into
  // place, so that no reader sees part of it.
  const bool in_place = io->WritesAppearWhole(location);
  const std::string written_at =
      in_place ? location
               : folder + "/." + name + "." + Uuid::Random(env).ToString() + ".tmp";
  auto context = std::make_shared<ParquetWriteContext>();
  context->io = io;
  context->arrow_schema = batch.schema();
  context->settings.codec = "snappy";  // delta-spark's checkpoints
  context->root_name = "spark_schema";
  arrow::Status written;
  {
    auto writer = ParquetFileWriter::Open(context, written_at);
    written = writer.status();
    if (written.ok()) written = (*writer)->Write(batch);
    if (written.ok()) {
      auto closed = (*writer)->Close();
      written = closed.status();
      if (closed.ok()) result->size_in_bytes = closed->size;
    } else if (writer.ok()) {
      (*writer)->Abort();
    }
  }
  if (written.ok() && !in_place) written = io->RenameNoReplace(written_at, location);
  // Durable before _last_checkpoint can name it; the hint itself needs no sync (a reader
  // without one lists the log).
  if (written.ok()) written = SyncNewFiles(*io, {location});
  if (written.ok()) return written;
  if (!in_place)
    DeleteBestEffort(*io, written_at, "temporary checkpoint", "after a failed write");
  if (KindOf(written) == ErrorKind::kAlreadyExists) return arrow::Status::OK();
  return written;
}

}  // namespace

arrow::Result<CheckpointResult> WriteCheckpoint(const std::shared_ptr<FileIO>& io,
                                                const Snapshot& snapshot, Env* env) {
  const std::string& root = snapshot.table_root;
  const std::string where = "the checkpoint of version " +
                            std::to_string(snapshot.version) + " of Delta table " + root;
  const auto& configuration = snapshot.metadata.configuration;
  const int64_t now = env->NowMillis();
  // An interval floe cannot read (delta-spark would fail the checkpoint) keeps every
  // tombstone and every transaction: never fewer than asked for.
  auto retention = IntervalPropertyMillis(
      configuration, "delta.deletedFileRetentionDuration", 604'800'000);  // a week
  const int64_t tombstone_cutoff = retention.ok() ? now - *retention : INT64_MIN;
  std::optional<int64_t> txn_cutoff;
  if (configuration.contains("delta.setTransactionRetentionDuration")) {
    auto txn_retention =
        IntervalPropertyMillis(configuration, "delta.setTransactionRetentionDuration", 0);
    if (txn_retention.ok()) txn_cutoff = now - *txn_retention;
  }
  ARROW_ASSIGN_OR_RAISE(auto partition_fields,
                        ParsedPartitionFields(snapshot.metadata, where));
  CheckpointResult result;
  const std::vector<Row> rows =
      CheckpointRows(snapshot, tombstone_cutoff, txn_cutoff, &result);
  ARROW_ASSIGN_OR_RAISE(auto batch, CheckpointBatch(rows, partition_fields, where));

  const std::string folder = LogFolderOf(root);
  const std::string name = PaddedVersion(snapshot.version) + ".checkpoint.parquet";
  result.location = folder + "/" + name;
  ARROW_RETURN_NOT_OK(
      WithContext(WriteCheckpointFile(io, *batch, folder, name, env, &result), where));

  // _last_checkpoint, unless it names this version or a newer one already.
  const std::string hint = folder + "/_last_checkpoint";
  auto existing = io->ReadAll(hint, 1 << 20);
  if (existing.ok()) {
    Json json = Json::parse(*existing, nullptr, false);
    if (json.is_object() && json.contains("version") &&
        JsonInt64(json["version"]).value_or(-1) >= snapshot.version) {
      return result;
    }
  }
  OJson last = {{"version", snapshot.version},
                {"size", result.rows},
                {"sizeInBytes", result.size_in_bytes},
                {"numOfAddFiles", result.add_files}};
  ARROW_RETURN_NOT_OK(
      WithContext(ReplaceHint(*io, hint, last.dump(), env), "writing " + hint));
  return result;
}

}  // namespace floe::delta
