// Sweeps an injected I/O failure over every operation of a partitioned append (data
// files, manifests, manifest list, metadata, catalog swap) and checks after each run that
// the table is either unchanged or holds exactly the new snapshot, that storage holds no
// file the table does not reference, and that the error reported is the injected one.
#include <set>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/table/maintenance.h"
#include "floe/iceberg/table/orphan_files.h"
#include "floe/iceberg/table/table.h"
#include "floe/io/fault_injecting_file_io.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

constexpr int kRows = 3000;

std::shared_ptr<arrow::RecordBatchReader> Rows(const Table& table) {
  auto schema = ToArrowSchema(*table.metadata()->CurrentSchema()).ValueOrDie();
  arrow::Int64Builder ids;
  arrow::StringBuilder regions;
  for (int i = 0; i < kRows; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(regions.Append("r" + std::to_string(i % 8)).ok());
  }
  auto batch =
      arrow::RecordBatch::Make(schema, kRows, {*ids.Finish(), *regions.Finish()});
  return *arrow::RecordBatchReader::Make({batch->Slice(0, 1500), batch->Slice(1500)});
}

struct Outcome {
  arrow::Status status;
  bool committed = false;
  std::string fired_at;
};

class FaultSweep {
 public:
  explicit FaultSweep(const testing::TempDirectory& directory) : directory_(directory) {}

  // One append with the `nth` operation of `kind` failing (0: none). Checks the
  // invariants.
  Outcome Run(FileOperation kind, int64_t nth, int run, int64_t* counts = nullptr) {
    std::string root = directory_.Child("run-" + std::to_string(run));
    auto local = MakeArrowFileIO();
    auto io = std::make_shared<FaultInjectingFileIO>(*local);
    CatalogOptions options;
    options.warehouse = root;
    options.name = "test";
    auto catalog = SqlCatalog::Make(*OpenSqliteDatabase(root + ".db"), options, io);
    EXPECT_TRUE(catalog.ok());
    std::shared_ptr<Catalog> shared(std::move(*catalog));
    EXPECT_TRUE(shared->CreateNamespace({"db"}, {}).ok());
    CreateTableOptions create;
    create.schema = *ParseSchemaText("id long not null, region string");
    create.spec = *ParsePartitionBy("region", *create.schema);
    create.properties["write.metadata.delete-after-commit.enabled"] = "true";
    create.properties["write.metadata.previous-versions-max"] = "1";
    auto table = Table::Create(shared, {{"db"}, "t"}, create);
    EXPECT_TRUE(table.ok());
    // A first snapshot, so a failed commit has something to leave alone.
    AppendOptions append;
    auto first = (*table)->Append(*Rows(**table), append);
    EXPECT_TRUE(first.ok()) << first.status().ToString();
    auto before = shared->LoadTable({{"db"}, "t"});
    auto listed_before = io->List(root);

    io->Reset();
    io->FailNth(kind, nth);
    auto input = Rows(**table);
    auto result = (*table)->Append(*input, append);
    Outcome outcome;
    outcome.status = result.status();
    outcome.fired_at = io->fired_at();
    io->FailNth(kind, 0);
    if (counts) {
      for (int k = 0; k < kFileOperationKinds; ++k) {
        counts[k] = io->Count(static_cast<FileOperation>(k));
      }
    }
    auto after = Table::Load(shared, {{"db"}, "t"});
    EXPECT_TRUE(after.ok());
    if (!result.ok()) {
      // The injected failure is what the caller sees, and the table did not move.
      EXPECT_NE(result.status().message().find("injected fault"), std::string::npos)
          << result.status().ToString();
      EXPECT_EQ((*after)->state().metadata_location, before->metadata_location);
    } else {
      outcome.committed =
          (*after)->state().metadata_location != before->metadata_location;
      EXPECT_TRUE(outcome.committed);
      EXPECT_EQ((*after)->metadata()->CurrentSnapshot()->summary.GetLong("total-records"),
                2 * kRows);
    }
    // No stray files: everything under the table location is referenced, except a file
    // whose own deletion was the injected failure (cleanup is best effort).
    auto referenced = ReferencedLocations(**after);
    EXPECT_TRUE(referenced.ok()) << referenced.status().ToString();
    std::set<std::string> known(referenced->begin(), referenced->end());
    auto files = io->List((*after)->metadata()->location);
    for (const auto& file : *files) {
      if (kind == FileOperation::kDelete &&
          CanonicalLocation(file.location) == CanonicalLocation(outcome.fired_at)) {
        continue;
      }
      EXPECT_TRUE(known.count(CanonicalLocation(file.location)))
          << "stray file " << file.location << " after failing "
          << FileOperationName(kind) << " #" << nth;
    }
    return outcome;
  }

 private:
  const testing::TempDirectory& directory_;
};

TEST(FaultInjectionTest, EveryOperationOfAnAppendCanFailCleanly) {
  testing::TempDirectory directory;
  FaultSweep sweep(directory);
  int64_t counts[kFileOperationKinds] = {};
  int run = 0;
  Outcome clean = sweep.Run(FileOperation::kCreate, 0, run++, counts);
  ASSERT_TRUE(clean.status.ok()) << clean.status.ToString();
  ASSERT_GT(counts[static_cast<int>(FileOperation::kCreate)],
            10);  // 8 data files, manifests, ...
  for (int kind = 0; kind < kFileOperationKinds; ++kind) {
    auto operation = static_cast<FileOperation>(kind);
    for (int64_t nth = 1; nth <= counts[kind]; ++nth) {
      SCOPED_TRACE(std::string(FileOperationName(operation)) + " #" +
                   std::to_string(nth));
      Outcome outcome = sweep.Run(operation, nth, run++);
      EXPECT_FALSE(outcome.fired_at.empty());
      if (operation == FileOperation::kDelete) {
        // Deletions are cleanup after the swap: best effort, never the append's failure.
        EXPECT_TRUE(outcome.status.ok()) << outcome.status.ToString();
      } else {
        // Every file is created, written and closed before the swap: its failure fails
        // the append and leaves the table as it was.
        EXPECT_FALSE(outcome.status.ok());
      }
    }
  }
}

}  // namespace
}  // namespace floe::iceberg
