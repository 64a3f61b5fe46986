// Input batches fitted to an Iceberg table's schema: the shared BatchConformer
// (task/batch_conformer.h) over the schema's Arrow form, field ids attached.
#pragma once

#include <memory>
#include <string>

#include "arrow/type_fwd.h"
#include "floe/task/batch_conformer.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// A BatchConformer from `input` to `table_schema`'s Arrow form; errors name the table as
/// "table <table_name>" and the column.
arrow::Result<std::unique_ptr<BatchConformer>> MakeBatchConformer(
    const arrow::Schema& input, const Schema& table_schema,
    const std::string& table_name);

}  // namespace floe::iceberg
