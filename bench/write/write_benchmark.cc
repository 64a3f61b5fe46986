// One arm of the write benchmark, timed in-process: the floor (Arrow's Parquet writer
// alone, same batches, same settings, no Iceberg work; one file, or for a partitioned
// layout also one file per partition; for the sorted layout Arrow's sort of the whole
// input in memory, then the writer) or floe (an append through the
// real write path: gate, tasks, data files, manifests, commit). Prints one JSON line; the
// drivers bench/write/run_write_benchmark.py and run_sorted_benchmark.py run the arms and
// write the reports.

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "arrow/array.h"
#include "arrow/array/builder_primitive.h"
#include "arrow/compute/api.h"
#include "arrow/compute/initialize.h"
#include "arrow/io/file.h"
#include "arrow/memory_pool.h"
#include "arrow/table.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/iceberg/table/table.h"
#include "floe/iceberg/write/parquet_settings.h"
#include "lineitem.h"
#include "parquet/arrow/writer.h"

namespace {

// The sort order of the sorted layout's table (and the sorted floor's keys).
constexpr char kSortedBy[] = "l_shipdate, l_partkey";

struct Options {
  // floor | floor-partitioned | floor-sorted | floe | generate | write-input
  std::string arm = "floe";
  std::string layout = "unpartitioned";  // unpartitioned | clustered | fanout | sorted
  int64_t rows = 1000000;
  int threads = 1;
  int days = 120;
  std::string distribution;  // write.distribution-mode for floe's arm; empty: unset
  bool fsync = true;         // floe's arm: false sets the catalog's floe.io.fsync=false
  std::string out;
};

// The settings floe writes a new table with (iceberg-java persists zstd for new tables).
arrow::Result<floe::ParquetSettings> FloorSettings() {
  return floe::iceberg::ParquetSettingsFromProperties(
      {{"write.parquet.compression-codec", "zstd"}});
}

// Arrow's Parquet writer alone, with `settings`, its row group buffered from `pool`.
arrow::Result<std::unique_ptr<parquet::arrow::FileWriter>> OpenFloorWriter(
    const arrow::Schema& schema, const floe::ParquetSettings& settings,
    arrow::MemoryPool* pool, std::shared_ptr<arrow::io::FileOutputStream> file) {
  ARROW_ASSIGN_OR_RAISE(
      auto writer,
      parquet::arrow::FileWriter::Open(
          schema, pool, std::move(file), settings.ToWriterProperties(false, pool),
          parquet::ArrowWriterProperties::Builder().build()));
  ARROW_RETURN_NOT_OK(writer->NewBufferedRowGroup());
  return writer;
}

arrow::Status Floor(const Options& options, int64_t* rows) {
  auto reader = floe::bench::MakeLineitemReader(options.rows, 65536, options.days, 42);
  ARROW_ASSIGN_OR_RAISE(auto settings, FloorSettings());
  arrow::ProxyMemoryPool pool(arrow::default_memory_pool());
  ARROW_ASSIGN_OR_RAISE(
      auto file, arrow::io::FileOutputStream::Open(options.out + "/floor.parquet"));
  ARROW_ASSIGN_OR_RAISE(auto writer,
                        OpenFloorWriter(*reader->schema(), settings, &pool, file));
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

// The floor for a partitioned layout: Arrow's Parquet writer alone writing each
// partition's rows to a file of its own in a directory of its own, as floe lays them out,
// with the partition found by plain arithmetic (day = the date's value; a 16-way split of
// l_orderkey standing in for bucket[16]), so no Iceberg work is timed. Memory is kept in
// check the simplest way: clustered input closes a file when the next partition starts,
// and fanout files share one row group's worth of bytes (a file's row group is cut at its
// share).
arrow::Status PartitionedFloor(const Options& options, int64_t* rows) {
  auto reader = floe::bench::MakeLineitemReader(options.rows, 65536, options.days, 42);
  ARROW_ASSIGN_OR_RAISE(auto settings, FloorSettings());
  const int orderkey = reader->schema()->GetFieldIndex("l_orderkey");
  const int shipdate = reader->schema()->GetFieldIndex("l_shipdate");
  const bool fanout = options.layout == "fanout";
  struct Output {
    std::unique_ptr<arrow::ProxyMemoryPool> pool;
    std::shared_ptr<arrow::io::FileOutputStream> file;
    std::unique_ptr<parquet::arrow::FileWriter> writer;
  };
  std::unordered_map<int64_t, Output> outputs;
  std::unordered_map<int64_t, std::vector<int64_t>> rows_of;
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    const auto& keys = static_cast<const arrow::Int64Array&>(*batch->column(orderkey));
    const auto& days = static_cast<const arrow::Date32Array&>(*batch->column(shipdate));
    for (auto& [key, list] : rows_of) list.clear();
    for (int64_t row = 0; row < batch->num_rows(); ++row) {
      int64_t key = days.IsNull(row) ? -1 : days.Value(row);
      if (fanout) key = key * 16 + static_cast<int64_t>(keys.Value(row) % 16);
      rows_of[key].push_back(row);
    }
    for (auto& [key, list] : rows_of) {
      if (list.empty()) continue;
      auto found = outputs.find(key);
      if (found == outputs.end()) {
        if (!fanout) {
          for (auto& [closed_key, closed] : outputs) {
            ARROW_RETURN_NOT_OK(closed.writer->Close());
            ARROW_RETURN_NOT_OK(closed.file->Close());
          }
          outputs.clear();
        }
        Output output;
        output.pool =
            std::make_unique<arrow::ProxyMemoryPool>(arrow::default_memory_pool());
        std::string directory = options.out + "/p=" + std::to_string(key);
        std::filesystem::create_directories(directory);
        ARROW_ASSIGN_OR_RAISE(
            output.file, arrow::io::FileOutputStream::Open(directory + "/data.parquet"));
        ARROW_ASSIGN_OR_RAISE(
            output.writer,
            OpenFloorWriter(*reader->schema(), settings, output.pool.get(), output.file));
        found = outputs.emplace(key, std::move(output)).first;
      }
      std::shared_ptr<arrow::RecordBatch> part;
      if (static_cast<int64_t>(list.size()) == batch->num_rows()) {
        part = batch;
      } else {
        arrow::Int64Builder indices;
        ARROW_RETURN_NOT_OK(indices.AppendValues(list));
        ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(batch, *indices.Finish()));
        part = taken.record_batch();
      }
      Output& output = found->second;
      ARROW_RETURN_NOT_OK(output.writer->WriteRecordBatch(*part));
      if (output.pool->bytes_allocated() >=
          settings.row_group_size_bytes / static_cast<int64_t>(outputs.size())) {
        ARROW_RETURN_NOT_OK(output.writer->NewBufferedRowGroup());
      }
    }
    *rows += batch->num_rows();
  }
  for (auto& [key, output] : outputs) {
    ARROW_RETURN_NOT_OK(output.writer->Close());
    ARROW_RETURN_NOT_OK(output.file->Close());
  }
  return arrow::Status::OK();
}

arrow::Status Floe(const Options& options, int64_t* rows) {
  floe::iceberg::CatalogOptions catalog_options;
  catalog_options.uri = "sqlite:///" + options.out + "/catalog.db";
  catalog_options.warehouse = options.out;
  if (!options.fsync) catalog_options.properties["floe.io.fsync"] = "false";
  ARROW_ASSIGN_OR_RAISE(auto catalog, floe::iceberg::Catalog::Open(catalog_options));
  std::shared_ptr<floe::iceberg::Catalog> shared(std::move(catalog));
  ARROW_RETURN_NOT_OK(shared->CreateNamespace({"bench"}, {}));
  floe::iceberg::CreateTableOptions create;
  ARROW_ASSIGN_OR_RAISE(
      create.schema, floe::iceberg::ParseSchemaText(floe::bench::LineitemSchemaText()));
  std::string partition_by = options.layout == "clustered" ? "day(l_shipdate)"
                             : options.layout == "fanout"
                                 ? "bucket(16, l_orderkey), day(l_shipdate)"
                                 : "";
  ARROW_ASSIGN_OR_RAISE(create.spec,
                        floe::iceberg::ParsePartitionBy(partition_by, *create.schema));
  if (options.layout == "sorted") {
    ARROW_ASSIGN_OR_RAISE(create.sort_order,
                          floe::iceberg::ParseSortBy(kSortedBy, *create.schema));
  }
  ARROW_ASSIGN_OR_RAISE(
      auto table, floe::iceberg::Table::Create(shared, {{"bench"}, "lineitem"}, create));
  auto reader = floe::bench::MakeLineitemReader(options.rows, 65536, options.days, 42);
  floe::iceberg::AppendOptions append;
  append.threads = options.threads;
  append.input_clustered = options.layout == "clustered";
  if (!options.distribution.empty()) {
    append.options = {{"write.distribution-mode", options.distribution}};
  }
  ARROW_ASSIGN_OR_RAISE(auto result, table->Append(*reader, append));
  *rows = result.rows;
  return arrow::Status::OK();
}

// The floor for the sorted layout: Arrow sorts the whole input in memory (its stable
// multi-key sort, nulls first as the table's order asks) and its Parquet writer writes
// the rows in that order into one file.
arrow::Status SortedFloor(const Options& options, int64_t* rows) {
  auto reader = floe::bench::MakeLineitemReader(options.rows, 65536, options.days, 42);
  ARROW_ASSIGN_OR_RAISE(auto settings, FloorSettings());
  ARROW_ASSIGN_OR_RAISE(auto input, reader->ToTable());
  ARROW_ASSIGN_OR_RAISE(auto all, input->CombineChunksToBatch());
  input.reset();
  *rows = all->num_rows();
  using arrow::compute::NullPlacement;
  using arrow::compute::SortKey;
  using arrow::compute::SortOrder;
  arrow::compute::SortOptions sort(
      {SortKey("l_shipdate", SortOrder::Ascending, NullPlacement::AtStart),
       SortKey("l_partkey", SortOrder::Ascending, NullPlacement::AtStart)});
  ARROW_ASSIGN_OR_RAISE(auto indices,
                        arrow::compute::SortIndices(arrow::Datum(all), sort));
  arrow::ProxyMemoryPool pool(arrow::default_memory_pool());
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::FileOutputStream::Open(
                                       options.out + "/floor-sorted.parquet"));
  ARROW_ASSIGN_OR_RAISE(auto writer,
                        OpenFloorWriter(*all->schema(), settings, &pool, file));
  for (int64_t start = 0; start < all->num_rows(); start += 65536) {
    auto slice = indices->Slice(start, std::min<int64_t>(65536, all->num_rows() - start));
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(all, slice));
    ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*taken.record_batch()));
    if (pool.bytes_allocated() >= settings.row_group_size_bytes) {
      ARROW_RETURN_NOT_OK(writer->NewBufferedRowGroup());
    }
  }
  ARROW_RETURN_NOT_OK(writer->Close());
  return file->Close();
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

// CPU time of every thread of this process so far (user and system), for throughput per
// core.
double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
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
    else if (key == "--distribution")
      options.distribution = value;
    else if (key == "--out")
      options.out = value;
    else if (key == "--fsync")
      options.fsync = value != "off";
    else {
      std::cerr << "unknown option " << key << "\n";
      return 2;
    }
  }
  if (options.out.empty()) {
    std::cerr << "usage: floe_write_benchmark --arm "
                 "floor|floor-partitioned|floor-sorted|floe|generate|write-input "
                 "--out DIR [--rows N] "
                 "[--threads N] [--layout unpartitioned|clustered|fanout|sorted] "
                 "[--days N] [--distribution none|hash|range] [--fsync on|off]\n";
    return 2;
  }
  std::filesystem::create_directories(options.out);
  if (!arrow::compute::Initialize().ok()) return 1;
  int64_t rows = 0;
  const double cpu_started = CpuSeconds();
  auto started = std::chrono::steady_clock::now();
  arrow::Status status = options.arm == "floor" ? Floor(options, &rows)
                         : options.arm == "floor-partitioned"
                             ? PartitionedFloor(options, &rows)
                         : options.arm == "floor-sorted" ? SortedFloor(options, &rows)
                         : options.arm == "write-input"  ? WriteInput(options, &rows)
                         : options.arm == "generate"     ? Generate(options, &rows)
                                                         : Floe(options, &rows);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double cpu_seconds = CpuSeconds() - cpu_started;
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
      "\"seconds\": %.4f, \"cpu_seconds\": %.4f, "
      "\"rows_per_s\": %.0f, \"peak_rss_mb\": %.1f}\n",
      options.arm.c_str(), options.layout.c_str(), options.threads,
      static_cast<long long>(rows), seconds, cpu_seconds,
      static_cast<double>(rows) / seconds, peak_mb);
  return 0;
}
