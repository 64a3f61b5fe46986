// libFuzzer: a Delta commit file as the log replay reads it. The input is version 1 of a
// table whose version 0 is valid; invariants: nothing crashes, a snapshot that loads has
// a protocol and metadata, and every partition value of every live file either parses as
// its column's type or fails with an error. The input is also read as a schema string.
#include <cstdint>
#include <string>

#include "floe/delta/log.h"
#include "floe/delta/schema.h"
#include "floe/io/file_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto kIo = *floe::MakeArrowFileIO();
  static const std::string kRoot = "memory://fuzz/t";
  static const bool kCreated = [] {
    const std::string first =
        R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})"
        "\n"
        R"({"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"p\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}},{\"name\":\"t\",\"type\":\"timestamp\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":["p","t"],"configuration":{}}})"
        "\n";
    return kIo->WriteAll(kRoot + "/_delta_log/00000000000000000000.json", first).ok();
  }();
  if (!kCreated) __builtin_trap();
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!kIo->WriteAll(kRoot + "/_delta_log/00000000000000000001.json", text).ok())
    return 0;
  auto snapshot = floe::delta::LoadSnapshot(*kIo, kRoot);
  if (snapshot.ok()) {
    (void)floe::delta::CheckReadable(*snapshot);
    auto schema = floe::delta::SchemaFromJson(snapshot->metadata.schema_string);
    if (schema.ok()) {
      for (const auto& file : snapshot->files) {
        for (const auto& [name, value] : file.partition_values) {
          auto field = (*schema)->GetFieldByName(name);
          if (field) (void)floe::delta::ParsePartitionValue(value, field->type(), name);
        }
      }
    }
  }
  (void)floe::delta::SchemaFromJson(text);
  return 0;
}
