// The TaskCommit message: the only thing that crosses from a write task to the committer.
//
// Layout (all integers big-endian):
//   u32 location count, then per location: u32 byte length, UTF-8 bytes
//   the rest: the task's files in the table format's encoding (WriteFormat::EncodeFiles;
//             Iceberg's is a v2 data manifest in Avro), empty when the task wrote no file
// Locations come first so a receiver can take ownership of every written file before it
// decodes (and possibly fails to decode) the files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"

namespace floe {

struct TaskCommit {
  /// Every location the task's writers were handed (written files and deleted empty
  /// ones).
  std::vector<std::string> locations;
  /// The files, in the format's encoding (empty when the task wrote nothing).
  std::string files;
};

/// Encodes a message.
std::string EncodeTaskCommit(const TaskCommit& message);

/// Decodes only the locations. A truncated or corrupt header gives InvalidMetadata; the
/// files part is not looked at.
arrow::Result<std::vector<std::string>> DecodeTaskCommitLocations(
    std::string_view message);

/// Decodes the whole message (locations, and the files unparsed).
arrow::Result<TaskCommit> DecodeTaskCommit(std::string_view message);

}  // namespace floe
