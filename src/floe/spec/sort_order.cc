#include "floe/spec/sort_order.h"

#include "floe/spec/json_internal.h"
#include "floe/spec/table_metadata.h"

namespace floe {

std::shared_ptr<const SortOrder> SortOrder::Unsorted() {
  static const auto kUnsorted = std::make_shared<const SortOrder>();
  return kUnsorted;
}

namespace json_internal {

OrderedJson SortOrderToJsonValue(const SortOrder& order) {
  OrderedJson json;
  json["order-id"] = order.order_id;
  OrderedJson fields = OrderedJson::array();
  for (const auto& field : order.fields) {
    OrderedJson item;
    item["transform"] = field.transform.ToString();
    item["source-id"] = field.source_id;
    item["direction"] = field.direction == SortDirection::kAscending ? "asc" : "desc";
    item["null-order"] =
        field.null_order == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last";
    fields.push_back(std::move(item));
  }
  json["fields"] = std::move(fields);
  return json;
}

arrow::Result<SortOrderPtr> SortOrderFromJsonValue(const Json& json) {
  auto order = std::make_shared<SortOrder>();
  ARROW_ASSIGN_OR_RAISE(order->order_id, GetInt(json, "order-id", "sort order"));
  ARROW_ASSIGN_OR_RAISE(const Json* fields, Member(json, "fields", "sort order"));
  if (!fields->is_array()) {
    return MakeError(ErrorKind::kInvalidMetadata, "sort order fields is not an array");
  }
  for (const auto& item : *fields) {
    SortField field;
    ARROW_ASSIGN_OR_RAISE(std::string transform,
                          GetString(item, "transform", "sort field"));
    ARROW_ASSIGN_OR_RAISE(field.transform, Transform::Parse(transform));
    ARROW_ASSIGN_OR_RAISE(field.source_id, GetInt(item, "source-id", "sort field"));
    ARROW_ASSIGN_OR_RAISE(std::string direction,
                          GetString(item, "direction", "sort field"));
    ARROW_ASSIGN_OR_RAISE(std::string null_order,
                          GetString(item, "null-order", "sort field"));
    if (direction != "asc" && direction != "desc") {
      return MakeError(ErrorKind::kInvalidMetadata, "sort direction '" + direction + "'");
    }
    if (null_order != "nulls-first" && null_order != "nulls-last") {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "sort null order '" + null_order + "'");
    }
    field.direction =
        direction == "asc" ? SortDirection::kAscending : SortDirection::kDescending;
    field.null_order =
        null_order == "nulls-first" ? NullOrder::kNullsFirst : NullOrder::kNullsLast;
    order->fields.push_back(std::move(field));
  }
  return SortOrderPtr(std::move(order));
}

}  // namespace json_internal

std::string SortOrderToJson(const SortOrder& order) {
  return json_internal::SortOrderToJsonValue(order).dump();
}

arrow::Result<SortOrderPtr> SortOrderFromJson(std::string_view text) {
  ARROW_ASSIGN_OR_RAISE(auto json, json_internal::Parse(text, "sort order"));
  return json_internal::SortOrderFromJsonValue(json);
}

}  // namespace floe
