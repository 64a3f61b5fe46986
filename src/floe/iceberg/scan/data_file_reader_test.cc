#include "floe/iceberg/scan/data_file_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include "arrow/api.h"
#include "arrow/io/memory.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"
#include "parquet/arrow/writer.h"
#include "parquet/properties.h"

namespace floe::iceberg {
namespace {

// Found by fuzz_data_file_reader: a file whose field id holds another shape than the
// table's (here a string where the table has a struct) was cast as a struct.
TEST(DataFileReaderTest, AFieldOfAnotherShapeIsAnErrorNamingTheColumn) {
  auto field = [](const char* name, std::shared_ptr<arrow::DataType> type,
                  const char* id) {
    return arrow::field(name, std::move(type), true,
                        arrow::key_value_metadata({"PARQUET:field_id"}, {id}));
  };
  auto file_schema =
      arrow::schema({field("id", arrow::int64(), "1"), field("s", arrow::utf8(), "2")});
  arrow::Int64Builder ids;
  arrow::StringBuilder strings;
  ASSERT_TRUE(ids.Append(1).ok());
  ASSERT_TRUE(strings.Append("x").ok());
  auto table = arrow::Table::Make(file_schema, {*ids.Finish(), *strings.Finish()});
  auto sink = *arrow::io::BufferOutputStream::Create();
  ASSERT_TRUE(
      parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), sink).ok());
  auto buffer = *sink->Finish();
  auto io = *MakeArrowFileIO();
  const std::string location = "memory://reader-test/shape.parquet";
  ASSERT_TRUE(io->WriteAll(location, buffer->ToString()).ok());

  for (const char* table_schema : {"id long, s struct<a: int>", "id long, s list<int>",
                                   "id long, s map<string, int>"}) {
    DataFileReadOptions options;
    options.read_schema = *ParseSchemaText(table_schema);
    options.output_schema = options.read_schema;
    DataFile file;
    file.file_path = location;
    file.record_count = 1;
    auto reader =
        ReadDataFile(io, file, options, *PartitionSpec::Unpartitioned(), nullptr);
    arrow::Status status = reader.status();
    if (reader.ok()) {
      std::shared_ptr<arrow::RecordBatch> batch;
      status = (*reader)->ReadNext(&batch);
    }
    ASSERT_FALSE(status.ok()) << table_schema;
    EXPECT_NE(status.message().find("column s has type string in the data file"),
              std::string::npos)
        << status.ToString();
  }
}

}  // namespace
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace {

// Found by fuzz_data_file_reader: Parquet's metadata accessors throw on a corrupt footer
// (here its size statistics), which escaped as an exception and terminated the process.
// Every byte of the footer, flipped, must give rows or an error.
TEST(DataFileReaderTest, CorruptFootersGiveErrorsNeverExceptions) {
  auto schema = *ParseSchemaText("id long, s string");
  auto arrow_schema = arrow::schema(
      {arrow::field("id", arrow::int64(), true,
                    arrow::key_value_metadata({"PARQUET:field_id"}, {"1"})),
       arrow::field("s", arrow::utf8(), true,
                    arrow::key_value_metadata({"PARQUET:field_id"}, {"2"}))});
  arrow::Int64Builder ids;
  arrow::StringBuilder strings;
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(ids.Append(i).ok());
    ASSERT_TRUE(strings.Append("v" + std::to_string(i)).ok());
  }
  auto table = arrow::Table::Make(arrow_schema, {*ids.Finish(), *strings.Finish()});
  auto sink = *arrow::io::BufferOutputStream::Create();
  auto properties =
      parquet::WriterProperties::Builder().max_row_group_length(30)->build();
  ASSERT_TRUE(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), sink, 30,
                                         properties)
                  .ok());
  std::string bytes = (*sink->Finish())->ToString();
  uint32_t footer = 0;
  std::memcpy(&footer, bytes.data() + bytes.size() - 8, 4);
  ASSERT_LT(footer + 8, bytes.size());
  auto io = *MakeArrowFileIO();
  auto filter = std::make_shared<Expression>();
  filter->op = Operation::kGt;
  filter->field_id = 1;
  filter->type = types::Long();
  filter->values = {Value{int64_t{50}}};
  DataFileReadOptions options;
  options.read_schema = schema;
  options.output_schema = schema;
  options.filter = filter;
  int errors = 0;
  for (size_t at = bytes.size() - 8 - footer; at < bytes.size() - 8; ++at) {
    for (uint8_t flip : {0x01, 0x80, 0xFF}) {
      std::string corrupt = bytes;
      corrupt[at] = static_cast<char>(corrupt[at] ^ flip);
      const std::string location = "memory://reader-test/corrupt.parquet";
      ASSERT_TRUE(io->WriteAll(location, corrupt).ok());
      DataFile file;
      file.file_path = location;
      file.record_count = 100;
      auto reader =
          ReadDataFile(io, file, options, *PartitionSpec::Unpartitioned(), nullptr);
      if (!reader.ok()) {
        ++errors;
        continue;
      }
      for (int i = 0; i < 16; ++i) {
        std::shared_ptr<arrow::RecordBatch> batch;
        if (!(*reader)->ReadNext(&batch).ok()) {
          ++errors;
          break;
        }
        if (!batch) break;
        ASSERT_TRUE(batch->ValidateFull().ok());
      }
    }
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace floe::iceberg
