#include "floe/iceberg/gate/gate.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/write/parquet_settings.h"
#include "floe/iceberg/write/partitioner.h"
#include "floe/iceberg/write/row_sorter.h"
#include "floe/iceberg/write/write_plan.h"
#include "floe/io/file_io.h"
#include "floe/io/s3_file_io.h"
#include "floe/util/text.h"

namespace floe::iceberg {
namespace {

struct GateContext {
  const TableMetadata& metadata;
  PropertyMap effective;
};

using Rule = std::function<void(const GateContext&, std::vector<std::string>*)>;

bool HasPrefix(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// write.parquet.* keys floe's writer reproduces, and the values it reproduces them with.
// The settings that shape bytes (codec, level, sizes) are checked by
// ParquetSettingsFromProperties, the writer's own parser. Boolean properties are read
// as iceberg-java reads them (ParseJavaBoolean).
bool IsTrue(const std::string& value) { return ParseJavaBoolean(value); }
bool IsFalse(const std::string& value) { return !ParseJavaBoolean(value); }

bool ParquetPropertyReproduced(const std::string& key, const std::string& value) {
  static const std::vector<std::string> kTranslated = {
      "write.parquet.compression-codec",    "write.parquet.compression-level",
      "write.parquet.row-group-size-bytes", "write.parquet.page-size-bytes",
      "write.parquet.page-row-limit",       "write.parquet.dict-size-bytes"};
  if (std::find(kTranslated.begin(), kTranslated.end(), key) != kTranslated.end())
    return true;
  // Accepted only at iceberg-java's defaults (the values floe's writer behaves like).
  if (key == "write.parquet.row-group-check-min-record-count") return value == "100";
  if (key == "write.parquet.row-group-check-max-record-count") return value == "10000";
  if (key == "write.parquet.page-version") return value == "v1";
  if (HasPrefix(key, "write.parquet.bloom-filter-enabled.column.")) return IsFalse(value);
  if (HasPrefix(key, "write.parquet.stats-enabled.column.")) return IsTrue(value);
  if (key == "write.parquet.shred-variants") return IsFalse(value);
  // Only read when bloom filters or variant shredding are on, and both are declined
  // above.
  if (key == "write.parquet.bloom-filter-max-bytes" ||
      HasPrefix(key, "write.parquet.bloom-filter-fpp.column.") ||
      HasPrefix(key, "write.parquet.bloom-filter-ndv.column.") ||
      key == "write.parquet.variant-inference-buffer-size") {
    return true;
  }
  return false;
}

void CheckTypes(const NestedField& field, const std::string& path,
                std::vector<std::string>* reasons) {
  const std::string name = path.empty() ? field.name : path + "." + field.name;
  switch (field.type->id()) {
    case TypeId::kStruct:
      for (const auto& child : static_cast<const StructType&>(*field.type).fields()) {
        CheckTypes(child, name, reasons);
      }
      return;
    case TypeId::kList:
      CheckTypes(static_cast<const ListType&>(*field.type).element(), name, reasons);
      return;
    case TypeId::kMap:
      CheckTypes(static_cast<const MapType&>(*field.type).key(), name, reasons);
      CheckTypes(static_cast<const MapType&>(*field.type).value(), name, reasons);
      return;
    default:
      if (!IsWritable(field.type->id())) {
        reasons->push_back("column " + name + " has type " + field.type->ToString() +
                           ", which floe cannot write");
      }
  }
}

// The ordered rules. Each appends its reasons; a rule that cannot answer must decline.
const std::vector<Rule>& Rules() {
  static const std::vector<Rule> kRules = {
      // File format.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        const std::string format =
            AsciiLower(properties::kDefaultFileFormat.Get(context.effective));
        if (format != "parquet") {
          reasons->push_back("property write.format.default is not parquet");
        }
      },
      // Column types.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        auto schema = context.metadata.CurrentSchema();
        if (!schema) {
          reasons->push_back("the table has no current schema");
          return;
        }
        for (const auto& field : schema->fields()) CheckTypes(field, "", reasons);
      },
      // Partition spec: every transform must be one floe computes, over a resolvable
      // source.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        auto spec = context.metadata.DefaultSpec();
        auto schema = context.metadata.CurrentSchema();
        if (!spec || !schema) {
          reasons->push_back("the table has no default partition spec");
          return;
        }
        if (!spec->PartitionType(*schema).ok()) {
          reasons->push_back("the partition spec does not bind to the current schema");
        } else if (auto partitioner = Partitioner::Make(schema, spec);
                   !partitioner.ok()) {
          // The writer's own resolution of the spec (e.g. a source inside a list).
          reasons->push_back(partitioner.status().message());
        }
        for (const auto& field : spec->fields()) {
          if (field.transform.kind() == TransformKind::kUnknown) {
            reasons->push_back("partition field " + field.name +
                               " uses an unknown transform");
          }
          // iceberg-java >= 1.10 writes fixed partition values into manifests with Avro's
          // bytes encoding under a fixed schema (ValueWriters.fixedBuffers), which other
          // readers cannot decode; floe cannot write what both it and they read.
          const NestedField* source = schema->FindField(field.source_id);
          if (source == nullptr) {
            reasons->push_back("partition field " + field.name +
                               " has a source column that is not in the current schema");
          }
          if (field.transform.kind() == TransformKind::kIdentity && source != nullptr &&
              source->type->id() == TypeId::kFixed) {
            reasons->push_back("partition field " + field.name +
                               " is an identity partition of a fixed column");
          }
        }
      },
      // Sort order: floe sorts each task's rows by it (RowSorter, as Spark does),
      // so every sort field must resolve and transform as the writer's sorter needs.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        auto schema = context.metadata.CurrentSchema();
        auto spec = context.metadata.DefaultSpec();
        auto order = context.metadata.DefaultSortOrder();
        if (!schema || !spec) return;  // declined above
        if (!order) {
          reasons->push_back("the table has no default sort order");
          return;
        }
        if (auto sorter = RowSorter::Make(schema, spec, order, 0); !sorter.ok()) {
          reasons->push_back(sorter.status().message());
        }
      },
      // Storage: only schemes floe's FileIO writes, with the default location provider.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        std::string data_path = properties::kDataPath.Get(context.effective);
        std::string location = data_path.empty() ? context.metadata.location : data_path;
        if (!CheckSupportedLocation(location).ok()) {  // FileIO's own check
          // Named by where it comes from, never by the property's value.
          reasons->push_back(data_path.empty()
                                 ? "the table location (storage scheme " +
                                       LocationScheme(location) +
                                       ") is not one floe's FileIO writes"
                                 : "property write.data.path names a location floe's "
                                   "FileIO does not write");
        }
        std::string metadata_path = properties::kMetadataPath.Get(context.effective);
        if (!metadata_path.empty() && !CheckSupportedLocation(metadata_path).ok()) {
          reasons->push_back(
              "property write.metadata.path names a location floe's FileIO does not "
              "write");
        }
        if (properties::kObjectStorageEnabled.Get(context.effective)) {
          reasons->push_back("property write.object-storage.enabled is true");
        }
        if (context.effective.count("write.location-provider.impl")) {
          reasons->push_back("property write.location-provider.impl is set");
        }
        if (context.effective.count("io-impl"))
          reasons->push_back("property io-impl is set");
        // The S3 FileIO's own list: a storage key it would refuse declines here too.
        for (const auto& key : UnhonouredStorageProperties(context.effective)) {
          reasons->push_back("storage property " + key +
                             " is not one floe's S3 FileIO honours at its value");
        }
        if (!context.metadata.encryption_keys_json.empty()) {
          reasons->push_back("the table has encryption keys");
        }
      },
      // Parquet settings must translate exactly (shared with the writer).
      [](const GateContext& context, std::vector<std::string>* reasons) {
        auto settings = ParquetSettingsFromProperties(context.effective);
        if (!settings.ok()) reasons->push_back(settings.status().message());
        auto target = properties::kTargetFileSizeBytes.Parse(context.effective);
        if (!target.ok() || *target <= 0) {
          reasons->push_back(
              "property write.target-file-size-bytes must be a positive integer");
        }
        if (auto spec = context.metadata.DefaultSpec()) {
          auto order = context.metadata.DefaultSortOrder();
          auto distribution = WritePlan::DistributionFor(
              *spec, order ? *order : *SortOrder::Unsorted(), context.effective);
          if (!distribution.ok()) reasons->push_back(distribution.status().message());
        }
      },
      // Keys in the namespaces that shape file bytes: only the vetted ones, with values
      // floe
      // reproduces. Unknown keys (including ones a future Iceberg adds) decline.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        for (const auto& [key, value] : context.effective) {
          if (HasPrefix(key, "write.parquet.")) {
            if (!ParquetPropertyReproduced(key, value)) {
              reasons->push_back("property " + key + " is not supported");
            }
          } else if (HasPrefix(key, "write.delete.parquet.")) {
            continue;  // delete files only; an append writes none
          } else if (HasPrefix(key, "parquet.") || HasPrefix(key, "encryption.")) {
            reasons->push_back("property " + key + " is not supported");
          }
        }
      },
      // Metadata and commit settings: values iceberg-java would fail on fail the write
      // here, before any file exists, instead of being silently replaced by defaults.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        avro::Codec codec;
        int level;
        if (auto manifest =
                ManifestCodecFromProperties(context.metadata.properties, &codec, &level);
            !manifest.ok()) {
          reasons->push_back(manifest.message());
        }
        if (auto gzipped = properties::MetadataFilesGzipped(context.metadata.properties);
            !gzipped.ok()) {
          reasons->push_back(gzipped.status().message());
        }
        for (const IntProperty* property :
             {&properties::kCommitNumRetries, &properties::kCommitMinRetryWaitMs,
              &properties::kCommitMaxRetryWaitMs, &properties::kCommitTotalRetryTimeMs,
              &properties::kManifestMinMergeCount, &properties::kManifestTargetSizeBytes,
              &properties::kSummaryPartitionLimit,
              &properties::kMetadataPreviousVersionsMax}) {
          if (!property->Parse(context.effective).ok()) {
            reasons->push_back("property " + std::string(property->key) +
                               " is not an integer iceberg-java reads");
          }
        }
        // iceberg-java 1.11 refuses the deprecated data locations (LocationProviders:
        // "use write.data.path") unless write.data.path is set.
        if (properties::kDataPath.Get(context.effective).empty()) {
          for (const char* legacy :
               {"write.folder-storage.path", "write.object-storage.path"}) {
            if (context.effective.count(legacy)) {
              reasons->push_back(std::string("property ") + legacy +
                                 " is deprecated (iceberg-java refuses it; use "
                                 "write.data.path)");
            }
          }
        }
        for (const char* path : {"write.data.path", "write.metadata.path"}) {
          auto found = context.effective.find(path);
          if (found != context.effective.end() && found->second.empty()) {
            reasons->push_back(std::string("property ") + path + " is empty");
          }
        }
      },
      // Row lineage, snapshot id inheritance and the like are metadata floe writes
      // itself; a
      // format version floe does not know cannot be answered for.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        if (context.metadata.format_version < 1 ||
            context.metadata.format_version > kMaxFormatVersion) {
          reasons->push_back("format version " +
                             std::to_string(context.metadata.format_version) +
                             " is not supported");
        }
      },
  };
  return kRules;
}

}  // namespace

std::string GateResult::ToString() const {
  if (supported()) return "supported";
  std::string text = "unsupported: ";
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i > 0) text += "; ";
    text += reasons[i];
  }
  return text;
}

GateResult CheckWrite(const TableMetadata& metadata, const PropertyMap& options) {
  GateContext context{metadata, metadata.properties};
  for (const auto& [key, value] : options) context.effective[key] = value;
  GateResult result;
  for (const auto& rule : Rules()) rule(context, &result.reasons);
  std::sort(result.reasons.begin(), result.reasons.end());
  result.reasons.erase(std::unique(result.reasons.begin(), result.reasons.end()),
                       result.reasons.end());
  return result;
}

namespace {

void CheckDeleteFiles(const TableMetadata& metadata, const PropertyMap& effective,
                      std::vector<std::string>* reasons);

// The rules for a row-level operation whose mode property (write.delete.mode,
// write.update.mode, write.merge.mode) is `mode_key`: merge-on-read writes delete
// files, which format v1 cannot hold and which floe writes only in Parquet.
void CheckMode(const TableMetadata& metadata, const PropertyMap& effective,
               const StringProperty& mode_key, std::vector<std::string>* reasons) {
  const std::string key(mode_key.key);
  const std::string mode = AsciiLower(mode_key.Get(effective));
  if (mode == "copy-on-write") return;
  if (mode != "merge-on-read") {
    reasons->push_back("property " + key + " is neither copy-on-write nor merge-on-read");
    return;
  }
  if (metadata.format_version < 2) {
    reasons->push_back("property " + key +
                       " asks for delete files (merge-on-read), which format v1 tables "
                       "cannot hold");
  } else {
    CheckDeleteFiles(metadata, effective, reasons);
  }
}

// Delete files floe writes on `metadata`'s table: deletion vectors on v3; on v2, Parquet
// position delete files, one per data file or (write.delete.granularity=partition) one
// per partition.
void CheckDeleteFiles(const TableMetadata& metadata, const PropertyMap& effective,
                      std::vector<std::string>* reasons) {
  if (metadata.format_version == 2) {
    auto granularity = effective.find("write.delete.granularity");
    if (granularity != effective.end() && AsciiLower(granularity->second) != "file" &&
        AsciiLower(granularity->second) != "partition") {
      reasons->push_back(
          "property write.delete.granularity is neither file nor partition");
    }
    auto format = effective.find("write.delete.format.default");
    if (format == effective.end()) format = effective.find("write.format.default");
    if (format != effective.end() && AsciiLower(format->second) != "parquet") {
      reasons->push_back(
          "property write.delete.format.default (or write.format.default) asks for "
          "position delete files that are not Parquet, which floe does not write");
    }
  }
}

}  // namespace

GateResult CheckRowRewrite(const TableMetadata& metadata, const PropertyMap& options,
                           RowRewrite kind) {
  GateResult result = CheckWrite(metadata, options);
  PropertyMap effective = metadata.properties;
  for (const auto& [key, value] : options) effective[key] = value;
  switch (kind) {
    case RowRewrite::kDelete:
      CheckMode(metadata, effective, properties::kDeleteMode, &result.reasons);
      break;
    case RowRewrite::kUpdate:
      CheckMode(metadata, effective, properties::kUpdateMode, &result.reasons);
      break;
    case RowRewrite::kMerge:
      CheckMode(metadata, effective, properties::kMergeMode, &result.reasons);
      break;
    case RowRewrite::kCompaction:
      break;
    case RowRewrite::kPositionDeletes:
      CheckDeleteFiles(metadata, effective, &result.reasons);
      break;
  }
  std::sort(result.reasons.begin(), result.reasons.end());
  return result;
}

}  // namespace floe::iceberg
