// Cuts the power at every I/O operation of a Delta table's create, append, overwrite and
// checkpointing append by path (filesystem committer), on a disk whose page cache a cut
// loses (CrashSimulatingFileIO): afterwards the log replays, at the last acknowledged
// version or the new one, and every file it names is there whole. Then makes each sync
// that made something durable a no-op in turn: a cut after the commit must break it.
#include <functional>
#include <set>

#include <gtest/gtest.h>

#include "arrow/builder.h"
#include "arrow/record_batch.h"
#include "floe/delta/log.h"
#include "floe/delta/write.h"
#include "floe/testing/crash_simulating_file_io.h"
#include "floe/util/error.h"

namespace floe::delta {
namespace {

using testing::CrashSimulatingFileIO;

constexpr char kRoot[] = "/disk/tables/t";

std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema(
      {arrow::field("id", arrow::int64()), arrow::field("part", arrow::utf8())});
}

std::shared_ptr<arrow::RecordBatchReader> Rows(int64_t first, int64_t count) {
  arrow::Int64Builder ids;
  arrow::StringBuilder parts;
  for (int64_t i = first; i < first + count; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(parts.Append("p" + std::to_string(i % 8)).ok());
  }
  auto batch =
      arrow::RecordBatch::Make(Schema(), count, {*ids.Finish(), *parts.Finish()});
  return *arrow::RecordBatchReader::Make({batch}, Schema());
}

using Step = std::function<arrow::Status(const std::shared_ptr<FileIO>&)>;

struct CommitKind {
  std::string name;
  Step prepare;
  Step operate;
};

arrow::Status Create(const std::shared_ptr<FileIO>& io) {
  CreateTableOptions options;
  options.partition_columns = {"part"};
  options.properties["delta.checkpointInterval"] = "3";
  return CreateTable(io, kRoot, *Schema(), options).status();
}

Step Append(int64_t first, DeltaWriteMode mode = DeltaWriteMode::kAppend) {
  return [first, mode](const std::shared_ptr<FileIO>& io) {
    DeltaWriteOptions options;
    options.mode = mode;
    return Write(io, kRoot, *Rows(first, 64), options).status();
  };
}

std::vector<CommitKind> Kinds() {
  return {
      {"create", [](const auto&) { return arrow::Status::OK(); }, Create},
      {"append",
       [](const auto& io) {
         ARROW_RETURN_NOT_OK(Create(io));
         return Append(0)(io);
       },
       Append(100)},
      {"overwrite",
       [](const auto& io) {
         ARROW_RETURN_NOT_OK(Create(io));
         return Append(0)(io);
       },
       Append(100, DeltaWriteMode::kOverwrite)},
      {"checkpointing append",  // version 3, a multiple of the interval
       [](const auto& io) {
         ARROW_RETURN_NOT_OK(Create(io));
         ARROW_RETURN_NOT_OK(Append(0)(io));
         return Append(100)(io);
       },
       Append(200)},
  };
}

// The version the log replays to (-1: no table) and the data files it holds, after
// checking every file it names is there with the size the log gives it.
struct Observed {
  int64_t version = -1;
  std::set<std::string> files;  // names only: each is unique
};

// The same state, as far as runs can tell (file names are new in every run): the same
// version, as many files, as many of them kept from `before`.
bool Same(const Observed& a, const Observed& b, const Observed& before) {
  auto kept = [&](const Observed& state) {
    size_t count = 0;
    for (const auto& file : state.files) count += before.files.count(file);
    return count;
  };
  return a.version == b.version && a.files.size() == b.files.size() && kept(a) == kept(b);
}

arrow::Result<Observed> Observe(FileIO& io) {
  auto snapshot = LoadSnapshot(io, kRoot);
  if (!snapshot.ok() && KindOf(snapshot.status()) == ErrorKind::kNoSuchTable)
    return Observed{};
  ARROW_RETURN_NOT_OK(snapshot.status());
  // Every commit is whole, even one a checkpoint makes unneeded for the latest state
  // (time travel and other readers read it).
  for (int64_t version = 0; version <= snapshot->version; ++version) {
    ARROW_ASSIGN_OR_RAISE(auto commit, io.ReadAll(CommitLocation(kRoot, version)));
    if (commit.find("\"commitInfo\"") == std::string::npos) {
      return arrow::Status::IOError("commit ", version, " is not whole: ", commit.size(),
                                    " bytes");
    }
  }
  Observed observed{snapshot->version, {}};
  for (const auto& file : snapshot->files) {
    observed.files.insert(file.location.substr(file.location.rfind('/') + 1));
    auto info = io.Stat(file.location);
    if (!info.ok())
      return arrow::Status::IOError("the log names missing ", file.location);
    if (info->size != file.size) {
      return arrow::Status::IOError("the log names ", file.location, " as ", file.size,
                                    " bytes; it has ", info->size);
    }
  }
  return observed;
}

class DeltaPowerCutTest : public ::testing::TestWithParam<int> {
 protected:
  void Prepare(const CommitKind& kind) {
    auto io = std::make_shared<CrashSimulatingFileIO>();
    ASSERT_TRUE(kind.prepare(io).ok());
    io->PowerCut();
    start_ = io->CloneDurable();
    auto before = Observe(*start_);
    ASSERT_TRUE(before.ok()) << "the start state did not survive a power cut: "
                             << before.status().ToString();
    before_ = *before;
  }

  struct Run {
    arrow::Status status;
    int64_t operations = 0;
    std::vector<std::string> effective_syncs;
    arrow::Result<Observed> after = Observed{};
  };

  Run Once(const CommitKind& kind, int64_t cut_at, int64_t skip = 0) {
    auto io = start_->CloneDurable();
    io->SkipSyncsOf(skip);
    io->CutPowerAt(cut_at);
    Run run;
    run.status = kind.operate(io);
    run.operations = io->operations();
    run.effective_syncs = io->TakeEffectiveSyncs();
    io->PowerCut();
    run.after = Observe(*io);
    return run;
  }

  std::shared_ptr<CrashSimulatingFileIO> start_;
  Observed before_;
};

TEST_P(DeltaPowerCutTest, EveryOperationOfTheCommitCanBeTheLast) {
  const CommitKind kind = Kinds()[GetParam()];
  ASSERT_NO_FATAL_FAILURE(Prepare(kind));
  Run clean = Once(kind, 0);
  ASSERT_TRUE(clean.status.ok()) << clean.status.ToString();
  ASSERT_TRUE(clean.after.ok()) << clean.after.status().ToString();
  ASSERT_EQ(clean.after->version, before_.version + 1);
  for (int64_t at = 1; at <= clean.operations; ++at) {
    SCOPED_TRACE(kind.name + ": power cut at operation " + std::to_string(at) + " of " +
                 std::to_string(clean.operations));
    Run run = Once(kind, at);
    ASSERT_TRUE(run.after.ok()) << run.after.status().ToString();
    // The old version, or the new one whole (an acknowledged commit must be there).
    if (run.status.ok()) {
      EXPECT_TRUE(Same(*run.after, *clean.after, before_))
          << "an acknowledged commit was lost";
    } else {
      EXPECT_TRUE(Same(*run.after, before_, before_) ||
                  Same(*run.after, *clean.after, before_))
          << "version " << run.after->version << " with " << run.after->files.size()
          << " files";
    }
  }
}

TEST_P(DeltaPowerCutTest, EverySyncIsNeeded) {
  const CommitKind kind = Kinds()[GetParam()];
  ASSERT_NO_FATAL_FAILURE(Prepare(kind));
  Run clean = Once(kind, 0);
  ASSERT_TRUE(clean.status.ok()) << clean.status.ToString();
  int candidates = 0;
  for (size_t k = 0; k < clean.effective_syncs.size(); ++k) {
    const std::string& synced = clean.effective_syncs[k];
    // Only what the new version needs: not the checkpoint and its hint, which speed up
    // reading and whose loss the reader survives by replaying commits.
    if (synced.find(".checkpoint.") != std::string::npos ||
        synced.find("_last_checkpoint") != std::string::npos) {
      continue;
    }
    ++candidates;
    Run run = Once(kind, 0, static_cast<int64_t>(k + 1));
    ASSERT_TRUE(run.status.ok()) << run.status.ToString();
    const bool broken = !run.after.ok() || !Same(*run.after, *clean.after, before_);
    EXPECT_TRUE(broken) << kind.name
                        << ": the commit survives a power cut without the sync of "
                        << synced;
  }
  EXPECT_GT(candidates, 1);
}

INSTANTIATE_TEST_SUITE_P(Commits, DeltaPowerCutTest, ::testing::Range(0, 4),
                         [](const auto& info) {
                           std::string name = Kinds()[info.param].name;
                           for (char& c : name)
                             if (c == ' ') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace floe::delta
