#include "floe/delta/log.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/table.h"
#include "floe/util/error.h"
#include "floe/util/json_depth_internal.h"
#include "floe/util/json_number_internal.h"
#include "floe/util/location.h"
#include "floe/util/log.h"
#include "floe/util/number_text.h"
#include "parquet/arrow/reader.h"
#include "parquet/arrow/schema.h"
#include "parquet/exception.h"

namespace floe::delta {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kLogFolder = "_delta_log";

arrow::Status Invalid(const std::string& location, const std::string& what) {
  return MakeError(ErrorKind::kInvalidMetadata,
                   "Delta log file " + location + ": " + what);
}

// ---------------------------------------------------------------------------------------
// Log file names

enum class LogFileKind { kCommit, kCheckpoint, kCheckpointPart, kV2Checkpoint, kOther };

struct LogFileName {
  LogFileKind kind = LogFileKind::kOther;
  int64_t version = -1;
  int part = 0;
  int parts = 0;
};

bool AllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

LogFileName ParseLogFileName(std::string_view name) {
  LogFileName parsed;
  if (name.size() < 21 || !AllDigits(name.substr(0, 20)) || name[20] != '.')
    return parsed;
  const std::optional<int64_t> version = ParseDigits(name.substr(0, 20));
  if (!version) return parsed;
  std::string_view rest = name.substr(21);
  parsed.version = *version;
  if (rest == "json") {
    parsed.kind = LogFileKind::kCommit;
  } else if (rest == "checkpoint.parquet") {
    parsed.kind = LogFileKind::kCheckpoint;
  } else if (rest.rfind("checkpoint.", 0) == 0) {
    std::string_view tail = rest.substr(11);
    // <o:10>.<p:10>.parquet (multi-part) or <uuid>.(json|parquet) (V2)
    if (tail.size() == 10 + 1 + 10 + 8 && AllDigits(tail.substr(0, 10)) &&
        tail[10] == '.' && AllDigits(tail.substr(11, 10)) &&
        tail.substr(21) == ".parquet") {
      // Ten digits may exceed an int (9999999999): such a name is no checkpoint part
      // a writer gives, and is passed over like any other stray file.
      const int64_t part = ParseDigits(tail.substr(0, 10)).value_or(0);
      const int64_t parts = ParseDigits(tail.substr(11, 10)).value_or(0);
      if (part >= 1 && parts >= 1 && part <= parts &&
          parts <= std::numeric_limits<int32_t>::max()) {
        parsed.kind = LogFileKind::kCheckpointPart;
        parsed.part = static_cast<int>(part);
        parsed.parts = static_cast<int>(parts);
      } else {
        parsed.kind = LogFileKind::kOther;
      }
    } else if (tail.size() > 8 && (tail.substr(tail.size() - 5) == ".json" ||
                                   tail.substr(tail.size() - 8) == ".parquet")) {
      parsed.kind = LogFileKind::kV2Checkpoint;
    } else {
      parsed.kind = LogFileKind::kOther;
    }
  } else {
    parsed.kind = LogFileKind::kOther;
  }
  return parsed;
}

std::string LogFolder(const std::string& root) {
  return root + "/" + std::string(kLogFolder);
}

std::string VersionText(int64_t version) {
  std::string digits = std::to_string(version);
  return std::string(20 - std::min<size_t>(20, digits.size()), '0') + digits;
}

// ---------------------------------------------------------------------------------------
// Replay state

struct Replay {
  FileIO* io = nullptr;
  bool in_sidecar = false;  // a sidecar naming another sidecar is refused
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  // By location and deletion vector id (FileKey); ordered once, at the end.
  std::unordered_map<std::string, AddFile> files;
  std::map<std::string, AppTransaction> apps;
  std::unordered_map<std::string, RemoveFile> tombstones;  // by the same key as files
  std::optional<int64_t> in_commit_timestamp;              // of the last commit applied
};

std::string DeletionVectorId(const std::optional<DeletionVector>& dv) {
  return dv ? dv->UniqueId() : std::string();
}

std::string FileKey(const std::string& location,
                    const std::optional<DeletionVector>& dv) {
  return location + '\n' + DeletionVectorId(dv);
}

// A log path (a URI reference, encoded) as a location: absolute ones as they are,
// relative ones below `base`.
arrow::Result<std::string> ResolveAgainst(const std::string& base,
                                          const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(std::string decoded, DecodeUriPath(path));
  if (path.find("://") != std::string::npos || path.rfind("file:", 0) == 0) {
    return LocalPath(decoded);
  }
  if (!decoded.empty() && decoded[0] == '/') return decoded;
  return base + "/" + decoded;
}

arrow::Result<std::string> ResolvePath(const std::string& root, const std::string& path) {
  return ResolveAgainst(root, path);
}

// A sidecar's path: relative to _delta_log/_sidecars/, or absolute.
arrow::Result<std::string> SidecarLocation(const std::string& root,
                                           const std::string& path) {
  return ResolveAgainst(root + "/_delta_log/_sidecars", path);
}

arrow::Status ApplyCheckpointPart(FileIO& io, const std::string& root,
                                  const std::string& location, Replay* replay);

arrow::Status ApplySidecar(FileIO& io, const std::string& root, const std::string& from,
                           const std::string& path, Replay* replay) {
  if (replay->in_sidecar) return Invalid(from, "a sidecar file that names a sidecar");
  ARROW_ASSIGN_OR_RAISE(std::string location, SidecarLocation(root, path));
  replay->in_sidecar = true;
  arrow::Status status = ApplyCheckpointPart(io, root, location, replay);
  replay->in_sidecar = false;
  return status;
}

// ---------------------------------------------------------------------------------------
// JSON commits

arrow::Result<std::optional<std::string>> JsonOptionalString(const Json& object,
                                                             const char* key,
                                                             const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return Invalid(where, std::string(key) + " is not a string");
  return std::optional<std::string>(it->get<std::string>());
}

arrow::Result<std::string> JsonString(const Json& object, const char* key,
                                      const std::string& where) {
  ARROW_ASSIGN_OR_RAISE(auto value, JsonOptionalString(object, key, where));
  if (!value) return Invalid(where, std::string("no ") + key);
  return *value;
}

arrow::Result<std::optional<int64_t>> JsonOptionalLong(const Json& object,
                                                       const char* key,
                                                       const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<int64_t>();
  if (!JsonInt64(*it)) return Invalid(where, std::string(key) + " is not an integer");
  return JsonInt64(*it);
}

arrow::Result<std::optional<std::vector<std::string>>> JsonStringList(
    const Json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null())
    return std::optional<std::vector<std::string>>();
  if (!it->is_array()) return Invalid(where, std::string(key) + " is not an array");
  std::vector<std::string> values;
  for (const auto& value : *it) {
    if (!value.is_string())
      return Invalid(where, std::string(key) + " holds a non-string");
    values.push_back(value.get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(values));
}

arrow::Result<std::optional<DeletionVector>> JsonDeletionVector(
    const Json& object, const std::string& where) {
  auto it = object.find("deletionVector");
  if (it == object.end() || it->is_null()) return std::optional<DeletionVector>();
  if (!it->is_object()) return Invalid(where, "deletionVector is not an object");
  DeletionVector dv;
  ARROW_ASSIGN_OR_RAISE(dv.storage_type, JsonString(*it, "storageType", where));
  ARROW_ASSIGN_OR_RAISE(dv.path_or_inline, JsonString(*it, "pathOrInlineDv", where));
  ARROW_ASSIGN_OR_RAISE(auto offset, JsonOptionalLong(*it, "offset", where));
  if (offset) dv.offset = static_cast<int32_t>(*offset);
  ARROW_ASSIGN_OR_RAISE(auto size, JsonOptionalLong(*it, "sizeInBytes", where));
  dv.size_in_bytes = static_cast<int32_t>(size.value_or(0));
  ARROW_ASSIGN_OR_RAISE(auto cardinality, JsonOptionalLong(*it, "cardinality", where));
  dv.cardinality = cardinality.value_or(0);
  return std::optional<DeletionVector>(std::move(dv));
}

using PartitionValues = std::map<std::string, std::optional<std::string>>;

// An action's partitionValues (absent or null: none).
arrow::Result<PartitionValues> JsonPartitionValues(const Json& action,
                                                   const std::string& where) {
  PartitionValues values;
  auto found = action.find("partitionValues");
  if (found == action.end() || found->is_null()) return values;
  if (!found->is_object()) return Invalid(where, "partitionValues is not an object");
  for (auto v = found->begin(); v != found->end(); ++v) {
    if (v->is_null()) {
      values[v.key()] = std::nullopt;
    } else if (v->is_string()) {
      values[v.key()] = v->get<std::string>();
    } else {
      return Invalid(where, "partition value of " + v.key() + " is not a string");
    }
  }
  return values;
}

arrow::Status ApplyJsonAction(const std::string& root, const Json& line,
                              const std::string& where, Replay* replay) {
  if (!line.is_object()) return Invalid(where, "an action that is not a JSON object");
  for (auto it = line.begin(); it != line.end(); ++it) {
    const std::string& kind = it.key();
    const Json& action = it.value();
    if (action.is_null()) continue;
    if (!action.is_object())
      return Invalid(where, "action " + kind + " is not an object");
    if (kind == "add") {
      AddFile add;
      ARROW_ASSIGN_OR_RAISE(add.path, JsonString(action, "path", where));
      ARROW_ASSIGN_OR_RAISE(add.location, ResolvePath(root, add.path));
      ARROW_ASSIGN_OR_RAISE(add.partition_values, JsonPartitionValues(action, where));
      ARROW_ASSIGN_OR_RAISE(auto size, JsonOptionalLong(action, "size", where));
      add.size = size.value_or(0);
      ARROW_ASSIGN_OR_RAISE(auto mtime,
                            JsonOptionalLong(action, "modificationTime", where));
      add.modification_time_ms = mtime.value_or(0);
      auto change = action.find("dataChange");
      add.data_change =
          change == action.end() || !change->is_boolean() || change->get<bool>();
      ARROW_ASSIGN_OR_RAISE(add.stats, JsonOptionalString(action, "stats", where));
      ARROW_ASSIGN_OR_RAISE(add.deletion_vector, JsonDeletionVector(action, where));
      auto tags = action.find("tags");
      if (tags != action.end() && tags->is_object()) {
        add.tags.emplace();
        for (auto t = tags->begin(); t != tags->end(); ++t) {
          (*add.tags)[t.key()] = t->is_string()
                                     ? std::optional<std::string>(t->get<std::string>())
                                     : std::nullopt;
        }
      }
      std::string key = FileKey(add.location, add.deletion_vector);
      replay->tombstones.erase(key);
      replay->files[key] = std::move(add);
    } else if (kind == "remove") {
      RemoveFile remove;
      ARROW_ASSIGN_OR_RAISE(remove.path, JsonString(action, "path", where));
      ARROW_ASSIGN_OR_RAISE(remove.location, ResolvePath(root, remove.path));
      ARROW_ASSIGN_OR_RAISE(remove.deletion_vector, JsonDeletionVector(action, where));
      ARROW_ASSIGN_OR_RAISE(remove.deletion_timestamp_ms,
                            JsonOptionalLong(action, "deletionTimestamp", where));
      auto change = action.find("dataChange");
      remove.data_change =
          change == action.end() || !change->is_boolean() || change->get<bool>();
      auto extended = action.find("extendedFileMetadata");
      if (extended != action.end() && extended->is_boolean())
        remove.extended_file_metadata = extended->get<bool>();
      auto values = action.find("partitionValues");
      if (values != action.end() && values->is_object()) {
        remove.partition_values.emplace();
        for (auto v = values->begin(); v != values->end(); ++v) {
          (*remove.partition_values)[v.key()] =
              v->is_string() ? std::optional<std::string>(v->get<std::string>())
                             : std::nullopt;
        }
      }
      ARROW_ASSIGN_OR_RAISE(remove.size, JsonOptionalLong(action, "size", where));
      std::string key = FileKey(remove.location, remove.deletion_vector);
      replay->files.erase(key);
      replay->tombstones[key] = std::move(remove);
    } else if (kind == "metaData") {
      Metadata metadata;
      ARROW_ASSIGN_OR_RAISE(metadata.id, JsonString(action, "id", where));
      ARROW_ASSIGN_OR_RAISE(auto name, JsonOptionalString(action, "name", where));
      metadata.name = name.value_or("");
      ARROW_ASSIGN_OR_RAISE(auto description,
                            JsonOptionalString(action, "description", where));
      metadata.description = description.value_or("");
      ARROW_ASSIGN_OR_RAISE(metadata.schema_string,
                            JsonString(action, "schemaString", where));
      ARROW_ASSIGN_OR_RAISE(auto columns,
                            JsonStringList(action, "partitionColumns", where));
      metadata.partition_columns = columns.value_or(std::vector<std::string>());
      auto configuration = action.find("configuration");
      if (configuration != action.end() && configuration->is_object()) {
        for (auto c = configuration->begin(); c != configuration->end(); ++c) {
          if (c->is_string()) metadata.configuration[c.key()] = c->get<std::string>();
        }
      }
      ARROW_ASSIGN_OR_RAISE(metadata.created_time_ms,
                            JsonOptionalLong(action, "createdTime", where));
      replay->metadata = std::move(metadata);
    } else if (kind == "protocol") {
      Protocol protocol;
      ARROW_ASSIGN_OR_RAISE(auto reader,
                            JsonOptionalLong(action, "minReaderVersion", where));
      ARROW_ASSIGN_OR_RAISE(auto writer,
                            JsonOptionalLong(action, "minWriterVersion", where));
      if (!reader || !writer) return Invalid(where, "a protocol without versions");
      protocol.min_reader_version = static_cast<int>(*reader);
      protocol.min_writer_version = static_cast<int>(*writer);
      ARROW_ASSIGN_OR_RAISE(protocol.reader_features,
                            JsonStringList(action, "readerFeatures", where));
      ARROW_ASSIGN_OR_RAISE(protocol.writer_features,
                            JsonStringList(action, "writerFeatures", where));
      replay->protocol = std::move(protocol);
    } else if (kind == "txn") {
      ARROW_ASSIGN_OR_RAISE(std::string app, JsonString(action, "appId", where));
      ARROW_ASSIGN_OR_RAISE(auto version, JsonOptionalLong(action, "version", where));
      if (!version) return Invalid(where, "a txn without a version");
      ARROW_ASSIGN_OR_RAISE(auto updated, JsonOptionalLong(action, "lastUpdated", where));
      replay->apps[app] = AppTransaction{*version, updated};
    } else if (kind == "sidecar") {
      ARROW_ASSIGN_OR_RAISE(std::string path, JsonString(action, "path", where));
      ARROW_RETURN_NOT_OK(ApplySidecar(*replay->io, root, where, path, replay));
    } else if (kind == "commitInfo") {
      ARROW_ASSIGN_OR_RAISE(auto ict,
                            JsonOptionalLong(action, "inCommitTimestamp", where));
      if (ict) replay->in_commit_timestamp = ict;
    }
    // cdc, domainMetadata and anything newer change no file a snapshot reads.
  }
  return arrow::Status::OK();
}

// Applies every action of one commit file; errors name the file and the line.
arrow::Status ApplyCommit(FileIO& io, const std::string& root,
                          const std::string& location, Replay* replay) {
  ARROW_ASSIGN_OR_RAISE(std::string text, io.ReadAll(location));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    // delta-spark and delta-kernel-rs replay it as a version with no actions, and so does
    // floe; but no writer commits nothing, so its bytes were most likely lost (a copy
    // cut short, a disk that did not keep them): say so, naming the file.
    Log(LogLevel::kWarning, "Delta commit file " + location +
                                " is empty; read as a version with no actions (its "
                                "writer's actions may have been lost)");
  }
  replay->in_commit_timestamp.reset();
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = location + " line " + std::to_string(number);
    if (JsonNestsDeeperThan(line)) return Invalid(where, "JSON nested too deeply");
    Json json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded())
      return Invalid(where, "not a JSON object (truncated or corrupt)");
    ARROW_RETURN_NOT_OK(ApplyJsonAction(root, json, where, replay));
  }
  return arrow::Status::OK();
}

// The commitInfo.inCommitTimestamp of a commit file, if it has one.
arrow::Result<std::optional<int64_t>> InCommitTimestamp(FileIO& io,
                                                        const std::string& root,
                                                        const std::string& location) {
  Replay replay;
  replay.io = &io;
  ARROW_RETURN_NOT_OK(ApplyCommit(io, root, location, &replay));
  return replay.in_commit_timestamp;
}

// ---------------------------------------------------------------------------------------
// Checkpoints (Parquet)

std::optional<std::string> StringAt(const arrow::Array* array, int64_t row) {
  if (array == nullptr || array->IsNull(row)) return std::nullopt;
  switch (array->type_id()) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return std::string(static_cast<const arrow::BinaryArray*>(array)->GetView(row));
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return std::string(
          static_cast<const arrow::LargeBinaryArray*>(array)->GetView(row));
    case arrow::Type::STRING_VIEW:
    case arrow::Type::BINARY_VIEW:
      return std::string(static_cast<const arrow::BinaryViewArray*>(array)->GetView(row));
    default:
      return std::nullopt;
  }
}

std::optional<int64_t> LongAt(const arrow::Array* array, int64_t row) {
  if (array == nullptr || array->IsNull(row)) return std::nullopt;
  switch (array->type_id()) {
    case arrow::Type::INT32:
      return static_cast<const arrow::Int32Array*>(array)->Value(row);
    case arrow::Type::INT64:
      return static_cast<const arrow::Int64Array*>(array)->Value(row);
    default:
      return std::nullopt;
  }
}

std::optional<bool> BoolAt(const arrow::Array* array, int64_t row) {
  if (array == nullptr || array->IsNull(row) || array->type_id() != arrow::Type::BOOL) {
    return std::nullopt;
  }
  return static_cast<const arrow::BooleanArray*>(array)->Value(row);
}

// Keeps the arrays the raw pointers above point into alive.
struct Children {
  std::vector<std::shared_ptr<arrow::Array>> kept;
  const arrow::Array* Of(const arrow::StructArray& parent, const char* name) {
    auto child = parent.GetFieldByName(name);
    if (!child) return nullptr;
    kept.push_back(child);
    return child.get();
  }
};

std::map<std::string, std::optional<std::string>> StringMapAt(const arrow::Array* array,
                                                              int64_t row) {
  std::map<std::string, std::optional<std::string>> values;
  if (array == nullptr || array->IsNull(row) || array->type_id() != arrow::Type::MAP) {
    return values;
  }
  const auto& map = static_cast<const arrow::MapArray&>(*array);
  auto keys = map.keys();
  auto items = map.items();
  for (int64_t i = map.value_offset(row); i < map.value_offset(row + 1); ++i) {
    auto key = StringAt(keys.get(), i);
    if (key) values[*key] = StringAt(items.get(), i);
  }
  return values;
}

std::optional<std::vector<std::string>> StringListAt(const arrow::Array* array,
                                                     int64_t row) {
  if (array == nullptr || array->IsNull(row) || array->type_id() != arrow::Type::LIST) {
    return std::nullopt;
  }
  const auto& list = static_cast<const arrow::ListArray&>(*array);
  auto values = list.values();
  std::vector<std::string> out;
  for (int64_t i = list.value_offset(row); i < list.value_offset(row + 1); ++i) {
    auto value = StringAt(values.get(), i);
    if (value) out.push_back(*value);
  }
  return out;
}

std::optional<DeletionVector> DeletionVectorAt(const arrow::Array* array, int64_t row) {
  if (array == nullptr || array->IsNull(row) || array->type_id() != arrow::Type::STRUCT) {
    return std::nullopt;
  }
  const auto& dv_struct = static_cast<const arrow::StructArray&>(*array);
  DeletionVector dv;
  Children children;
  dv.storage_type = StringAt(children.Of(dv_struct, "storageType"), row).value_or("");
  dv.path_or_inline =
      StringAt(children.Of(dv_struct, "pathOrInlineDv"), row).value_or("");
  auto offset = LongAt(children.Of(dv_struct, "offset"), row);
  if (offset) dv.offset = static_cast<int32_t>(*offset);
  dv.size_in_bytes = static_cast<int32_t>(
      LongAt(children.Of(dv_struct, "sizeInBytes"), row).value_or(0));
  dv.cardinality = LongAt(children.Of(dv_struct, "cardinality"), row).value_or(0);
  return dv;
}

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* leaves) {
  if (field.children.empty()) {
    if (field.column_index >= 0) leaves->push_back(field.column_index);
    return;
  }
  for (const auto& child : field.children) CollectLeaves(child, leaves);
}

// The leaves of a checkpoint part that replay reads: whole protocol, metaData, txn and
// sidecar actions; of add and remove, the fields below (not stats_parsed or
// partitionValues_parsed: the JSON forms are read).
std::vector<int> CheckpointLeaves(
    const std::vector<parquet::arrow::SchemaField>& fields) {
  static const std::set<std::string> kAddFields = {
      "path",       "partitionValues", "size",           "modificationTime",
      "dataChange", "stats",           "deletionVector", "tags"};
  static const std::set<std::string> kRemoveFields = {
      "path",       "partitionValues",      "size",          "deletionTimestamp",
      "dataChange", "extendedFileMetadata", "deletionVector"};
  std::vector<int> leaves;
  for (const auto& field : fields) {
    const std::string& name = field.field->name();
    if (name == "metaData" || name == "protocol" || name == "txn" || name == "sidecar") {
      CollectLeaves(field, &leaves);
      continue;
    }
    const std::set<std::string>* wanted = name == "add"      ? &kAddFields
                                          : name == "remove" ? &kRemoveFields
                                                             : nullptr;
    if (wanted == nullptr) continue;
    for (const auto& child : field.children) {
      if (wanted->count(child.field->name()) > 0) CollectLeaves(child, &leaves);
    }
  }
  return leaves;
}

// The columns of a checkpoint part that replay reads, in one chunk each.
arrow::Result<std::shared_ptr<arrow::Table>> ReadCheckpointPart(
    FileIO& io, const std::string& location) {
  auto wrap = [&](const arrow::Status& status) {
    return status.ok()
               ? status
               : Invalid(location, "cannot read the checkpoint: " + status.message());
  };
  std::shared_ptr<arrow::Table> table;
  try {
    auto input = io.OpenInput(location);
    ARROW_RETURN_NOT_OK(wrap(input.status()));
    auto opened = parquet::arrow::OpenFile(*input, arrow::default_memory_pool());
    ARROW_RETURN_NOT_OK(wrap(opened.status()));
    std::unique_ptr<parquet::arrow::FileReader> reader = std::move(*opened);
    auto read = reader->ReadTable(CheckpointLeaves(reader->manifest().schema_fields));
    ARROW_RETURN_NOT_OK(wrap(read.status()));
    table = std::move(*read);
  } catch (const parquet::ParquetException& e) {
    return Invalid(location, std::string("cannot read the checkpoint: ") + e.what());
  }
  return table->CombineChunks();
}

arrow::Status ApplyCheckpointProtocol(const arrow::StructArray& protocol,
                                      const std::string& location, Replay* replay) {
  Children children;
  auto reader_version = children.Of(protocol, "minReaderVersion");
  auto writer_version = children.Of(protocol, "minWriterVersion");
  auto reader_features = children.Of(protocol, "readerFeatures");
  auto writer_features = children.Of(protocol, "writerFeatures");
  for (int64_t row = 0; row < protocol.length(); ++row) {
    if (protocol.IsNull(row)) continue;
    Protocol p;
    auto r = LongAt(reader_version, row);
    auto w = LongAt(writer_version, row);
    if (!r || !w) return Invalid(location, "a protocol without versions");
    p.min_reader_version = static_cast<int>(*r);
    p.min_writer_version = static_cast<int>(*w);
    p.reader_features = StringListAt(reader_features, row);
    p.writer_features = StringListAt(writer_features, row);
    replay->protocol = std::move(p);
  }
  return arrow::Status::OK();
}

arrow::Status ApplyCheckpointMetadata(const arrow::StructArray& metadata,
                                      const std::string& location, Replay* replay) {
  Children children;
  auto id = children.Of(metadata, "id");
  auto name = children.Of(metadata, "name");
  auto description = children.Of(metadata, "description");
  auto schema = children.Of(metadata, "schemaString");
  auto partition_columns = children.Of(metadata, "partitionColumns");
  auto configuration = children.Of(metadata, "configuration");
  auto created = children.Of(metadata, "createdTime");
  for (int64_t row = 0; row < metadata.length(); ++row) {
    if (metadata.IsNull(row)) continue;
    Metadata m;
    m.id = StringAt(id, row).value_or("");
    m.name = StringAt(name, row).value_or("");
    m.description = StringAt(description, row).value_or("");
    auto schema_string = StringAt(schema, row);
    if (!schema_string) return Invalid(location, "a metaData without a schemaString");
    m.schema_string = *schema_string;
    m.partition_columns =
        StringListAt(partition_columns, row).value_or(std::vector<std::string>());
    for (auto& [key, value] : StringMapAt(configuration, row)) {
      if (value) m.configuration[key] = *value;
    }
    m.created_time_ms = LongAt(created, row);
    replay->metadata = std::move(m);
  }
  return arrow::Status::OK();
}

void ApplyCheckpointTxns(const arrow::StructArray& txn, Replay* replay) {
  Children children;
  auto app = children.Of(txn, "appId");
  auto version = children.Of(txn, "version");
  auto updated = children.Of(txn, "lastUpdated");
  for (int64_t row = 0; row < txn.length(); ++row) {
    if (txn.IsNull(row)) continue;
    auto a = StringAt(app, row);
    auto v = LongAt(version, row);
    if (a && v) replay->apps[*a] = AppTransaction{*v, LongAt(updated, row)};
  }
}

// Removes in a checkpoint are tombstones of files no longer in it: kept for the next
// checkpoint, never read as data.
arrow::Status ApplyCheckpointRemoves(const arrow::StructArray& remove,
                                     const std::string& root, const std::string& location,
                                     Replay* replay) {
  Children children;
  auto path = children.Of(remove, "path");
  auto values = children.Of(remove, "partitionValues");
  auto size = children.Of(remove, "size");
  auto deleted = children.Of(remove, "deletionTimestamp");
  auto change = children.Of(remove, "dataChange");
  auto extended = children.Of(remove, "extendedFileMetadata");
  auto dv = children.Of(remove, "deletionVector");
  for (int64_t row = 0; row < remove.length(); ++row) {
    if (remove.IsNull(row)) continue;
    RemoveFile file;
    auto p = StringAt(path, row);
    if (!p) return Invalid(location, "a remove without a path");
    file.path = *p;
    ARROW_ASSIGN_OR_RAISE(file.location, ResolvePath(root, file.path));
    if (values != nullptr && !values->IsNull(row))
      file.partition_values = StringMapAt(values, row);
    file.size = LongAt(size, row);
    file.deletion_timestamp_ms = LongAt(deleted, row);
    file.data_change = BoolAt(change, row).value_or(false);
    file.extended_file_metadata = BoolAt(extended, row);
    file.deletion_vector = DeletionVectorAt(dv, row);
    std::string key = FileKey(file.location, file.deletion_vector);
    replay->tombstones[key] = std::move(file);
  }
  return arrow::Status::OK();
}

arrow::Status ApplyCheckpointAdds(const arrow::StructArray& add, const std::string& root,
                                  const std::string& location, Replay* replay) {
  Children children;
  auto path = children.Of(add, "path");
  auto values = children.Of(add, "partitionValues");
  auto size = children.Of(add, "size");
  auto mtime = children.Of(add, "modificationTime");
  auto change = children.Of(add, "dataChange");
  auto stats = children.Of(add, "stats");
  auto dv = children.Of(add, "deletionVector");
  auto tags = children.Of(add, "tags");
  replay->files.reserve(replay->files.size() + static_cast<size_t>(add.length()));
  for (int64_t row = 0; row < add.length(); ++row) {
    if (add.IsNull(row)) continue;
    AddFile file;
    auto p = StringAt(path, row);
    if (!p) return Invalid(location, "an add without a path");
    file.path = *p;
    ARROW_ASSIGN_OR_RAISE(file.location, ResolvePath(root, file.path));
    file.partition_values = StringMapAt(values, row);
    file.size = LongAt(size, row).value_or(0);
    file.modification_time_ms = LongAt(mtime, row).value_or(0);
    file.data_change = BoolAt(change, row).value_or(true);
    file.stats = StringAt(stats, row);
    file.deletion_vector = DeletionVectorAt(dv, row);
    if (tags != nullptr && !tags->IsNull(row)) file.tags = StringMapAt(tags, row);
    std::string key = FileKey(file.location, file.deletion_vector);
    replay->tombstones.erase(key);
    replay->files[key] = std::move(file);
  }
  return arrow::Status::OK();
}

arrow::Status ApplyCheckpointPart(FileIO& io, const std::string& root,
                                  const std::string& location, Replay* replay) {
  ARROW_ASSIGN_OR_RAISE(auto table, ReadCheckpointPart(io, location));
  auto column = [&](const char* name) -> std::shared_ptr<arrow::StructArray> {
    auto chunked = table->GetColumnByName(name);
    if (!chunked || chunked->num_chunks() != 1 ||
        chunked->type()->id() != arrow::Type::STRUCT) {
      return nullptr;
    }
    return std::static_pointer_cast<arrow::StructArray>(chunked->chunk(0));
  };
  if (auto protocol = column("protocol"))
    ARROW_RETURN_NOT_OK(ApplyCheckpointProtocol(*protocol, location, replay));
  if (auto metadata = column("metaData"))
    ARROW_RETURN_NOT_OK(ApplyCheckpointMetadata(*metadata, location, replay));
  if (auto txn = column("txn")) ApplyCheckpointTxns(*txn, replay);
  // A V2 checkpoint's file actions may be in sidecar files, each read as a checkpoint
  // part (they hold adds and removes only).
  if (auto sidecar = column("sidecar")) {
    Children children;
    auto path = children.Of(*sidecar, "path");
    for (int64_t row = 0; row < sidecar->length(); ++row) {
      if (sidecar->IsNull(row)) continue;
      auto p = StringAt(path, row);
      if (!p) return Invalid(location, "a sidecar without a path");
      ARROW_RETURN_NOT_OK(ApplySidecar(io, root, location, *p, replay));
    }
  }
  // Removes before adds: an add of the same file in the part outlives its tombstone.
  if (auto remove = column("remove"))
    ARROW_RETURN_NOT_OK(ApplyCheckpointRemoves(*remove, root, location, replay));
  if (auto add = column("add"))
    ARROW_RETURN_NOT_OK(ApplyCheckpointAdds(*add, root, location, replay));
  return arrow::Status::OK();
}

// ---------------------------------------------------------------------------------------
// Listing

struct Listing {
  std::map<int64_t, FileInfo> commits;
  // version -> the checkpoint's files, when a complete checkpoint exists at it.
  std::map<int64_t, std::vector<std::string>> checkpoints;
};

// `with_times`: each commit's modification time too (a stat per file); otherwise names
// only, and FileInfo::modified_ms is -1.
arrow::Result<Listing> ListLog(FileIO& io, const std::string& root, bool with_times) {
  std::string folder = LogFolder(root);
  std::vector<FileInfo> files;
  if (with_times) {
    ARROW_ASSIGN_OR_RAISE(files, io.List(folder));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto names, io.ListNames(folder));
    files.reserve(names.size());
    for (auto& name : names) {
      FileInfo file;
      file.location = folder + "/" + name;
      file.modified_ms = -1;
      files.push_back(std::move(file));
    }
  }
  Listing listing;
  // version -> part count -> part files
  std::map<int64_t, std::map<int, std::map<int, std::string>>> parts;
  std::map<int64_t, std::string> v2;
  for (const auto& file : files) {
    std::string_view location = file.location;
    if (location.size() <= folder.size() + 1 ||
        location.substr(0, folder.size()) != folder || location[folder.size()] != '/') {
      continue;
    }
    std::string_view name = location.substr(folder.size() + 1);
    if (name.find('/') != std::string_view::npos) continue;  // _staged_commits, _sidecars
    LogFileName parsed = ParseLogFileName(name);
    switch (parsed.kind) {
      case LogFileKind::kCommit:
        listing.commits[parsed.version] = file;
        break;
      case LogFileKind::kCheckpoint:
        listing.checkpoints[parsed.version] = {file.location};
        break;
      case LogFileKind::kCheckpointPart:
        parts[parsed.version][parsed.parts][parsed.part] = file.location;
        break;
      case LogFileKind::kV2Checkpoint:
        // UUID-named checkpoints of one version hold the same state: any one will do, and
        // a classic-named one of that version is as good.
        v2[parsed.version] = file.location;
        break;
      case LogFileKind::kOther:
        break;
    }
  }
  for (auto& [version, location] : v2) {
    if (listing.checkpoints.count(version) == 0)
      listing.checkpoints[version] = {location};
  }
  for (auto& [version, by_count] : parts) {
    if (listing.checkpoints.count(version) != 0) continue;
    for (auto& [count, files_of] : by_count) {
      if (static_cast<int>(files_of.size()) != count) continue;  // incomplete
      std::vector<std::string> locations;
      for (auto& [part, location] : files_of) locations.push_back(location);
      listing.checkpoints[version] = std::move(locations);
      break;
    }
  }
  return listing;
}

}  // namespace

bool Protocol::HasReaderFeature(const std::string& name) const {
  return reader_features && std::find(reader_features->begin(), reader_features->end(),
                                      name) != reader_features->end();
}

bool Protocol::HasWriterFeature(const std::string& name) const {
  return writer_features && std::find(writer_features->begin(), writer_features->end(),
                                      name) != writer_features->end();
}

std::string DeletionVector::UniqueId() const {
  std::string id = storage_type + path_or_inline;
  if (offset) id += "@" + std::to_string(*offset);
  return id;
}

arrow::Result<std::string> DecodeUriPath(const std::string& path) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      out.push_back(path[i]);
      continue;
    }
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    int high = i + 1 < path.size() ? hex(path[i + 1]) : -1;
    int low = i + 2 < path.size() ? hex(path[i + 2]) : -1;
    if (high < 0 || low < 0) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "broken escape in Delta path " + path);
    }
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

arrow::Result<bool> IsDeltaTable(FileIO& io, const std::string& table_root) {
  std::string root = StripTrailingSlash(table_root);
  ARROW_ASSIGN_OR_RAISE(auto listing, ListLog(io, root, /*with_times=*/false));
  return !listing.commits.empty() || !listing.checkpoints.empty();
}

arrow::Result<std::vector<LogVersion>> ListVersions(FileIO& io,
                                                    const std::string& table_root,
                                                    const LogTail* tail) {
  std::string root = StripTrailingSlash(table_root);
  ARROW_ASSIGN_OR_RAISE(auto listing, ListLog(io, root, /*with_times=*/true));
  std::vector<LogVersion> versions;
  for (const auto& [version, file] : listing.commits) {
    if (tail != nullptr) {
      if (version > tail->latest_version) break;
      bool ratified = false;
      for (const auto& commit : tail->commits) ratified |= commit.version == version;
      if (ratified) continue;
    }
    versions.push_back({version, file.location, file.modified_ms});
  }
  if (tail != nullptr) {
    for (const auto& commit : tail->commits) versions.push_back(commit);
  }
  return versions;
}

namespace {

// The catalog is the truth: nothing above its latest ratified version counts, and its
// ratified commits win over published files of the same versions.
arrow::Status ApplyCatalogTail(const LogTail& tail, const std::string& root,
                               Listing* listing) {
  listing->commits.erase(listing->commits.upper_bound(tail.latest_version),
                         listing->commits.end());
  listing->checkpoints.erase(listing->checkpoints.upper_bound(tail.latest_version),
                             listing->checkpoints.end());
  for (const auto& commit : tail.commits) {
    if (commit.version > tail.latest_version) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "the catalog of Delta table " + root + " ratified version " +
                           std::to_string(commit.version) + " above its latest version " +
                           std::to_string(tail.latest_version));
    }
    FileInfo file;
    file.location = commit.location;
    file.modified_ms = commit.modified_ms;
    listing->commits[commit.version] = file;
  }
  return arrow::Status::OK();
}

// The version to read: the one asked for, the newest committed at or before the time
// asked for, or else the latest.
arrow::Result<int64_t> TargetVersion(FileIO& io, const std::string& root,
                                     const Listing& listing,
                                     const SnapshotOptions& options) {
  int64_t latest = -1;
  if (!listing.commits.empty()) latest = listing.commits.rbegin()->first;
  if (!listing.checkpoints.empty()) {
    latest = std::max(latest, listing.checkpoints.rbegin()->first);
  }
  if (options.version) {
    if (*options.version < 0 || *options.version > latest) {
      return MakeError(ErrorKind::kInvalidInput,
                       "Delta table " + root + " has no version " +
                           std::to_string(*options.version) + " (the latest is " +
                           std::to_string(latest) + ")");
    }
    return *options.version;
  }
  if (!options.as_of_ms) return latest;
  for (auto it = listing.commits.rbegin(); it != listing.commits.rend(); ++it) {
    ARROW_ASSIGN_OR_RAISE(auto ict, InCommitTimestamp(io, root, it->second.location));
    if (ict.value_or(it->second.modified_ms) <= *options.as_of_ms) return it->first;
  }
  return MakeError(ErrorKind::kInvalidInput,
                   "Delta table " + root + " has no version committed at or before " +
                       std::to_string(*options.as_of_ms) + " ms");
}

// The newest complete checkpoint at or before `target` (-1: none), once every commit
// after it up to `target` is known to be in the log.
arrow::Result<int64_t> CheckpointBefore(const Listing& listing, const std::string& root,
                                        int64_t target) {
  int64_t checkpoint = -1;
  for (auto it = listing.checkpoints.rbegin(); it != listing.checkpoints.rend(); ++it) {
    if (it->first <= target) {
      checkpoint = it->first;
      break;
    }
  }
  for (int64_t v = checkpoint + 1; v <= target; ++v) {
    if (listing.commits.count(v) == 0) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "Delta table " + root + " cannot be read at version " +
                           std::to_string(target) + ": its log has no commit " +
                           LogFolder(root) + "/" + VersionText(v) + ".json" +
                           (checkpoint < 0 ? " and no checkpoint before it"
                                           : " after the checkpoint at version " +
                                                 std::to_string(checkpoint)));
    }
  }
  return checkpoint;
}

// The snapshot's timestamp: its in-commit timestamp, else its commit file's time.
arrow::Status SetSnapshotTimestamp(FileIO& io, const Listing& listing,
                                   const Replay& replay, Snapshot* snapshot) {
  const int64_t target = snapshot->version;
  auto commit = listing.commits.find(target);
  if (replay.in_commit_timestamp && target > snapshot->checkpoint_version) {
    snapshot->timestamp_ms = *replay.in_commit_timestamp;
    return arrow::Status::OK();
  }
  if (commit == listing.commits.end()) return arrow::Status::OK();
  // Read from a checkpoint alone: the version's own commit still has its in-commit
  // timestamp (the next one must exceed it, whatever the file's mtime says).
  std::optional<int64_t> ict;
  if (snapshot->protocol.HasWriterFeature("inCommitTimestamp")) {
    ARROW_ASSIGN_OR_RAISE(auto actions,
                          ReadCommitFileActions(io, commit->second.location));
    ict = actions.in_commit_timestamp;
  }
  snapshot->timestamp_ms = ict.value_or(commit->second.modified_ms);
  if (!ict && snapshot->timestamp_ms < 0) {  // listed by name only: one stat
    ARROW_ASSIGN_OR_RAISE(auto info, io.Stat(commit->second.location));
    snapshot->timestamp_ms = info.modified_ms;
  }
  return arrow::Status::OK();
}

// The values of `by_key` (adds or removes by FileKey) ordered by path, then location and
// deletion vector id.
template <typename File>
std::vector<File> InPathOrder(std::unordered_map<std::string, File>& by_key) {
  std::vector<File*> order;
  order.reserve(by_key.size());
  for (auto& [key, file] : by_key) order.push_back(&file);
  std::sort(order.begin(), order.end(), [](const File* a, const File* b) {
    if (a->path != b->path) return a->path < b->path;
    if (a->location != b->location) return a->location < b->location;
    return DeletionVectorId(a->deletion_vector) < DeletionVectorId(b->deletion_vector);
  });
  std::vector<File> files;
  files.reserve(order.size());
  for (File* file : order) files.push_back(std::move(*file));
  return files;
}

}  // namespace

arrow::Result<Snapshot> LoadSnapshot(FileIO& io, const std::string& table_root,
                                     const SnapshotOptions& options) {
  std::string root = StripTrailingSlash(table_root);
  // Times only for time travel by timestamp: a listing by name spares a stat per file.
  ARROW_ASSIGN_OR_RAISE(auto listing,
                        ListLog(io, root, /*with_times=*/options.as_of_ms.has_value()));
  if (options.tail) ARROW_RETURN_NOT_OK(ApplyCatalogTail(*options.tail, root, &listing));
  if (listing.commits.empty() && listing.checkpoints.empty()) {
    return MakeError(ErrorKind::kNoSuchTable, "no Delta table at " + root + ": " +
                                                  LogFolder(root) +
                                                  " holds no commit or checkpoint");
  }
  ARROW_ASSIGN_OR_RAISE(const int64_t target, TargetVersion(io, root, listing, options));
  ARROW_ASSIGN_OR_RAISE(const int64_t checkpoint,
                        CheckpointBefore(listing, root, target));
  Replay replay;
  replay.io = &io;
  if (checkpoint >= 0) {
    for (const auto& part : listing.checkpoints[checkpoint]) {
      if (part.size() > 5 && part.compare(part.size() - 5, 5, ".json") == 0) {
        ARROW_RETURN_NOT_OK(
            ApplyCommit(io, root, part, &replay));  // a V2 JSON checkpoint
      } else {
        ARROW_RETURN_NOT_OK(ApplyCheckpointPart(io, root, part, &replay));
      }
    }
  }
  Snapshot snapshot;
  for (int64_t v = checkpoint + 1; v <= target; ++v) {
    ARROW_RETURN_NOT_OK(ApplyCommit(io, root, listing.commits[v].location, &replay));
    ++snapshot.commits_read;
  }
  if (!replay.protocol) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "Delta table " + root + " has no protocol action at version " +
                         std::to_string(target));
  }
  if (!replay.metadata) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "Delta table " + root + " has no metaData action at version " +
                         std::to_string(target));
  }
  snapshot.table_root = root;
  snapshot.through_catalog = options.tail.has_value();
  snapshot.version = target;
  snapshot.checkpoint_version = checkpoint;
  snapshot.protocol = std::move(*replay.protocol);
  snapshot.metadata = std::move(*replay.metadata);
  for (const auto& [app, txn] : replay.apps) snapshot.app_versions[app] = txn.version;
  snapshot.app_transactions = std::move(replay.apps);
  // Ordered by pointer, each moved once (an AddFile is many strings and maps).
  snapshot.tombstones = InPathOrder(replay.tombstones);
  ARROW_RETURN_NOT_OK(SetSnapshotTimestamp(io, listing, replay, &snapshot));
  snapshot.files = InPathOrder(replay.files);
  return snapshot;
}

std::string CommitLocation(const std::string& table_root, int64_t version) {
  return LogFolder(StripTrailingSlash(table_root)) + "/" + VersionText(version) + ".json";
}

arrow::Result<std::string> ResolveFilePath(const std::string& table_root,
                                           const std::string& path) {
  return ResolvePath(table_root, path);
}

arrow::Result<CommitActions> ReadCommitActions(FileIO& io, const std::string& table_root,
                                               int64_t version) {
  return ReadCommitFileActions(io, CommitLocation(table_root, version));
}

arrow::Result<CommitActions> ReadCommitFileActions(FileIO& io,
                                                   const std::string& location) {
  ARROW_ASSIGN_OR_RAISE(std::string text, io.ReadAll(location));
  CommitActions actions;
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = location + " line " + std::to_string(number);
    if (JsonNestsDeeperThan(line)) return Invalid(where, "JSON nested too deeply");
    Json json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) {
      return Invalid(where, "not a JSON object (truncated or corrupt)");
    }
    for (auto it = json.begin(); it != json.end(); ++it) {
      if (!it->is_object()) continue;
      if (it.key() == "protocol") actions.protocol = true;
      if (it.key() == "metaData") actions.metadata = true;
      if (it.key() == "add") {
        ++actions.adds;
        ARROW_ASSIGN_OR_RAISE(auto values, JsonPartitionValues(*it, where));
        actions.added_partition_values.push_back(std::move(values));
      }
      if (it.key() == "remove") {
        ++actions.removes;
        ARROW_ASSIGN_OR_RAISE(std::string path, JsonString(*it, "path", where));
        actions.removed_paths.insert(std::move(path));
      }
      if (it.key() == "txn") {
        ARROW_ASSIGN_OR_RAISE(std::string app, JsonString(*it, "appId", where));
        ARROW_ASSIGN_OR_RAISE(auto app_version, JsonOptionalLong(*it, "version", where));
        if (!app_version) return Invalid(where, "a txn without a version");
        actions.app_versions[app] = *app_version;
      }
      if (it.key() == "commitInfo") {
        ARROW_ASSIGN_OR_RAISE(actions.txn_id, JsonOptionalString(*it, "txnId", where));
        // Anything but a boolean says nothing (delta-spark reads it as absent).
        auto blind = it->find("isBlindAppend");
        if (blind != it->end() && blind->is_boolean()) {
          actions.blind_append = blind->get<bool>();
        }
        ARROW_ASSIGN_OR_RAISE(actions.in_commit_timestamp,
                              JsonOptionalLong(*it, "inCommitTimestamp", where));
      }
    }
  }
  return actions;
}

arrow::Status CheckReadable(const Snapshot& snapshot) {
  const Protocol& protocol = snapshot.protocol;
  const std::string table = "Delta table " + snapshot.table_root;
  for (const char* name : {"catalogManaged", "catalogOwned-preview"}) {
    if (snapshot.through_catalog) break;
    if (protocol.HasReaderFeature(name) || protocol.HasWriterFeature(name)) {
      return MakeError(ErrorKind::kInvalidInput,
                       table + " is catalog-managed (table feature " + std::string(name) +
                           "): the protocol forbids reading it by path; read it through "
                           "its catalog");
    }
  }
  if (protocol.min_reader_version > 3 || protocol.min_reader_version < 1) {
    return MakeError(ErrorKind::kNotSupported,
                     table + " needs reader version " +
                         std::to_string(protocol.min_reader_version) +
                         "; floe reads versions 1 to 3");
  }
  // Column mapping (name and id modes) is read by physical name: delta-spark's data files
  // carry the physical names (and, in id mode, the ids too).
  auto mode = snapshot.metadata.configuration.find("delta.columnMapping.mode");
  if (mode != snapshot.metadata.configuration.end() && mode->second != "none" &&
      mode->second != "name" && mode->second != "id") {
    return MakeError(ErrorKind::kNotSupported, table + " uses column mapping mode " +
                                                   mode->second +
                                                   ", which floe does not read");
  }
  if (protocol.min_reader_version == 3) {
    // Reader features floe reads exactly: those that change nothing a reader does, and
    // deletion vectors (applied by DeltaScan).
    static const std::set<std::string> kRead = {
        "timestampNtz", "vacuumProtocolCheck", "columnMapping", "deletionVectors",
        "appendOnly",   "invariants",          "v2Checkpoint"};
    // Catalog-managed: read exactly once the catalog's tail is applied.
    const bool tail_applied = snapshot.through_catalog;
    for (const auto& feature :
         protocol.reader_features.value_or(std::vector<std::string>())) {
      if (tail_applied &&
          (feature == "catalogManaged" || feature == "catalogOwned-preview"))
        continue;
      if (kRead.count(feature) == 0) {
        return MakeError(ErrorKind::kNotSupported, table + " needs reader feature " +
                                                       feature +
                                                       ", which floe does not read yet");
      }
    }
  }
  // Deletion vectors (inline, beside the data, or by absolute path) are applied by
  // DeltaScan.
  return arrow::Status::OK();
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> AddActionsBatch(
    const Snapshot& snapshot) {
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  arrow::StringBuilder paths(pool);
  arrow::StringBuilder locations(pool);
  arrow::Int64Builder sizes(pool);
  auto time_type = arrow::timestamp(arrow::TimeUnit::MILLI, "UTC");
  arrow::TimestampBuilder times(time_type, pool);
  arrow::BooleanBuilder data_changes(pool);
  auto keys = std::make_shared<arrow::StringBuilder>(pool);
  auto values = std::make_shared<arrow::StringBuilder>(pool);
  arrow::MapBuilder partitions(pool, keys, values);
  arrow::StringBuilder stats(pool);
  arrow::BooleanBuilder deletion_vectors(pool);
  const auto rows = static_cast<int64_t>(snapshot.files.size());
  for (arrow::ArrayBuilder* builder : std::initializer_list<arrow::ArrayBuilder*>{
           &paths, &locations, &sizes, &times, &data_changes, &partitions, &stats,
           &deletion_vectors}) {
    ARROW_RETURN_NOT_OK(builder->Reserve(rows));
  }
  for (const AddFile& file : snapshot.files) {
    ARROW_RETURN_NOT_OK(paths.Append(file.path));
    ARROW_RETURN_NOT_OK(locations.Append(file.location));
    ARROW_RETURN_NOT_OK(sizes.Append(file.size));
    ARROW_RETURN_NOT_OK(times.Append(file.modification_time_ms));
    ARROW_RETURN_NOT_OK(data_changes.Append(file.data_change));
    ARROW_RETURN_NOT_OK(partitions.Append());
    for (const auto& [name, value] : file.partition_values) {
      ARROW_RETURN_NOT_OK(keys->Append(name));
      ARROW_RETURN_NOT_OK(value ? values->Append(*value) : values->AppendNull());
    }
    ARROW_RETURN_NOT_OK(file.stats ? stats.Append(*file.stats) : stats.AppendNull());
    ARROW_RETURN_NOT_OK(deletion_vectors.Append(file.deletion_vector.has_value()));
  }
  arrow::ArrayVector columns(8);
  ARROW_RETURN_NOT_OK(paths.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(locations.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(sizes.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(times.Finish(&columns[3]));
  ARROW_RETURN_NOT_OK(data_changes.Finish(&columns[4]));
  ARROW_RETURN_NOT_OK(partitions.Finish(&columns[5]));
  ARROW_RETURN_NOT_OK(stats.Finish(&columns[6]));
  ARROW_RETURN_NOT_OK(deletion_vectors.Finish(&columns[7]));
  auto schema = arrow::schema({
      arrow::field("path", arrow::utf8(), false),
      arrow::field("location", arrow::utf8(), false),
      arrow::field("size_bytes", arrow::int64(), false),
      arrow::field("modification_time", time_type, false),
      arrow::field("data_change", arrow::boolean(), false),
      arrow::field("partition_values", columns[5]->type(), false),
      arrow::field("stats", arrow::utf8()),
      arrow::field("has_deletion_vector", arrow::boolean(), false),
  });
  return arrow::RecordBatch::Make(std::move(schema), rows, std::move(columns));
}

}  // namespace floe::delta
