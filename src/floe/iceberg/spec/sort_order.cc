#include "floe/iceberg/spec/sort_order.h"

#include <cctype>
#include <string>

#include "floe/iceberg/spec/json_internal.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/util/error.h"
#include "floe/util/text.h"

namespace floe::iceberg {
namespace {

// Removes `word` (lower case) from the end of `term` when it is a whole word there, in
// any case; says whether it did.
bool TakeTrailingWord(std::string_view* term, std::string_view word) {
  *term = TrimTrailingSpace(*term);
  if (term->size() <= word.size()) return false;
  std::string_view tail = term->substr(term->size() - word.size());
  if (AsciiLower(tail) != word) return false;
  char before = (*term)[term->size() - word.size() - 1];
  if (!std::isspace(static_cast<unsigned char>(before))) return false;
  term->remove_suffix(word.size());
  return true;
}

}  // namespace

arrow::Result<SortOrderPtr> ParseSortBy(std::string_view text, const Schema& schema,
                                        int order_id) {
  auto split = SplitClause(text);
  if (!split.ok()) return WithContext(split.status(), "--sort-by");
  if (split->size() == 1 && split->front().empty()) return SortOrder::Unsorted();
  auto order = std::make_shared<SortOrder>();
  order->order_id = order_id;
  for (std::string_view term : *split) {
    std::string_view rest = term;
    SortField field;
    std::optional<NullOrder> nulls;
    if (TakeTrailingWord(&rest, "first")) {
      if (!TakeTrailingWord(&rest, "nulls")) {
        return MakeError(
            ErrorKind::kInvalidInput,
            "--sort-by term '" + std::string(term) + "': expected NULLS FIRST");
      }
      nulls = NullOrder::kNullsFirst;
    } else if (TakeTrailingWord(&rest, "last")) {
      if (!TakeTrailingWord(&rest, "nulls")) {
        return MakeError(
            ErrorKind::kInvalidInput,
            "--sort-by term '" + std::string(term) + "': expected NULLS LAST");
      }
      nulls = NullOrder::kNullsLast;
    }
    if (TakeTrailingWord(&rest, "desc")) {
      field.direction = SortDirection::kDescending;
    } else {
      TakeTrailingWord(&rest, "asc");
    }
    field.null_order = nulls.value_or(field.direction == SortDirection::kAscending
                                          ? NullOrder::kNullsFirst
                                          : NullOrder::kNullsLast);
    ARROW_ASSIGN_OR_RAISE(auto parsed, ParseTransformTerm(rest, schema, "--sort-by"));
    // A sort field's source is reached through structs only, as a partition field's.
    ARROW_RETURN_NOT_OK(StructPathTo(schema, parsed.source_id,
                                     "--sort-by term '" + std::string(term) + "'")
                            .status());
    if (!schema.FindField(parsed.source_id)->type->is_primitive()) {
      return MakeError(ErrorKind::kInvalidInput, "--sort-by term '" + std::string(term) +
                                                     "': column '" + parsed.column +
                                                     "' is not of a primitive type");
    }
    field.source_id = parsed.source_id;
    field.transform = parsed.transform;
    order->fields.push_back(std::move(field));
  }
  return SortOrderPtr(std::move(order));
}

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

}  // namespace floe::iceberg
