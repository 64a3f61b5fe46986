#include "floe/testing/table_fixture.h"

#include <algorithm>
#include <memory>

#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/commit/fast_append.h"
#include "floe/iceberg/commit/overwrite_files.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/manifest/snapshot_manifests.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/types/value.h"

namespace floe::testing {

arrow::Result<std::shared_ptr<iceberg::Catalog>> OpenTestCatalog(
    const std::string& directory) {
  ARROW_ASSIGN_OR_RAISE(auto io, MakeArrowFileIO());
  iceberg::CatalogOptions options;
  options.warehouse = directory + "/warehouse";
  ARROW_ASSIGN_OR_RAISE(auto database, OpenSqliteDatabase(directory + "/catalog.db"));
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<iceberg::Catalog> catalog,
                        iceberg::SqlCatalog::Make(std::move(database), options, io));
  ARROW_RETURN_NOT_OK(catalog->CreateNamespace({"db"}, {}));
  return catalog;
}

arrow::Result<std::unique_ptr<TableFixture>> TableFixture::Make(
    const std::string& directory, const std::string& schema,
    const std::string& partition_by, const iceberg::PropertyMap& properties) {
  auto fixture = std::make_unique<TableFixture>();
  ARROW_ASSIGN_OR_RAISE(fixture->io_, MakeArrowFileIO());
  ARROW_ASSIGN_OR_RAISE(fixture->catalog_, OpenTestCatalog(directory));
  const std::string warehouse = directory + "/warehouse";
  ARROW_ASSIGN_OR_RAISE(auto parsed, iceberg::ParseSchemaText(schema));
  ARROW_ASSIGN_OR_RAISE(auto spec, iceberg::ParsePartitionBy(partition_by, *parsed));
  ARROW_ASSIGN_OR_RAISE(
      auto metadata,
      iceberg::NewTableMetadata(*parsed, *spec, *iceberg::SortOrder::Unsorted(),
                                warehouse + "/db/t", properties));
  ARROW_ASSIGN_OR_RAISE(fixture->created_,
                        fixture->catalog_->CreateTable(fixture->id_, *metadata));
  return fixture;
}

iceberg::DataFile TableFixture::File(const std::string& name,
                                     std::vector<Value> partition, int64_t records,
                                     int64_t min_id, int64_t max_id) const {
  iceberg::DataFile file;
  file.file_path = created_.metadata->location + "/data/" + name;
  // The file exists (empty), as a task's file does: a commit checks every file it adds.
  (void)io_->WriteAll(file.file_path, "");
  file.spec_id = created_.metadata->default_spec_id;
  file.partition = std::move(partition);
  file.record_count = records;
  file.file_size_in_bytes = 1000 + records;
  const Schema& schema = *created_.metadata->CurrentSchema();
  for (const auto& field : schema.fields()) {
    if (field.name == "id" && field.type->id() == TypeId::kLong) {
      file.lower_bounds[field.id] = ToBinary(Value{min_id}, *field.type);
      file.upper_bounds[field.id] = ToBinary(Value{max_id}, *field.type);
      file.null_value_counts[field.id] = 0;
      file.value_counts[field.id] = records;
    }
  }
  return file;
}

arrow::Result<iceberg::TableState> TableFixture::Load() const {
  return catalog_->LoadTable(id_);
}

arrow::Result<iceberg::TableState> TableFixture::Append(
    const std::vector<iceberg::DataFile>& files) {
  ARROW_ASSIGN_OR_RAISE(auto base, Load());
  iceberg::FastAppend append(target(), /*merge=*/true);
  for (const auto& file : files) append.AddDataFile(file);
  ARROW_ASSIGN_OR_RAISE(auto report, append.Commit(base));
  return report.state;
}

arrow::Result<iceberg::TableState> TableFixture::Remove(
    const std::vector<std::string>& paths) {
  ARROW_ASSIGN_OR_RAISE(auto base, Load());
  iceberg::OverwriteFiles remove(target());
  for (const auto& path : paths) remove.DeleteFile(path);
  ARROW_ASSIGN_OR_RAISE(auto report, remove.Commit(base));
  return report.state;
}

arrow::Result<std::vector<std::string>> TableFixture::LiveFiles() const {
  ARROW_ASSIGN_OR_RAISE(auto state, Load());
  std::vector<std::string> live;
  auto snapshot = state.metadata->CurrentSnapshot();
  if (!snapshot) return live;
  ARROW_ASSIGN_OR_RAISE(auto manifests, iceberg::ReadSnapshotManifests(*io_, *snapshot));
  for (const auto& manifest : manifests) {
    ARROW_ASSIGN_OR_RAISE(std::string bytes, io_->ReadAll(manifest.manifest_path));
    ARROW_ASSIGN_OR_RAISE(auto contents, iceberg::ReadManifest(bytes));
    for (const auto& entry : contents.entries) {
      if (entry.status != iceberg::EntryStatus::kDeleted) {
        live.push_back(entry.data_file.file_path);
      }
    }
  }
  std::sort(live.begin(), live.end());
  return live;
}

}  // namespace floe::testing
