// libFuzzer: what a Delta log folder's names and a table's configuration hold, as inputs
// (the delta_log target feeds a commit's contents). Each line of the input is either
// `key=value`, a property of the table's configuration, or a file name created (empty) in
// _delta_log beside a valid version 0. Invariants: nothing crashes or throws (a stray
// "<v>.checkpoint.9999999999.9999999999.parquet" once aborted every command through
// std::stoi), and every number read from a name or a property is range checked (an
// interval in microseconds was once read as 0).
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>

#include "floe/delta/calendar_interval.h"
#include "floe/delta/checkpoint.h"
#include "floe/delta/log.h"
#include "floe/delta/vacuum.h"
#include "floe/delta/write.h"
#include "floe/io/file_io.h"

namespace {

std::string Escaped(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto kIo = *floe::MakeArrowFileIO();
  const std::string root = "memory://fuzz/names";
  const std::string log = root + "/_delta_log/";
  std::map<std::string, std::string> configuration;
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  std::string configuration_json;
  for (std::string line; std::getline(lines, line);) {
    const size_t equals = line.find('=');
    if (equals != std::string::npos && equals > 0) {
      const std::string key = line.substr(0, equals);
      const std::string value = line.substr(equals + 1);
      configuration[key] = value;
      (void)floe::delta::IntervalPropertyMillis(key, value);
      (void)floe::delta::ParseCalendarInterval(value);
      continue;
    }
    // A name of the log folder: no separators, nothing the memory file system refuses.
    if (line.empty() || line.size() > 200 || line.find('/') != std::string::npos ||
        line == "." || line == "..") {
      continue;
    }
    (void)kIo->WriteAll(log + line, "");
  }
  for (const auto& [key, value] : configuration) {
    configuration_json += std::string(configuration_json.empty() ? "" : ",") + "\"" +
                          Escaped(key) + "\":\"" + Escaped(value) + "\"";
  }
  const std::string first =
      R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})"
      "\n"
      R"({"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{)" +
      configuration_json + "}}}\n";
  if (kIo->WriteAll(log + "00000000000000000000.json", first).ok()) {
    auto snapshot = floe::delta::LoadSnapshot(*kIo, root);
    if (snapshot.ok()) {
      (void)floe::delta::CheckReadable(*snapshot);
      (void)floe::delta::CheckWritable(*snapshot,
                                       floe::delta::DeltaWriteMode::kOverwrite);
      (void)floe::delta::CheckpointInterval(snapshot->metadata.configuration);
      floe::delta::VacuumOptions options;
      options.dry_run = true;
      (void)floe::delta::Vacuum(kIo, root, options);
    }
    (void)floe::delta::ListVersions(*kIo, root);
  }
  // The next input starts from an empty folder.
  if (auto listed = kIo->List(root); listed.ok()) {
    for (const auto& file : *listed) (void)kIo->Delete(file.location);
  }
  return 0;
}
