#include "floe/iceberg/table/delete_file_writing_internal.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "floe/iceberg/commit/overwrite_files.h"
#include "floe/iceberg/spec/location_provider.h"
#include "floe/iceberg/table/table.h"
#include "floe/iceberg/transform/partition_path.h"
#include "floe/iceberg/write/deletion_vector_writer.h"
#include "floe/iceberg/write/position_delete_writer.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/text.h"
#include "floe/util/uuid.h"

namespace floe::iceberg {

bool PartitionGranularity(const Table& table, const PropertyMap& properties) {
  if (table.metadata()->format_version != 2) return false;
  auto granularity = properties.find("write.delete.granularity");
  return granularity != properties.end() &&
         AsciiLower(granularity->second) == "partition";
}

arrow::Result<CommitReport> CommitWithDeleteFiles(SnapshotProducer& producer,
                                                  const TableState& state, FileIO& io,
                                                  const std::vector<std::string>& written,
                                                  const std::string& what) {
  // The last moment a signal can stop it: the commit either happens or not.
  if (CancelRequested()) {
    DeleteWritten(io, written);
    return MakeError(ErrorKind::kCancelled,
                     what +
                         " was cancelled; nothing was committed and the delete files it "
                         "wrote were deleted");
  }
  auto committed = producer.Commit(state);
  // Nothing references the delete files unless the commit may have happened.
  if (!committed.ok() && KindOf(committed.status()) != ErrorKind::kCommitStateUnknown) {
    DeleteWritten(io, written);
  }
  return committed;
}

void DeleteWritten(FileIO& io, const std::vector<std::string>& locations) {
  for (const auto& location : locations) {
    DeleteBestEffort(io, location, "delete file", "after a failed commit");
  }
}

namespace {

// The name of the `count`th delete file of operation `operation_id`, as a write task
// names its files ("-deletes" added, as iceberg-java adds it).
std::string DeleteFileName(const std::string& operation_id, size_t count,
                           const char* extension) {
  char name[128];
  std::snprintf(name, sizeof(name), "00000-0-%s-%05zu-deletes.%s", operation_id.c_str(),
                count, extension);
  return std::string(name);
}

// Checked after each file written: a cancelled operation leaves none of `out`'s files.
arrow::Status CheckCancelled(const Table& table, const WrittenDeletes& out) {
  if (!CancelRequested()) return arrow::Status::OK();
  DeleteWritten(*table.io(), out.locations);
  return MakeError(ErrorKind::kCancelled,
                   "writing the delete files of " + table.id().ToString() +
                       " was cancelled; nothing was committed and the delete files "
                       "it wrote were deleted");
}

// The format-v3 deletes: one Puffin file at `location` holding a deletion vector per
// target, in order, each with its data file's spec id and partition.
arrow::Status WriteVectorFile(const Table& table,
                              const std::vector<DeleteTarget>& targets,
                              const std::string& location, WrittenDeletes* out) {
  std::vector<DeletionVectorInput> vectors;
  for (const auto& target : targets) {
    vectors.push_back({target.data->file_path, target.positions});
  }
  ARROW_ASSIGN_OR_RAISE(auto puffin, WriteDeletionVectors(*table.io(), location, vectors,
                                                          "floe version " FLOE_VERSION));
  out->locations.push_back(puffin.location);
  ARROW_RETURN_NOT_OK(CheckCancelled(table, *out));
  for (const WrittenDeletionVector& vector : puffin.vectors) {
    DataFile dv;
    dv.content = FileContent::kPositionDeletes;
    dv.file_format = FileFormat::kPuffin;
    dv.file_path = puffin.location;
    dv.file_size_in_bytes = puffin.size;
    dv.record_count = vector.cardinality;
    dv.referenced_data_file = vector.data_file;
    dv.content_offset = vector.offset;
    dv.content_size_in_bytes = vector.length;
    out->files.push_back(std::move(dv));
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    out->files[i].spec_id = targets[i].data->spec_id;
    out->files[i].partition = targets[i].data->partition;
  }
  return arrow::Status::OK();
}

// The targets of each Parquet position delete file: one per target (file granularity),
// or one per spec and partition tuple in the order first met (partition granularity).
std::vector<std::vector<const DeleteTarget*>> GroupTargets(
    const Table& table, const std::vector<DeleteTarget>& targets,
    const PropertyMap& properties) {
  std::vector<std::vector<const DeleteTarget*>> groups;
  if (PartitionGranularity(table, properties)) {
    std::map<std::string, size_t> index;
    for (const auto& target : targets) {
      auto [it, added] =
          index.emplace(OverwriteFiles::PartitionKey(*target.data), groups.size());
      if (added) groups.emplace_back();
      groups[it->second].push_back(&target);
    }
  } else {
    for (const auto& target : targets) groups.push_back({&target});
  }
  return groups;
}

// The location of each group's position delete file, in its partition's folder.
arrow::Result<std::vector<std::string>> PositionDeletePaths(
    const Table& table, const std::vector<std::vector<const DeleteTarget*>>& groups,
    const LocationProvider& locations, const std::string& operation_id) {
  const SchemaPtr schema = table.metadata()->CurrentSchema();
  std::vector<std::string> paths;
  for (size_t i = 0; i < groups.size(); ++i) {
    const DeleteTarget& first = *groups[i].front();
    std::string partition_path;
    if (!first.spec->fields().empty()) {
      ARROW_ASSIGN_OR_RAISE(auto type, first.spec->PartitionType(*schema));
      partition_path = PartitionToPath(*first.spec, *type, first.data->partition);
    }
    paths.push_back(locations.NewDataLocation(
        partition_path, DeleteFileName(operation_id, i + 1, "parquet")));
  }
  return paths;
}

// Writes each group's Parquet position delete file at its path, its data files' deletes
// ordered by path; on failure deletes every file written.
arrow::Status WritePositionDeleteFiles(
    const Table& table, const std::vector<std::vector<const DeleteTarget*>>& groups,
    const std::vector<std::string>& paths, const PropertyMap& properties,
    WrittenDeletes* out) {
  for (size_t i = 0; i < groups.size(); ++i) {
    std::vector<DataFilePositions> files;
    for (const DeleteTarget* target : groups[i]) {
      files.push_back({target->data->file_path, target->positions});
    }
    std::sort(files.begin(), files.end(),
              [](const auto& a, const auto& b) { return a.data_file < b.data_file; });
    auto file = WritePositionDeleteFile(table.io(), paths[i], files, properties);
    if (!file.ok()) {
      DeleteWritten(*table.io(), out->locations);
      return file.status();
    }
    out->locations.push_back(paths[i]);
    file->spec_id = groups[i].front()->data->spec_id;
    file->partition = groups[i].front()->data->partition;
    out->files.push_back(std::move(*file));
    ARROW_RETURN_NOT_OK(CheckCancelled(table, *out));
  }
  return arrow::Status::OK();
}

}  // namespace

arrow::Result<WrittenDeletes> WriteDeletes(const Table& table,
                                           const std::vector<DeleteTarget>& targets,
                                           const PropertyMap& properties) {
  WrittenDeletes out;
  if (targets.empty()) return out;
  const std::string operation_id = Uuid::Random(table.commit_target().env).ToString();
  const LocationProvider locations(table.metadata()->location, properties);
  if (table.metadata()->format_version >= 3) {
    ARROW_RETURN_NOT_OK(WriteVectorFile(
        table, targets,
        locations.NewDataLocation("", DeleteFileName(operation_id, 1, "puffin")), &out));
    return out;
  }
  // Parquet position delete files: every location is known before the first file is
  // written.
  const auto groups = GroupTargets(table, targets, properties);
  ARROW_ASSIGN_OR_RAISE(auto paths,
                        PositionDeletePaths(table, groups, locations, operation_id));
  ARROW_RETURN_NOT_OK(WritePositionDeleteFiles(table, groups, paths, properties, &out));
  return out;
}

}  // namespace floe::iceberg
