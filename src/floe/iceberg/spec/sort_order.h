// Sort orders: the order a table asks writers to produce.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/spec/transform.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

enum class SortDirection { kAscending, kDescending };
enum class NullOrder { kNullsFirst, kNullsLast };

struct SortField {
  Transform transform;
  int source_id = 0;
  SortDirection direction = SortDirection::kAscending;
  NullOrder null_order = NullOrder::kNullsFirst;
  bool operator==(const SortField&) const = default;
};

/// Immutable; share as std::shared_ptr<const SortOrder>. Order id 0 is reserved for
/// unsorted.
struct SortOrder {
  int order_id = 0;
  std::vector<SortField> fields;

  bool IsUnsorted() const { return fields.empty(); }
  /// The unsorted order (id 0, no fields).
  static std::shared_ptr<const SortOrder> Unsorted();
};

using SortOrderPtr = std::shared_ptr<const SortOrder>;

/// Parses a sort clause such as "day(ts), region desc, bucket(16, id) asc nulls last"
/// into an order bound to `schema` with id `order_id`. A term is a partition-style
/// transform term (see ParseTransformTerm) followed by an optional ASC or DESC and an
/// optional NULLS FIRST or NULLS LAST, any case; as in iceberg-java, ascending puts nulls
/// first and descending last unless told. A column inside a list or map, unknown words or
/// malformed text give InvalidInput naming the term. Empty text gives the unsorted order.
arrow::Result<SortOrderPtr> ParseSortBy(std::string_view text, const Schema& schema,
                                        int order_id = 1);

}  // namespace floe::iceberg
