#include "floe/iceberg/spec/sort_order.h"

#include <gtest/gtest.h>

#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

// --sort-by text: iceberg-java's defaults (asc puts nulls first, desc last), any case,
// transforms as in --partition-by, nested struct fields; bad terms name themselves.
TEST(SortOrderTest, ParsesSortClauses) {
  FLOE_ASSIGN_OR_FAIL(auto schema,
                      ParseSchemaText("id long, ts timestamptz, `odd name` string, "
                                      "s struct<a: int>, tags list<string>"));
  FLOE_ASSIGN_OR_FAIL(auto order,
                      ParseSortBy("days(ts) DESC, id asc nulls last, "
                                  "`odd name`, bucket(4, id) Nulls First, s.a desc",
                                  *schema));
  EXPECT_EQ(order->order_id, 1);
  ASSERT_EQ(order->fields.size(), 5u);
  EXPECT_EQ(
      SortOrderToJson(*order),
      R"({"order-id":1,"fields":[)"
      R"({"transform":"day","source-id":2,"direction":"desc","null-order":"nulls-last"},)"
      R"({"transform":"identity","source-id":1,"direction":"asc","null-order":"nulls-last"},)"
      R"({"transform":"identity","source-id":3,"direction":"asc","null-order":"nulls-first"},)"
      R"({"transform":"bucket[4]","source-id":1,"direction":"asc","null-order":"nulls-first"},)"
      R"({"transform":"identity","source-id":6,"direction":"desc","null-order":"nulls-last"}]})");
  FLOE_ASSIGN_OR_FAIL(auto unsorted, ParseSortBy("  ", *schema));
  EXPECT_TRUE(unsorted->IsUnsorted());
  EXPECT_EQ(unsorted->order_id, 0);
  for (const char* bad : {"id first", "missing desc", "tags.element", "s", "day(id)",
                          "id sideways", "id,"}) {
    auto parsed = ParseSortBy(bad, *schema);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(KindOf(parsed.status()), ErrorKind::kInvalidInput) << bad;
    EXPECT_NE(parsed.status().message().find("--sort-by term"), std::string::npos)
        << parsed.status().message();
  }
}

}  // namespace
}  // namespace floe::iceberg
