#include "floe/iceberg/table/assignments_internal.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <string_view>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/builder.h"
#include "arrow/compute/initialize.h"
#include "arrow/record_batch.h"
#include "arrow/scalar.h"
#include "arrow/util/decimal.h"
#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/types/arrow_schema.h"
#include "floe/types/arrow_value.h"
#include "floe/util/error.h"
#include "floe/util/field_id.h"
#include "floe/util/text.h"

namespace floe::iceberg {
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

arrow::Status Refuse(const std::string& why) {
  return MakeError(ErrorKind::kInvalidInput, why);
}

// An arithmetic expression as parsed, before it is typed for its target column.
struct Ast {
  char op = 0;  // '+', '-', '*', '/', 'n' (negate), 'c' (column), '#' (number)
  std::vector<Ast> args;
  const NestedField* column = nullptr;
  std::string number;
};

// Arithmetic over the row's columns (recursive descent):
//   sum := product (('+' | '-') product)*
//   product := unary (('*' | '/') unary)*
//   unary := '-' unary | '(' sum ')' | column | number
class ArithmeticParser {
 public:
  ArithmeticParser(std::string_view text, const Schema& schema)
      : text_(text), schema_(schema) {}

  arrow::Result<Ast> Parse() {
    ARROW_ASSIGN_OR_RAISE(auto sum, ParseSum(0));
    SkipSpace();
    if (pos_ != text_.size())
      return Refuse("unexpected '" + std::string(text_.substr(pos_)) + "'");
    return sum;
  }

 private:
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

  static Ast Binary(char op, Ast left, Ast right) {
    Ast node;
    node.op = op;
    node.args.push_back(std::move(left));
    node.args.push_back(std::move(right));
    return node;
  }

  arrow::Result<Ast> ParseSum(int depth) {
    ARROW_ASSIGN_OR_RAISE(auto left, ParseProduct(depth));
    while (true) {
      char op = Accept('+') ? '+' : (Accept('-') ? '-' : 0);
      if (!op) return left;
      ARROW_ASSIGN_OR_RAISE(auto right, ParseProduct(depth));
      left = Binary(op, std::move(left), std::move(right));
    }
  }

  arrow::Result<Ast> ParseProduct(int depth) {
    ARROW_ASSIGN_OR_RAISE(auto left, ParseUnary(depth));
    while (true) {
      char op = Accept('*') ? '*' : (Accept('/') ? '/' : 0);
      if (!op) return left;
      ARROW_ASSIGN_OR_RAISE(auto right, ParseUnary(depth));
      left = Binary(op, std::move(left), std::move(right));
    }
  }

  arrow::Result<Ast> ParseUnary(int depth) {
    if (depth > 64) return Refuse("the expression nests too deeply");
    if (Accept('-')) {
      ARROW_ASSIGN_OR_RAISE(auto operand, ParseUnary(depth + 1));
      Ast node;
      node.op = 'n';
      node.args.push_back(std::move(operand));
      return node;
    }
    if (Accept('(')) {
      ARROW_ASSIGN_OR_RAISE(auto inner, ParseSum(depth + 1));
      if (!Accept(')')) return Refuse("expected ')'");
      return inner;
    }
    SkipSpace();
    if (pos_ >= text_.size()) return Refuse("expected a column or a number");
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return ParseNumber();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '"' || c == '`') {
      return ParseColumn();
    }
    return Refuse(std::string("unexpected '") + c +
                  "' (only columns, numbers and + - * / ( ) combine)");
  }

  arrow::Result<Ast> ParseNumber() {
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
            ((text_[pos_] == '+' || text_[pos_] == '-') && pos_ > start &&
             (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
      ++pos_;
    }
    Ast node;
    node.op = '#';
    node.number = std::string(text_.substr(start, pos_ - start));
    return node;
  }

  arrow::Result<Ast> ParseColumn() {
    std::string name;
    const char quote = text_[pos_];
    if (quote == '"' || quote == '`') {
      ++pos_;
      while (true) {
        if (pos_ >= text_.size()) return Refuse("unterminated quoted column name");
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
    Ast node;
    node.op = 'c';
    for (const auto& top : schema_.fields()) {
      if (top.name == name) node.column = &top;
    }
    if (node.column == nullptr) return Refuse("no top-level column " + name);
    return node;
  }

  std::string_view text_;
  const Schema& schema_;
  size_t pos_ = 0;
};

// The column `id` of `batch` (the rows as they were).
arrow::Result<std::shared_ptr<arrow::Array>> ColumnOf(const arrow::RecordBatch& batch,
                                                      int id) {
  for (int i = 0; i < batch.num_columns(); ++i) {
    if (ArrowFieldId(*batch.schema()->field(i)) == id) return batch.column(i);
  }
  return arrow::Status::Invalid("column with field id " + std::to_string(id) +
                                " is not in the rows read");
}

// Arithmetic for an integer or floating-point column, with Arrow's kernels: every operand
// takes the column's type (widened within its kind, integers to floating point). For an
// integer column a `/` computes in double, and so does everything above it, as Spark's
// `/` gives a double whatever its operands; the result is then cast back as Spark's ANSI
// store assignment casts it (towards zero; NaN and values out of range fail).
class ArrowArithmetic {
 public:
  ArrowArithmetic(const NestedField& target, const Schema& schema)
      : target_(target), schema_(schema) {}

  arrow::Result<Evaluate> Compile(const Ast& ast) {
    // The arithmetic kernels live in libarrow_compute, registered once per process.
    ARROW_RETURN_NOT_OK(arrow::compute::Initialize());
    ARROW_ASSIGN_OR_RAISE(target_type_, ToArrowType(*target_.type));
    ARROW_ASSIGN_OR_RAISE(auto node, Node(ast));
    // Every operand is in the column's type, and so is the result, unless an integer
    // column's `/` made it a double.
    if (!node.as_double) return std::move(node.evaluate);
    const bool is_long = target_.type->id() == TypeId::kLong;
    return Evaluate([evaluate = std::move(node.evaluate), is_long](
                        const arrow::RecordBatch& batch) -> arrow::Result<arrow::Datum> {
      ARROW_ASSIGN_OR_RAISE(auto value, evaluate(batch));
      std::shared_ptr<arrow::Array> doubles;
      if (value.is_scalar()) {
        ARROW_ASSIGN_OR_RAISE(
            doubles, arrow::MakeArrayFromScalar(*value.scalar(), batch.num_rows()));
      } else {
        doubles = value.make_array();
      }
      return TruncateToInteger(static_cast<const arrow::DoubleArray&>(*doubles), is_long);
    });
  }

 private:
  struct Typed {
    Evaluate evaluate;
    bool as_double = false;  // an integer column's value computed in double
  };

  // Spark's ANSI CAST(double AS INT/BIGINT): towards zero; NaN, infinities and values
  // beyond the type fail (Java's conversion saturates at 2^63 for BIGINT).
  static arrow::Result<arrow::Datum> TruncateToInteger(const arrow::DoubleArray& doubles,
                                                       bool is_long) {
    const double low = is_long ? -9223372036854775808.0 : -2147483648.0;
    const double high = is_long ? 9223372036854775807.0 : 2147483647.0;
    arrow::Int64Builder longs;
    arrow::Int32Builder ints;
    for (int64_t i = 0; i < doubles.length(); ++i) {
      if (doubles.IsNull(i)) {
        ARROW_RETURN_NOT_OK(is_long ? longs.AppendNull() : ints.AppendNull());
        continue;
      }
      const double x = doubles.Value(i);
      if (std::isnan(x) || std::floor(x) > high || std::ceil(x) < low) {
        return MakeError(ErrorKind::kInvalidInput,
                         "the value " + FormatDouble(x) + " is out of the range of " +
                             (is_long ? "long" : "int") + " (overflow)");
      }
      if (is_long) {
        ARROW_RETURN_NOT_OK(longs.Append(x >= high
                                             ? std::numeric_limits<int64_t>::max()
                                             : static_cast<int64_t>(std::trunc(x))));
      } else {
        ARROW_RETURN_NOT_OK(ints.Append(static_cast<int32_t>(std::trunc(x))));
      }
    }
    std::shared_ptr<arrow::Array> out;
    if (is_long) {
      ARROW_RETURN_NOT_OK(longs.Finish(&out));
    } else {
      ARROW_RETURN_NOT_OK(ints.Finish(&out));
    }
    return arrow::Datum(out);
  }

  static std::string FormatDouble(double x) {
    std::ostringstream out;
    out.precision(17);
    out << x;
    return out.str();
  }

  // The Arrow function of `op` for the target's kind; an error where it does not take it.
  arrow::Result<std::string> Function(char op, bool as_double) const {
    const TypeId id = target_.type->id();
    const bool floating = IsFloating(id) || as_double;
    switch (op) {
      case '+':
        return std::string("add_checked");
      case '-':
        return std::string("subtract_checked");
      case '*':
        return std::string("multiply_checked");
      case '/':
        if (floating) return std::string("divide_checked");
        break;
      default:
        break;
    }
    return Refuse(std::string("'") + op + "' is not offered for column " + target_.name);
  }

  // Java's widening conversions: an integer past 2^53 (2^24 for float) becomes the
  // nearest double (float), as Spark's implicit casts do, never an error.
  static arrow::compute::CastOptions Widening() {
    auto options = arrow::compute::CastOptions::Safe();
    options.allow_float_truncate = true;
    return options;
  }

  // `node` as double (Spark's implicit cast of an integer operand of a double one).
  static Evaluate AsDouble(Evaluate evaluate) {
    return [evaluate = std::move(evaluate)](
               const arrow::RecordBatch& batch) -> arrow::Result<arrow::Datum> {
      ARROW_ASSIGN_OR_RAISE(auto value, evaluate(batch));
      if (value.type()->id() == arrow::Type::DOUBLE) return value;
      return arrow::compute::Cast(value, arrow::float64(), Widening());
    };
  }

  arrow::Result<Typed> Node(const Ast& ast) {
    switch (ast.op) {
      case '#': {
        auto literal = LiteralOf(ast.number, target_, schema_);
        if (!literal.ok()) return Refuse(ast.number + ": " + literal.status().message());
        arrow::Datum value(*literal);
        return Typed{[value](const arrow::RecordBatch&) -> arrow::Result<arrow::Datum> {
          return value;
        }};
      }
      case 'c': {
        const NestedField& field = *ast.column;
        if (!field.type->is_primitive() || !Widens(*field.type, *target_.type)) {
          return Refuse("column " + field.name + " (" + field.type->ToString() +
                        ") cannot stand in arithmetic for " + target_.name + " (" +
                        target_.type->ToString() + ")");
        }
        return Typed{[id = field.id, type = target_type_](
                         const arrow::RecordBatch& batch) -> arrow::Result<arrow::Datum> {
          ARROW_ASSIGN_OR_RAISE(auto column, ColumnOf(batch, id));
          arrow::Datum value(column);
          if (value.type()->Equals(*type)) return value;
          return arrow::compute::Cast(value, type, Widening());
        }};
      }
      case 'n': {
        ARROW_ASSIGN_OR_RAISE(auto operand, Node(ast.args[0]));
        return Typed{[evaluate = std::move(operand.evaluate)](
                         const arrow::RecordBatch& batch) -> arrow::Result<arrow::Datum> {
                       ARROW_ASSIGN_OR_RAISE(auto value, evaluate(batch));
                       return arrow::compute::CallFunction("negate_checked", {value});
                     },
                     operand.as_double};
      }
      default:
        break;
    }
    ARROW_ASSIGN_OR_RAISE(auto left, Node(ast.args[0]));
    ARROW_ASSIGN_OR_RAISE(auto right, Node(ast.args[1]));
    // An integer column's `/`, and anything with an operand computed in double.
    const bool as_double = IsInteger(target_.type->id()) &&
                           (ast.op == '/' || left.as_double || right.as_double);
    ARROW_ASSIGN_OR_RAISE(std::string function, Function(ast.op, as_double));
    if (as_double) {
      left.evaluate = AsDouble(std::move(left.evaluate));
      right.evaluate = AsDouble(std::move(right.evaluate));
    }
    return Typed{
        [function, left = std::move(left.evaluate), right = std::move(right.evaluate)](
            const arrow::RecordBatch& batch) -> arrow::Result<arrow::Datum> {
          ARROW_ASSIGN_OR_RAISE(auto a, left(batch));
          ARROW_ASSIGN_OR_RAISE(auto b, right(batch));
          return arrow::compute::CallFunction(function, {a, b});
        },
        as_double};
  }

  const NestedField& target_;
  const Schema& schema_;
  std::shared_ptr<arrow::DataType> target_type_;
};

// Exact decimal values of one expression node for a batch: unscaled values at `scale`.
struct DecimalValues {
  std::vector<arrow::Decimal256> values;
  std::vector<bool> valid;
};
using DecimalEvaluate =
    std::function<arrow::Result<DecimalValues>(const arrow::RecordBatch&)>;

// Arithmetic for a decimal column, as Spark computes it: every operand keeps its exact
// decimal type (a decimal column its own, an int or long column decimal(10, 0) or
// decimal(20, 0), a number literal the fewest digits that hold it, as Spark types
// literals next to decimals), and each operation gives Spark's result type: + and -
// decimal(max(p1 - s1, p2 - s2) + max(s1, s2) + 1, max(s1, s2)), * decimal(p1 + p2 + 1,
// s1 + s2), exact; / decimal(p1 - s1 + s2 + max(6, s1 + p2 + 1), max(6, s1 + p2 + 1)),
// the quotient rounded half up at 38 places and then at that scale (Spark's
// Decimal.divide and CheckOverflow). The result is rounded half up to the column's scale
// (the store assignment's cast); a value with more digits than the column holds, and a
// division by zero, fail (ANSI). A type beyond 38 digits, where Spark would round an
// intermediate result, is refused.
class DecimalArithmetic {
 public:
  explicit DecimalArithmetic(const NestedField& target) : target_(target) {}

  arrow::Result<Evaluate> Compile(const Ast& ast) {
    ARROW_ASSIGN_OR_RAISE(auto node, Node(ast));
    const auto& decimal = static_cast<const PrimitiveType&>(*target_.type);
    const int precision = decimal.precision();
    const int scale = decimal.scale();
    ARROW_ASSIGN_OR_RAISE(auto type, ToArrowType(*target_.type));
    return Evaluate([evaluate = std::move(node.evaluate), from = node.scale, precision,
                     scale, type, name = target_.name](
                        const arrow::RecordBatch& batch) -> arrow::Result<arrow::Datum> {
      ARROW_ASSIGN_OR_RAISE(auto computed, evaluate(batch));
      arrow::Decimal128Builder out(type);
      ARROW_RETURN_NOT_OK(out.Reserve(static_cast<int64_t>(computed.values.size())));
      for (size_t i = 0; i < computed.values.size(); ++i) {
        if (!computed.valid[i]) {
          out.UnsafeAppendNull();
          continue;
        }
        arrow::Decimal256 value = Rescale(computed.values[i], from, scale);
        if (!value.FitsInPrecision(precision)) {
          return MakeError(ErrorKind::kInvalidInput,
                           "the value " + computed.values[i].ToString(from) +
                               " does not fit column " + name + " (decimal(" +
                               std::to_string(precision) + ", " + std::to_string(scale) +
                               "): overflow)");
        }
        const auto& words = value.little_endian_array();
        out.UnsafeAppend(arrow::Decimal128(static_cast<int64_t>(words[1]), words[0]));
      }
      std::shared_ptr<arrow::Array> array;
      ARROW_RETURN_NOT_OK(out.Finish(&array));
      return arrow::Datum(array);
    });
  }

 private:
  struct Typed {
    DecimalEvaluate evaluate;
    int precision = 0;
    int scale = 0;
  };

  // `value` (at scale `from`) at scale `to`, rounded half up (away from zero).
  static arrow::Decimal256 Rescale(const arrow::Decimal256& value, int from, int to) {
    if (to >= from) return value.IncreaseScaleBy(to - from);
    return value.ReduceScaleBy(from - to, /*round=*/true);
  }

  static arrow::Status Beyond38(const std::string& what) {
    return Refuse(what +
                  " would need a decimal of more than 38 digits, where Spark rounds "
                  "intermediate results: not offered");
  }

  // A number as Spark types it next to a decimal: an integer the digits it has, a
  // decimal number its precision and scale (Java's BigDecimal, precision at least the
  // scale).
  static arrow::Result<Typed> Literal(const std::string& text) {
    const auto point = text.find('.');
    std::string digits = text;
    int scale = 0;
    if (point != std::string::npos) {
      digits = text.substr(0, point) + text.substr(point + 1);
      scale = static_cast<int>(text.size() - point - 1);
    }
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
      return Refuse(text + ": not a decimal number (digits and one '.')");
    }
    const auto first = digits.find_first_not_of('0');
    const int significant =
        first == std::string::npos ? 1 : static_cast<int>(digits.size() - first);
    const int precision = std::max(significant, scale);
    if (precision > 38) return Beyond38(text);
    ARROW_ASSIGN_OR_RAISE(auto unscaled, arrow::Decimal256::FromString(digits));
    return Typed{
        [unscaled](const arrow::RecordBatch& batch) -> arrow::Result<DecimalValues> {
          const auto rows = static_cast<size_t>(batch.num_rows());
          return DecimalValues{std::vector<arrow::Decimal256>(rows, unscaled),
                               std::vector<bool>(rows, true)};
        },
        precision, scale};
  }

  static arrow::Result<Typed> Column(const NestedField& field,
                                     const NestedField& target) {
    int precision = 0;
    int scale = 0;
    switch (field.type->id()) {
      case TypeId::kInt:
        precision = 10;
        break;
      case TypeId::kLong:
        precision = 20;
        break;
      case TypeId::kDecimal: {
        const auto& decimal = static_cast<const PrimitiveType&>(*field.type);
        precision = decimal.precision();
        scale = decimal.scale();
        break;
      }
      default:
        return Refuse("column " + field.name + " (" + field.type->ToString() +
                      ") cannot stand in decimal arithmetic for " + target.name +
                      " (Spark would compute in double)");
    }
    const TypeId kind = field.type->id();
    return Typed{
        [id = field.id,
         kind](const arrow::RecordBatch& batch) -> arrow::Result<DecimalValues> {
          ARROW_ASSIGN_OR_RAISE(auto column, ColumnOf(batch, id));
          DecimalValues out;
          const auto rows = static_cast<size_t>(column->length());
          out.values.reserve(rows);
          out.valid.reserve(rows);
          for (int64_t i = 0; i < column->length(); ++i) {
            out.valid.push_back(column->IsValid(i));
            if (kind == TypeId::kInt) {
              out.values.emplace_back(
                  static_cast<const arrow::Int32Array&>(*column).Value(i));
            } else if (kind == TypeId::kLong) {
              out.values.emplace_back(
                  static_cast<const arrow::Int64Array&>(*column).Value(i));
            } else {
              out.values.emplace_back(arrow::Decimal128(
                  static_cast<const arrow::Decimal128Array&>(*column).GetValue(i)));
            }
          }
          return out;
        },
        precision, scale};
  }

  arrow::Result<Typed> Node(const Ast& ast) {
    switch (ast.op) {
      case '#':
        return Literal(ast.number);
      case 'c':
        return Column(*ast.column, target_);
      case 'n': {
        ARROW_ASSIGN_OR_RAISE(auto operand, Node(ast.args[0]));
        return Typed{
            [evaluate = std::move(operand.evaluate)](
                const arrow::RecordBatch& batch) -> arrow::Result<DecimalValues> {
              ARROW_ASSIGN_OR_RAISE(auto values, evaluate(batch));
              for (auto& value : values.values) value.Negate();
              return values;
            },
            operand.precision, operand.scale};
      }
      default:
        break;
    }
    ARROW_ASSIGN_OR_RAISE(auto left, Node(ast.args[0]));
    ARROW_ASSIGN_OR_RAISE(auto right, Node(ast.args[1]));
    const int p1 = left.precision, s1 = left.scale, p2 = right.precision,
              s2 = right.scale;
    int precision = 0;
    int scale = 0;
    std::function<arrow::Result<arrow::Decimal256>(const arrow::Decimal256&,
                                                   const arrow::Decimal256&)>
        apply;
    switch (ast.op) {
      case '+':
      case '-': {
        scale = std::max(s1, s2);
        precision = std::max(p1 - s1, p2 - s2) + scale + 1;
        const bool add = ast.op == '+';
        apply = [s1, s2, scale, add](
                    const arrow::Decimal256& a,
                    const arrow::Decimal256& b) -> arrow::Result<arrow::Decimal256> {
          arrow::Decimal256 x = a.IncreaseScaleBy(scale - s1);
          arrow::Decimal256 y = b.IncreaseScaleBy(scale - s2);
          if (add) {
            x += y;
          } else {
            x -= y;
          }
          return x;
        };
        break;
      }
      case '*':
        precision = p1 + p2 + 1;
        scale = s1 + s2;
        apply = [](const arrow::Decimal256& a,
                   const arrow::Decimal256& b) -> arrow::Result<arrow::Decimal256> {
          return a * b;
        };
        break;
      case '/': {
        scale = std::max(6, s1 + p2 + 1);
        precision = p1 - s1 + s2 + scale;
        apply = [s1, s2, scale](
                    const arrow::Decimal256& a,
                    const arrow::Decimal256& b) -> arrow::Result<arrow::Decimal256> {
          if (b == arrow::Decimal256(0)) {
            return MakeError(ErrorKind::kInvalidInput, "division by zero");
          }
          // a / b at 38 places, rounded half up: a * 10^(38 - s1 + s2) / b.
          arrow::Decimal256 numerator = a.IncreaseScaleBy(38 - s1 + s2);
          ARROW_ASSIGN_OR_RAISE(auto divided, numerator.Divide(b));
          arrow::Decimal256 quotient = divided.first;
          arrow::Decimal256 twice = arrow::Decimal256::Abs(divided.second);
          twice += arrow::Decimal256::Abs(divided.second);
          if (!(twice < arrow::Decimal256::Abs(b))) {
            const bool negative =
                (a < arrow::Decimal256(0)) != (b < arrow::Decimal256(0));
            quotient += arrow::Decimal256(negative ? -1 : 1);
          }
          return Rescale(quotient, 38, scale);
        };
        break;
      }
      default:
        return Refuse(std::string("unexpected operator ") + ast.op);
    }
    if (precision > 38) {
      return Beyond38(std::string("'") + ast.op + "' of decimal(" + std::to_string(p1) +
                      ", " + std::to_string(s1) + ") and decimal(" + std::to_string(p2) +
                      ", " + std::to_string(s2) + ")");
    }
    return Typed{[left = std::move(left.evaluate), right = std::move(right.evaluate),
                  apply = std::move(apply)](
                     const arrow::RecordBatch& batch) -> arrow::Result<DecimalValues> {
                   ARROW_ASSIGN_OR_RAISE(auto a, left(batch));
                   ARROW_ASSIGN_OR_RAISE(auto b, right(batch));
                   for (size_t i = 0; i < a.values.size(); ++i) {
                     a.valid[i] = a.valid[i] && b.valid[i];
                     if (!a.valid[i]) continue;
                     ARROW_ASSIGN_OR_RAISE(a.values[i], apply(a.values[i], b.values[i]));
                   }
                   return a;
                 },
                 precision, scale};
  }

  const NestedField& target_;
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
      return MakeError(ErrorKind::kInvalidInput,
                       "--set '" + Printable(ShortenForMessage(part)) + "': " + why);
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
    // A string is no value of a numeric or boolean column: Spark's store assignment
    // (ANSI, its default) refuses to cast it. A floating-point column takes its special
    // values quoted, as Spark's casts spell them.
    const TypeId id = field->type->id();
    const bool quoted =
        value.size() >= 2 && value.front() == '\'' && value.back() == '\'';
    const std::string word = quoted ? AsciiLower(value.substr(1, value.size() - 2)) : "";
    const bool special = IsFloating(id) && (word == "nan" || word == "infinity" ||
                                            word == "+infinity" || word == "-infinity");
    if (quoted && !special &&
        (IsInteger(id) || IsFloating(id) || id == TypeId::kDecimal ||
         id == TypeId::kBoolean)) {
      return bad("a string is no value of " + field->type->ToString() + " column " +
                 name +
                 " (as Spark's store assignment refuses it): write the value unquoted" +
                 (IsFloating(id) ? "; 'NaN', 'Infinity' and '-Infinity' are the quoted "
                                   "spellings of its special values"
                                 : ""));
    }
    if (special && word == "nan") {
      const Value nan = id == TypeId::kFloat
                            ? Value{std::numeric_limits<float>::quiet_NaN()}
                            : Value{std::numeric_limits<double>::quiet_NaN()};
      ARROW_ASSIGN_OR_RAISE(auto scalar, ValueToArrowScalar(nan, *field->type));
      assignment.evaluate = [scalar = arrow::Datum(scalar)](const arrow::RecordBatch&) {
        return arrow::Result<arrow::Datum>(scalar);
      };
    } else if (AsciiLower(value) == "null") {
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
      arrow::Result<Evaluate> arithmetic = [&]() -> arrow::Result<Evaluate> {
        ARROW_ASSIGN_OR_RAISE(auto ast, ArithmeticParser(value, schema).Parse());
        if (id == TypeId::kDecimal) return DecimalArithmetic(*field).Compile(ast);
        return ArrowArithmetic(*field, schema).Compile(ast);
      }();
      if (!arithmetic.ok()) {
        return bad("neither a literal of the column's type (" +
                   literal.status().message() +
                   ") nor arithmetic of the row's columns (" +
                   arithmetic.status().message() + ")");
      }
      assignment.evaluate = std::move(*arithmetic);
    }
    assignments.push_back(std::move(assignment));
  }
  return assignments;
}

}  // namespace floe::iceberg
