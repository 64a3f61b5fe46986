#include "floe/parquet/file_reader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "arrow/api.h"
#include "arrow/io/memory.h"
#include "arrow/json/from_string.h"
#include "floe/util/field_id.h"
#include "parquet/arrow/writer.h"
#include "parquet/metadata.h"
#include "parquet/properties.h"

// Files here are written by Arrow's own Parquet writer (not floe's), so what the reader
// finds is checked against an independent writer's layout and values.
namespace floe {
namespace {

std::shared_ptr<const arrow::KeyValueMetadata> Id(int id) {
  return arrow::key_value_metadata({kParquetFieldIdKey}, {std::to_string(id)});
}

std::shared_ptr<arrow::Field> F(const std::string& name,
                                std::shared_ptr<arrow::DataType> type, int id) {
  return arrow::field(name, std::move(type), true, Id(id));
}

// id long (1); s struct<a int (3), b string (4), c struct<d double (6)> (5)> (2);
// l list<struct<x int (9), y string (10)>> (7, element 8); m map<string (12), int (13)>
// (11)
std::shared_ptr<arrow::Schema> NestedSchema() {
  auto c = arrow::struct_({F("d", arrow::float64(), 6)});
  auto s =
      arrow::struct_({F("a", arrow::int32(), 3), F("b", arrow::utf8(), 4), F("c", c, 5)});
  auto element = arrow::struct_({F("x", arrow::int32(), 9), F("y", arrow::utf8(), 10)});
  auto l = arrow::list(F("element", element, 8));
  auto m = std::make_shared<arrow::MapType>(
      arrow::field("key", arrow::utf8(), false, Id(12)), F("value", arrow::int32(), 13));
  return arrow::schema(
      {F("id", arrow::int64(), 1), F("s", s, 2), F("l", l, 7), F("m", m, 11)});
}

std::shared_ptr<arrow::Table> NestedTable() {
  auto schema = NestedSchema();
  auto column = [&](int i, const char* json) {
    return *arrow::json::ArrayFromJSONString(schema->field(i)->type(), json);
  };
  return arrow::Table::Make(
      schema,
      {column(0, "[1, 2, 3, 4]"),
       column(1, R"([{"a": 10, "b": "x", "c": {"d": 1.5}}, null,
                    {"a": 30, "b": "zz", "c": null}, {"a": -40, "b": "é", "c": {"d": -0.0}}])"),
       column(
           2,
           R"([[{"x": 1, "y": "p"}], [], null, [{"x": 2, "y": null}, {"x": 3, "y": "q"}]])"),
       column(3, R"([[["k", 1]], null, [], [["a", 2], ["b", 3]]])")});
}

class ParquetFileReaderTest : public ::testing::Test {
 protected:
  // Writes `table` with Arrow's writer (field ids kept), two rows per row group, page
  // checksums on, and stores it at `location`.
  void Store(const arrow::Table& table, bool compress = true) {
    auto sink = *arrow::io::BufferOutputStream::Create();
    parquet::WriterProperties::Builder builder;
    builder.enable_page_checksum();
    if (!compress) builder.compression(parquet::Compression::UNCOMPRESSED);
    builder.disable_dictionary();
    ASSERT_TRUE(parquet::arrow::WriteTable(table, arrow::default_memory_pool(), sink,
                                           /*chunk_size=*/2, builder.build())
                    .ok());
    bytes_ = (*sink->Finish())->ToString();
    ASSERT_TRUE(io_->WriteAll(location_, bytes_).ok());
  }
  std::unique_ptr<ParquetFileReader> Open(const ParquetReadOptions& options = {}) {
    auto reader = ParquetFileReader::Open(*io_, location_, options);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    return reader.ok() ? std::move(*reader) : nullptr;
  }
  // Reads the given leaves of every row group and reshapes the column named `top` to
  // `wanted`.
  arrow::Result<std::shared_ptr<arrow::ChunkedArray>> ReadColumn(
      ParquetFileReader& reader, const std::vector<int>& leaves, const std::string& top,
      const arrow::Field& wanted, ParquetColumnMatch match) {
    std::vector<int> groups;
    for (int g = 0; g < reader.metadata().num_row_groups(); ++g) groups.push_back(g);
    ARROW_ASSIGN_OR_RAISE(auto batches, reader.ReadRowGroups(groups, leaves));
    arrow::ArrayVector chunks;
    for (std::shared_ptr<arrow::RecordBatch> batch;;) {
      ARROW_RETURN_NOT_OK(batches->ReadNext(&batch));
      if (!batch) break;
      auto column = batch->GetColumnByName(top);
      if (!column) return arrow::Status::Invalid("no column ", top);
      ARROW_ASSIGN_OR_RAISE(auto projected, ProjectColumn(column, wanted, match, top));
      chunks.push_back(projected);
    }
    return std::make_shared<arrow::ChunkedArray>(chunks, wanted.type());
  }

  std::shared_ptr<FileIO> io_ = *MakeArrowFileIO();
  std::string location_ = "memory://parquet-reader-test/file.parquet";
  std::string bytes_;
};

const parquet::arrow::SchemaField& Top(const ParquetFileReader& reader,
                                       const std::string& name) {
  for (const auto& field : reader.fields()) {
    if (field.field->name() == name) return field;
  }
  throw std::runtime_error("no field " + name);
}

TEST_F(ParquetFileReaderTest, SelectsOnlyTheLeavesOfTheWantedNestedFields) {
  Store(*NestedTable());
  auto reader = Open();
  ASSERT_TRUE(reader);
  ASSERT_EQ(reader->metadata().num_row_groups(), 2);
  const auto& leaves_schema = *reader->metadata().schema();
  auto paths = [&](const std::vector<int>& leaves) {
    std::vector<std::string> names;
    for (int leaf : leaves)
      names.push_back(leaves_schema.Column(leaf)->path()->ToDotString());
    return names;
  };
  // s.c.d only, asked for by id (under other names) and by name.
  auto by_id =
      F("renamed",
        arrow::struct_({F("deep", arrow::struct_({F("z", arrow::float64(), 6)}), 5)}), 2);
  auto by_name = arrow::field(
      "s", arrow::struct_({arrow::field(
               "c", arrow::struct_({arrow::field("d", arrow::float64())}))}));
  for (auto [wanted, match] : {std::pair{by_id, ParquetColumnMatch::kFieldId},
                               std::pair{by_name, ParquetColumnMatch::kName}}) {
    std::vector<int> leaves;
    SelectLeaves(Top(*reader, "s"), *wanted, match, &leaves);
    EXPECT_EQ(paths(leaves), std::vector<std::string>{"s.c.d"});
    auto read = ReadColumn(*reader, leaves, "s", *wanted, match);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    const char* json =
        match == ParquetColumnMatch::kFieldId
            ? R"([{"deep": {"z": 1.5}}, null, {"deep": null}, {"deep": {"z": -0.0}}])"
            : R"([{"c": {"d": 1.5}}, null, {"c": null}, {"c": {"d": -0.0}}])";
    auto expected = *arrow::json::ArrayFromJSONString(wanted->type(), json);
    ASSERT_EQ((*read)->num_chunks(), 2);
    auto combined = *arrow::Concatenate((*read)->chunks());
    EXPECT_TRUE(combined->Equals(*expected)) << combined->ToString();
  }
  // The wrong key finds nothing: names do not match ids, ids do not match names.
  std::vector<int> none;
  SelectLeaves(Top(*reader, "s"), *by_id, ParquetColumnMatch::kName, &none);
  // A struct none of whose wanted children the file has still reads one leaf, for its
  // nulls.
  EXPECT_EQ(paths(none), std::vector<std::string>{"s.a"});
}

TEST_F(ParquetFileReaderTest, ListsAndMapsReadTheirElementsAndWholeKeys) {
  Store(*NestedTable());
  auto reader = Open();
  ASSERT_TRUE(reader);
  const auto& schema = *reader->metadata().schema();
  auto paths = [&](const std::vector<int>& leaves) {
    std::vector<std::string> names;
    for (int leaf : leaves) names.push_back(schema.Column(leaf)->path()->ToDotString());
    return names;
  };
  auto element = arrow::struct_({F("y", arrow::utf8(), 10)});
  auto list = F("l", arrow::list(F("element", element, 8)), 7);
  std::vector<int> leaves;
  SelectLeaves(Top(*reader, "l"), *list, ParquetColumnMatch::kFieldId, &leaves);
  EXPECT_EQ(paths(leaves), std::vector<std::string>{"l.list.element.y"});
  auto read = ReadColumn(*reader, leaves, "l", *list, ParquetColumnMatch::kFieldId);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  auto expected = *arrow::json::ArrayFromJSONString(
      list->type(), R"([[{"y": "p"}], [], null, [{"y": null}, {"y": "q"}]])");
  EXPECT_TRUE((*arrow::Concatenate((*read)->chunks()))->Equals(*expected));

  auto map = Top(*reader, "m").field;
  std::vector<int> map_leaves;
  SelectLeaves(Top(*reader, "m"), *map, ParquetColumnMatch::kFieldId, &map_leaves);
  EXPECT_EQ(paths(map_leaves),
            (std::vector<std::string>{"m.key_value.key", "m.key_value.value"}));
}

TEST_F(ParquetFileReaderTest, FindsLeavesThroughStructsOnly) {
  Store(*NestedTable());
  auto reader = Open();
  ASSERT_TRUE(reader);
  const auto& schema = *reader->metadata().schema();
  auto path = [&](int leaf) { return schema.Column(leaf)->path()->ToDotString(); };
  EXPECT_EQ(path(FindLeafColumn(reader->fields(), 6)), "s.c.d");
  EXPECT_EQ(path(FindLeafColumn(reader->fields(), 1)), "id");
  EXPECT_EQ(path(FindLeafColumn(reader->fields(), std::vector<std::string>{"s", "b"})),
            "s.b");
  EXPECT_EQ(FindLeafColumn(reader->fields(), 9), -1);   // inside a list
  EXPECT_EQ(FindLeafColumn(reader->fields(), 13), -1);  // inside a map
  EXPECT_EQ(FindLeafColumn(reader->fields(), 5), -1);   // a struct, not a leaf
  EXPECT_EQ(FindLeafColumn(reader->fields(), std::vector<std::string>{"s", "c"}), -1);
  EXPECT_EQ(FindLeafColumn(reader->fields(), std::vector<std::string>{"l", "x"}), -1);
  EXPECT_EQ(FindLeafColumn(reader->fields(), std::vector<std::string>{"nope"}), -1);
}

TEST_F(ParquetFileReaderTest, DecodesEachRowGroupsStatistics) {
  Store(*NestedTable());
  auto reader = Open();
  ASSERT_TRUE(reader);
  const auto& metadata = reader->metadata();
  const int id = FindLeafColumn(reader->fields(), 1);
  const int b = FindLeafColumn(reader->fields(), 4);
  const int d = FindLeafColumn(reader->fields(), 6);
  auto stats = [&](int group, int leaf) {
    return DecodeLeafStats(*metadata.RowGroup(group)->ColumnChunk(leaf),
                           *metadata.schema()->Column(leaf));
  };
  auto first = stats(0, id);
  ASSERT_TRUE(first && first->min && first->max);
  EXPECT_EQ(std::get<int64_t>(*first->min), 1);
  EXPECT_EQ(std::get<int64_t>(*first->max), 2);
  EXPECT_EQ(first->null_count, 0);
  EXPECT_EQ(first->value_count, 2);
  EXPECT_EQ(first->physical_type, parquet::Type::INT64);
  auto second = stats(1, b);
  ASSERT_TRUE(second && second->min && second->max);
  // Byte-wise: "zz" < "é" (0xC3 0xA9).
  EXPECT_EQ(std::get<std::string>(*second->min), "zz");
  EXPECT_EQ(std::get<std::string>(*second->max), "é");
  EXPECT_TRUE(second->logical_type->is_string());
  auto first_b = stats(0, b);
  ASSERT_TRUE(first_b);
  EXPECT_EQ(first_b->null_count, 1);  // the null struct's slot
  EXPECT_EQ(first_b->value_count, 1);
  auto doubles = stats(1, d);
  ASSERT_TRUE(doubles && doubles->min);
  EXPECT_EQ(doubles->null_count, 1);
  EXPECT_TRUE(std::signbit(std::get<double>(*doubles->min)));
}

TEST_F(ParquetFileReaderTest, FilesWithoutIdsAreMatchedAfterAnnotation) {
  auto plain = arrow::schema(
      {arrow::field("k", arrow::int32()), arrow::field("v", arrow::utf8())});
  auto table = arrow::Table::Make(
      plain, {*arrow::json::ArrayFromJSONString(arrow::int32(), "[7, 8]"),
              *arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["a", null])")});
  Store(*table);
  auto reader = Open();
  ASSERT_TRUE(reader);
  EXPECT_FALSE(reader->HasFieldIds());
  EXPECT_EQ(FindLeafColumn(reader->fields(), 21), -1);
  reader->Annotate([](const std::shared_ptr<arrow::Field>& field) {
    return field->WithMetadata(Id(field->name() == "k" ? 20 : 21));
  });
  EXPECT_TRUE(reader->HasFieldIds());
  EXPECT_EQ(FindLeafColumn(reader->fields(), 21), 1);
  std::vector<int> leaves;
  SelectLeaves(reader->fields()[1], *F("value", arrow::utf8(), 21),
               ParquetColumnMatch::kFieldId, &leaves);
  EXPECT_EQ(leaves, std::vector<int>{1});
}

TEST_F(ParquetFileReaderTest, CountsEveryReadAndCastsOnlyWithoutLoss) {
  Store(*NestedTable());
  std::atomic<int64_t> bytes{0};
  std::atomic<int64_t> requests{0};
  ParquetReadOptions options;
  options.on_read = [&](int64_t read) {
    bytes += read;
    requests += 1;
  };
  auto reader = Open(options);
  ASSERT_TRUE(reader);
  const int64_t footer_bytes = bytes.load();
  EXPECT_GT(footer_bytes, 0);
  std::vector<int> leaves{FindLeafColumn(reader->fields(), 1)};
  // long read as int: the values fit, so the safe cast succeeds...
  auto narrow = ReadColumn(*reader, leaves, "id", *F("id", arrow::int32(), 1),
                           ParquetColumnMatch::kFieldId);
  ASSERT_TRUE(narrow.ok()) << narrow.status().ToString();
  EXPECT_GT(bytes.load(), footer_bytes);
  EXPECT_GT(requests.load(), 1);
  // ...and a struct read as a primitive is an error naming the column.
  std::vector<int> s_leaves;
  SelectLeaves(Top(*reader, "s"), *Top(*reader, "s").field, ParquetColumnMatch::kFieldId,
               &s_leaves);
  auto wrong = ReadColumn(*reader, s_leaves, "s", *F("s", arrow::int32(), 2),
                          ParquetColumnMatch::kFieldId);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("column s has type struct"), std::string::npos)
      << wrong.status().ToString();
}

TEST_F(ParquetFileReaderTest, ACorruptPageNamesItsColumnAndRowGroup) {
  Store(*NestedTable(), /*compress=*/false);
  {
    auto reader = Open();
    ASSERT_TRUE(reader);
    // Flip the last byte of row group 1's chunk of leaf s.b: inside its data page's
    // values, past the page header.
    const int leaf = FindLeafColumn(reader->fields(), 4);
    auto chunk = reader->metadata().RowGroup(1)->ColumnChunk(leaf);
    const int64_t end = chunk->data_page_offset() + chunk->total_compressed_size();
    bytes_[end - 1] = static_cast<char>(bytes_[end - 1] ^ 0x5A);
    ASSERT_TRUE(io_->WriteAll(location_, bytes_).ok());
  }
  for (bool verify : {true, false}) {
    ParquetReadOptions options;
    options.verify_page_checksums = verify;
    auto reader = Open(options);
    ASSERT_TRUE(reader);
    std::vector<int> leaves;
    SelectLeaves(Top(*reader, "s"), *Top(*reader, "s").field,
                 ParquetColumnMatch::kFieldId, &leaves);
    auto read = ReadColumn(*reader, leaves, "s", *Top(*reader, "s").field,
                           ParquetColumnMatch::kFieldId);
    if (verify) {
      ASSERT_FALSE(read.ok());
      EXPECT_NE(read.status().message().find("column s.b (row group 1) is corrupt"),
                std::string::npos)
          << read.status().ToString();
    } else {
      // Unverified, the flipped byte decodes into a wrong value: what verifying stops.
      ASSERT_TRUE(read.ok()) << read.status().ToString();
      auto values = *arrow::Concatenate((*read)->chunks());
      auto original = *arrow::Concatenate(NestedTable()->column(1)->chunks());
      EXPECT_FALSE(values->Equals(*original)) << values->ToString();
    }
  }
}

}  // namespace
}  // namespace floe
