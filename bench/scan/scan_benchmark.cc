// One arm of the scan benchmark, timed in-process: a floe scan of a table with a
// projection (and optionally a filter), batches consumed and dropped. Prints one JSON
// line with the best time of --repeat runs, the bytes floe read and the process's rchar
// (bytes read through read(2)/pread(2), page-cache hits included) for the best run. The
// driver is bench/scan/run_scan_benchmark.py.

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "arrow/compute/initialize.h"
#include "floe/iceberg/table/table.h"

namespace {

int64_t ReadChars() {
  std::ifstream io("/proc/self/io");
  std::string key;
  int64_t value = 0;
  while (io >> key >> value) {
    if (key == "rchar:") return value;
  }
  return -1;
}

arrow::Status Run(int argc, char** argv) {
  std::string warehouse, table, columns, where;
  int repeat = 3;
  bool use_threads = false;  // --threads N: N > 1 decodes columns on Arrow's thread pool
  bool verify = true;        // --verify-checksums 0 skips the page CRC check
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    std::string value = argv[i + 1];
    if (flag == "--warehouse") warehouse = value;
    if (flag == "--table") table = value;
    if (flag == "--columns") columns = value;
    if (flag == "--where") where = value;
    if (flag == "--repeat") repeat = std::stoi(value);
    if (flag == "--threads") use_threads = std::stoi(value) > 1;
    if (flag == "--verify-checksums") verify = std::stoi(value) != 0;
  }
  floe::iceberg::CatalogOptions options;
  options.uri = "sqlite:///" + warehouse + "/catalog.db";
  options.warehouse = warehouse;
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<floe::iceberg::Catalog> catalog,
                        floe::iceberg::Catalog::Open(options));
  ARROW_ASSIGN_OR_RAISE(auto id, floe::iceberg::TableIdentifier::Parse(table));
  ARROW_ASSIGN_OR_RAISE(auto loaded, floe::iceberg::Table::Load(catalog, id));
  floe::iceberg::ScanOptions scan_options;
  std::stringstream list(columns);
  for (std::string column; std::getline(list, column, ',');)
    scan_options.columns.push_back(column);
  scan_options.filter = where;
  scan_options.use_threads = use_threads;
  scan_options.verify_page_checksums = verify;
  double best = 1e100;
  int64_t rows = 0, bytes = 0, rchar = 0;
  for (int r = 0; r < repeat; ++r) {
    int64_t rchar_before = ReadChars();
    auto started = std::chrono::steady_clock::now();
    ARROW_ASSIGN_OR_RAISE(auto scan, loaded->NewScan(scan_options));
    ARROW_ASSIGN_OR_RAISE(auto reader, scan->ToRecordBatchReader());
    int64_t count = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
      if (!batch) break;
      count += batch->num_rows();
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (seconds < best) {
      best = seconds;
      rows = count;
      bytes = scan->stats()->bytes_read;
      rchar = ReadChars() - rchar_before;
    }
  }
  std::cout << "{\"seconds\": " << best << ", \"rows\": " << rows
            << ", \"bytes_read\": " << bytes << ", \"rchar\": " << rchar << "}"
            << std::endl;
  return arrow::Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  if (!arrow::compute::Initialize().ok()) return 1;
  auto status = Run(argc, argv);
  if (!status.ok()) {
    std::cerr << status.ToString() << std::endl;
    return 1;
  }
  return 0;
}
