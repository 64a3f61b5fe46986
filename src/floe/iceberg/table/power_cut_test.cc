// Cuts the power at every I/O operation of each kind of commit (create, append, dynamic
// overwrite, delete, compaction, expiry; on the SQL catalog, and on the filesystem
// catalog for those that commit differently there), on a disk whose page cache a power
// cut loses (CrashSimulatingFileIO), and checks that the table then loads, shows its last
// acknowledged snapshot or the new one, and never names a missing or short file. Then
// proves each sync is needed: with the syncs of any one file or folder the commit made
// durable turned into no-ops, a cut after the commit breaks the table.
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/iceberg/catalog/filesystem_catalog.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/table/maintenance.h"
#include "floe/iceberg/table/orphan_files.h"
#include "floe/iceberg/table/table.h"
#include "floe/testing/crash_simulating_file_io.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

using testing::CrashSimulatingFileIO;

constexpr int kPartitions = 8;
const TableIdentifier kTable{{"db"}, "t"};

std::shared_ptr<arrow::RecordBatchReader> Rows(int64_t first, int64_t count) {
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field("region", arrow::utf8())});
  arrow::Int64Builder ids;
  arrow::StringBuilder regions;
  for (int64_t i = first; i < first + count; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(regions.Append("r" + std::to_string(i % kPartitions)).ok());
  }
  auto batch =
      arrow::RecordBatch::Make(schema, count, {*ids.Finish(), *regions.Finish()});
  return *arrow::RecordBatchReader::Make({batch});
}

// One kind of commit: a start state (committed before the cut can fire) and the
// operation under test. `Operate` returns whether it committed a new metadata file.
struct CommitKind {
  std::string name;
  std::function<arrow::Status(const std::shared_ptr<Catalog>&)> prepare;
  std::function<arrow::Status(const std::shared_ptr<Catalog>&)> operate;
};

arrow::Status CreateTable(const std::shared_ptr<Catalog>& catalog) {
  CreateTableOptions create;
  ARROW_ASSIGN_OR_RAISE(auto schema, ParseSchemaText("id long not null, region string"));
  create.schema = schema;
  ARROW_ASSIGN_OR_RAISE(create.spec, ParsePartitionBy("region", *create.schema));
  create.properties["commit.manifest.min-count-to-merge"] = "2";
  return Table::Create(catalog, kTable, create).status();
}

arrow::Status AppendRows(const std::shared_ptr<Catalog>& catalog, int64_t first,
                         int64_t count, bool replace = false) {
  ARROW_ASSIGN_OR_RAISE(auto table, Table::Load(catalog, kTable));
  AppendOptions options;
  options.replace_partitions = replace;
  return table->Append(*Rows(first, count), options).status();
}

std::vector<CommitKind> Kinds() {
  auto created = [](const std::shared_ptr<Catalog>& catalog) {
    ARROW_RETURN_NOT_OK(CreateTable(catalog));
    return AppendRows(catalog, 0, 400);
  };
  return {
      {"create", [](const auto&) { return arrow::Status::OK(); }, CreateTable},
      {"first append", CreateTable,
       [](const auto& catalog) { return AppendRows(catalog, 0, 400); }},
      {"append", created,
       [](const auto& catalog) { return AppendRows(catalog, 400, 400); }},
      {"dynamic overwrite", created,
       [](const auto& catalog) { return AppendRows(catalog, 1000, 16, true); }},
      {"delete", created,
       [](const auto& catalog) -> arrow::Status {
         ARROW_ASSIGN_OR_RAISE(auto table, Table::Load(catalog, kTable));
         return table->Delete("id < 100", {}).status();
       }},
      {"compaction",
       [created](const auto& catalog) {
         ARROW_RETURN_NOT_OK(created(catalog));
         return AppendRows(catalog, 400, 400);
       },
       [](const auto& catalog) -> arrow::Status {
         ARROW_ASSIGN_OR_RAISE(auto table, Table::Load(catalog, kTable));
         return table->Rewrite("", 2, {}).status();
       }},
      {"expire snapshots",
       [created](const auto& catalog) {
         ARROW_RETURN_NOT_OK(created(catalog));
         return AppendRows(catalog, 400, 400, /*replace=*/true);
       },
       [](const auto& catalog) -> arrow::Status {
         ARROW_ASSIGN_OR_RAISE(auto table, Table::Load(catalog, kTable));
         ExpireSnapshotsOptions options;
         options.older_than_ms = -1;  // everything but the current snapshot
         return ExpireSnapshots(*table, options).status();
       }},
  };
}

// What the table holds: its metadata file and the row count of every snapshot (the
// current one last), read whole, so every file it names is opened. An error when the
// table names a file that is missing or short.
struct Observed {
  std::string metadata_location;  // empty: no table
  std::vector<int64_t> rows;
  std::set<std::string> referenced;  // canonical locations
};

arrow::Result<Observed> Observe(const std::shared_ptr<Catalog>& catalog,
                                const std::shared_ptr<FileIO>& io) {
  Observed observed;
  auto table = Table::Load(catalog, kTable);
  if (!table.ok() && KindOf(table.status()) == ErrorKind::kNoSuchTable) return observed;
  ARROW_RETURN_NOT_OK(table.status());
  observed.metadata_location = (*table)->state().metadata_location;
  ARROW_ASSIGN_OR_RAISE(auto referenced, ReferencedLocations(**table));
  for (const auto& location : referenced) {
    ARROW_ASSIGN_OR_RAISE(bool exists, io->Exists(location));
    if (!exists) return arrow::Status::IOError("the table names missing ", location);
    observed.referenced.insert(CanonicalLocation(location));
  }
  auto snapshots = (*table)->metadata()->snapshots;
  auto current = (*table)->metadata()->CurrentSnapshot();
  if (current) {
    snapshots.erase(std::remove(snapshots.begin(), snapshots.end(), current),
                    snapshots.end());
    snapshots.push_back(current);
  }
  for (const auto& snapshot : snapshots) {
    ScanOptions options;
    options.snapshot_id = snapshot->snapshot_id;
    ARROW_ASSIGN_OR_RAISE(auto scan, (*table)->NewScan(options));
    ARROW_ASSIGN_OR_RAISE(auto reader, scan->ToRecordBatchReader());
    ARROW_ASSIGN_OR_RAISE(auto rows, reader->ToTable());
    observed.rows.push_back(rows->num_rows());
  }
  return observed;
}

class PowerCut {
 public:
  PowerCut(const testing::TempDirectory& directory, CommitKind kind, bool hadoop)
      : directory_(directory), kind_(std::move(kind)), hadoop_(hadoop) {}

  // A catalog over `io`: the SQL catalog with the SQLite database at `path`, which
  // stands for the durable catalog (a committed row survives the cut), or the
  // filesystem catalog, whose every commit is on the disk. (It makes namespaces as real
  // directories, so its warehouse is a real one, whose tables are on the simulated
  // disk at the same paths.)
  std::shared_ptr<Catalog> Boot(const std::shared_ptr<FileIO>& io,
                                const std::string& path) {
    CatalogOptions options;
    options.warehouse = "/disk/warehouse";
    options.name = "test";
    if (hadoop_) {
      options.warehouse = directory_.Child("hadoop");
      options.io_factory = [io](std::string_view, const auto&) {
        return arrow::Result<std::shared_ptr<FileIO>>(io);
      };
      auto catalog = FilesystemCatalog::Open(options);
      EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
      return std::shared_ptr<Catalog>(std::move(*catalog));
    }
    auto database = OpenSqliteDatabase(path);
    EXPECT_TRUE(database.ok()) << database.status().ToString();
    auto catalog = SqlCatalog::Make(std::move(*database), options, io);
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return std::shared_ptr<Catalog>(std::move(*catalog));
  }

  // Prepares the start state once (no cut), then cuts the power so only what is
  // durable stays: every run starts from a copy of that disk and database.
  void Prepare() {
    start_database_ = directory_.Child("start.db");
    auto io = std::make_shared<CrashSimulatingFileIO>();
    {
      auto catalog = Boot(io, start_database_);
      auto created = catalog->CreateNamespace({"db"}, {});
      ASSERT_TRUE(created.ok()) << created.ToString();
      auto prepared = kind_.prepare(catalog);
      ASSERT_TRUE(prepared.ok()) << prepared.ToString();
    }
    io->PowerCut();
    start_ = io->CloneDurable();
    auto before = Observe(Boot(start_->CloneDurable(), start_database_), start_);
    ASSERT_TRUE(before.ok()) << "the start state did not survive a power cut: "
                             << before.status().ToString();
    before_ = *before;
  }

  struct Run {
    arrow::Status status;
    int64_t operations = 0;
    std::vector<std::string> effective_syncs;
    std::set<std::string> referenced;  // by the table left after the run
  };

  // Runs the operation with the power cut at operation `cut_at` (0: never) and with
  // the `skip`-th durable sync made in vain (SkipSyncsOf); cuts the power again and
  // checks what is left.
  Run Once(int64_t cut_at, int64_t skip = 0) {
    const std::string database =
        directory_.Child("run-" + std::to_string(runs_++) + ".db");
    if (!hadoop_) std::filesystem::copy_file(start_database_, database);
    auto io = start_->CloneDurable();
    Run result;
    {
      auto catalog = Boot(io, database);
      io->SkipSyncsOf(skip);
      io->CutPowerAt(cut_at);
      result.status = kind_.operate(catalog);
      result.operations = io->operations();
      result.effective_syncs = io->TakeEffectiveSyncs();
      io->SkipSyncsOf(0);
    }
    io->PowerCut();
    // The machine restarts: a new process opens the catalog and the disk.
    auto after = Observe(Boot(io, database), io);
    std::filesystem::remove(database);  // none for the filesystem catalog
    if (after.ok()) result.referenced = after->referenced;
    if (skip > 0) {
      // The operation was acknowledged: losing it is as broken as a missing file.
      broken_ = !after.ok() || after->metadata_location == before_.metadata_location;
      return result;
    }
    EXPECT_TRUE(after.ok()) << "after a cut at operation " << cut_at << ": "
                            << after.status().ToString();
    if (!after.ok()) return result;
    if (cut_at == 0) clean_rows_ = after->rows.empty() ? -1 : after->rows.back();
    if (result.status.ok()) {
      // Acknowledged (a cut in best-effort cleanup after the swap is not an error):
      // the new state is the one that survived.
      EXPECT_NE(after->metadata_location, before_.metadata_location)
          << "an acknowledged commit was lost to a cut at operation " << cut_at;
    }
    if (after->metadata_location != before_.metadata_location) {
      // The swap was durable: the new state is whole (the checks Observe made) and
      // holds what the run without a cut holds.
      EXPECT_EQ(after->rows.empty() ? -1 : after->rows.back(), clean_rows_)
          << "after a cut at operation " << cut_at;
    } else {
      EXPECT_EQ(after->rows, before_.rows) << "after a cut at operation " << cut_at;
    }
    return result;
  }

  bool broken() const { return broken_; }

 private:
  const testing::TempDirectory& directory_;
  CommitKind kind_;
  bool hadoop_;
  std::string start_database_;
  std::shared_ptr<CrashSimulatingFileIO> start_;
  Observed before_;
  int runs_ = 0;
  int64_t clean_rows_ = -1;
  bool broken_ = false;
};

// The kinds on the SQL catalog (the embedded default), and those that commit
// differently on the filesystem catalog (a create, and one commit with data and one
// without: its commit is the same rename for every kind).
struct Case {
  int kind;
  bool hadoop;
};
const std::vector<Case> kCases = {{0, false}, {1, false}, {2, false}, {3, false},
                                  {4, false}, {5, false}, {6, false}, {0, true},
                                  {2, true},  {6, true}};

class PowerCutTest : public ::testing::TestWithParam<int> {
 protected:
  CommitKind kind() const { return Kinds()[kCases[GetParam()].kind]; }
  bool hadoop() const { return kCases[GetParam()].hadoop; }
};

TEST_P(PowerCutTest, EveryOperationOfTheCommitCanBeTheLast) {
  const CommitKind kind = this->kind();
  SCOPED_TRACE(kind.name);
  testing::TempDirectory directory;
  PowerCut cut(directory, kind, hadoop());
  ASSERT_NO_FATAL_FAILURE(cut.Prepare());
  PowerCut::Run clean = cut.Once(0);
  ASSERT_TRUE(clean.status.ok()) << clean.status.ToString();
  ASSERT_GT(clean.operations, 3);
  for (int64_t at = 1; at <= clean.operations; ++at) {
    SCOPED_TRACE("power cut at operation " + std::to_string(at) + " of " +
                 std::to_string(clean.operations));
    cut.Once(at);
  }
}

TEST_P(PowerCutTest, EverySyncIsNeeded) {
  const CommitKind kind = this->kind();
  SCOPED_TRACE(kind.name);
  testing::TempDirectory directory;
  PowerCut cut(directory, kind, hadoop());
  ASSERT_NO_FATAL_FAILURE(cut.Prepare());
  PowerCut::Run clean = cut.Once(0);
  ASSERT_TRUE(clean.status.ok()) << clean.status.ToString();
  ASSERT_FALSE(clean.effective_syncs.empty());
  int candidates = 0;
  for (size_t k = 0; k < clean.effective_syncs.size(); ++k) {
    const std::string& synced = clean.effective_syncs[k];
    // The filesystem catalog's version hint only speeds up loading: a reader without a
    // usable one lists the versions.
    if (synced.find("version-hint") != std::string::npos) continue;
    // A manifest the new table does not name (merged into another on the way) need not
    // be durable; its folder, every file the table names, and a temporary file renamed
    // into one (the filesystem catalog's metadata) must be.
    if (synced.find(".avro") != std::string::npos &&
        !clean.referenced.count(CanonicalLocation(synced))) {
      continue;
    }
    ++candidates;
    cut.Once(0, static_cast<int64_t>(k + 1));
    EXPECT_TRUE(cut.broken()) << "the table survives a power cut without the sync of "
                              << synced;
  }
  EXPECT_GT(candidates, 1);
}

INSTANTIATE_TEST_SUITE_P(Commits, PowerCutTest,
                         ::testing::Range(0, static_cast<int>(kCases.size())),
                         [](const auto& info) {
                           const Case& c = kCases[info.param];
                           std::string name =
                               Kinds()[c.kind].name + (c.hadoop ? " on hadoop" : "");
                           for (char& c : name)
                             if (c == ' ') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace floe::iceberg
