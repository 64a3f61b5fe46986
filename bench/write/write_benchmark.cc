// One arm of the write benchmark, timed in-process: the floor (Arrow's Parquet writer
// alone, same batches, same settings, no Iceberg work) or floe (an append through the
// real write path: gate, tasks, data files, manifests, commit). Prints one JSON line; the
// driver bench/write/run_write_benchmark.py runs every arm and writes the report.

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "arrow/compute/initialize.h"
#include "arrow/io/file.h"
#include "arrow/memory_pool.h"
#include "floe/spec/schema_ddl.h"
#include "floe/table/table.h"
#include "floe/write/parquet_settings.h"
#include "lineitem.h"
#include "parquet/arrow/writer.h"

namespace {

struct Options {
  std::string arm = "floe";              // floor | floe | write-input
  std::string layout = "unpartitioned";  // unpartitioned | clustered | fanout
  int64_t rows = 1000000;
  int threads = 1;
  int days = 120;
  std::string out;
};

arrow::Status Floor(const Options& options, int64_t* rows) {
  auto reader = floe::bench::MakeLineitemReader(options.rows, 65536, options.days, 42);
  // The settings floe writes a new table with (iceberg-java persists zstd for new
  // tables).
  ARROW_ASSIGN_OR_RAISE(auto settings,
                        floe::ParquetSettings::FromProperties(
                            {{"write.parquet.compression-codec", "zstd"}}));
  arrow::ProxyMemoryPool pool(arrow::default_memory_pool());
  ARROW_ASSIGN_OR_RAISE(
      auto file, arrow::io::FileOutputStream::Open(options.out + "/floor.parquet"));
  ARROW_ASSIGN_OR_RAISE(
      auto writer,
      parquet::arrow::FileWriter::Open(
          *reader->schema(), &pool, file, settings.ToWriterProperties(false, &pool),
          parquet::ArrowWriterProperties::Builder().build()));
  ARROW_RETURN_NOT_OK(writer->NewBufferedRowGroup());
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
    *rows += batch->num_rows();
    if (pool.bytes_allocated() >= settings.row_group_size_bytes) {
      ARROW_RETURN_NOT_OK(writer->NewBufferedRowGroup());
    }
  }
  ARROW_RETURN_NOT_OK(writer->Close());
  return file->Close();
}

arrow::Status Floe(const Options& options, int64_t* rows) {
  floe::CatalogOptions catalog_options;
  catalog_options.uri = "sqlite:///" + options.out + "/catalog.db";
  catalog_options.warehouse = options.out;
  ARROW_ASSIGN_OR_RAISE(auto catalog, floe::Catalog::Open(catalog_options));
  std::shared_ptr<floe::Catalog> shared(std::move(catalog));
  ARROW_RETURN_NOT_OK(shared->CreateNamespace({"bench"}, {}));
  floe::CreateTableOptions create;
  ARROW_ASSIGN_OR_RAISE(create.schema,
                        floe::ParseSchemaText(floe::bench::LineitemSchemaText()));
  std::string partition_by = options.layout == "clustered" ? "day(l_shipdate)"
                             : options.layout == "fanout"
                                 ? "bucket(16, l_orderkey), day(l_shipdate)"
                                 : "";
  ARROW_ASSIGN_OR_RAISE(create.spec,
                        floe::ParsePartitionBy(partition_by, *create.schema));
  ARROW_ASSIGN_OR_RAISE(auto table,
                        floe::Table::Create(shared, {{"bench"}, "lineitem"}, create));
  auto reader = floe::bench::MakeLineitemReader(options.rows, 65536, options.days, 42);
  floe::AppendOptions append;
  append.threads = options.threads;
  append.input_clustered = options.layout == "clustered";
  ARROW_ASSIGN_OR_RAISE(auto result, table->Append(*reader, append));
  *rows = result.rows;
  return arrow::Status::OK();
}

// Only produces the batches: the generator's own cost, subtracted from the other arms.
arrow::Status Generate(const Options& options, int64_t* rows) {
  auto reader = floe::bench::MakeLineitemReader(options.rows, 65536, options.days, 42);
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    *rows += batch->num_rows();
  }
  return arrow::Status::OK();
}

arrow::Status WriteInput(const Options& options, int64_t* rows) {
  auto reader = floe::bench::MakeLineitemReader(options.rows, 65536, options.days, 42);
  ARROW_ASSIGN_OR_RAISE(
      auto file, arrow::io::FileOutputStream::Open(options.out + "/lineitem.parquet"));
  ARROW_ASSIGN_OR_RAISE(
      auto writer, parquet::arrow::FileWriter::Open(*reader->schema(),
                                                    arrow::default_memory_pool(), file));
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
    *rows += batch->num_rows();
  }
  ARROW_RETURN_NOT_OK(writer->Close());
  return file->Close();
}

}  // namespace

int main(int argc, char** argv) {
  // Every arm allocates from jemalloc, as the floe command does (see DESIGN.md).
  setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc", /*overwrite=*/0);
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = argv[i];
    std::string value = argv[i + 1];
    if (key == "--arm")
      options.arm = value;
    else if (key == "--layout")
      options.layout = value;
    else if (key == "--rows")
      options.rows = std::stoll(value);
    else if (key == "--threads")
      options.threads = std::stoi(value);
    else if (key == "--days")
      options.days = std::stoi(value);
    else if (key == "--out")
      options.out = value;
    else {
      std::cerr << "unknown option " << key << "\n";
      return 2;
    }
  }
  if (options.out.empty()) {
    std::cerr << "usage: floe_write_benchmark --arm floor|floe|generate|write-input "
                 "--out DIR [--rows N] "
                 "[--threads N] [--layout unpartitioned|clustered|fanout] [--days N]\n";
    return 2;
  }
  std::filesystem::create_directories(options.out);
  if (!arrow::compute::Initialize().ok()) return 1;
  int64_t rows = 0;
  auto started = std::chrono::steady_clock::now();
  arrow::Status status = options.arm == "floor"         ? Floor(options, &rows)
                         : options.arm == "write-input" ? WriteInput(options, &rows)
                         : options.arm == "generate"    ? Generate(options, &rows)
                                                        : Floe(options, &rows);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!status.ok()) {
    std::cerr << "floe_write_benchmark: " << status.ToString() << "\n";
    return 1;
  }
  // Peak resident memory of this process image (VmHWM; ru_maxrss would carry the forking
  // parent's peak across exec).
  double peak_mb = 0;
  {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("VmHWM:", 0) == 0) peak_mb = std::stod(line.substr(6)) / 1024.0;
    }
  }
  std::printf(
      "{\"arm\": \"%s\", \"layout\": \"%s\", \"threads\": %d, \"rows\": %lld, "
      "\"seconds\": %.4f, "
      "\"rows_per_s\": %.0f, \"peak_rss_mb\": %.1f}\n",
      options.arm.c_str(), options.layout.c_str(), options.threads,
      static_cast<long long>(rows), seconds, static_cast<double>(rows) / seconds,
      peak_mb);
  return 0;
}
