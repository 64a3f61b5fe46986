// floe as a C++ library, from an installed package (find_package(floe)): an Iceberg table
// in an SQLite catalog and a Delta table by path, each written, committed and read back.
//
//   floe_example WAREHOUSE_DIRECTORY
//
// Exits 0 when both tables read back exactly the rows written; otherwise prints what
// differs (or the error, which names the table or file at fault) and exits 1.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "arrow/api.h"
#include "floe/delta/scan.h"
#include "floe/delta/write.h"
#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/table/table.h"
#include "floe/io/file_io.h"
#include "floe/lakehouse/table_ref.h"
#include "floe/types/arrow_schema.h"

namespace {

// Rows with a null, an empty string, text that needs escaping and a pre-1970 date.
arrow::Result<std::shared_ptr<arrow::Table>> SampleRows() {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  arrow::Date32Builder days;
  ARROW_RETURN_NOT_OK(ids.AppendValues({1, 2, 3, 4}));
  ARROW_RETURN_NOT_OK(names.Append("plain"));
  ARROW_RETURN_NOT_OK(names.Append("quote \" and ünïcödé"));
  ARROW_RETURN_NOT_OK(names.AppendNull());
  ARROW_RETURN_NOT_OK(names.Append(""));
  ARROW_RETURN_NOT_OK(days.AppendValues({-36524, 0, 19000, 2932896}));
  ARROW_ASSIGN_OR_RAISE(auto id_array, ids.Finish());
  ARROW_ASSIGN_OR_RAISE(auto name_array, names.Finish());
  ARROW_ASSIGN_OR_RAISE(auto day_array, days.Finish());
  auto schema = arrow::schema({arrow::field("id", arrow::int64(), false),
                               arrow::field("name", arrow::utf8()),
                               arrow::field("day", arrow::date32())});
  return arrow::Table::Make(schema, {id_array, name_array, day_array});
}

// True when `read` holds the rows of `written` (same columns, same values, same order:
// one task writes one file here).
bool SameRows(const arrow::Table& written, const arrow::Table& read, const char* what) {
  auto expected = written.CombineChunks().ValueOrDie();
  auto actual = read.CombineChunks().ValueOrDie();
  bool same = actual->num_rows() == expected->num_rows() &&
              actual->num_columns() == expected->num_columns();
  for (int c = 0; same && c < expected->num_columns(); ++c) {
    same = actual->column(c)->Equals(*expected->column(c));
  }
  std::cout << what << ": " << actual->num_rows() << " rows read back, "
            << (same ? "identical" : "DIFFERENT") << "\n";
  if (!same)
    std::cout << "written:\n" << expected->ToString() << "read:\n" << actual->ToString();
  return same;
}

arrow::Result<bool> IcebergRoundTrip(const std::string& warehouse,
                                     const std::shared_ptr<arrow::Table>& rows) {
  using namespace floe::iceberg;
  CatalogOptions options;
  options.uri = "sqlite:///" + warehouse + "/catalog.db";
  options.warehouse = warehouse;
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<Catalog> catalog, Catalog::Open(options));
  ARROW_ASSIGN_OR_RAISE(auto id, TableIdentifier::Parse("examples.events"));
  ARROW_RETURN_NOT_OK(catalog->CreateNamespace(id.ns, {}));
  CreateTableOptions create;
  ARROW_ASSIGN_OR_RAISE(create.schema,
                        floe::FromArrowSchemaAssigningIds(*rows->schema()));
  ARROW_ASSIGN_OR_RAISE(auto table, Table::Create(catalog, id, create));
  arrow::TableBatchReader input(*rows);
  ARROW_ASSIGN_OR_RAISE(auto appended, table->Append(input, AppendOptions{}));
  (void)appended;
  ARROW_ASSIGN_OR_RAISE(auto loaded, Table::Load(catalog, id));
  ARROW_ASSIGN_OR_RAISE(auto scan, loaded->NewScan(ScanOptions{}));
  ARROW_ASSIGN_OR_RAISE(auto reader, scan->ToRecordBatchReader());
  ARROW_ASSIGN_OR_RAISE(auto read, reader->ToTable());
  if (!SameRows(*rows, *read, "Iceberg table examples.events")) return false;
  // Any table by name or path, its format decided by floe: the way the floe command
  // finds its tables.
  floe::CatalogOpener opener = [&]() -> arrow::Result<std::shared_ptr<Catalog>> {
    return catalog;
  };
  ARROW_ASSIGN_OR_RAISE(auto by_name, floe::ResolveTable(opener, "examples.events"));
  ARROW_ASSIGN_OR_RAISE(auto by_path,
                        floe::ResolveTable(opener, warehouse + "/delta_events"));
  std::cout << "examples.events is " << floe::TableFormatName(by_name.format) << ", "
            << by_path.delta_root << " is " << floe::TableFormatName(by_path.format)
            << "\n";
  return by_name.format == floe::TableFormat::kIceberg &&
         by_path.format == floe::TableFormat::kDelta;
}

arrow::Result<bool> DeltaRoundTrip(const std::string& warehouse,
                                   const std::shared_ptr<arrow::Table>& rows) {
  const std::string root = warehouse + "/delta_events";
  ARROW_ASSIGN_OR_RAISE(auto io, floe::MakeFileIO(root, {}));
  ARROW_RETURN_NOT_OK(floe::delta::CreateTable(io, root, *rows->schema()).status());
  arrow::TableBatchReader input(*rows);
  ARROW_RETURN_NOT_OK(floe::delta::Write(io, root, input).status());
  ARROW_ASSIGN_OR_RAISE(auto scan, floe::delta::DeltaScan::Make(io, root));
  ARROW_ASSIGN_OR_RAISE(auto reader, scan->ToRecordBatchReader());
  ARROW_ASSIGN_OR_RAISE(auto read, reader->ToTable());
  return SameRows(*rows, *read, "Delta table delta_events");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: floe_example WAREHOUSE_DIRECTORY (a new, empty directory)\n";
    return 2;
  }
  const std::string warehouse = argv[1];
  auto rows = SampleRows();
  if (!rows.ok()) {
    std::cerr << rows.status().ToString() << "\n";
    return 1;
  }
  bool all_same = true;
  for (auto* round_trip : {&IcebergRoundTrip, &DeltaRoundTrip}) {
    auto same = (*round_trip)(warehouse, *rows);
    if (!same.ok()) {
      std::cerr << "floe_example: " << same.status().ToString() << "\n";
      return 1;
    }
    all_same = all_same && *same;
  }
  return all_same ? 0 : 1;
}
