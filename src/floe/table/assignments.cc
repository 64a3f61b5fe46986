#include "floe/table/assignments.h"

#include <cctype>
#include <set>
#include <string_view>

#include "arrow/compute/initialize.h"
#include "arrow/record_batch.h"
#include "arrow/scalar.h"
#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/spec/arrow_schema.h"
#include "floe/spec/arrow_value.h"
#include "floe/util/error.h"
#include "floe/util/field_id.h"
#include "floe/util/text.h"

namespace floe {
namespace {

using Evaluate = std::function<arrow::Result<arrow::Datum>(const arrow::RecordBatch&)>;

// "a = 1, b = 'x, y'" split at the commas outside single quotes ('' inside quotes is a
// quote) and parentheses.
std::vector<std::string> SplitAssignments(const std::string& text) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  int depth = 0;
  for (char c : text) {
    if (c == '\'') quoted = !quoted;
    if (!quoted && c == '(') ++depth;
    if (!quoted && c == ')') --depth;
    if (c == ',' && !quoted && depth == 0) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

std::string Trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

// `value` as a literal of `field`'s type, as the filter "field = value" binds it (so it
// converts exactly as a filter's literal does); an error when it is not one.
arrow::Result<std::shared_ptr<arrow::Scalar>> LiteralOf(const std::string& value,
                                                        const NestedField& field,
                                                        const Schema& schema) {
  std::string quoted;
  for (char c : field.name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  auto parsed = ParseFilter("\"" + quoted + "\" = " + value);
  if (!parsed.ok() || (*parsed)->op != Operation::kEq) {
    return MakeError(ErrorKind::kInvalidInput, "not a literal of the filter syntax");
  }
  auto bound = Bind(*parsed, schema);
  if (!bound.ok()) return MakeError(ErrorKind::kInvalidInput, bound.status().message());
  if (!(*bound)->is_predicate() || (*bound)->values.size() != 1) {
    return MakeError(ErrorKind::kInvalidInput,
                     "not a literal of column " + field.name + "'s type");
  }
  return ValueToArrowScalar((*bound)->value(), *field.type);
}

bool IsInteger(TypeId id) { return id == TypeId::kInt || id == TypeId::kLong; }
bool IsFloating(TypeId id) { return id == TypeId::kFloat || id == TypeId::kDouble; }

// Whether a column of type `from` may stand in arithmetic for `to`'s type: the same type,
// or widened within its kind (int to long, float to double), or an integer to a
// floating-point type (as SQL's numeric promotion).
bool Widens(const Type& from, const Type& to) {
  if (from.Equals(to)) return true;
  if (IsInteger(from.id()) && to.id() == TypeId::kLong) return true;
  if (from.id() == TypeId::kFloat && to.id() == TypeId::kDouble) return true;
  return IsInteger(from.id()) && IsFloating(to.id());
}

// Arithmetic over the row's columns for one target column (recursive descent):
//   sum := product (('+' | '-') product)*
//   product := unary (('*' | '/') unary)*
//   unary := '-' unary | '(' sum ')' | column | number
class ArithmeticParser {
 public:
  ArithmeticParser(std::string_view text, const NestedField& target, const Schema& schema)
      : text_(text), target_(target), schema_(schema) {}

  arrow::Result<Evaluate> Parse() {
    // The arithmetic kernels live in libarrow_compute, registered once per process.
    ARROW_RETURN_NOT_OK(arrow::compute::Initialize());
    ARROW_ASSIGN_OR_RAISE(target_type_, ToArrowType(*target_.type));
    ARROW_ASSIGN_OR_RAISE(auto sum, ParseSum(0));
    SkipSpace();
    if (pos_ != text_.size())
      return Fail("unexpected '" + std::string(text_.substr(pos_)) + "'");
    // The result in the column's own type (a decimal sum is one digit wider).
    return Evaluate([sum, type = target_type_](
                        const arrow::RecordBatch& batch) -> arrow::Result<arrow::Datum> {
      ARROW_ASSIGN_OR_RAISE(auto value, sum(batch));
      if (value.type()->Equals(*type)) return value;
      return arrow::compute::Cast(value, type, arrow::compute::CastOptions::Safe());
    });
  }

 private:
  arrow::Status Fail(const std::string& why) const {
    return MakeError(ErrorKind::kInvalidInput, why);
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }

  bool Accept(char symbol) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == symbol) {
      ++pos_;
      return true;
    }
    return false;
  }

  // The Arrow compute function of `op` on the target's type; an error where the target
  // type does not take it.
  arrow::Result<std::string> Function(char op) const {
    const TypeId id = target_.type->id();
    const bool floating = IsFloating(id);
    if (!IsInteger(id) && !floating && id != TypeId::kDecimal) {
      return Fail("column " + target_.name + " is not numeric: only literals can set it");
    }
    switch (op) {
      case '+':
        return std::string("add_checked");
      case '-':
        return std::string("subtract_checked");
      case '*':
        if (id == TypeId::kDecimal) break;
        return std::string("multiply_checked");
      case '/':
        if (!floating) break;
        return std::string("divide_checked");
      default:
        break;
    }
    return Fail(std::string("'") + op + "' is not offered for column " + target_.name +
                " of type " + target_.type->ToString() +
                " (decimals take + and -, integers + - *, floating-point + - * /)");
  }

  arrow::Result<Evaluate> Binary(char op, Evaluate left, Evaluate right) const {
    ARROW_ASSIGN_OR_RAISE(std::string function, Function(op));
    return Evaluate([function, left = std::move(left), right = std::move(right)](
                        const arrow::RecordBatch& batch) -> arrow::Result<arrow::Datum> {
      ARROW_ASSIGN_OR_RAISE(auto a, left(batch));
      ARROW_ASSIGN_OR_RAISE(auto b, right(batch));
      return arrow::compute::CallFunction(function, {a, b});
    });
  }

  arrow::Result<Evaluate> ParseSum(int depth) {
    ARROW_ASSIGN_OR_RAISE(auto left, ParseProduct(depth));
    while (true) {
      if (Accept('+')) {
        ARROW_ASSIGN_OR_RAISE(auto right, ParseProduct(depth));
        ARROW_ASSIGN_OR_RAISE(left, Binary('+', std::move(left), std::move(right)));
      } else if (Accept('-')) {
        ARROW_ASSIGN_OR_RAISE(auto right, ParseProduct(depth));
        ARROW_ASSIGN_OR_RAISE(left, Binary('-', std::move(left), std::move(right)));
      } else {
        return left;
      }
    }
  }

  arrow::Result<Evaluate> ParseProduct(int depth) {
    ARROW_ASSIGN_OR_RAISE(auto left, ParseUnary(depth));
    while (true) {
      if (Accept('*')) {
        ARROW_ASSIGN_OR_RAISE(auto right, ParseUnary(depth));
        ARROW_ASSIGN_OR_RAISE(left, Binary('*', std::move(left), std::move(right)));
      } else if (Accept('/')) {
        ARROW_ASSIGN_OR_RAISE(auto right, ParseUnary(depth));
        ARROW_ASSIGN_OR_RAISE(left, Binary('/', std::move(left), std::move(right)));
      } else {
        return left;
      }
    }
  }

  arrow::Result<Evaluate> ParseUnary(int depth) {
    if (depth > 64) return Fail("the expression nests too deeply");
    if (Accept('-')) {
      ARROW_RETURN_NOT_OK(Function('-'));  // numeric targets only
      ARROW_ASSIGN_OR_RAISE(auto operand, ParseUnary(depth + 1));
      return Evaluate([operand = std::move(operand)](const arrow::RecordBatch& batch)
                          -> arrow::Result<arrow::Datum> {
        ARROW_ASSIGN_OR_RAISE(auto value, operand(batch));
        return arrow::compute::CallFunction("negate_checked", {value});
      });
    }
    if (Accept('(')) {
      ARROW_ASSIGN_OR_RAISE(auto inner, ParseSum(depth + 1));
      if (!Accept(')')) return Fail("expected ')'");
      return inner;
    }
    SkipSpace();
    if (pos_ >= text_.size()) return Fail("expected a column or a number");
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return ParseNumber();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '"' || c == '`') {
      return ParseColumn();
    }
    return Fail(std::string("unexpected '") + c +
                "' (only columns, numbers and + - * / ( ) combine)");
  }

  arrow::Result<Evaluate> ParseNumber() {
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
            ((text_[pos_] == '+' || text_[pos_] == '-') && pos_ > start &&
             (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
      ++pos_;
    }
    const std::string number(text_.substr(start, pos_ - start));
    ARROW_RETURN_NOT_OK(Function('+'));  // numeric targets only
    auto literal = LiteralOf(number, target_, schema_);
    if (!literal.ok()) return Fail(number + ": " + literal.status().message());
    arrow::Datum value(*literal);
    return Evaluate([value](const arrow::RecordBatch&) -> arrow::Result<arrow::Datum> {
      return value;
    });
  }

  arrow::Result<Evaluate> ParseColumn() {
    std::string name;
    const char quote = text_[pos_];
    if (quote == '"' || quote == '`') {
      ++pos_;
      while (true) {
        if (pos_ >= text_.size()) return Fail("unterminated quoted column name");
        if (text_[pos_] == quote) {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == quote) {
            name += quote;
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        name += text_[pos_++];
      }
    } else {
      while (
          pos_ < text_.size() &&
          (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        name += text_[pos_++];
      }
    }
    const NestedField* field = nullptr;
    for (const auto& top : schema_.fields()) {
      if (top.name == name) field = &top;
    }
    if (field == nullptr) return Fail("no top-level column " + name);
    ARROW_RETURN_NOT_OK(Function('+'));  // numeric targets only
    if (!field->type->is_primitive() || !Widens(*field->type, *target_.type)) {
      return Fail("column " + name + " (" + field->type->ToString() +
                  ") cannot stand in arithmetic for " + target_.name + " (" +
                  target_.type->ToString() + ")");
    }
    return Evaluate([id = field->id, type = target_type_](
                        const arrow::RecordBatch& batch) -> arrow::Result<arrow::Datum> {
      for (int i = 0; i < batch.num_columns(); ++i) {
        if (ArrowFieldId(*batch.schema()->field(i)) != id) continue;
        arrow::Datum column(batch.column(i));
        if (column.type()->Equals(*type)) return column;
        return arrow::compute::Cast(column, type, arrow::compute::CastOptions::Safe());
      }
      return arrow::Status::Invalid("column with field id " + std::to_string(id) +
                                    " is not in the rows read");
    });
  }

  std::string_view text_;
  const NestedField& target_;
  const Schema& schema_;
  std::shared_ptr<arrow::DataType> target_type_;
  size_t pos_ = 0;
};

}  // namespace

arrow::Result<std::vector<Assignment>> ParseAssignments(const std::string& text,
                                                        const Schema& schema) {
  std::vector<Assignment> assignments;
  std::set<int> assigned;
  for (const std::string& raw : SplitAssignments(text)) {
    const std::string part = Trimmed(raw);
    const auto equals = part.find('=');
    auto bad = [&](const std::string& why) {
      return MakeError(ErrorKind::kInvalidInput, "--set '" + part + "': " + why);
    };
    if (equals == std::string::npos) return bad("expected column = value");
    const std::string name = Trimmed(part.substr(0, equals));
    const std::string value = Trimmed(part.substr(equals + 1));
    if (name.empty() || value.empty()) return bad("expected column = value");
    const NestedField* field = nullptr;
    for (const auto& top : schema.fields()) {
      if (top.name == name) field = &top;
    }
    if (field == nullptr) {
      return bad("no top-level column " + name + " (nested fields cannot be set yet)");
    }
    if (!field->type->is_primitive()) {
      return bad("column " + name + " is not of a primitive type");
    }
    if (!assigned.insert(field->id).second)
      return bad("column " + name + " is set twice");
    Assignment assignment;
    assignment.field_id = field->id;
    assignment.text = part;
    assignment.required = field->required;
    if (AsciiLower(value) == "null") {
      if (field->required)
        return bad("column " + name + " is required: it cannot be NULL");
      ARROW_ASSIGN_OR_RAISE(auto null, ValueToArrowScalar(Value{}, *field->type));
      assignment.evaluate = [null = arrow::Datum(null)](const arrow::RecordBatch&) {
        return arrow::Result<arrow::Datum>(null);
      };
    } else if (auto literal = LiteralOf(value, *field, schema); literal.ok()) {
      assignment.evaluate = [literal =
                                 arrow::Datum(*literal)](const arrow::RecordBatch&) {
        return arrow::Result<arrow::Datum>(literal);
      };
    } else {
      // Not a literal: arithmetic of the row's columns, for a numeric column.
      const TypeId id = field->type->id();
      if (!IsInteger(id) && !IsFloating(id) && id != TypeId::kDecimal) {
        return bad(literal.status().message());
      }
      auto arithmetic = ArithmeticParser(value, *field, schema).Parse();
      if (!arithmetic.ok()) {
        return bad(arithmetic.status().message() + " (nor is it " +
                   literal.status().message() + ")");
      }
      assignment.evaluate = std::move(*arithmetic);
    }
    assignments.push_back(std::move(assignment));
  }
  return assignments;
}

}  // namespace floe
