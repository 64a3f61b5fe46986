// floe._floe's module functions: its version, a split write's plan described and derived
// (floe.spark), a partition transform applied as a table applies it, an Iceberg schema's
// Arrow form, and the floe command's parsers of sizes and durations ('2G', '7d').
#include <memory>
#include <string>
#include <vector>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/record_batch.h"
#include "arrow/type.h"
#include "bindings_internal.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/iceberg/transform/transform_kernels.h"
#include "floe/iceberg/write/write_plan.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/duration.h"
#include "floe/util/error.h"
#include "floe/util/text.h"

using namespace nb::literals;

namespace floe::python {
namespace {

// `transform` applied to the values of the stream's one column, read as the type of the
// one field of `schema_json` (an Iceberg schema), as a table's partitioning applies it:
// one stream of a single column "value".
nb::capsule ApplyTransformTo(const std::string& schema_json,
                             const std::string& transform_text, nb::handle values) {
  SchemaPtr schema = Unwrap(iceberg::SchemaFromJson(schema_json));
  if (schema->fields().size() != 1) {
    Throw(MakeError(ErrorKind::kInvalidInput, "a transform's schema has one field"));
  }
  TypePtr type = schema->fields().front().type;
  auto transform = Unwrap(iceberg::Transform::Parse(transform_text));
  auto input = ImportStream(values);
  if (input->schema()->num_fields() != 1) {
    Throw(MakeError(ErrorKind::kInvalidInput, "a transform takes one column"));
  }
  auto batches = RunReleased([&] {
    std::vector<std::shared_ptr<arrow::RecordBatch>> out;
    for (;;) {
      auto batch = Unwrap(input->Next());
      if (!batch) break;
      auto result = Unwrap(iceberg::ApplyTransform(transform, *type, batch->column(0)));
      out.push_back(
          arrow::RecordBatch::Make(arrow::schema({arrow::field("value", result->type())}),
                                   result->length(), {result}));
    }
    return out;
  });
  std::shared_ptr<arrow::Schema> result_schema;
  if (batches.empty()) {
    auto empty = Unwrap(arrow::MakeEmptyArray(input->schema()->field(0)->type()));
    auto applied = Unwrap(iceberg::ApplyTransform(transform, *type, empty));
    result_schema = arrow::schema({arrow::field("value", applied->type())});
  } else {
    result_schema = batches.front()->schema();
  }
  return ExportStream(Unwrap(arrow::RecordBatchReader::Make(batches, result_schema)));
}

nb::dict DescribePlan(const nb::bytes& plan_text) {
  std::string text(plan_text.c_str(), plan_text.size());
  auto plan = Unwrap(iceberg::WritePlan::Deserialize(text));
  nb::dict out;
  out["table_location"] = plan->table_location;
  out["operation_id"] = plan->operation_id;
  out["format_version"] = plan->format_version;
  out["mode"] = std::string(WriterModeName(plan->mode));
  out["distribution"] = std::string(iceberg::DistributionName(plan->distribution));
  if (plan->base_snapshot_id) {
    out["base_snapshot_id"] = *plan->base_snapshot_id;
  } else {
    out["base_snapshot_id"] = nb::none();
  }
  return out;
}

nb::bytes DerivePlan(const nb::bytes& plan_text, const std::string& part) {
  std::string text(plan_text.c_str(), plan_text.size());
  std::string derived =
      Unwrap(iceberg::WritePlan::Deserialize(text))->Derive(part)->Serialize();
  return nb::bytes(derived.data(), derived.size());
}

}  // namespace

void BindUtilities(nb::module_& m) {
  m.def("version", [] { return std::string(FLOE_VERSION); });
  m.def("describe_plan", &DescribePlan, "plan"_a);
  m.def("derive_plan", &DerivePlan, "plan"_a, "part"_a);
  m.def("apply_transform", &ApplyTransformTo, "schema_json"_a, "transform"_a, "values"_a);
  m.def(
      "arrow_schema_of",
      [](const std::string& schema_json) {
        return ExportSchema(*Unwrap(
            floe::ToArrowSchema(*Unwrap(floe::iceberg::SchemaFromJson(schema_json)))));
      },
      "schema_json"_a);
  m.def(
      "parse_byte_size",
      [](const std::string& text) { return Unwrap(floe::ParseByteSize(text)); },
      "text"_a);
  m.def(
      "parse_duration_ms",
      [](const std::string& text) { return Unwrap(floe::ParseDurationMs(text)); },
      "text"_a);
}

}  // namespace floe::python
