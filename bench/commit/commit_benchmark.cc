// floe's arm of the commit benchmark: W writer threads, each with its own catalog
// connection and its own view of the table (as W processes would have), each committing
// C fast appends of one data file to the same table (after --warmup untimed ones). Only
// the commit is timed: the snapshot's manifest, manifest list and metadata file and the
// catalog swap, with every refresh and retry a lost race costs. The data file is
// described, not written, exactly as the iceberg-java arm (tests/parity, `commit-bench`)
// describes its own. Prints one JSON line: per-commit latencies in milliseconds,
// attempts, and the wall time of the timed phase (first timed commit started to last one
// ended, over all writers). The driver is bench/commit/run_commit_benchmark.py.

#include <algorithm>
#include <chrono>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/commit/fast_append.h"
#include "floe/util/uuid.h"

namespace {

struct Flags {
  std::string uri;
  std::string warehouse;
  std::string table;
  int writers = 1;
  int commits = 10;
  int warmup = 0;  ///< Untimed commits each writer makes first.
  std::vector<std::string> properties;
};

using Clock = std::chrono::steady_clock;

// The timed phase of one writer: from the start of its first timed commit to the end of
// its last.
struct Span {
  Clock::time_point begin;
  Clock::time_point end;
};

arrow::Status RunWriter(const Flags& flags, int writer, std::vector<double>* latencies,
                        std::vector<int>* attempts, Span* span) {
  floe::iceberg::CatalogOptions options;
  options.uri = flags.uri;
  options.warehouse = flags.warehouse;
  for (const auto& pair : flags.properties) {
    size_t equals = pair.find('=');
    options.properties[pair.substr(0, equals)] = pair.substr(equals + 1);
  }
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<floe::iceberg::Catalog> catalog,
                        floe::iceberg::Catalog::Open(options));
  ARROW_ASSIGN_OR_RAISE(auto id, floe::iceberg::TableIdentifier::Parse(flags.table));
  ARROW_ASSIGN_OR_RAISE(auto state, catalog->LoadTable(id));
  floe::iceberg::CommitTarget target{catalog, id, catalog->io()};
  for (int c = 0; c < flags.warmup + flags.commits; ++c) {
    floe::iceberg::DataFile file;
    file.file_path = state.metadata->location + "/data/w" + std::to_string(writer) + "-" +
                     std::to_string(c) + "-" + floe::Uuid::Random().ToString() +
                     ".parquet";
    file.record_count = 10;
    file.file_size_in_bytes = 1000;
    auto started = Clock::now();
    if (c == flags.warmup) span->begin = started;
    floe::iceberg::FastAppend append(target);
    append.AddDataFile(std::move(file));
    ARROW_ASSIGN_OR_RAISE(auto report, append.Commit(state));
    auto ended = Clock::now();
    double ms = std::chrono::duration<double, std::milli>(ended - started).count();
    span->end = ended;
    state = report.state;
    if (c < flags.warmup) continue;
    latencies->push_back(ms);
    attempts->push_back(report.attempts);
  }
  return arrow::Status::OK();
}

int Main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    std::string value = argv[i + 1];
    if (flag == "--catalog") flags.uri = value;
    if (flag == "--warehouse") flags.warehouse = value;
    if (flag == "--table") flags.table = value;
    if (flag == "--writers") flags.writers = std::stoi(value);
    if (flag == "--commits") flags.commits = std::stoi(value);
    if (flag == "--warmup") flags.warmup = std::stoi(value);
    if (flag == "--catalog-property") flags.properties.push_back(value);
  }
  std::vector<std::vector<double>> latencies(flags.writers);
  std::vector<std::vector<int>> attempts(flags.writers);
  std::vector<arrow::Status> results(flags.writers);
  std::vector<Span> spans(flags.writers);
  std::vector<std::thread> threads;
  for (int w = 0; w < flags.writers; ++w) {
    threads.emplace_back([&, w] {
      results[w] = RunWriter(flags, w, &latencies[w], &attempts[w], &spans[w]);
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& status : results) {
    if (!status.ok()) {
      std::cerr << "commit benchmark: " << status.ToString() << std::endl;
      return 1;
    }
  }
  // The timed phase of the run: first timed commit started to last one ended.
  Clock::time_point begin = spans[0].begin, end = spans[0].end;
  for (const auto& span : spans) {
    begin = std::min(begin, span.begin);
    end = std::max(end, span.end);
  }
  double wall = std::chrono::duration<double>(end - begin).count();
  std::cout << "{\"wall_seconds\": " << wall << ", \"latencies_ms\": [";
  bool first = true;
  for (const auto& list : latencies) {
    for (double value : list) {
      std::cout << (first ? "" : ", ") << value;
      first = false;
    }
  }
  std::cout << "], \"attempts\": [";
  first = true;
  for (const auto& list : attempts) {
    for (int value : list) {
      std::cout << (first ? "" : ", ") << value;
      first = false;
    }
  }
  std::cout << "]}" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
