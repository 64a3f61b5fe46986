// The committer contract, in-commit timestamps, idempotent writes (txn) and checkpoints.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "arrow/builder.h"
#include "arrow/record_batch.h"
#include "floe/delta/checkpoint.h"
#include "floe/delta/committer.h"
#include "floe/delta/log.h"
#include "floe/delta/write.h"
#include "floe/io/fault_injecting_file_io.h"
#include "floe/testing/forwarding_file_io.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"
#include "floe/util/location.h"

namespace floe::delta {
namespace {

std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema({arrow::field("id", arrow::int64()),
                        arrow::field("day", arrow::date32()),
                        arrow::field("name", arrow::utf8())});
}

std::shared_ptr<arrow::RecordBatchReader> Rows(int64_t start, int64_t count) {
  arrow::Int64Builder ids;
  arrow::Date32Builder days;
  arrow::StringBuilder names;
  for (int64_t i = start; i < start + count; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    // Pre-1970 and far-future days: partition values.
    EXPECT_TRUE(days.Append(i % 2 == 0 ? -25567 : 2932896).ok());
    EXPECT_TRUE(names.Append("n" + std::to_string(i)).ok());
  }
  auto batch = arrow::RecordBatch::Make(Schema(), count,
                                        {*ids.Finish(), *days.Finish(), *names.Finish()});
  return *arrow::RecordBatchReader::Make({batch}, Schema());
}

std::set<std::string> Locations(const Snapshot& snapshot) {
  std::set<std::string> files;
  for (const auto& file : snapshot.files) files.insert(file.location);
  return files;
}

// In the order written.
nlohmann::ordered_json CommitInfo(FileIO& io, const std::string& root, int64_t version) {
  std::string text = *io.ReadAll(CommitLocation(root, version));
  return nlohmann::ordered_json::parse(text.substr(0, text.find('\n')))["commitInfo"];
}

// A clock stuck in the past: in-commit timestamps must still rise.
class FrozenClock final : public EnvWrapper {
 public:
  FrozenClock() : EnvWrapper(Env::Default()) {}
  int64_t NowMillis() override { return 1'000; }
};

class CatalogLikeCommitter final : public Committer {
 public:
  arrow::Result<CommitResponse> Commit(const std::string&,
                                       const CommitMetadata& metadata) override {
    ARROW_RETURN_NOT_OK(
        ValidateCommitType(*this, metadata.commit_type(), metadata.table_root()));
    return Conflict{metadata.version()};
  }
  bool IsCatalogCommitter() const override { return true; }
  arrow::Status Publish(const PublishMetadata& metadata) override {
    return ValidateCommitType(*this, metadata.commit_type, metadata.table_root);
  }
};

// Every rename into the log fails: storage that refuses the commit every time.
class RefusingLogIO final : public testing::ForwardingFileIO {
 public:
  using ForwardingFileIO::ForwardingFileIO;
  arrow::Status RenameNoReplace(const std::string& from, const std::string& to) override {
    ++renames;
    return arrow::Status::IOError("permission denied: ", to);
  }
  int renames = 0;
};

TEST(DeltaCommitTest, APersistentStorageFailureIsReportedNotRetriedForEver) {
  testing::TempDirectory directory;
  auto local = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  ASSERT_TRUE(CreateTable(local, root, *Schema(), {}).ok());
  auto before = *local->List(root);
  auto io = std::make_shared<RefusingLogIO>(local);
  auto rows = Rows(0, 6);
  auto result = Write(io, root, *rows);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsIOError()) << result.status().ToString();
  EXPECT_NE(result.status().message().find("permission denied"), std::string::npos);
  EXPECT_EQ(io->renames, 4);  // the first attempt and three retries of the same version
  auto after = *local->List(root);
  EXPECT_EQ(after.size(), before.size());  // no data file, no temporary commit file
}

TEST(DeltaCommitTest, CommitMetadataMintsOneStagedPathPerAttempt) {
  CommitMetadata first("/t/", 7, CommitType::kCatalogManagedWrite, 5, 6);
  CommitMetadata second("/t", 7, CommitType::kCatalogManagedWrite, 5, 6);
  EXPECT_EQ(first.published_path(), "/t/_delta_log/00000000000000000007.json");
  EXPECT_EQ(first.staged_path(), first.staged_path());
  EXPECT_NE(first.staged_path(), second.staged_path());
  EXPECT_EQ(
      first.staged_path().rfind("/t/_delta_log/_staged_commits/00000000000000000007.", 0),
      0u)
      << first.staged_path();
}

TEST(DeltaCommitTest, CommittersArePairedWithTheirKindOfTable) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  ASSERT_TRUE(CreateTable(io, root, *Schema(), {}).ok());
  // A catalog committer on a path-based table is refused before any file is written.
  auto before = *io->List(root);
  DeltaWriteOptions options;
  options.committer = std::make_shared<CatalogLikeCommitter>();
  auto rows = Rows(0, 4);
  auto refused = Write(io, root, *rows, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("is path-based and cannot be committed to "
                                            "with a catalog committer"),
            std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(io->List(root)->size(), before.size());

  // A filesystem committer on a catalog-managed table is refused, by either feature
  // name (catalogOwned-preview is the name delta-spark 4.0 writes).
  FilesystemCommitter filesystem(io);
  for (const std::string feature : {"catalogManaged", "catalogOwned-preview"}) {
    const std::string managed = directory.Child("managed-" + feature);
    ASSERT_TRUE(
        io->WriteAll(
              CommitLocation(managed, 0),
              R"({"commitInfo":{"timestamp":1,"inCommitTimestamp":1}})"
              "\n"
              R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":[")" +
                  feature + R"("],"writerFeatures":[")" + feature +
                  R"(","inCommitTimestamp"]}})"
                  "\n"
                  R"({"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{"delta.enableInCommitTimestamps":"true"}}})"
                  "\n")
            .ok());
    FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io, managed));
    EXPECT_EQ(CommitTypeOf(snapshot.protocol, false), CommitType::kCatalogManagedWrite)
        << feature;
    CommitMetadata commit(managed, 1, CommitType::kCatalogManagedWrite, 2, 0);
    auto response = filesystem.Commit("{}\n", commit);
    ASSERT_FALSE(response.ok());
    EXPECT_NE(response.status().message().find("requires a catalog committer"),
              std::string::npos);
    EXPECT_FALSE(*io->Exists(CommitLocation(managed, 1)));
    auto rows2 = Rows(0, 4);
    auto write = Write(io, managed, *rows2);
    ASSERT_FALSE(write.ok()) << feature;
    EXPECT_NE(write.status().message().find("requires a catalog committer"),
              std::string::npos)
        << write.status().ToString();
    EXPECT_FALSE(*io->Exists(CommitLocation(managed, 1)));
    // Publishing is paired as committing is: not even an empty publish of a
    // catalog-managed table goes through a filesystem committer.
    auto publish = filesystem.Publish({managed, CommitType::kCatalogManagedWrite, {}});
    ASSERT_FALSE(publish.ok());
    EXPECT_NE(publish.message().find("requires a catalog committer"), std::string::npos);
  }
  // ...and a catalog committer may not publish to a path-based table.
  CatalogLikeCommitter catalog;
  auto publish = catalog.Publish({root, CommitType::kPathBasedWrite, {}});
  ASSERT_FALSE(publish.ok());
  EXPECT_NE(publish.message().find("is path-based and cannot be committed to with a "
                                   "catalog committer"),
            std::string::npos);

  // A filesystem committer publishes nothing; a taken version is Conflict, not an error.
  EXPECT_TRUE(filesystem.Publish({root, CommitType::kPathBasedWrite, {}}).ok());
  EXPECT_FALSE(
      filesystem.Publish({root, CommitType::kPathBasedWrite, {{1, "a", "b"}}}).ok());
  CommitMetadata taken(root, 0, CommitType::kPathBasedWrite, 2, 0);
  FLOE_ASSIGN_OR_FAIL(auto conflict, filesystem.Commit("{}\n", taken));
  ASSERT_TRUE(std::holds_alternative<Conflict>(conflict));
  EXPECT_EQ(std::get<Conflict>(conflict).version, 0);
}

TEST(DeltaCommitTest, InCommitTimestampsRiseEvenWhenTheClockDoesNot) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  FrozenClock clock;
  CreateTableOptions create;
  create.properties["delta.enableInCommitTimestamps"] = "true";
  // Version 3 is written from version 2's checkpoint: its commit still gives the previous
  // in-commit timestamp.
  create.properties["delta.checkpointInterval"] = "2";
  create.env = &clock;
  ASSERT_TRUE(CreateTable(io, root, *Schema(), create).ok());
  FLOE_ASSIGN_OR_FAIL(auto created, LoadSnapshot(*io, root));
  EXPECT_TRUE(created.protocol.HasWriterFeature("inCommitTimestamp"));
  EXPECT_TRUE(created.protocol.HasWriterFeature("appendOnly"));
  EXPECT_TRUE(created.protocol.HasWriterFeature("invariants"));
  EXPECT_EQ(created.protocol.min_reader_version, 1);
  DeltaWriteOptions options;
  options.env = &clock;
  for (int i = 0; i < 3; ++i) {
    auto rows = Rows(i, 1);
    ASSERT_TRUE(Write(io, root, *rows, options).ok());
  }
  for (int64_t v = 0; v <= 3; ++v) {
    auto info = CommitInfo(*io, root, v);
    ASSERT_TRUE(info.contains("inCommitTimestamp")) << info.dump();
    EXPECT_EQ(info["inCommitTimestamp"].get<int64_t>(), 1'000 + v);
    EXPECT_EQ(info["timestamp"].get<int64_t>(), 1'000 + v);
    EXPECT_EQ(info.begin().key(), "inCommitTimestamp");
  }
  // Time travel by timestamp reads the in-commit timestamps.
  FLOE_ASSIGN_OR_FAIL(auto at, LoadSnapshot(*io, root, SnapshotOptions{{}, 1'002}));
  EXPECT_EQ(at.version, 2);
  // Without the property, no in-commit timestamp.
  const std::string plain = directory.Child("plain");
  ASSERT_TRUE(CreateTable(io, plain, *Schema(), {}).ok());
  EXPECT_FALSE(CommitInfo(*io, plain, 0).contains("inCommitTimestamp"));
}

TEST(DeltaCommitTest, AnIdempotentWriteCommitsItsVersionOnce) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  ASSERT_TRUE(CreateTable(io, root, *Schema(), {}).ok());
  DeltaWriteOptions options;
  options.app_id = "stream-é/1";
  options.app_version = 5;
  auto rows = Rows(0, 4);
  FLOE_ASSIGN_OR_FAIL(auto first, Write(io, root, *rows, options));
  EXPECT_EQ(first.version, 1);
  EXPECT_FALSE(first.skipped);
  auto on_disk = *io->List(root);
  for (int64_t replayed : {5, 4, 0}) {
    options.app_version = replayed;
    auto again = Rows(0, 4);
    FLOE_ASSIGN_OR_FAIL(auto skipped, Write(io, root, *again, options));
    EXPECT_TRUE(skipped.skipped);
    EXPECT_EQ(skipped.version, 1);
    EXPECT_EQ(io->List(root)->size(), on_disk.size());  // not one file written
  }
  options.app_version = 6;
  auto next = Rows(10, 4);
  FLOE_ASSIGN_OR_FAIL(auto second, Write(io, root, *next, options));
  EXPECT_EQ(second.version, 2);
  FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io, root));
  EXPECT_EQ(snapshot.app_versions.at("stream-é/1"), 6);
  ASSERT_TRUE(snapshot.app_transactions.at("stream-é/1").last_updated_ms.has_value());
  // An application id without a version (or the reverse) is refused.
  DeltaWriteOptions half;
  half.app_id = "x";
  auto more = Rows(0, 1);
  EXPECT_EQ(KindOf(Write(io, root, *more, half).status()), ErrorKind::kInvalidInput);
}

TEST(DeltaCommitTest, CheckpointIntervalsAsDeltaSparkReadsThem) {
  EXPECT_EQ(CheckpointInterval({}), 10);
  EXPECT_EQ(CheckpointInterval({{"delta.checkpointInterval", "3"}}), 3);
  EXPECT_EQ(CheckpointInterval({{"delta.checkpointInterval", "-3"}}), 10);
  EXPECT_EQ(CheckpointInterval({{"delta.checkpointInterval", "0"}}), 10);
  EXPECT_EQ(CheckpointInterval({{"delta.checkpointInterval", "+7"}}), 7);
  EXPECT_EQ(CheckpointInterval({{"delta.checkpointInterval", "2147483648"}}), 10);
  EXPECT_EQ(CheckpointInterval({{"delta.checkpointInterval", " 5"}}), 10);
}

// The checkpoint alone rebuilds the table: with every commit before it deleted, the
// snapshot is the same (files, txns, tombstones, protocol, metadata).
TEST(DeltaCommitTest, ACheckpointHoldsTheWholeSnapshot) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  CreateTableOptions create;
  create.partition_columns = {"day"};
  create.properties["delta.checkpointInterval"] = "4";
  ASSERT_TRUE(CreateTable(io, root, *Schema(), create).ok());
  DeltaWriteOptions options;
  std::vector<int64_t> checkpoints;
  for (int i = 1; i <= 9; ++i) {
    auto rows = Rows(i * 10, 3);
    options.mode = i == 3 ? DeltaWriteMode::kOverwrite : DeltaWriteMode::kAppend;
    options.app_id = i % 2 ? "odd" : "even";
    options.app_version = i;
    FLOE_ASSIGN_OR_FAIL(auto result, Write(io, root, *rows, options));
    if (result.checkpoint_version >= 0) checkpoints.push_back(result.checkpoint_version);
  }
  EXPECT_EQ(checkpoints, (std::vector<int64_t>{4, 8}));
  auto hint = nlohmann::json::parse(*io->ReadAll(root + "/_delta_log/_last_checkpoint"));
  EXPECT_EQ(hint["version"], 8);
  FLOE_ASSIGN_OR_FAIL(auto replayed, LoadSnapshot(*io, root, SnapshotOptions{8, {}}));
  EXPECT_EQ(replayed.checkpoint_version, 8);
  EXPECT_EQ(hint["numOfAddFiles"], replayed.files.size());
  // Four tombstones: the overwrite of version 3 removed the two files of versions 1, 2.
  EXPECT_EQ(replayed.tombstones.size(), 4u);
  for (int64_t v = 0; v <= 8; ++v) ASSERT_TRUE(io->Delete(CommitLocation(root, v)).ok());
  ASSERT_TRUE(
      io->Delete(root + "/_delta_log/00000000000000000004.checkpoint.parquet").ok());
  FLOE_ASSIGN_OR_FAIL(auto from_checkpoint, LoadSnapshot(*io, root));
  EXPECT_EQ(from_checkpoint.version, 9);
  FLOE_ASSIGN_OR_FAIL(auto at_eight, LoadSnapshot(*io, root, SnapshotOptions{8, {}}));
  EXPECT_EQ(Locations(at_eight), Locations(replayed));
  EXPECT_EQ(at_eight.app_versions, replayed.app_versions);
  EXPECT_EQ(at_eight.tombstones.size(), replayed.tombstones.size());
  EXPECT_EQ(at_eight.metadata.configuration, replayed.metadata.configuration);
  EXPECT_EQ(at_eight.metadata.partition_columns, replayed.metadata.partition_columns);
  EXPECT_EQ(at_eight.protocol.min_writer_version, replayed.protocol.min_writer_version);
  for (size_t i = 0; i < at_eight.files.size(); ++i) {
    EXPECT_EQ(at_eight.files[i].stats, replayed.files[i].stats);
    EXPECT_EQ(at_eight.files[i].partition_values, replayed.files[i].partition_values);
    EXPECT_EQ(at_eight.files[i].size, replayed.files[i].size);
  }
}

TEST(DeltaCommitTest, ExpiredTombstonesLeaveTheCheckpoint) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  CreateTableOptions create;
  create.properties["delta.checkpointInterval"] = "2";
  create.properties["delta.deletedFileRetentionDuration"] = "interval 0 seconds";
  ASSERT_TRUE(CreateTable(io, root, *Schema(), create).ok());
  auto rows = Rows(0, 3);
  ASSERT_TRUE(Write(io, root, *rows).ok());
  DeltaWriteOptions overwrite;
  overwrite.mode = DeltaWriteMode::kOverwrite;
  auto replacement = Rows(10, 3);
  FLOE_ASSIGN_OR_FAIL(auto result, Write(io, root, *replacement, overwrite));
  EXPECT_EQ(result.checkpoint_version, 2);
  ASSERT_TRUE(io->Delete(CommitLocation(root, 2)).ok());
  ASSERT_TRUE(io->Delete(CommitLocation(root, 1)).ok());
  ASSERT_TRUE(io->Delete(CommitLocation(root, 0)).ok());
  FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io, root));
  EXPECT_EQ(snapshot.checkpoint_version, 2);
  EXPECT_TRUE(snapshot.tombstones.empty());
  EXPECT_EQ(snapshot.files.size(), 1u);
}

// Every I/O of an append that also checkpoints can fail: the commit stands or not as
// before, the checkpoint is whole or absent, and nothing temporary stays in the log.
TEST(DeltaCommitTest, EveryOperationOfACheckpointingAppendCanFailCleanly) {
  testing::TempDirectory directory;
  auto run = [&](FileOperation kind, int64_t nth, int index, int64_t* counts) {
    const std::string root = directory.Child("run-" + std::to_string(index));
    auto local = *MakeArrowFileIO();
    CreateTableOptions create;
    create.partition_columns = {"day"};
    create.properties["delta.checkpointInterval"] = "2";
    EXPECT_TRUE(CreateTable(local, root, *Schema(), create).ok());
    auto first = Rows(0, 4);
    EXPECT_TRUE(Write(local, root, *first).ok());
    auto io = std::make_shared<FaultInjectingFileIO>(local);
    io->FailNth(kind, nth);
    auto rows = Rows(100, 4);
    auto result = Write(io, root, *rows);
    const std::string fired = io->fired_at();
    if (counts) {
      for (int k = 0; k < kFileOperationKinds; ++k)
        counts[k] = io->Count(static_cast<FileOperation>(k));
    }
    auto after = LoadSnapshot(*local, root);
    EXPECT_TRUE(after.ok()) << after.status().ToString();
    // A failed sync of the log after the commit file is in place: visible, outcome
    // unknown.
    const bool unknown =
        !result.ok() && KindOf(result.status()) == ErrorKind::kCommitStateUnknown;
    if (unknown) {
      EXPECT_EQ(kind, FileOperation::kSync);
    }
    EXPECT_EQ(after->version, result.ok() || unknown ? 2 : 1);
    const std::string checkpoint =
        root + "/_delta_log/00000000000000000002.checkpoint.parquet";
    if (*local->Exists(checkpoint)) {
      EXPECT_TRUE(result.ok());
      EXPECT_EQ(after->checkpoint_version, 2);
      EXPECT_EQ(after->files.size(), 4u);
    }
    auto hint = local->ReadAll(root + "/_delta_log/_last_checkpoint");
    if (hint.ok()) {
      EXPECT_TRUE(*local->Exists(checkpoint));
      EXPECT_EQ(nlohmann::json::parse(*hint)["version"], 2);
    }
    for (const auto& file : *local->List(root + "/_delta_log")) {
      if (kind == FileOperation::kDelete &&
          CanonicalLocation(file.location) == CanonicalLocation(fired)) {
        continue;
      }
      EXPECT_EQ(file.location.find("/."), std::string::npos)
          << file.location << " after failing " << FileOperationName(kind) << " #" << nth;
    }
    return result.ok() && *local->Exists(checkpoint);
  };
  int64_t counts[kFileOperationKinds] = {};
  int index = 0;
  ASSERT_TRUE(run(FileOperation::kCreate, 0, index++, counts));
  int without_checkpoint = 0;
  for (int k = 0; k < kFileOperationKinds; ++k) {
    auto kind = static_cast<FileOperation>(k);
    for (int64_t nth = 1; nth <= counts[k]; ++nth) {
      if (!run(kind, nth, index++, nullptr)) ++without_checkpoint;
    }
  }
  EXPECT_GT(without_checkpoint, 3);
}

}  // namespace
}  // namespace floe::delta
