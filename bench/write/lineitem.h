// A deterministic TPC-H-lineitem-like data set, generated batch by batch (never whole).
#pragma once

#include <cstdint>
#include <memory>

#include "arrow/record_batch.h"

namespace floe::bench {

/// The lineitem columns, with l_shipdate rising through the rows (so the input is
/// clustered by day) over `days` days from 1995-01-01.
std::shared_ptr<arrow::Schema> LineitemSchema();

/// Streams `rows` rows in batches of `batch_rows`; the same arguments give the same rows.
std::shared_ptr<arrow::RecordBatchReader> MakeLineitemReader(int64_t rows,
                                                             int64_t batch_rows, int days,
                                                             uint64_t seed);

/// floe's schema text for the same columns.
const char* LineitemSchemaText();

}  // namespace floe::bench
