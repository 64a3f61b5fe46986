// libFuzzer: table properties, write options and the text a user types, as inputs. Each
// line of the input is `key=value` (an unknown key takes the value as every known key's);
// the properties then go through everything that reads them: the eligibility gate, the
// write plan (Parquet settings, target sizes, metrics modes, distribution), the commit
// retry policy and the isolation level, and the values through floe's parsers of numbers,
// durations, byte sizes and filter literals. Invariants: nothing crashes or throws, and
// every number is range checked (a filter's 1e400 was once read as 0).
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/iceberg/commit/overwrite_files.h"
#include "floe/iceberg/commit/snapshot_producer.h"
#include "floe/iceberg/gate/gate.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/iceberg/write/metrics_config.h"
#include "floe/iceberg/write/write_plan.h"
#include "floe/util/duration.h"
#include "floe/util/number_text.h"
#include "floe/util/text.h"

namespace {

const std::vector<std::string>& Keys() {
  static const std::vector<std::string> kKeys = {
      "write.target-file-size-bytes",
      "write.delete.target-file-size-bytes",
      "write.parquet.row-group-size-bytes",
      "write.parquet.page-size-bytes",
      "write.parquet.page-row-limit",
      "write.parquet.dict-size-bytes",
      "write.parquet.compression-codec",
      "write.parquet.compression-level",
      "write.parquet.bloom-filter-enabled.column.id",
      "write.metadata.metrics.default",
      "write.metadata.metrics.column.id",
      "write.metadata.metrics.max-inferred-column-defaults",
      "write.distribution-mode",
      "write.spark.fanout.enabled",
      "write.object-storage.enabled",
      "write.data.path",
      "commit.retry.num-retries",
      "commit.retry.min-wait-ms",
      "commit.retry.max-wait-ms",
      "commit.retry.total-timeout-ms",
      "commit.manifest.target-size-bytes",
      "commit.manifest.min-count-to-merge",
      "commit.manifest-merge.enabled",
      "history.expire.max-snapshot-age-ms",
      "history.expire.min-snapshots-to-keep",
      "write.summary.partition-limit",
      "write.metadata.previous-versions-max",
      "format-version",
  };
  return kKeys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto kSchema =
      *floe::iceberg::ParseSchemaText("id long not null, price double, s string");
  static const auto kSpec = *floe::iceberg::ParsePartitionBy("bucket(4, id)", *kSchema);
  floe::iceberg::PropertyMap properties;
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string line; std::getline(lines, line);) {
    const size_t equals = line.find('=');
    const std::string key = equals == std::string::npos ? "" : line.substr(0, equals);
    const std::string value =
        equals == std::string::npos ? line : line.substr(equals + 1);
    if (key.empty()) {
      for (const auto& known : Keys()) properties[known] = value;
    } else {
      properties[key] = value;
    }
    (void)floe::ParseJavaLong(value);
    (void)floe::ParseJavaInt(value);
    (void)floe::ParseDigits(value);
    if (auto parsed = floe::ParseDecimalDouble(value)) {
      if (parsed->out_of_range && std::isfinite(parsed->value)) __builtin_trap();
    }
    (void)floe::ParseDurationMs(value);
    (void)floe::ParseByteSize(value);
    (void)floe::iceberg::MetricsMode::Parse(value);
    (void)floe::iceberg::ParseIsolationLevel(value, "isolation-level");
    for (const char* column : {"id", "price", "s"}) {
      for (const char* op : {" = ", " < ", " >= "}) {
        if (auto filter = floe::ParseFilter(column + std::string(op) + value);
            filter.ok())
          (void)floe::Bind(*filter, *kSchema);
      }
    }
  }
  auto metadata = floe::iceberg::NewTableMetadata(*kSchema, *kSpec,
                                                  *floe::iceberg::SortOrder::Unsorted(),
                                                  "memory://fuzz/t", properties);
  if (metadata.ok()) {
    (void)floe::iceberg::CheckWrite(**metadata, properties);
    (void)floe::iceberg::CheckWrite(**metadata, {});
    (void)floe::iceberg::WritePlan::Make(**metadata, properties);
    (void)floe::iceberg::RetryPolicy::FromProperties((*metadata)->properties);
  }
  return 0;
}
