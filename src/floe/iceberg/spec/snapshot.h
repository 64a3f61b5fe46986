// Snapshots and the named references (branches and tags) that point at them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace floe::iceberg {

/// The operation names iceberg-java records in a snapshot summary.
namespace operations {
inline constexpr char kAppend[] = "append";
inline constexpr char kReplace[] = "replace";
inline constexpr char kOverwrite[] = "overwrite";
inline constexpr char kDelete[] = "delete";
}  // namespace operations

/// A snapshot's summary: the operation plus ordered string properties (order as written).
struct SnapshotSummary {
  std::string operation;
  std::vector<std::pair<std::string, std::string>> properties;

  /// The value of `key` ("operation" included), or nullopt.
  std::optional<std::string> Get(std::string_view key) const;
  /// The value of `key` parsed as a long, or nullopt when absent or not a number.
  std::optional<int64_t> GetLong(std::string_view key) const;
  bool operator==(const SnapshotSummary&) const = default;
};

/// One table snapshot. Immutable once committed; share as std::shared_ptr<const
/// Snapshot>.
struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;  ///< 0 in format v1 (absent from JSON).
  int64_t timestamp_ms = 0;
  std::string manifest_list;  ///< Empty for a v1 snapshot that lists `manifests`.
  std::vector<std::string> manifests;  ///< Only old v1 snapshots without a manifest list.
  SnapshotSummary summary;
  std::optional<int> schema_id;
  std::optional<int64_t> first_row_id;  ///< v3
  std::optional<int64_t> added_rows;    ///< v3
  std::optional<int64_t> key_id;
  bool operator==(const Snapshot&) const = default;
};

using SnapshotPtr = std::shared_ptr<const Snapshot>;

/// A branch or a tag.
struct SnapshotRef {
  int64_t snapshot_id = 0;
  bool is_branch = true;
  std::optional<int> min_snapshots_to_keep;
  std::optional<int64_t> max_snapshot_age_ms;
  std::optional<int64_t> max_ref_age_ms;
  bool operator==(const SnapshotRef&) const = default;
};

/// The name of the main branch.
inline constexpr char kMainBranch[] = "main";

}  // namespace floe::iceberg
