#include "floe/gate/gate.h"

#include <algorithm>
#include <functional>

#include "floe/io/file_io.h"
#include "floe/write/parquet_settings.h"

namespace floe {
namespace {

struct GateContext {
  const TableMetadata& metadata;
  PropertyMap effective;
};

using Rule = std::function<void(const GateContext&, std::vector<std::string>*)>;

bool HasPrefix(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

void CheckTypes(const NestedField& field, const std::string& path, std::vector<std::string>* reasons) {
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
        std::string format = properties::kDefaultFileFormat.Get(context.effective);
        for (auto& c : format) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
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
      // Partition spec: every transform must be one floe computes, over a resolvable source.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        auto spec = context.metadata.DefaultSpec();
        auto schema = context.metadata.CurrentSchema();
        if (!spec || !schema) {
          reasons->push_back("the table has no default partition spec");
          return;
        }
        if (!spec->PartitionType(*schema).ok()) {
          reasons->push_back("the partition spec does not bind to the current schema");
        }
        for (const auto& field : spec->fields()) {
          if (field.transform.kind() == TransformKind::kUnknown) {
            reasons->push_back("partition field " + field.name + " uses an unknown transform");
          }
          // iceberg-java >= 1.10 writes fixed partition values into manifests with Avro's bytes
          // encoding under a fixed schema (ValueWriters.fixedBuffers), which other readers
          // cannot decode; floe cannot write what both it and they read.
          const NestedField* source = schema->FindField(field.source_id);
          if (field.transform.kind() == TransformKind::kIdentity && source != nullptr &&
              source->type->id() == TypeId::kFixed) {
            reasons->push_back("partition field " + field.name +
                               " is an identity partition of a fixed column");
          }
        }
      },
      // Storage: only schemes floe's FileIO writes, with the default location provider.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        std::string data_path = properties::kDataPath.Get(context.effective);
        std::string location = data_path.empty() ? context.metadata.location : data_path;
        std::string scheme = LocationScheme(location);
        if (scheme != "file" && scheme != "memory") {
          reasons->push_back("the table location's storage scheme " + scheme + " is not supported");
        }
        if (properties::kObjectStorageEnabled.Get(context.effective)) {
          reasons->push_back("property write.object-storage.enabled is true");
        }
        if (context.effective.count("write.location-provider.impl")) {
          reasons->push_back("property write.location-provider.impl is set");
        }
        if (context.effective.count("io-impl")) reasons->push_back("property io-impl is set");
        if (!context.metadata.encryption_keys_json.empty()) {
          reasons->push_back("the table has encryption keys");
        }
      },
      // Parquet settings must translate exactly (shared with the writer).
      [](const GateContext& context, std::vector<std::string>* reasons) {
        auto settings = ParquetSettings::FromProperties(context.effective);
        if (!settings.ok()) reasons->push_back(settings.status().message());
        auto target = properties::kTargetFileSizeBytes.Parse(context.effective);
        if (!target.ok() || *target <= 0) {
          reasons->push_back("property write.target-file-size-bytes must be a positive integer");
        }
      },
      // Unknown keys in the namespaces that shape file bytes.
      [](const GateContext& context, std::vector<std::string>* reasons) {
        static const std::vector<std::string> kKnownParquet = {
            "write.parquet.compression-codec", "write.parquet.compression-level",
            "write.parquet.row-group-size-bytes", "write.parquet.page-size-bytes",
            "write.parquet.page-row-limit", "write.parquet.dict-size-bytes"};
        for (const auto& [key, value] : context.effective) {
          if (HasPrefix(key, "write.parquet.") &&
              std::find(kKnownParquet.begin(), kKnownParquet.end(), key) == kKnownParquet.end()) {
            reasons->push_back("property " + key + " is not supported");
          } else if (HasPrefix(key, "parquet.")) {
            reasons->push_back("property " + key + " is not supported");
          } else if (HasPrefix(key, "encryption.")) {
            reasons->push_back("property " + key + " is not supported");
          }
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
  result.reasons.erase(std::unique(result.reasons.begin(), result.reasons.end()), result.reasons.end());
  return result;
}

}  // namespace floe
