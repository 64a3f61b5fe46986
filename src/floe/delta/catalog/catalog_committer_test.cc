// Catalog-managed Delta tables: the SQL coordinator's ratification, the catalog
// committer's stage-ratify-publish, the reader's log tail, and the pairing of committers
// with tables. (The processes racing through the CLI, and killed between the steps, are
// in tests/interop/test_delta_catalog.py.)
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arrow/builder.h"
#include "arrow/record_batch.h"
#include "arrow/table.h"
#include "floe/delta/catalog/catalog_committer.h"
#include "floe/delta/catalog/coordinator.h"
#include "floe/delta/log.h"
#include "floe/delta/scan.h"
#include "floe/delta/write.h"
#include "floe/io/fault_injecting_file_io.h"
#include "floe/sql/sql_database.h"
#include "floe/testing/forwarding_file_io.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"
#include "floe/util/location.h"

namespace floe::delta {
namespace {

std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema(
      {arrow::field("id", arrow::int64()), arrow::field("part", arrow::utf8())});
}

std::shared_ptr<arrow::RecordBatchReader> Rows(int64_t start, int64_t count) {
  arrow::Int64Builder ids;
  arrow::StringBuilder parts;
  for (int64_t i = start; i < start + count; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(parts.Append(i % 2 == 0 ? "even" : "odd/ü").ok());
  }
  auto batch =
      arrow::RecordBatch::Make(Schema(), count, {*ids.Finish(), *parts.Finish()});
  return *arrow::RecordBatchReader::Make({batch}, Schema());
}

std::set<std::string> FilesUnder(const std::string& root) {
  std::set<std::string> files;
  if (!std::filesystem::exists(root)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.insert(entry.path().string());
  }
  return files;
}

// A catalog database in a temporary directory and one table created through it.
struct CatalogTable {
  testing::TempDirectory directory;
  std::shared_ptr<FileIO> io = *MakeArrowFileIO();
  std::shared_ptr<SqlDatabase> database;
  std::shared_ptr<SqlCommitCoordinator> coordinator;
  std::string root = directory.Child("warehouse/db/t");
  std::string table_id = "0b5cc7d3-8f6e-4c52-9d1a-3e2f40c1a7b9";

  CatalogTable() {
    database =
        std::shared_ptr<SqlDatabase>(*OpenSqliteDatabase(directory.Child("catalog.db")));
    coordinator = *SqlCommitCoordinator::Make(database);
  }
  std::shared_ptr<CatalogCommitter> Committer(
      const std::shared_ptr<FileIO>& through = nullptr) {
    return std::make_shared<CatalogCommitter>(through ? through : io, coordinator,
                                              table_id, root);
  }
  arrow::Status Create(std::map<std::string, std::string> properties = {}) {
    CreateTableOptions options;
    options.properties = std::move(properties);
    options.catalog_managed = true;
    options.table_id = table_id;
    options.partition_columns = {"part"};
    options.committer = std::make_shared<CatalogCommitter>(
        io, coordinator, table_id, root, CatalogTableName{"floe", "db", "t"});
    return CreateTable(io, root, *Schema(), options).status();
  }
  arrow::Result<Snapshot> Read() {
    SnapshotOptions options;
    ARROW_ASSIGN_OR_RAISE(options.tail, Committer()->Tail());
    return LoadSnapshot(*io, root, options);
  }
  arrow::Result<std::multiset<int64_t>> Ids() {
    DeltaScanOptions options;
    ARROW_ASSIGN_OR_RAISE(options.snapshot.tail, Committer()->Tail());
    ARROW_ASSIGN_OR_RAISE(auto scan, DeltaScan::Make(io, root, options));
    ARROW_ASSIGN_OR_RAISE(auto reader, scan->ToRecordBatchReader());
    ARROW_ASSIGN_OR_RAISE(auto table, reader->ToTable());
    std::multiset<int64_t> ids;
    for (const auto& chunk : table->GetColumnByName("id")->chunks()) {
      const auto& values = static_cast<const arrow::Int64Array&>(*chunk);
      for (int64_t i = 0; i < values.length(); ++i) ids.insert(values.Value(i));
    }
    return ids;
  }
};

TEST(DeltaCoordinatorTest, RatifiesEachVersionOnceAndOnlyAfterTheOneBefore) {
  CatalogTable table;
  ASSERT_TRUE(
      table.coordinator->RegisterTable({"floe", "db", "t", table.table_id, table.root})
          .ok());
  auto again = table.coordinator->RegisterTable({"floe", "db", "t", "other-id", "/x"});
  EXPECT_EQ(KindOf(again), ErrorKind::kAlreadyExists) << again.ToString();
  auto commit = [](int64_t version, const std::string& name) {
    return RatifiedCommit{version, name, 10, 20, 30 + version};
  };
  EXPECT_EQ(*table.coordinator->Ratify(table.table_id, commit(2, "gap")),
            RatifyOutcome::kConflict);  // version 1 is not ratified yet
  EXPECT_EQ(*table.coordinator->Ratify(table.table_id, commit(1, "a")),
            RatifyOutcome::kRatified);
  EXPECT_EQ(*table.coordinator->Ratify(table.table_id, commit(1, "b")),
            RatifyOutcome::kConflict);  // taken
  EXPECT_EQ(*table.coordinator->Ratify(table.table_id, commit(2, "c")),
            RatifyOutcome::kRatified);
  EXPECT_EQ(*table.coordinator->Ratify("no-such-table", commit(1, "d")),
            RatifyOutcome::kConflict);
  EXPECT_FALSE(table.coordinator->Ratify(table.table_id, commit(0, "e")).ok());

  FLOE_ASSIGN_OR_FAIL(auto log, table.coordinator->GetLog(table.table_id));
  EXPECT_EQ(log.latest_published_version, 0);
  EXPECT_EQ(log.latest_ratified_version, 2);
  ASSERT_EQ(log.unpublished.size(), 2u);
  EXPECT_EQ(log.unpublished[0].file_name, "a");
  EXPECT_EQ(log.unpublished[1].file_name, "c");
  EXPECT_EQ(log.unpublished[1].commit_timestamp_ms, 32);

  ASSERT_TRUE(table.coordinator->MarkPublished(table.table_id, 1).ok());
  ASSERT_TRUE(table.coordinator->MarkPublished(table.table_id, 0).ok());  // never back
  FLOE_ASSIGN_OR_FAIL(log, table.coordinator->GetLog(table.table_id));
  EXPECT_EQ(log.latest_published_version, 1);
  EXPECT_EQ(log.latest_ratified_version, 2);
  ASSERT_EQ(log.unpublished.size(), 1u);
  EXPECT_EQ(log.unpublished[0].version, 2);
  ASSERT_TRUE(table.coordinator->MarkPublished(table.table_id, 2).ok());
  FLOE_ASSIGN_OR_FAIL(log, table.coordinator->GetLog(table.table_id));
  EXPECT_EQ(log.latest_ratified_version, 2);  // rows stay: MAX(version) still counts
  EXPECT_EQ(*table.coordinator->Ratify(table.table_id, commit(2, "f")),
            RatifyOutcome::kConflict);
  EXPECT_EQ(KindOf(table.coordinator->GetLog("no-such-table").status()),
            ErrorKind::kNoSuchTable);

  // Renamed, then dropped: no version can be ratified for it any more.
  ASSERT_TRUE(table.coordinator->RegisterTable({"floe", "db", "u", "id-u", "/u"}).ok());
  EXPECT_EQ(KindOf(table.coordinator->RenameTable("floe", "db", "t", "db", "u")),
            ErrorKind::kAlreadyExists);
  EXPECT_EQ(KindOf(table.coordinator->RenameTable("floe", "db", "nope", "db", "v")),
            ErrorKind::kNoSuchTable);
  ASSERT_TRUE(table.coordinator->RenameTable("floe", "db", "t", "other", "t2").ok());
  FLOE_ASSIGN_OR_FAIL(auto renamed,
                      table.coordinator->LookupTable("floe", "other", "t2"));
  ASSERT_TRUE(renamed.has_value());
  EXPECT_EQ(renamed->table_id, table.table_id);
  ASSERT_TRUE(table.coordinator->DropTable(*renamed).ok());
  EXPECT_EQ(*table.coordinator->Ratify(table.table_id, commit(3, "g")),
            RatifyOutcome::kConflict);
  EXPECT_EQ(KindOf(table.coordinator->DropTable(*renamed)), ErrorKind::kNoSuchTable);
  auto rows = *table.database->Query(
      "SELECT COUNT(*) FROM floe_delta_commits WHERE table_id = ?", {table.table_id});
  EXPECT_EQ(rows[0][0], "0");
}

TEST(DeltaCatalogCommitterTest, StagesRatifiesAndPublishesEveryVersion) {
  CatalogTable table;
  ASSERT_TRUE(table.Create().ok());
  // Version 0 is published and registered; the protocol marks the table.
  FLOE_ASSIGN_OR_FAIL(auto snapshot, table.Read());
  EXPECT_EQ(snapshot.version, 0);
  EXPECT_TRUE(snapshot.protocol.HasReaderFeature("catalogManaged"));
  EXPECT_TRUE(snapshot.protocol.HasWriterFeature("catalogManaged"));
  EXPECT_TRUE(snapshot.protocol.HasWriterFeature("inCommitTimestamp"));
  EXPECT_TRUE(snapshot.protocol.HasReaderFeature("vacuumProtocolCheck"));
  EXPECT_EQ(snapshot.metadata.id, table.table_id);
  EXPECT_EQ(snapshot.metadata.configuration.at("delta.enableInCommitTimestamps"), "true");

  for (int i = 0; i < 3; ++i) {
    DeltaWriteOptions options;
    options.committer = table.Committer();
    auto rows = Rows(i * 10, 10);
    FLOE_ASSIGN_OR_FAIL(auto written, Write(table.io, table.root, *rows, options));
    EXPECT_EQ(written.version, i + 1);
    // Published before Write returned, byte for byte the ratified staged file.
    FLOE_ASSIGN_OR_FAIL(auto log, table.coordinator->GetLog(table.table_id));
    EXPECT_EQ(log.latest_published_version, i + 1);
    EXPECT_TRUE(log.unpublished.empty());
  }
  FLOE_ASSIGN_OR_FAIL(auto log, table.coordinator->GetLog(table.table_id));
  for (int64_t version = 1; version <= 3; ++version) {
    FLOE_ASSIGN_OR_FAIL(auto published,
                        table.io->ReadAll(CommitLocation(table.root, version)));
    auto staged_dir = table.root + "/_delta_log/_staged_commits";
    int matches = 0;
    for (const auto& file : FilesUnder(staged_dir)) {
      if (*table.io->ReadAll(file) == published) ++matches;
    }
    EXPECT_EQ(matches, 1) << "version " << version;
  }
  FLOE_ASSIGN_OR_FAIL(auto ids, table.Ids());
  EXPECT_EQ(ids.size(), 30u);
  EXPECT_EQ(*ids.begin(), 0);
  EXPECT_EQ(*ids.rbegin(), 29);

  // Read by path, without the catalog, the table is refused, as the protocol says.
  FLOE_ASSIGN_OR_FAIL(auto by_path, LoadSnapshot(*table.io, table.root));
  auto refused = CheckReadable(by_path);
  EXPECT_EQ(KindOf(refused), ErrorKind::kInvalidInput);
  EXPECT_NE(refused.message().find("catalog-managed"), std::string::npos);
}

TEST(DeltaCatalogCommitterTest, CommittersArePairedWithTheirKindOfTable) {
  CatalogTable table;
  ASSERT_TRUE(table.Create().ok());
  const auto before = FilesUnder(table.directory.Child("warehouse"));
  // A path-based write (the filesystem committer) to a catalog-managed table.
  auto rows = Rows(0, 5);
  auto refused = Write(table.io, table.root, *rows);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("requires a catalog committer"),
            std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(FilesUnder(table.directory.Child("warehouse")), before);

  // A catalog committer on a path-based table.
  const std::string path_root = table.directory.Child("path_table");
  ASSERT_TRUE(CreateTable(table.io, path_root, *Schema()).ok());
  const auto path_before = FilesUnder(path_root);
  DeltaWriteOptions options;
  options.committer = std::make_shared<CatalogCommitter>(table.io, table.coordinator,
                                                         table.table_id, path_root);
  auto rows_again = Rows(0, 5);
  auto wrong = Write(table.io, path_root, *rows_again, options);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("path-based"), std::string::npos)
      << wrong.status().ToString();
  EXPECT_EQ(FilesUnder(path_root), path_before);

  // A catalog-managed create through a filesystem committer.
  CreateTableOptions create;
  create.catalog_managed = true;
  auto filesystem_create =
      CreateTable(table.io, table.directory.Child("other"), *Schema(), create);
  ASSERT_FALSE(filesystem_create.ok());
  EXPECT_FALSE(std::filesystem::exists(table.directory.Child("other")));
  // In-commit timestamps cannot be turned off on one.
  create.properties = {{"delta.enableInCommitTimestamps", "false"}};
  create.committer = std::make_shared<CatalogCommitter>(
      table.io, table.coordinator, "id-2", table.directory.Child("other"),
      CatalogTableName{"floe", "db", "other"});
  EXPECT_EQ(
      KindOf(CreateTable(table.io, table.directory.Child("other"), *Schema(), create)
                 .status()),
      ErrorKind::kInvalidInput);
  // A name already registered: the new location's version 0 is taken back.
  CreateTableOptions taken;
  taken.catalog_managed = true;
  taken.committer = std::make_shared<CatalogCommitter>(
      table.io, table.coordinator, "id-3", table.directory.Child("third"),
      CatalogTableName{"floe", "db", "t"});
  auto duplicate =
      CreateTable(table.io, table.directory.Child("third"), *Schema(), taken);
  EXPECT_EQ(KindOf(duplicate.status()), ErrorKind::kAlreadyExists);
  EXPECT_TRUE(FilesUnder(table.directory.Child("third")).empty());
}

// Publication fails (storage refuses `_delta_log/<v>.json`): the version is committed
// all the same (ratified), readers see it through the catalog's tail, and the next
// writer publishes the backlog in order before its own.
class RefusingPublicationIO final : public testing::ForwardingFileIO {
 public:
  using ForwardingFileIO::ForwardingFileIO;
  arrow::Status RenameNoReplace(const std::string& from, const std::string& to) override {
    if (to.find("/_staged_commits/") == std::string::npos &&
        to.find("/_delta_log/") != std::string::npos) {
      ++refused;
      return arrow::Status::IOError("storage unavailable: ", to);
    }
    return ForwardingFileIO::RenameNoReplace(from, to);
  }
  int refused = 0;
};

TEST(DeltaCatalogCommitterTest, AnUnpublishedVersionIsReadFromTheTailAndPublishedLater) {
  CatalogTable table;
  // A checkpoint every two versions: version 2 is due one, but is not published.
  ASSERT_TRUE(table.Create({{"delta.checkpointInterval", "2"}}).ok());
  auto refusing = std::make_shared<RefusingPublicationIO>(table.io);
  for (int i = 0; i < 2; ++i) {
    DeltaWriteOptions options;
    // Only the committer's publication is refused: the write itself (its data files,
    // and a checkpoint, were one due) goes to storage that takes it.
    options.committer = table.Committer(refusing);
    auto rows = Rows(i * 10, 10);
    FLOE_ASSIGN_OR_FAIL(auto written, Write(table.io, table.root, *rows, options));
    EXPECT_EQ(written.version, i + 1);
    EXPECT_EQ(written.attempts, 1);
    EXPECT_EQ(written.checkpoint_version, -1);
  }
  EXPECT_GE(refusing->refused, 2);
  EXPECT_FALSE(std::filesystem::exists(CommitLocation(table.root, 1)));
  EXPECT_FALSE(std::filesystem::exists(CommitLocation(table.root, 2)));
  // Checkpoints are of published versions only.
  auto checkpoints = [&] {
    std::set<std::string> found;
    for (const auto& file : FilesUnder(table.root + "/_delta_log")) {
      if (file.find(".checkpoint.") != std::string::npos)
        found.insert(std::filesystem::path(file).filename().string());
    }
    return found;
  };
  EXPECT_TRUE(checkpoints().empty());
  EXPECT_FALSE(std::filesystem::exists(table.root + "/_delta_log/_last_checkpoint"));
  FLOE_ASSIGN_OR_FAIL(auto snapshot, table.Read());
  EXPECT_EQ(snapshot.version, 2);
  FLOE_ASSIGN_OR_FAIL(auto ids, table.Ids());
  EXPECT_EQ(ids.size(), 20u);

  // A stray file above the latest ratified version is not part of the table.
  ASSERT_TRUE(
      table.io->WriteAll(CommitLocation(table.root, 7), "{\"commitInfo\":{}}\n").ok());
  FLOE_ASSIGN_OR_FAIL(snapshot, table.Read());
  EXPECT_EQ(snapshot.version, 2);

  DeltaWriteOptions options;
  options.committer = table.Committer();
  auto rows = Rows(100, 5);
  FLOE_ASSIGN_OR_FAIL(auto written, Write(table.io, table.root, *rows, options));
  EXPECT_EQ(written.version, 3);
  FLOE_ASSIGN_OR_FAIL(auto log, table.coordinator->GetLog(table.table_id));
  EXPECT_EQ(log.latest_published_version, 3);
  for (int64_t version = 1; version <= 3; ++version)
    EXPECT_TRUE(std::filesystem::exists(CommitLocation(table.root, version))) << version;
  FLOE_ASSIGN_OR_FAIL(ids, table.Ids());
  EXPECT_EQ(ids.size(), 25u);
  // Version 4, published when committed, is checkpointed; nothing was for version 2.
  rows = Rows(200, 5);
  FLOE_ASSIGN_OR_FAIL(written, Write(table.io, table.root, *rows, options));
  EXPECT_EQ(written.version, 4);
  EXPECT_EQ(written.checkpoint_version, 4);
  EXPECT_EQ(checkpoints(),
            std::set<std::string>{"00000000000000000004.checkpoint.parquet"});
}

// The coordinator hands version 1 to another writer just before this one asks: the
// loser reads its winner from the winner's staged file (not yet published), rebases and
// commits version 2; the backlog is published in order.
class RacingCoordinator final : public CommitCoordinator {
 public:
  RacingCoordinator(std::shared_ptr<CommitCoordinator> inner, std::function<void()> hook)
      : inner_(std::move(inner)), hook_(std::move(hook)) {}
  arrow::Result<RatifyOutcome> Ratify(const std::string& table_id,
                                      const RatifiedCommit& commit) override {
    if (hook_) {
      auto hook = std::move(hook_);
      hook_ = nullptr;
      hook();
    }
    return inner_->Ratify(table_id, commit);
  }
  arrow::Result<CoordinatedLog> GetLog(const std::string& table_id) override {
    return inner_->GetLog(table_id);
  }
  arrow::Status MarkPublished(const std::string& table_id, int64_t version) override {
    return inner_->MarkPublished(table_id, version);
  }
  arrow::Status RegisterTable(const RegisteredDeltaTable& table) override {
    return inner_->RegisterTable(table);
  }

 private:
  std::shared_ptr<CommitCoordinator> inner_;
  std::function<void()> hook_;
};

TEST(DeltaCatalogCommitterTest, ALoserReadsItsWinnerFromTheCatalog) {
  CatalogTable table;
  ASSERT_TRUE(table.Create().ok());
  std::string winner_file;
  auto other_writer = [&] {
    // Another writer stages and ratifies version 1 (an empty commit with a later
    // in-commit timestamp) and dies before publishing it.
    winner_file = "00000000000000000001.6f1c3a52-5d3e-4b8a-9c41-0d2e7f9a1b23.json";
    const std::string text =
        "{\"commitInfo\":{\"inCommitTimestamp\":99999999999999,\"timestamp\":"
        "99999999999999,\"operation\":\"WRITE\",\"txnId\":\"x\"}}\n";
    ASSERT_TRUE(
        table.io
            ->WriteAll(table.root + "/_delta_log/_staged_commits/" + winner_file, text)
            .ok());
    ASSERT_EQ(*table.coordinator->Ratify(
                  table.table_id,
                  {1, winner_file, static_cast<int64_t>(text.size()), 1, 99999999999999}),
              RatifyOutcome::kRatified);
  };
  auto racing = std::make_shared<RacingCoordinator>(table.coordinator, other_writer);
  DeltaWriteOptions options;
  options.committer =
      std::make_shared<CatalogCommitter>(table.io, racing, table.table_id, table.root);
  auto rows = Rows(0, 4);
  FLOE_ASSIGN_OR_FAIL(auto written, Write(table.io, table.root, *rows, options));
  EXPECT_EQ(written.version, 2);
  EXPECT_EQ(written.attempts, 2);
  // The loser's in-commit timestamp follows the winner's, read from its staged file.
  FLOE_ASSIGN_OR_FAIL(auto actions, ReadCommitActions(*table.io, table.root, 2));
  ASSERT_TRUE(actions.in_commit_timestamp.has_value());
  EXPECT_GT(*actions.in_commit_timestamp, 99999999999999);
  FLOE_ASSIGN_OR_FAIL(auto first, ReadCommitActions(*table.io, table.root, 1));
  EXPECT_EQ(first.txn_id, "x");  // the winner's commit, published by the loser
  // Exactly two staged files: the winner's and the loser's second attempt (its first
  // attempt's staged file was deleted when it lost).
  EXPECT_EQ(FilesUnder(table.root + "/_delta_log/_staged_commits").size(), 2u);
  FLOE_ASSIGN_OR_FAIL(auto ids, table.Ids());
  EXPECT_EQ(ids.size(), 4u);
}

TEST(DeltaCatalogCommitterTest, AStagedNameFromTheCatalogMustBeOneItCouldHaveWritten) {
  CatalogTable table;
  ASSERT_TRUE(table.Create().ok());
  ASSERT_EQ(
      *table.coordinator->Ratify(table.table_id, {1, "../../../etc/passwd", 1, 1, 1}),
      RatifyOutcome::kRatified);
  auto tail = table.Committer()->Tail();
  ASSERT_FALSE(tail.ok());
  EXPECT_EQ(KindOf(tail.status()), ErrorKind::kInvalidMetadata);
  EXPECT_NE(tail.status().message().find("<version>.<uuid>.json"), std::string::npos);
}

// Data files (not the log) under `root`.
std::set<std::string> DataFilesUnder(const std::string& root) {
  std::set<std::string> files;
  for (const auto& file : FilesUnder(root)) {
    if (file.find("/_delta_log/") == std::string::npos) files.insert(file);
  }
  return files;
}

std::set<std::string> Referenced(const Snapshot& snapshot) {
  std::set<std::string> files;
  for (const auto& file : snapshot.files) files.insert(file.location);
  return files;
}

// What must hold after any failure of one catalog-managed append: the table (read
// through the catalog) is unchanged and no file of the write remains, or it has exactly
// the new version; a staged commit the catalog did not ratify is gone (unless deleting
// it was the fault, or the outcome is unknown); never a published file the catalog did
// not ratify.
void ExpectCleanOutcome(CatalogTable& table, const Snapshot& before,
                        const arrow::Result<DeltaWriteResult>& result,
                        const std::string& context, const std::string& undeletable = "") {
  auto after = table.Read();
  ASSERT_TRUE(after.ok()) << context << ": " << after.status().ToString();
  const bool unknown =
      !result.ok() && KindOf(result.status()) == ErrorKind::kCommitStateUnknown;
  if (result.ok()) {
    EXPECT_EQ(after->version, before.version + 1) << context;
    EXPECT_EQ(after->files.size(), before.files.size() + 2) << context;
  } else if (!unknown) {
    EXPECT_EQ(after->version, before.version)
        << context << ": " << result.status().ToString();
  }
  if (unknown) return;  // the files stay for the version that may name them
  const auto referenced = Referenced(*after);
  for (const auto& file : DataFilesUnder(table.root)) {
    if (!undeletable.empty() && CanonicalLocation(file) == CanonicalLocation(undeletable))
      continue;
    EXPECT_TRUE(referenced.count(file)) << "stray data file " << file << " " << context;
  }
  auto log = *table.coordinator->GetLog(table.table_id);
  std::set<std::string> ratified_names;
  auto commits = *table.database->Query(
      "SELECT file_name FROM floe_delta_commits WHERE table_id = ?", {table.table_id});
  for (const auto& row : commits) ratified_names.insert(*row[0]);
  for (const auto& file : FilesUnder(table.root + "/_delta_log/_staged_commits")) {
    if (!undeletable.empty() && CanonicalLocation(file) == CanonicalLocation(undeletable))
      continue;
    const std::string name = file.substr(file.rfind('/') + 1);
    EXPECT_TRUE(ratified_names.count(name))
        << "unratified staged file " << file << " " << context;
  }
  for (int64_t version = log.latest_ratified_version + 1; version < 20; ++version) {
    EXPECT_FALSE(std::filesystem::exists(CommitLocation(table.root, version)))
        << "published above the catalog's latest: " << version << " " << context;
  }
}

TEST(DeltaCatalogCommitterTest, EveryFileOperationOfACatalogAppendCanFailCleanly) {
  auto run = [](FileOperation kind, int64_t nth, int64_t* counts) {
    CatalogTable table;
    EXPECT_TRUE(table.Create().ok());
    DeltaWriteOptions first;
    first.committer = table.Committer();
    auto first_rows = Rows(0, 6);
    EXPECT_TRUE(Write(table.io, table.root, *first_rows, first).ok());
    const Snapshot before = *table.Read();
    auto io = std::make_shared<FaultInjectingFileIO>(table.io);
    io->FailNth(kind, nth);
    DeltaWriteOptions options;
    options.committer = table.Committer(io);
    options.write_checkpoints = false;
    auto rows = Rows(100, 6);
    auto result = Write(io, table.root, *rows, options);
    if (counts) {
      for (int k = 0; k < kFileOperationKinds; ++k)
        counts[k] = io->Count(static_cast<FileOperation>(k));
    }
    const std::string context = std::string("after failing ") +
                                std::string(FileOperationName(kind)) + " #" +
                                std::to_string(nth);
    if (!result.ok()) {
      EXPECT_NE(result.status().message().find("injected fault"), std::string::npos)
          << context << ": " << result.status().ToString();
    }
    ExpectCleanOutcome(table, before, result, context,
                       kind == FileOperation::kDelete ? io->fired_at() : "");
    return result.ok();
  };
  int64_t counts[kFileOperationKinds] = {};
  ASSERT_TRUE(run(FileOperation::kCreate, 0, counts));
  EXPECT_GE(counts[static_cast<int>(FileOperation::kRename)], 2);  // stage and publish
  int failures = 0, runs = 0;
  for (int k = 0; k < kFileOperationKinds; ++k) {
    for (int64_t nth = 1; nth <= counts[k]; ++nth, ++runs) {
      if (!run(static_cast<FileOperation>(k), nth, nullptr)) ++failures;
    }
  }
  EXPECT_GT(failures, 2) << "of " << runs;  // the sweep really failed writes
}

TEST(DeltaCatalogCommitterTest, ACreateWhoseVersionZeroMayNotLastCommitsNothing) {
  CatalogTable table;
  auto io = std::make_shared<FaultInjectingFileIO>(table.io);
  io->FailNth(FileOperation::kSync, 1);
  CreateTableOptions options;
  options.catalog_managed = true;
  options.table_id = table.table_id;
  options.committer =
      std::make_shared<CatalogCommitter>(io, table.coordinator, table.table_id,
                                         table.root, CatalogTableName{"floe", "db", "t"});
  auto created = CreateTable(io, table.root, *Schema(), options);
  ASSERT_FALSE(created.ok());
  EXPECT_TRUE(created.status().IsIOError()) << created.status().ToString();
  EXPECT_NE(created.status().message().find(table.root), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(CommitLocation(table.root, 0)));
  auto registered = table.database->Query("SELECT table_id FROM floe_delta_tables", {});
  ASSERT_TRUE(registered.ok()) << registered.status().ToString();
  EXPECT_TRUE(registered->empty());
}

// A database whose Nth statement fails: before it runs (nothing changed), or after it
// ran (the answer lost, as with a connection dropped mid-reply).
class FaultInjectingDatabase final : public SqlDatabase {
 public:
  FaultInjectingDatabase(std::shared_ptr<SqlDatabase> inner, int64_t nth, bool after)
      : inner_(std::move(inner)), nth_(nth), after_(after) {}
  arrow::Result<int64_t> ExecuteWithLockWait(std::string_view sql,
                                             const std::vector<SqlValue>& params,
                                             int64_t lock_wait_ms) override {
    if (!Fire()) return inner_->ExecuteWithLockWait(sql, params, lock_wait_ms);
    if (after_) (void)inner_->ExecuteWithLockWait(sql, params, lock_wait_ms);
    return arrow::Status::IOError("injected fault: database connection lost");
  }
  arrow::Result<std::vector<SqlRow>> Query(std::string_view sql,
                                           const std::vector<SqlValue>& params) override {
    if (!Fire()) return inner_->Query(sql, params);
    return arrow::Status::IOError("injected fault: database connection lost");
  }
  std::vector<std::string> Files() const override { return inner_->Files(); }
  bool FailuresCanBeChecked() const override { return inner_->FailuresCanBeChecked(); }
  int64_t statements = 0;

 private:
  bool Fire() { return ++statements == nth_; }
  std::shared_ptr<SqlDatabase> inner_;
  int64_t nth_;
  bool after_;
};

TEST(DeltaCatalogCommitterTest, EveryStatementOfACatalogAppendCanFailCleanly) {
  auto run = [](int64_t nth, bool after, int64_t* statements) {
    CatalogTable table;
    EXPECT_TRUE(table.Create().ok());
    DeltaWriteOptions first;
    first.committer = table.Committer();
    auto first_rows = Rows(0, 6);
    EXPECT_TRUE(Write(table.io, table.root, *first_rows, first).ok());
    const Snapshot before = *table.Read();
    auto database = std::make_shared<FaultInjectingDatabase>(table.database, nth, after);
    auto coordinator = SqlCommitCoordinator::Make(database, /*create_tables=*/false);
    arrow::Result<DeltaWriteResult> result =
        coordinator.ok() ? arrow::Status::Invalid("not run") : coordinator.status();
    if (coordinator.ok()) {
      DeltaWriteOptions options;
      options.committer = std::make_shared<CatalogCommitter>(table.io, *coordinator,
                                                             table.table_id, table.root);
      options.write_checkpoints = false;
      auto rows = Rows(100, 6);
      result = Write(table.io, table.root, *rows, options);
    }
    if (statements) *statements = database->statements;
    const std::string context = "after failing statement #" + std::to_string(nth) +
                                (after ? " once it ran" : " before it ran");
    if (!result.ok()) {
      EXPECT_NE(result.status().message().find("injected fault"), std::string::npos)
          << context << ": " << result.status().ToString();
    }
    ExpectCleanOutcome(table, before, result, context);
    if (getenv("FLOE_TEST_VERBOSE")) {
      std::fprintf(stderr, "%s: %s\n", context.c_str(),
                   result.ok() ? ("version " + std::to_string(result->version) +
                                  " attempts " + std::to_string(result->attempts))
                                     .c_str()
                               : result.status().ToString().c_str());
    }
    return result.ok();
  };
  int64_t statements = 0;
  ASSERT_TRUE(run(0, false, &statements));
  EXPECT_GE(statements, 4);  // tail, ratify, tail, mark published
  int failures = 0;
  for (bool after : {false, true}) {
    for (int64_t nth = 1; nth <= statements; ++nth) {
      if (!run(nth, after, nullptr)) ++failures;
    }
  }
  EXPECT_GT(failures, 0);
}

}  // namespace
}  // namespace floe::delta
