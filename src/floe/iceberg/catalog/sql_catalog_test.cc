#include "floe/iceberg/catalog/sql_catalog.h"

#include <atomic>
#include <filesystem>
#include <thread>

#include <unistd.h>
#include <zlib.h>

#include <gtest/gtest.h>

#include "floe/iceberg/catalog/metadata_file_internal.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/testing/fake_env.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

class SqlCatalogTest : public ::testing::Test {
 protected:
  CatalogOptions Options() const {
    CatalogOptions options;
    options.uri = "sqlite:///" + directory_.Child("catalog.db");
    options.warehouse = directory_.Child("warehouse");
    options.name = "test";
    return options;
  }

  std::unique_ptr<Catalog> OpenCatalog() {
    auto catalog = Catalog::Open(Options());
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return std::move(*catalog);
  }

  TableMetadataPtr NewMetadata(const std::string& location) {
    auto schema = ParseSchemaText("id long, name string");
    auto metadata = NewTableMetadata(**schema, *PartitionSpec::Unpartitioned(),
                                     *SortOrder::Unsorted(), location, {});
    return *metadata;
  }

  testing::TempDirectory directory_;
};

TEST_F(SqlCatalogTest, NamespacesCreateListPropertiesDrop) {
  auto catalog = OpenCatalog();
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {{"owner", "floe"}}));
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db", "inner"}, {}));
  FLOE_ASSERT_OK(catalog->CreateNamespace({"other"}, {}));
  EXPECT_EQ(KindOf(catalog->CreateNamespace({"db"}, {})), ErrorKind::kAlreadyExists);
  FLOE_ASSIGN_OR_FAIL(auto top, catalog->ListNamespaces({}));
  EXPECT_EQ(top, (std::vector<Namespace>{{"db"}, {"other"}}));
  FLOE_ASSIGN_OR_FAIL(auto inner, catalog->ListNamespaces({"db"}));
  EXPECT_EQ(inner, (std::vector<Namespace>{{"db", "inner"}}));
  FLOE_ASSIGN_OR_FAIL(auto properties, catalog->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(properties.at("owner"), "floe");
  EXPECT_EQ(properties.at("exists"), "true");
  FLOE_ASSERT_OK(catalog->UpdateNamespaceProperties({"db"}, {{"owner", "x"}, {"k", "v"}},
                                                    {"exists"}));
  FLOE_ASSIGN_OR_FAIL(properties, catalog->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(properties, (std::map<std::string, std::string>{{"k", "v"}, {"owner", "x"}}));
  EXPECT_EQ(KindOf(catalog->DropNamespace({"db"})), ErrorKind::kNamespaceNotEmpty);
  FLOE_ASSERT_OK(catalog->DropNamespace({"db", "inner"}));
  FLOE_ASSERT_OK(catalog->DropNamespace({"other"}));
  EXPECT_EQ(KindOf(catalog->DropNamespace({"other"})), ErrorKind::kNoSuchNamespace);
  EXPECT_EQ(KindOf(catalog->LoadNamespaceProperties({"nope"}).status()),
            ErrorKind::kNoSuchNamespace);
}

TEST_F(SqlCatalogTest, TablesCreateLoadListRenameDrop) {
  auto catalog = OpenCatalog();
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  TableIdentifier id{{"db"}, "events"};
  FLOE_ASSIGN_OR_FAIL(std::string location, catalog->DefaultTableLocation(id));
  EXPECT_EQ(location, directory_.Child("warehouse") + "/db/events");
  FLOE_ASSIGN_OR_FAIL(auto created, catalog->CreateTable(id, *NewMetadata(location)));
  EXPECT_NE(created.metadata_location.find("/db/events/metadata/00000-"),
            std::string::npos);
  EXPECT_EQ(KindOf(catalog->CreateTable(id, *NewMetadata(location)).status()),
            ErrorKind::kAlreadyExists);
  EXPECT_EQ(
      KindOf(catalog->CreateTable({{"nope"}, "t"}, *NewMetadata(location)).status()),
      ErrorKind::kNoSuchNamespace);
  FLOE_ASSIGN_OR_FAIL(auto loaded, catalog->LoadTable(id));
  EXPECT_EQ(loaded.metadata_location, created.metadata_location);
  EXPECT_EQ(loaded.metadata->table_uuid, created.metadata->table_uuid);
  FLOE_ASSIGN_OR_FAIL(auto tables, catalog->ListTables({"db"}));
  EXPECT_EQ(tables, (std::vector<TableIdentifier>{id}));
  TableIdentifier renamed{{"db"}, "renamed"};
  FLOE_ASSERT_OK(catalog->RenameTable(id, renamed));
  EXPECT_EQ(KindOf(catalog->LoadTable(id).status()), ErrorKind::kNoSuchTable);
  FLOE_ASSERT_OK(catalog->LoadTable(renamed).status());
  FLOE_ASSERT_OK(catalog->DropTable(renamed));
  EXPECT_EQ(KindOf(catalog->DropTable(renamed)), ErrorKind::kNoSuchTable);
}

TEST_F(SqlCatalogTest, TwoHandlesRacingForOnePointerExactlyOneWins) {
  auto setup = OpenCatalog();
  FLOE_ASSERT_OK(setup->CreateNamespace({"db"}, {}));
  TableIdentifier id{{"db"}, "t"};
  FLOE_ASSIGN_OR_FAIL(auto base,
                      setup->CreateTable(id, *NewMetadata(directory_.Child("t"))));

  constexpr int kHandles = 8;
  std::vector<std::unique_ptr<Catalog>> handles;
  for (int i = 0; i < kHandles; ++i) handles.push_back(OpenCatalog());
  std::atomic<int> wins{0};
  std::atomic<int> losses{0};
  std::vector<std::thread> threads;
  std::atomic<bool> go{false};
  for (int i = 0; i < kHandles; ++i) {
    threads.emplace_back([&, i] {
      auto updated = std::make_shared<TableMetadata>(*base.metadata);
      updated->properties["writer"] = std::to_string(i);
      while (!go.load()) {
      }
      auto result = handles[static_cast<size_t>(i)]->CommitTable(id, base, *updated);
      if (result.ok()) {
        ++wins;
      } else if (KindOf(result.status()) == ErrorKind::kCommitFailed) {
        ++losses;
      }
    });
  }
  go = true;
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(losses.load(), kHandles - 1);
  FLOE_ASSIGN_OR_FAIL(auto current, setup->LoadTable(id));
  EXPECT_NE(current.metadata_location, base.metadata_location);
  EXPECT_EQ(current.metadata_location.substr(current.metadata_location.rfind('/') + 1, 6),
            "00001-");
  // Only the winner's metadata file is left next to the first one.
  FLOE_ASSIGN_OR_FAIL(auto files, setup->io()->List(directory_.Child("t") + "/metadata"));
  EXPECT_EQ(files.size(), 2u);
}

TEST_F(SqlCatalogTest, StaleBaseLosesAndLeavesTableUnchanged) {
  auto catalog = OpenCatalog();
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  TableIdentifier id{{"db"}, "t"};
  FLOE_ASSIGN_OR_FAIL(auto base,
                      catalog->CreateTable(id, *NewMetadata(directory_.Child("t"))));
  FLOE_ASSIGN_OR_FAIL(auto next, catalog->CommitTable(id, base, *base.metadata));
  auto stale = catalog->CommitTable(id, base, *base.metadata);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(KindOf(stale.status()), ErrorKind::kCommitFailed);
  FLOE_ASSIGN_OR_FAIL(auto current, catalog->LoadTable(id));
  EXPECT_EQ(current.metadata_location, next.metadata_location);
}

TEST_F(SqlCatalogTest, MalformedMetadataFileIsNamedInTheError) {
  auto catalog = OpenCatalog();
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  TableIdentifier id{{"db"}, "t"};
  FLOE_ASSIGN_OR_FAIL(auto base,
                      catalog->CreateTable(id, *NewMetadata(directory_.Child("t"))));
  FLOE_ASSERT_OK(
      catalog->io()->WriteAll(base.metadata_location, "{\"format-version\": 2, oops"));
  auto loaded = catalog->LoadTable(id);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(KindOf(loaded.status()), ErrorKind::kInvalidMetadata);
  EXPECT_NE(loaded.status().message().find(base.metadata_location), std::string::npos);
  EXPECT_NE(loaded.status().message().find("db.t"), std::string::npos);
}

// A metadata file of hundreds of MB (sparse here) is refused from its size before any of
// it is read; a small gzip that inflates past the same bound is refused while inflating.
TEST_F(SqlCatalogTest, OversizedMetadataFailsWithBoundedMemory) {
  auto catalog = OpenCatalog();
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  TableIdentifier id{{"db"}, "t"};
  FLOE_ASSIGN_OR_FAIL(auto base,
                      catalog->CreateTable(id, *NewMetadata(directory_.Child("t"))));
  const int64_t huge = int64_t{300} << 20;
  ASSERT_EQ(::truncate(base.metadata_location.c_str(), huge), 0);
  auto loaded = catalog->LoadTable(id);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(KindOf(loaded.status()), ErrorKind::kInvalidMetadata);
  EXPECT_NE(loaded.status().message().find(base.metadata_location), std::string::npos);
  EXPECT_NE(loaded.status().message().find(std::to_string(huge) + " bytes"),
            std::string::npos)
      << loaded.status().ToString();

  // ~300 MB of spaces compress to well under 1 MB.
  std::string bomb_location = directory_.Child("t/metadata/00009-bomb.gz.metadata.json");
  z_stream stream{};
  ASSERT_EQ(deflateInit2(&stream, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string chunk(1 << 20, ' '), compressed;
  std::vector<char> out(1 << 16);
  for (int i = 0; i < 300; ++i) {
    stream.next_in = reinterpret_cast<Bytef*>(chunk.data());
    stream.avail_in = static_cast<uInt>(chunk.size());
    int flush = i == 299 ? Z_FINISH : Z_NO_FLUSH;
    do {
      stream.next_out = reinterpret_cast<Bytef*>(out.data());
      stream.avail_out = static_cast<uInt>(out.size());
      deflate(&stream, flush);
      compressed.append(out.data(), out.size() - stream.avail_out);
    } while (stream.avail_out == 0);
  }
  deflateEnd(&stream);
  ASSERT_LT(compressed.size(), size_t{2} << 20);
  FLOE_ASSERT_OK(catalog->io()->WriteAll(bomb_location, compressed));
  auto bomb = ReadMetadataFile(*catalog->io(), bomb_location);
  ASSERT_FALSE(bomb.ok());
  EXPECT_EQ(KindOf(bomb.status()), ErrorKind::kInvalidMetadata);
  EXPECT_NE(bomb.status().message().find("inflates to more than"), std::string::npos)
      << bomb.status().ToString();
}

TEST(CatalogNamesTest, RejectsHostileNames) {
  EXPECT_FALSE(TableIdentifier::Parse("t").ok());
  EXPECT_FALSE(TableIdentifier::Parse("db..t").ok());
  EXPECT_FALSE(TableIdentifier::Parse("db.a/b").ok());
  EXPECT_FALSE(TableIdentifier::Parse("db.a\\b").ok());
  EXPECT_FALSE(TableIdentifier::Parse(std::string("db.a\0b", 6)).ok());
  EXPECT_FALSE(TableIdentifier::Parse("db.a\nb").ok());
  EXPECT_FALSE(TableIdentifier::Parse("db." + std::string(300, 'x')).ok());
  FLOE_ASSIGN_OR_FAIL(auto id, TableIdentifier::Parse("a.b.tëst"));
  EXPECT_EQ(id.ns, (Namespace{"a", "b"}));
  EXPECT_EQ(id.name, "tëst");
  EXPECT_EQ(NextMetadataFileName("/t/metadata/00041-abc.metadata.json", Env::Default())
                .substr(0, 6),
            "00042-");
  EXPECT_EQ(NextMetadataFileName("", Env::Default()).substr(0, 6), "00000-");
}

}  // namespace
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace {

// The metadata file's UUID comes from the catalog's Env: two catalogs with equally seeded
// fake Envs name a new table's first metadata file alike (the real Env never would).
TEST_F(SqlCatalogTest, MetadataFileNamesDrawFromTheCatalogsEnv) {
  std::vector<std::string> names;
  for (const char* name : {"a", "b"}) {
    testing::FakeEnv env(1767225600000, /*seed=*/7);
    CatalogOptions options;
    options.uri = "sqlite:///" + directory_.Child(std::string(name) + ".db");
    options.warehouse = directory_.Child(name);
    options.env = &env;
    FLOE_ASSIGN_OR_FAIL(auto catalog, Catalog::Open(options));
    FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
    FLOE_ASSIGN_OR_FAIL(
        auto created,
        catalog->CreateTable({{"db"}, "t"},
                             *NewMetadata(directory_.Child(std::string(name) + "/t"))));
    names.push_back(std::filesystem::path(created.metadata_location).filename().string());
  }
  EXPECT_EQ(names[0], names[1]);
  EXPECT_EQ(names[0].substr(0, 6), "00000-");
}

// Another connection's lock is waited for (kDefaultLockWaitMs) through the Env: the wait
// is slept on the fake clock and the failure names the catalog and the time waited.
TEST(SqliteDatabaseTest, WaitsForAnotherConnectionsLockOnTheEnvClock) {
  testing::TempDirectory directory;
  testing::FakeEnv env;
  const std::string path = directory.Child("c.db");
  FLOE_ASSIGN_OR_FAIL(auto waiting, OpenSqliteDatabase(path, {}, &env));
  FLOE_ASSERT_OK(waiting->Execute("CREATE TABLE t (x TEXT)", {}));
  FLOE_ASSIGN_OR_FAIL(auto holding, OpenSqliteDatabase(path));
  FLOE_ASSERT_OK(holding->Execute("BEGIN EXCLUSIVE", {}));
  auto inserted = waiting->Execute("INSERT INTO t VALUES (?)", {std::string("a")});
  ASSERT_FALSE(inserted.ok());
  EXPECT_EQ(KindOf(inserted.status()), ErrorKind::kCommitFailed);
  EXPECT_NE(
      inserted.status().message().find("locked by another process (gave up after 5 s)"),
      std::string::npos)
      << inserted.status().ToString();
  EXPECT_NE(inserted.status().message().find(path), std::string::npos);
  EXPECT_GE(env.slept_micros(), SqlDatabase::kDefaultLockWaitMs * 1000);
  EXPECT_LT(env.slept_micros(), (SqlDatabase::kDefaultLockWaitMs + 100) * 1000);
  FLOE_ASSERT_OK(holding->Execute("ROLLBACK", {}));
  FLOE_ASSERT_OK(waiting->Execute("INSERT INTO t VALUES (?)", {std::string("b")}));
}

// SQLite underneath, with the next UPDATE failing as a full disk or read-only file makes
// it fail: before the change reaches the database, or after (the change is made, then an
// error reported), as an I/O error in SQLite's commit could leave it.
class FailingUpdates final : public SqlDatabase {
 public:
  enum class When { kNever, kBefore, kAfter };
  explicit FailingUpdates(std::unique_ptr<SqlDatabase> inner)
      : inner_(std::move(inner)) {}
  void FailNextUpdate(When when) { when_ = when; }

  arrow::Result<int64_t> ExecuteWithLockWait(std::string_view sql,
                                             const std::vector<SqlValue>& params,
                                             int64_t lock_wait_ms) override {
    When when = sql.rfind("UPDATE iceberg_tables", 0) == 0 ? when_ : When::kNever;
    if (when != When::kNever) when_ = When::kNever;
    if (when == When::kBefore)
      return arrow::Status::IOError("SQLite catalog: database or disk is full");
    auto result = inner_->ExecuteWithLockWait(sql, params, lock_wait_ms);
    if (when == When::kAfter && result.ok())
      return arrow::Status::IOError("SQLite catalog: disk I/O error");
    return result;
  }
  arrow::Result<std::vector<SqlRow>> Query(std::string_view sql,
                                           const std::vector<SqlValue>& params) override {
    return inner_->Query(sql, params);
  }
  std::vector<std::string> Files() const override { return inner_->Files(); }
  bool FailuresCanBeChecked() const override { return inner_->FailuresCanBeChecked(); }

 private:
  std::unique_ptr<SqlDatabase> inner_;
  When when_ = When::kNever;
};

TEST_F(SqlCatalogTest, AFailedSqliteCommitIsReportedAsWhatHappened) {
  auto opened = OpenSqliteDatabase(directory_.Child("catalog.db"));
  ASSERT_TRUE(opened.ok());
  auto failing = std::make_unique<FailingUpdates>(std::move(*opened));
  FailingUpdates* faults = failing.get();
  auto io = *MakeArrowFileIO();
  FLOE_ASSIGN_OR_FAIL(auto catalog, SqlCatalog::Make(std::move(failing), Options(), io));
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  TableIdentifier id{{"db"}, "t"};
  FLOE_ASSIGN_OR_FAIL(std::string location, catalog->DefaultTableLocation(id));
  FLOE_ASSIGN_OR_FAIL(auto base, catalog->CreateTable(id, *NewMetadata(location)));
  FLOE_ASSIGN_OR_FAIL(auto files_before, io->List(location + "/metadata"));

  // The update never took effect: a definite failure (never CommitStateUnknown), and the
  // new metadata file is gone again.
  faults->FailNextUpdate(FailingUpdates::When::kBefore);
  auto failed = catalog->CommitTable(id, base, *base.metadata);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(KindOf(failed.status()), ErrorKind::kCommitStateUnknown)
      << failed.status().ToString();
  EXPECT_NE(KindOf(failed.status()), ErrorKind::kCommitFailed);  // not worth retrying
  EXPECT_NE(failed.status().message().find("nothing was committed"), std::string::npos);
  EXPECT_NE(failed.status().message().find("disk is full"), std::string::npos);
  FLOE_ASSIGN_OR_FAIL(auto files_after, io->List(location + "/metadata"));
  EXPECT_EQ(files_after.size(), files_before.size());
  FLOE_ASSIGN_OR_FAIL(auto loaded, catalog->LoadTable(id));
  EXPECT_EQ(loaded.metadata_location, base.metadata_location);

  // The update took effect although an error was reported: reading back says so, and the
  // commit succeeded.
  faults->FailNextUpdate(FailingUpdates::When::kAfter);
  FLOE_ASSIGN_OR_FAIL(auto committed, catalog->CommitTable(id, base, *base.metadata));
  FLOE_ASSIGN_OR_FAIL(loaded, catalog->LoadTable(id));
  EXPECT_EQ(loaded.metadata_location, committed.metadata_location);
  EXPECT_NE(committed.metadata_location, base.metadata_location);
}

TEST_F(SqlCatalogTest, UrisAreHonouredOrRefused) {
  CatalogOptions options = Options();
  for (const char* uri : {"sqlite://", "sqlite:///", "sqlite://host/x.db"}) {
    options.uri = uri;
    auto opened = Catalog::Open(options);
    EXPECT_EQ(KindOf(opened.status()), ErrorKind::kInvalidInput) << uri;
  }
  options.uri = "sqlite:///" + directory_.Child("c.db") + "?cache=shared";
  auto refused = Catalog::Open(options);
  EXPECT_NE(refused.status().message().find("'cache'"), std::string::npos)
      << refused.status().ToString();
  // mode=ro on a file that does not exist: never created.
  options.uri = "sqlite:///" + directory_.Child("ro.db") + "?mode=ro";
  EXPECT_EQ(KindOf(Catalog::Open(options).status()), ErrorKind::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(directory_.Child("ro.db")));
  // mode=ro on a catalog that exists: reads work, writes are refused before anything.
  options.uri = "sqlite:///" + directory_.Child("ro.db");
  {
    FLOE_ASSIGN_OR_FAIL(auto writable, Catalog::Open(options));
    FLOE_ASSERT_OK(writable->CreateNamespace({"db"}, {}));
  }
  options.uri += "?mode=ro";
  FLOE_ASSIGN_OR_FAIL(auto read_only, Catalog::Open(options));
  FLOE_ASSIGN_OR_FAIL(auto namespaces, read_only->ListNamespaces({}));
  EXPECT_EQ(namespaces, (std::vector<Namespace>{{"db"}}));
  auto writable = read_only->CheckWritable();
  EXPECT_EQ(KindOf(writable), ErrorKind::kInvalidInput);
  EXPECT_NE(writable.message().find("mode=ro"), std::string::npos) << writable.ToString();
  EXPECT_FALSE(read_only->CreateNamespace({"other"}, {}).ok());
  // The explicit in-memory form is honoured.
  options.uri = "sqlite:///:memory:";
  FLOE_ASSIGN_OR_FAIL(auto memory, Catalog::Open(options));
  EXPECT_TRUE(memory->OwnFiles().empty());
}

}  // namespace
}  // namespace floe::iceberg
