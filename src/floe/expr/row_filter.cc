#include "floe/expr/row_filter.h"

#include <mutex>

#include "arrow/array.h"
#include "arrow/array/builder_base.h"
#include "arrow/array/util.h"
#include "arrow/compute/api.h"
#include "arrow/compute/expression.h"
#include "arrow/compute/initialize.h"
#include "arrow/extension_type.h"
#include "floe/types/arrow_schema.h"
#include "floe/types/arrow_value.h"
#include "floe/util/error.h"

namespace floe {
namespace cp = arrow::compute;
namespace {

arrow::Status EnsureCompute() {
  static std::once_flag once;
  static arrow::Status status;
  std::call_once(once, [] { status = cp::Initialize(); });
  return status;
}

bool HasExtension(const arrow::DataType& type) {
  if (type.id() == arrow::Type::EXTENSION) return true;
  if (type.id() != arrow::Type::STRUCT) return false;
  for (const auto& field : type.fields()) {
    if (HasExtension(*field->type())) return true;
  }
  return false;
}

// Extension arrays (uuid) replaced by their storage, inside structs too, so that Arrow's
// comparison kernels apply; field metadata (the field ids) is kept.
arrow::Result<std::shared_ptr<arrow::Array>> StripExtensions(
    const std::shared_ptr<arrow::Array>& array) {
  if (array->type_id() == arrow::Type::EXTENSION) {
    return StripExtensions(static_cast<const arrow::ExtensionArray&>(*array).storage());
  }
  if (array->type_id() != arrow::Type::STRUCT || !HasExtension(*array->type()))
    return array;
  const auto& source = static_cast<const arrow::StructArray&>(*array);
  arrow::ArrayVector children;
  arrow::FieldVector fields;
  for (int i = 0; i < source.num_fields(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto child, StripExtensions(source.field(i)));
    fields.push_back(source.type()->field(i)->WithType(child->type()));
    children.push_back(std::move(child));
  }
  std::shared_ptr<arrow::Buffer> validity;
  if (source.null_count() > 0) {
    ARROW_ASSIGN_OR_RAISE(auto valid, cp::IsValid(array));
    validity = valid.make_array()->data()->buffers[1];
  }
  return arrow::StructArray::Make(children, fields, validity);
}

bool FindPath(const arrow::FieldVector& fields, int field_id, std::vector<int>* path) {
  for (int i = 0; i < static_cast<int>(fields.size()); ++i) {
    path->push_back(i);
    if (ArrowFieldId(*fields[i]) == field_id) return true;
    if (fields[i]->type()->id() == arrow::Type::STRUCT &&
        FindPath(fields[i]->type()->fields(), field_id, path)) {
      return true;
    }
    path->pop_back();
  }
  return false;
}

arrow::Result<std::shared_ptr<arrow::Scalar>> LiteralScalar(const Value& value,
                                                            const Type& type) {
  ARROW_ASSIGN_OR_RAISE(auto scalar, ValueToArrowScalar(value, type));
  if (scalar->type->id() == arrow::Type::EXTENSION) {
    return static_cast<const arrow::ExtensionScalar&>(*scalar).value;
  }
  return scalar;
}

arrow::Result<cp::Expression> Build(const Expression& filter,
                                    const arrow::Schema& schema) {
  switch (filter.op) {
    case Operation::kTrue:
      return cp::literal(true);
    case Operation::kFalse:
      return cp::literal(false);
    case Operation::kAnd:
    case Operation::kOr: {
      ARROW_ASSIGN_OR_RAISE(auto left, Build(*filter.left, schema));
      ARROW_ASSIGN_OR_RAISE(auto right, Build(*filter.right, schema));
      return cp::call(filter.op == Operation::kAnd ? "and_kleene" : "or_kleene",
                      {left, right});
    }
    case Operation::kNot: {
      ARROW_ASSIGN_OR_RAISE(auto child, Build(*filter.left, schema));
      return cp::call("invert", {child});
    }
    default:
      break;
  }
  std::vector<int> path;
  if (!FindPath(schema.fields(), filter.field_id, &path)) {
    return arrow::Status::Invalid("filter column ", filter.column, " (field id ",
                                  filter.field_id, ") is not in the rows read");
  }
  cp::Expression column = cp::field_ref(arrow::FieldRef(arrow::FieldPath(path)));
  auto compare = [&](const char* function) -> arrow::Result<cp::Expression> {
    ARROW_ASSIGN_OR_RAISE(auto scalar, LiteralScalar(filter.value(), *filter.type));
    return cp::call(function, {column, cp::literal(std::move(scalar))});
  };
  auto is_nan = [&] {
    return cp::call("and_kleene",
                    {cp::call("is_valid", {column}), cp::call("is_nan", {column})});
  };
  // IN is a disjunction of equalities: for floats -0.0 equals 0.0, which Arrow's hash
  // lookup (bitwise) would not see, so both sides get x + 0.0 (that turns -0.0 into 0.0
  // and keeps every other value, NaN included).
  const bool floating =
      filter.type->id() == TypeId::kFloat || filter.type->id() == TypeId::kDouble;
  auto normalize_zero = [&](cp::Expression value) {
    if (!floating) return value;
    std::shared_ptr<arrow::Scalar> zero = filter.type->id() == TypeId::kFloat
                                              ? arrow::MakeScalar(0.0f)
                                              : arrow::MakeScalar(0.0);
    return cp::call("add", {std::move(value), cp::literal(std::move(zero))});
  };
  auto is_in = [&]() -> arrow::Result<cp::Expression> {
    ARROW_ASSIGN_OR_RAISE(auto first, LiteralScalar(filter.values.front(), *filter.type));
    ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(first->type));
    for (const auto& value : filter.values) {
      Value normalized = value;
      if (auto* f = std::get_if<float>(&normalized)) *f += 0.0f;
      if (auto* d = std::get_if<double>(&normalized)) *d += 0.0;
      ARROW_ASSIGN_OR_RAISE(auto scalar, LiteralScalar(normalized, *filter.type));
      ARROW_RETURN_NOT_OK(builder->AppendScalar(*scalar));
    }
    ARROW_ASSIGN_OR_RAISE(auto set, builder->Finish());
    return cp::call("is_in", {normalize_zero(column)},
                    cp::SetLookupOptions(set, cp::SetLookupOptions::EMIT_NULL));
  };
  auto starts_with = [&] {
    return cp::call("starts_with", {column},
                    cp::MatchSubstringOptions(std::get<std::string>(filter.value())));
  };
  switch (filter.op) {
    case Operation::kIsNull:
      return cp::call("is_null", {column});
    case Operation::kNotNull:
      return cp::call("is_valid", {column});
    case Operation::kIsNaN:
      return is_nan();
    case Operation::kNotNaN:
      return cp::call("invert", {is_nan()});
    case Operation::kLt:
      return compare("less");
    case Operation::kLtEq:
      return compare("less_equal");
    case Operation::kGt:
      return compare("greater");
    case Operation::kGtEq:
      return compare("greater_equal");
    case Operation::kEq:
      return compare("equal");
    case Operation::kNotEq:
      return compare("not_equal");
    case Operation::kIn:
      return is_in();
    case Operation::kNotIn: {
      ARROW_ASSIGN_OR_RAISE(auto in, is_in());
      return cp::call("invert", {in});
    }
    case Operation::kStartsWith:
      return starts_with();
    case Operation::kNotStartsWith:
      return cp::call("invert", {starts_with()});
    default:
      return arrow::Status::Invalid("unsupported filter operation");
  }
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Array>> EvaluateFilter(
    const Expression& filter, const std::shared_ptr<arrow::RecordBatch>& batch) {
  ARROW_RETURN_NOT_OK(EnsureCompute());
  arrow::ArrayVector columns;
  arrow::FieldVector fields;
  for (int i = 0; i < batch->num_columns(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto column, StripExtensions(batch->column(i)));
    fields.push_back(batch->schema()->field(i)->WithType(column->type()));
    columns.push_back(std::move(column));
  }
  auto stripped =
      arrow::RecordBatch::Make(arrow::schema(fields), batch->num_rows(), columns);
  ARROW_ASSIGN_OR_RAISE(auto expression, Build(filter, *stripped->schema()));
  ARROW_ASSIGN_OR_RAISE(expression, expression.Bind(*stripped->schema()));
  ARROW_ASSIGN_OR_RAISE(
      auto mask, cp::ExecuteScalarExpression(expression, cp::ExecBatch(*stripped)));
  if (mask.is_scalar())
    return arrow::MakeArrayFromScalar(*mask.scalar(), batch->num_rows());
  return mask.make_array();
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> FilterBatch(
    const Expression& filter, const std::shared_ptr<arrow::RecordBatch>& batch) {
  if (filter.op == Operation::kTrue) return batch;
  ARROW_ASSIGN_OR_RAISE(auto mask, EvaluateFilter(filter, batch));
  ARROW_ASSIGN_OR_RAISE(auto filtered,
                        cp::Filter(batch, mask, cp::FilterOptions::Defaults()));
  return filtered.record_batch();
}

}  // namespace floe
