// Manifest files and manifest lists: encoding to and decoding from Avro bytes, for format
// versions 1, 2 and 3. No storage of their own: callers move the bytes.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/avro/file.h"
#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/spec/table_properties.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

struct ManifestWriteOptions {
  int format_version = 2;
  /// The table schema the spec is bound to (written to the header as `schema`).
  SchemaPtr schema;
  PartitionSpecPtr spec;
  ManifestContent content = ManifestContent::kData;
  /// The snapshot that adds the manifest, when known; recorded as its added_snapshot_id.
  std::optional<int64_t> snapshot_id;
  avro::Codec codec = avro::Codec::kDeflate;  ///< iceberg-java: gzip -> deflate level 9
  int codec_level = -1;
};

/// A manifest encoded in memory, with the summary a manifest list needs (its path empty
/// and its length the encoded size, until the caller stores it).
struct EncodedManifest {
  std::string bytes;
  ManifestFile summary;
};

/// Builds one manifest. Not thread-safe.
class ManifestWriter {
 public:
  /// Checks the options (schema and spec present, spec bound to the schema).
  static arrow::Result<std::unique_ptr<ManifestWriter>> Make(
      ManifestWriteOptions options);

  /// Adds an entry. Its partition tuple must have one value per spec field of the field's
  /// type; otherwise Invalid naming the file.
  arrow::Status Add(const ManifestEntry& entry);
  /// Encodes the manifest. The writer is spent afterwards.
  arrow::Result<EncodedManifest> Finish();

  int64_t entry_count() const { return entry_count_; }

 private:
  ManifestWriter() = default;

  ManifestWriteOptions options_;
  std::shared_ptr<const StructType> partition_type_;
  std::shared_ptr<const StructType> entry_type_;
  std::unique_ptr<avro::FileWriter> file_;
  ManifestFile summary_;
  std::vector<std::optional<Value>> lower_;
  std::vector<std::optional<Value>> upper_;
  int64_t entry_count_ = 0;
};

/// A decoded manifest.
struct ManifestContents {
  int format_version = 1;
  int spec_id = 0;
  ManifestContent content = ManifestContent::kData;
  std::map<std::string, std::string> metadata;  ///< The Avro header.
  SchemaPtr schema;       ///< From the header's `schema`, when present.
  PartitionSpecPtr spec;  ///< From the header's `partition-spec`, when present.
  std::vector<ManifestEntry> entries;
};

/// The Avro codec and level iceberg-java 1.11 writes manifests with (manifest lists are
/// always deflate at level 9): write.manifest.compression-codec gzip (the default), zstd,
/// snappy or uncompressed, in any case, with write.manifest.compression-level for gzip
/// (default 9) and zstd (default 1). Anything else gives InvalidInput naming the
/// property, never its value (iceberg-java fails the commit).
arrow::Status ManifestCodecFromProperties(const PropertyMap& properties,
                                          avro::Codec* codec, int* level);

/// Decodes a manifest. The partition tuple is typed by the header's schema and spec; when
/// the header lacks them, by `partition_type` if given, else from the Avro schema itself.
/// Entries keep nulls where the file has them; call InheritManifestMetadata to fill them
/// in.
arrow::Result<ManifestContents> ReadManifest(std::string_view bytes,
                                             const StructType* partition_type = nullptr);

/// Fills the inheritable fields of entries read from `manifest`, as iceberg-java does: a
/// null snapshot id takes the manifest's added_snapshot_id; null sequence numbers of
/// ADDED entries take the manifest's sequence number (in v1 every sequence number is 0);
/// the data file's spec id is the manifest's; and (format v3 row lineage) live data
/// files without a first_row_id take consecutive ranges from the manifest's first_row_id
/// in entry order, each as long as its record count. A `committed` manifest (listed by a
/// snapshot) without a first_row_id gives every entry none; an uncommitted one (written
/// by the operation in progress) keeps its entries' ids as they are.
void InheritManifestMetadata(const ManifestFile& manifest, int format_version,
                             std::vector<ManifestEntry>* entries, bool committed = true);

/// The manifest list of a snapshot.
struct ManifestListWriteOptions {
  int format_version = 2;
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  /// v3: the table's next-row-id, where new data manifests' first_row_id start.
  std::optional<int64_t> first_row_id;
  avro::Codec codec = avro::Codec::kDeflate;
  int codec_level = -1;
};

struct EncodedManifestList {
  std::string bytes;
  /// The manifests as written (sequence numbers and first row ids assigned).
  std::vector<ManifestFile> manifests;
  /// v3: how far first_row_id advanced (the snapshot's added-rows).
  int64_t assigned_rows = 0;
};

/// Encodes a manifest list. Unassigned sequence numbers (-1) become the commit's.
arrow::Result<EncodedManifestList> WriteManifestList(
    const ManifestListWriteOptions& options, std::vector<ManifestFile> manifests);

struct ManifestListContents {
  std::map<std::string, std::string> metadata;
  std::vector<ManifestFile> manifests;
};

/// Decodes a manifest list; v1 lists get sequence numbers 0.
arrow::Result<ManifestListContents> ReadManifestList(std::string_view bytes);

}  // namespace floe::iceberg
