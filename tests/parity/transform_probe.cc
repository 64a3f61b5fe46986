// floe's side of the transform parity test: reads the harness's `transform` request
// ({"cases": [{"type", "transform", "values"}]}) and prints floe's results in the
// harness's format ({"results": [[{"value", "human"}...]...]}), computed by floe's Arrow
// kernels.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "arrow/api.h"
#include "arrow/compute/initialize.h"
#include "arrow/util/decimal.h"
#include "floe/iceberg/transform/partition_path.h"
#include "floe/iceberg/transform/transform_kernels.h"
#include "floe/types/arrow_schema.h"
#include "floe/types/arrow_value.h"

namespace {

using Json = nlohmann::json;

arrow::Result<std::shared_ptr<arrow::Array>> BuildInput(const floe::Type& type,
                                                        const Json& values) {
  ARROW_ASSIGN_OR_RAISE(auto arrow_type, floe::ToArrowType(type));
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(
      arrow::MakeBuilder(arrow::default_memory_pool(), arrow_type, &builder));
  for (const auto& value : values) {
    if (value.is_null()) {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    switch (type.id()) {
      case floe::TypeId::kInt:
        ARROW_RETURN_NOT_OK(
            static_cast<arrow::Int32Builder&>(*builder).Append(value.get<int32_t>()));
        break;
      case floe::TypeId::kDate:
        ARROW_RETURN_NOT_OK(
            static_cast<arrow::Date32Builder&>(*builder).Append(value.get<int32_t>()));
        break;
      case floe::TypeId::kLong:
        ARROW_RETURN_NOT_OK(
            static_cast<arrow::Int64Builder&>(*builder).Append(value.get<int64_t>()));
        break;
      case floe::TypeId::kTimestamp:
      case floe::TypeId::kTimestampTz:
      case floe::TypeId::kTimestampNs:
      case floe::TypeId::kTimestampTzNs:
        ARROW_RETURN_NOT_OK(
            static_cast<arrow::TimestampBuilder&>(*builder).Append(value.get<int64_t>()));
        break;
      case floe::TypeId::kString:
        ARROW_RETURN_NOT_OK(static_cast<arrow::StringBuilder&>(*builder).Append(
            value.get<std::string>()));
        break;
      case floe::TypeId::kFloat:
      case floe::TypeId::kDouble: {
        // Exact values travel as hex floats ("0x1p-1074"), as Java's parseDouble reads
        // them too.
        const std::string text =
            value.is_string() ? value.get<std::string>() : value.dump();
        const double parsed = std::strtod(text.c_str(), nullptr);
        if (type.id() == floe::TypeId::kFloat) {
          ARROW_RETURN_NOT_OK(static_cast<arrow::FloatBuilder&>(*builder).Append(
              static_cast<float>(parsed)));
        } else {
          ARROW_RETURN_NOT_OK(
              static_cast<arrow::DoubleBuilder&>(*builder).Append(parsed));
        }
        break;
      }
      case floe::TypeId::kDecimal: {
        ARROW_ASSIGN_OR_RAISE(auto decimal,
                              arrow::Decimal128::FromString(value.get<std::string>()));
        ARROW_RETURN_NOT_OK(
            static_cast<arrow::Decimal128Builder&>(*builder).Append(decimal));
        break;
      }
      default:
        return arrow::Status::NotImplemented("probe input type ", type.ToString());
    }
  }
  std::shared_ptr<arrow::Array> array;
  ARROW_RETURN_NOT_OK(builder->Finish(&array));
  return array;
}

Json ToJson(const floe::Value& value, const floe::Type& type) {
  if (floe::IsNull(value)) return nullptr;
  switch (type.id()) {
    case floe::TypeId::kInt:
    case floe::TypeId::kDate:
      return std::get<int32_t>(value);
    case floe::TypeId::kLong:
    case floe::TypeId::kTimestamp:
    case floe::TypeId::kTimestampTz:
    case floe::TypeId::kTimestampNs:
    case floe::TypeId::kTimestampTzNs:
      return std::get<int64_t>(value);
    case floe::TypeId::kString:
      return std::get<std::string>(value);
    case floe::TypeId::kFloat:
      return static_cast<double>(std::get<float>(value));
    case floe::TypeId::kDouble:
      return std::get<double>(value);
    case floe::TypeId::kDecimal:
      return floe::DecimalToPlainString(
          std::get<floe::Decimal>(value).unscaled,
          static_cast<const floe::PrimitiveType&>(type).scale());
    default:
      return floe::ValueToString(value, type);
  }
}

arrow::Status Run(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  Json request = Json::parse(text.str());
  Json results = Json::array();
  for (const auto& item : request["cases"]) {
    ARROW_ASSIGN_OR_RAISE(
        auto type, floe::PrimitiveType::FromString(item["type"].get<std::string>()));
    ARROW_ASSIGN_OR_RAISE(auto transform, floe::iceberg::Transform::Parse(
                                              item["transform"].get<std::string>()));
    ARROW_ASSIGN_OR_RAISE(auto input, BuildInput(*type, item["values"]));
    auto output = floe::iceberg::ApplyTransform(transform, *type, input);
    if (!output.ok()) {
      results.push_back(Json{{"error", output.status().message()}});
      continue;
    }
    auto result_type = transform.ResultType(type);
    Json case_results = Json::array();
    for (int64_t row = 0; row < (*output)->length(); ++row) {
      ARROW_ASSIGN_OR_RAISE(auto value,
                            floe::ValueFromArrow(**output, row, *result_type));
      case_results.push_back(Json{{"value", ToJson(value, *result_type)},
                                  {"human", floe::iceberg::PartitionHumanString(
                                                transform, *result_type, value)}});
    }
    results.push_back(std::move(case_results));
  }
  std::cout << Json{{"results", results}}.dump() << "\n";
  return arrow::Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: floe_transform_probe request.json\n";
    return 2;
  }
  if (!arrow::compute::Initialize().ok()) return 1;
  auto status = Run(argv[1]);
  if (!status.ok()) {
    std::cerr << status.ToString() << "\n";
    return 1;
  }
  return 0;
}
