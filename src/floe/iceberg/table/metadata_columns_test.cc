// The metadata columns a scan returns (_file, _pos, _deleted, _spec_id, _partition,
// _row_id, _last_updated_sequence_number), read from tables floe wrote, with expected
// values that follow from the spec and the rows written: each row's id is chosen so that
// its position in its file and its row id can be computed from it independently of floe.
// Spark's Iceberg reader checks the same columns on tables Spark rewrote
// (tests/spark/test_spark.py::test_metadata_columns_read_as_spark_reads_them).
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/spec/metadata_columns.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/table/table.h"
#include "floe/testing/table_fixture.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

class MetadataColumnsTest : public ::testing::Test {
 protected:
  std::shared_ptr<Table> Create(const std::string& schema_text,
                                const std::string& partition_by, PropertyMap properties) {
    if (!catalog_) {
      auto catalog = testing::OpenTestCatalog(directory_.path().string());
      EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
      catalog_ = std::move(*catalog);
    }
    CreateTableOptions create;
    create.schema = *ParseSchemaText(schema_text);
    create.spec = *ParsePartitionBy(partition_by, *create.schema);
    create.properties = std::move(properties);
    auto table = Table::Create(catalog_, {{"db"}, name_}, create);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return *table;
  }

  // Appends ids [start, start + count) in batches of 100 rows, one task: one file.
  void Append(const std::shared_ptr<Table>& table, int64_t start, int64_t count) {
    auto schema = *ToArrowSchema(*table->metadata()->CurrentSchema());
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    for (int64_t offset = 0; offset < count; offset += 100) {
      const int64_t rows = std::min<int64_t>(100, count - offset);
      arrow::ArrayVector columns;
      for (const auto& field : schema->fields()) {
        if (field->name() == "id") {
          arrow::Int64Builder ids;
          for (int64_t i = 0; i < rows; ++i)
            EXPECT_TRUE(ids.Append(start + offset + i).ok());
          columns.push_back(*ids.Finish());
        } else {
          arrow::Int64Builder other;
          for (int64_t i = 0; i < rows; ++i) EXPECT_TRUE(other.Append(-1).ok());
          columns.push_back(*other.Finish());
        }
      }
      batches.push_back(arrow::RecordBatch::Make(schema, rows, std::move(columns)));
    }
    auto reader = *arrow::RecordBatchReader::Make(batches, schema);
    auto appended = table->Append(*reader, AppendOptions{});
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  }

  std::shared_ptr<arrow::Table> Scan(const std::shared_ptr<Table>& table,
                                     std::vector<std::string> columns,
                                     const std::string& filter = "") {
    auto loaded = Table::Load(catalog_, {{"db"}, name_});
    EXPECT_TRUE(loaded.ok());
    ScanOptions options;
    options.columns = std::move(columns);
    options.filter = filter;
    auto scan = (*loaded)->NewScan(options);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    auto reader = (*scan)->ToRecordBatchReader();
    EXPECT_TRUE(reader.ok());
    auto read = (*reader)->ToTable();
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    row_groups_skipped_ = (*scan)->stats()->row_groups_skipped.load();
    row_groups_read_ = (*scan)->stats()->row_groups_read.load();
    return *read;
  }

  std::shared_ptr<Catalog> catalog_;
  testing::TempDirectory directory_;
  std::string name_ = "t";  // the table Create makes and Scan reads
  int64_t row_groups_skipped_ = 0;
  int64_t row_groups_read_ = 0;
};

int64_t LongAt(const arrow::Table& table, const std::string& name, int64_t row) {
  auto column = table.GetColumnByName(name);
  auto scalar = *column->GetScalar(row);
  if (!scalar->is_valid) return -999;
  return static_cast<const arrow::Int64Scalar&>(*scalar).value;
}

// Three appends of 1,000 rows to a v3 table, each one file of row groups of about 100
// rows: row ids are assigned from 0 in commit order, so the row with id i (ids written
// 0, 1, 2, ... in order) has _row_id i, position i % 1000 in its file, and the sequence
// number of the append that wrote it (1, 2, 3).
TEST_F(MetadataColumnsTest, ReadAsTheSpecDefinesThemAcrossPrunedRowGroupsAndTheFilter) {
  auto table = Create("id long not null, v long", "",
                      {{"format-version", "3"},
                       {"write.parquet.row-group-size-bytes", "1"},
                       {"write.parquet.page-row-limit", "100"}});
  for (int k = 0; k < 3; ++k) Append(table, 1000 * k, 1000);

  // The filter skips row groups (pruned by statistics) and rows inside those read.
  auto read = Scan(
      table,
      {"_last_updated_sequence_number", "id", "_pos", "_row_id", "_file", "_spec_id"},
      "id >= 1450 and id < 2620 and id <> 1500 and id <> 2001");
  // Columns in the order named, typed as iceberg-java types them.
  ASSERT_EQ(read->schema()->num_fields(), 6);
  EXPECT_EQ(read->schema()->field(0)->name(), "_last_updated_sequence_number");
  EXPECT_EQ(read->schema()->field(2)->name(), "_pos");
  EXPECT_TRUE(read->schema()->field(4)->type()->Equals(arrow::utf8()));
  EXPECT_TRUE(read->schema()->field(5)->type()->Equals(arrow::int32()));
  EXPECT_FALSE(read->schema()->field(2)->nullable());
  EXPECT_TRUE(read->schema()->field(3)->nullable());

  // Row groups before and after the filter's range were skipped, the rest read.
  EXPECT_GT(row_groups_skipped_, 5);
  EXPECT_GT(row_groups_read_, 5);
  int64_t expected_rows = 0;
  for (int64_t id = 1450; id < 2620; ++id) expected_rows += id != 1500 && id != 2001;
  ASSERT_EQ(read->num_rows(), expected_rows);
  std::map<int64_t, std::set<std::string>> files_by_append;
  for (int64_t row = 0; row < read->num_rows(); ++row) {
    const int64_t id = LongAt(*read, "id", row);
    EXPECT_EQ(LongAt(*read, "_pos", row), id % 1000) << id;
    EXPECT_EQ(LongAt(*read, "_row_id", row), id) << id;
    EXPECT_EQ(LongAt(*read, "_last_updated_sequence_number", row), id / 1000 + 1) << id;
    auto spec = *read->GetColumnByName("_spec_id")->GetScalar(row);
    EXPECT_EQ(static_cast<const arrow::Int32Scalar&>(*spec).value, 0);
    auto file = *read->GetColumnByName("_file")->GetScalar(row);
    files_by_append[id / 1000].insert(file->ToString());
  }
  // One file per append, each named by its full location.
  ASSERT_EQ(files_by_append.size(), 2u);
  for (const auto& [append, files] : files_by_append) {
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files.begin()->rfind("file:", 0) == 0 || files.begin()->rfind("/", 0) == 0,
              true)
        << *files.begin();
    EXPECT_NE(files.begin()->find(".parquet"), std::string::npos);
  }
  EXPECT_NE(*files_by_append[1].begin(), *files_by_append[2].begin());

  // Only metadata columns: no column of the file is decoded, the rows still count.
  auto positions = Scan(table, {"_pos"});
  ASSERT_EQ(positions->num_rows(), 3000);
  std::map<int64_t, int> seen;
  for (int64_t row = 0; row < positions->num_rows(); ++row)
    seen[LongAt(*positions, "_pos", row)] += 1;
  ASSERT_EQ(seen.size(), 1000u);
  for (const auto& [position, count] : seen) EXPECT_EQ(count, 3) << position;
}

// With metadata_column_filters a scan's filter may name the metadata columns. They
// prune nothing: a file that stores its rows' lineage (a copy-on-write update's) keeps
// nulls for the updated rows, which read as the rewrite's sequence number, above every
// value its statistics bound.
TEST_F(MetadataColumnsTest, FiltersOnMetadataColumnsSeeInheritedValues) {
  auto table = Create("id long not null, v long", "",
                      {{"format-version", "3"},
                       {"write.parquet.row-group-size-bytes", "1"},
                       {"write.parquet.page-row-limit", "100"}});
  for (int k = 0; k < 3; ++k) Append(table, 1000 * k, 1000);
  auto loaded = *Table::Load(catalog_, {{"db"}, name_});
  FLOE_ASSERT_OK(loaded->Update("id >= 1450 AND id < 1460", "v = 7", AppendOptions{}));

  auto ids = [&](const std::string& filter) {
    auto loaded = *Table::Load(catalog_, {{"db"}, name_});
    ScanOptions options;
    options.columns = {"id"};
    options.filter = filter;
    options.metadata_column_filters = true;
    auto scan = loaded->NewScan(options);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    auto read = *(*(*scan)->ToRecordBatchReader())->ToTable();
    std::set<int64_t> found;
    for (int64_t row = 0; row < read->num_rows(); ++row)
      found.insert(LongAt(*read, "id", row));
    return found;
  };
  std::set<int64_t> updated;
  for (int64_t id = 1450; id < 1460; ++id) updated.insert(id);
  EXPECT_EQ(ids("_last_updated_sequence_number > 3"), updated);
  std::set<int64_t> last;
  for (int64_t id = 2990; id < 3000; ++id) last.insert(id);
  EXPECT_EQ(ids("_row_id >= 2990"), last);
  EXPECT_EQ(ids("_pos = 999 AND _spec_id = 0"), (std::set<int64_t>{999, 1999, 2999}));

  // Without the option (as a delete or a rewrite binds its filter) the names are unknown.
  ScanOptions plain;
  plain.filter = "_row_id >= 2990";
  auto refused = (*Table::Load(catalog_, {{"db"}, name_}))->NewScan(plain);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("'_row_id'"), std::string::npos);
}

// Files without first_row_id (a v2 table's) inherit no lineage: null, as iceberg-java
// reads them; _pos and _file are still there.
TEST_F(MetadataColumnsTest, RowsOfAV2TableHaveNoLineage) {
  auto table = Create("id long not null", "", {{"format-version", "2"}});
  Append(table, 0, 250);
  auto read = Scan(table, {"id", "_row_id", "_last_updated_sequence_number", "_pos"});
  ASSERT_EQ(read->num_rows(), 250);
  EXPECT_EQ(read->GetColumnByName("_row_id")->null_count(), 250);
  EXPECT_EQ(read->GetColumnByName("_last_updated_sequence_number")->null_count(), 250);
  for (int64_t row = 0; row < 250; ++row)
    EXPECT_EQ(LongAt(*read, "_pos", row), LongAt(*read, "id", row));
}

// A table column of a metadata column's name is the table's; an unknown name is an
// error naming it.
TEST_F(MetadataColumnsTest, ATableColumnOfTheNameComesFirstAndUnknownNamesFail) {
  auto table = Create("id long not null, _pos long", "", {{"format-version", "3"}});
  Append(table, 0, 10);
  auto read = Scan(table, {"_pos"});
  ASSERT_EQ(read->num_rows(), 10);
  for (int64_t row = 0; row < 10; ++row) EXPECT_EQ(LongAt(*read, "_pos", row), -1);

  auto loaded = Table::Load(catalog_, {{"db"}, "t"});
  ASSERT_TRUE(loaded.ok());
  ScanOptions options;
  options.columns = {"id", "_position"};
  auto scan = (*loaded)->NewScan(options);
  ASSERT_FALSE(scan.ok());
  EXPECT_NE(scan.status().message().find("'_position'"), std::string::npos)
      << scan.status().ToString();
}

// _partition on a table of several specs, typed as iceberg-java's
// Partitioning.partitionType types it: every partition field id of every spec whose
// source the current schema still has, sorted by id, named by the newest spec, a field
// dropped in format v1 (void in later specs) typed as where it still partitioned.
TEST(TablePartitionTypeTest, IsTheUnionOfEverySpecsFieldsAsIcebergJavaBuildsIt) {
  TableMetadata metadata;
  auto schema = *ParseSchemaText("id long not null, region string, ts timestamptz");
  metadata.schemas = {schema};
  metadata.current_schema_id = schema->schema_id();
  auto spec = [](int id, std::vector<PartitionField> fields) {
    return *PartitionSpec::Make(id, std::move(fields));
  };
  metadata.specs = {
      spec(0, {{2, 1000, "region", Transform::Identity()}}),
      spec(1, {{2, 1000, "region", Transform::Identity()},
               {3, 1001, "ts_day", Transform::Day()}}),
      // Spark's DROP PARTITION FIELD on a v1 table: void, and renamed.
      spec(2, {{2, 1000, "region_dropped", Transform::Void()},
               {3, 1001, "day_of_ts", Transform::Day()},
               {1, 1002, "id_bucket", Transform::Bucket(4)}}),
      // A field whose source column is no longer in the schema is left out.
      spec(3, {{9, 1003, "gone", Transform::Identity()}}),
  };
  FLOE_ASSIGN_OR_FAIL(auto type, TablePartitionType(metadata));
  ASSERT_EQ(type->fields().size(), 3u);
  EXPECT_EQ(type->fields()[0].id, 1000);
  EXPECT_EQ(type->fields()[0].name, "region_dropped");  // the newest spec's name
  EXPECT_EQ(type->fields()[0].type->id(), TypeId::kString);
  EXPECT_EQ(type->fields()[1].id, 1001);
  EXPECT_EQ(type->fields()[1].name, "day_of_ts");
  EXPECT_EQ(type->fields()[1].type->id(), TypeId::kDate);
  EXPECT_EQ(type->fields()[2].name, "id_bucket");
  EXPECT_EQ(type->fields()[2].type->id(), TypeId::kInt);
  for (const auto& field : type->fields()) EXPECT_FALSE(field.required);

  // One field id with two sources is a conflict, named.
  metadata.specs.push_back(spec(4, {{3, 1000, "other", Transform::Identity()}}));
  auto conflict = TablePartitionType(metadata);
  ASSERT_FALSE(conflict.ok());
  EXPECT_NE(conflict.status().message().find("conflicting partition fields with id 1000"),
            std::string::npos)
      << conflict.status().ToString();

  // Unpartitioned: no fields.
  metadata.specs = {PartitionSpec::Unpartitioned()};
  FLOE_ASSIGN_OR_FAIL(auto empty, TablePartitionType(metadata));
  EXPECT_TRUE(empty->fields().empty());
}

// _partition holds each file's partition tuple: truncate(10, id) of the row's id,
// computed here from the id. Its field carries an id no column uses (3: the schema has 1
// and 2), not the partition field id 1000, as Spark's Iceberg scan renumbers it. On an
// unpartitioned table it is null.
TEST_F(MetadataColumnsTest, PartitionHoldsEachFilesTupleAndIsNullUnpartitioned) {
  auto table =
      Create("id long not null, v long", "truncate(10, id)", {{"format-version", "2"}});
  Append(table, -25, 60);
  auto read = Scan(table, {"id", "_partition"}, "id <> 0");
  ASSERT_EQ(read->num_rows(), 59);
  const auto& type = *read->schema()->GetFieldByName("_partition")->type();
  ASSERT_EQ(type.id(), arrow::Type::STRUCT);
  ASSERT_EQ(type.num_fields(), 1);
  EXPECT_EQ(type.field(0)->name(), "id_trunc");
  EXPECT_TRUE(type.field(0)->type()->Equals(arrow::int64()));
  EXPECT_EQ(type.field(0)->metadata()->Get("PARQUET:field_id").ValueOr(""), "3");
  for (int64_t row = 0; row < read->num_rows(); ++row) {
    const int64_t id = LongAt(*read, "id", row);
    const int64_t truncated = id - (((id % 10) + 10) % 10);  // floor to a multiple of 10
    auto value = *read->GetColumnByName("_partition")->GetScalar(row);
    ASSERT_TRUE(value->is_valid) << id;
    auto field = static_cast<const arrow::StructScalar&>(*value).value[0];
    ASSERT_TRUE(field->is_valid) << id;
    EXPECT_EQ(static_cast<const arrow::Int64Scalar&>(*field).value, truncated) << id;
  }

  name_ = "plain";
  auto plain = Create("id long not null", "", {{"format-version", "2"}});
  Append(plain, 0, 5);
  auto unpartitioned = Scan(plain, {"_partition", "id"});
  ASSERT_EQ(unpartitioned->num_rows(), 5);
  EXPECT_EQ(unpartitioned->schema()->field(0)->type()->num_fields(), 0);
  EXPECT_EQ(unpartitioned->column(0)->null_count(), 5);
}

// A scan of _deleted returns the rows delete files delete, marked true, and every other
// row false; the filter still applies; without _deleted the deleted rows are gone. On
// v2 (position delete files) and v3 (deletion vectors).
TEST_F(MetadataColumnsTest, DeletedMarksTheRowsDeleteFilesDeleteInsteadOfDropping) {
  for (const char* version : {"2", "3"}) {
    SCOPED_TRACE(version);
    name_ = std::string("v") + version;
    auto table =
        Create("id long not null, v long", "",
               {{"format-version", version}, {"write.delete.mode", "merge-on-read"}});
    Append(table, 0, 700);
    FLOE_ASSERT_OK(table->Delete("id < 100 OR id > 650", AppendOptions{}).status());
    FLOE_ASSERT_OK(table->Delete("id = 300", AppendOptions{}).status());
    auto deleted = [](int64_t id) { return id < 100 || id > 650 || id == 300; };

    auto read = Scan(table, {"id", "_deleted"});
    ASSERT_EQ(read->num_rows(), 700);
    EXPECT_FALSE(read->schema()->field(1)->nullable());
    for (int64_t row = 0; row < read->num_rows(); ++row) {
      const int64_t id = LongAt(*read, "id", row);
      auto mark = *read->GetColumnByName("_deleted")->GetScalar(row);
      EXPECT_EQ(static_cast<const arrow::BooleanScalar&>(*mark).value, deleted(id)) << id;
    }
    auto filtered = Scan(table, {"_deleted", "id"}, "id >= 95 AND id < 305");
    EXPECT_EQ(filtered->num_rows(), 210);
    int64_t marked = 0;
    for (int64_t row = 0; row < filtered->num_rows(); ++row) {
      auto mark = *filtered->GetColumnByName("_deleted")->GetScalar(row);
      marked += static_cast<const arrow::BooleanScalar&>(*mark).value;
    }
    EXPECT_EQ(marked, 6);  // 95..99 and 300
    EXPECT_EQ(Scan(table, {"id"})->num_rows(), 700 - 100 - 49 - 1);
  }
}

// A file read in splits (ScanOptions::splits): each row group goes to the one split its
// midpoint lies in, so splits cut at the split offsets, or anywhere, read every row once,
// with its position in the file.
TEST_F(MetadataColumnsTest, SplitsReadEachRowGroupOnceWithItsPositions) {
  auto table = Create("id long not null, v long", "",
                      {{"format-version", "2"},
                       {"write.parquet.row-group-size-bytes", "1"},
                       {"write.parquet.page-row-limit", "100"}});
  Append(table, 0, 1000);
  auto loaded = *Table::Load(catalog_, {{"db"}, name_});
  auto tasks = *(*loaded->NewScan(ScanOptions{}))->PlanFiles();
  ASSERT_EQ(tasks.size(), 1u);
  const DataFile& file = tasks[0].file;
  ASSERT_GE(file.split_offsets.size(), 5u);
  const auto& offsets = file.split_offsets;
  auto read = [&](std::vector<ScanOptions::FileSplit> splits) {
    ScanOptions options;
    options.columns = {"id", "_pos"};
    options.splits = std::move(splits);
    auto reader = *(*loaded->NewScan(options))->ToRecordBatchReader();
    return *reader->ToTable();
  };
  // At the offsets: three splits, the middle one of two row groups.
  const int64_t size = file.file_size_in_bytes;
  auto parts = read({{file.file_path, offsets[0], offsets[1] - offsets[0]},
                     {file.file_path, offsets[1], offsets[3] - offsets[1]},
                     {file.file_path, offsets[3], size - offsets[3]}});
  ASSERT_EQ(parts->num_rows(), 1000);
  std::set<int64_t> ids;
  for (int64_t row = 0; row < parts->num_rows(); ++row) {
    const int64_t id = LongAt(*parts, "id", row);
    EXPECT_EQ(LongAt(*parts, "_pos", row), id);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 1000u);
  // The middle split alone: its two row groups.
  auto middle = read({{file.file_path, offsets[1], offsets[3] - offsets[1]}});
  EXPECT_GT(middle->num_rows(), 0);
  EXPECT_LT(middle->num_rows(), 1000);
  EXPECT_EQ(LongAt(*middle, "_pos", 0), LongAt(*middle, "id", 0));
  // Ranges of fixed size cut anywhere: still every row once.
  std::vector<ScanOptions::FileSplit> fixed;
  for (int64_t start = 0; start < size; start += 700)
    fixed.push_back({file.file_path, start, 700});
  EXPECT_EQ(read(fixed)->num_rows(), 1000);
  // A bad range is an error naming the file.
  ScanOptions bad;
  bad.splits = {{file.file_path, -1, 10}};
  auto refused = loaded->NewScan(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(file.file_path), std::string::npos);
}

}  // namespace
}  // namespace floe::iceberg
