// Sort orders: the order a table asks writers to produce.
#pragma once

#include <memory>
#include <vector>

#include "floe/spec/transform.h"

namespace floe {

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

}  // namespace floe
