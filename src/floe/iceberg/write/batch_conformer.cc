#include "floe/iceberg/write/batch_conformer.h"

#include "arrow/type.h"
#include "floe/types/arrow_schema.h"

namespace floe::iceberg {

arrow::Result<std::unique_ptr<BatchConformer>> MakeBatchConformer(
    const arrow::Schema& input, const Schema& table_schema,
    const std::string& table_name) {
  ARROW_ASSIGN_OR_RAISE(auto target, ToArrowSchema(table_schema));
  return BatchConformer::Make(input, std::move(target), "table " + table_name);
}

}  // namespace floe::iceberg
