#include "floe/expr/expression.h"

#include <cctype>

#include "floe/util/date_time.h"
#include "floe/util/java_text.h"

namespace floe {
namespace {

std::string Quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// A column as the parser reads it back: plain when every dotted part is an identifier
// that is not a keyword, else the whole name quoted as one part (parts join with '.'
// either way).
std::string QuoteColumn(const std::string& name) {
  static constexpr std::string_view kKeywords[] = {
      "AND",     "OR",   "NOT",   "IN",   "IS",   "NULL",      "NAN",        "LIKE",
      "BETWEEN", "TRUE", "FALSE", "DATE", "TIME", "TIMESTAMP", "STARTS_WITH"};
  bool plain = !name.empty();
  size_t start = 0;
  while (plain && start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string::npos) end = name.size();
    std::string part = name.substr(start, end - start);
    plain = !part.empty() &&
            (std::isalpha(static_cast<unsigned char>(part[0])) || part[0] == '_');
    for (char c : part) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) plain = false;
    }
    std::string upper = part;
    for (auto& c : upper)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (auto keyword : kKeywords) {
      if (upper == keyword) plain = false;
    }
    start = end + 1;
  }
  if (plain) return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string LiteralToText(const LiteralText& literal) {
  switch (literal.kind) {
    case LiteralText::Kind::kNumber:
    case LiteralText::Kind::kBoolean:
      return literal.text;
    case LiteralText::Kind::kHex:
      return "X'" + literal.text + "'";
    case LiteralText::Kind::kString:
      return Quote(literal.text);
  }
  return literal.text;
}

std::string BoundLiteralToText(const Value& value, const Type& type) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  switch (type.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDecimal:
      return ValueToString(value, type);
    case TypeId::kFloat:
      return JavaFloatToString(std::get<float>(value));
    case TypeId::kDouble:
      return JavaDoubleToString(std::get<double>(value));
    case TypeId::kTime:
      return Quote(FormatLocalTime(std::get<int64_t>(value)));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return Quote(FormatIsoDateTime(std::get<int64_t>(value), 1000000) +
                   (type.id() == TypeId::kTimestampTz ? "Z" : ""));
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return Quote(FormatIsoDateTime(std::get<int64_t>(value), 1000000000) +
                   (type.id() == TypeId::kTimestampTzNs ? "Z" : ""));
    case TypeId::kBinary:
    case TypeId::kFixed: {
      const auto& bytes = std::get<Bytes>(value);
      std::string hex;
      for (uint8_t byte : bytes) {
        hex += kHex[byte >> 4];
        hex += kHex[byte & 15];
      }
      return "X'" + hex + "'";
    }
    case TypeId::kUuid: {
      const auto& bytes = std::get<Bytes>(value);
      std::string text;
      for (size_t i = 0; i < bytes.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
        constexpr char kLowerHex[] = "0123456789abcdef";  // UUIDs print in lower case
        text += kLowerHex[bytes[i] >> 4];
        text += kLowerHex[bytes[i] & 15];
      }
      return Quote(text);
    }
    default:
      return Quote(ValueToString(value, type));
  }
}

}  // namespace

std::string_view OperationSymbol(Operation op) {
  switch (op) {
    case Operation::kTrue:
      return "TRUE";
    case Operation::kFalse:
      return "FALSE";
    case Operation::kAnd:
      return "AND";
    case Operation::kOr:
      return "OR";
    case Operation::kNot:
      return "NOT";
    case Operation::kIsNull:
      return "IS NULL";
    case Operation::kNotNull:
      return "IS NOT NULL";
    case Operation::kIsNaN:
      return "IS NAN";
    case Operation::kNotNaN:
      return "IS NOT NAN";
    case Operation::kLt:
      return "<";
    case Operation::kLtEq:
      return "<=";
    case Operation::kGt:
      return ">";
    case Operation::kGtEq:
      return ">=";
    case Operation::kEq:
      return "=";
    case Operation::kNotEq:
      return "!=";
    case Operation::kIn:
      return "IN";
    case Operation::kNotIn:
      return "NOT IN";
    case Operation::kStartsWith:
      return "LIKE";
    case Operation::kNotStartsWith:
      return "NOT LIKE";
  }
  return "?";
}

std::string Expression::ToString() const {
  switch (op) {
    case Operation::kTrue:
    case Operation::kFalse:
      return std::string(OperationSymbol(op));
    case Operation::kAnd:
    case Operation::kOr:
      return "(" + left->ToString() + " " + std::string(OperationSymbol(op)) + " " +
             right->ToString() + ")";
    case Operation::kNot:
      return "NOT " + left->ToString();
    default:
      break;
  }
  std::vector<std::string> literals;
  if (is_bound()) {
    for (const auto& value : values) literals.push_back(BoundLiteralToText(value, *type));
  } else {
    for (const auto& text : texts) literals.push_back(LiteralToText(text));
  }
  std::string name =
      QuoteColumn(column.empty() ? "#" + std::to_string(field_id) : column);
  switch (op) {
    case Operation::kIsNull:
    case Operation::kNotNull:
    case Operation::kIsNaN:
    case Operation::kNotNaN:
      return name + " " + std::string(OperationSymbol(op));
    case Operation::kIn:
    case Operation::kNotIn: {
      std::string list;
      for (size_t i = 0; i < literals.size(); ++i) list += (i ? ", " : "") + literals[i];
      return name + " " + std::string(OperationSymbol(op)) + " (" + list + ")";
    }
    case Operation::kStartsWith:
    case Operation::kNotStartsWith: {
      // LIKE 'prefix%', with the prefix's own wildcards and backslashes escaped.
      std::string prefix;
      if (is_bound() && !values.empty() &&
          std::holds_alternative<std::string>(values[0])) {
        prefix = std::get<std::string>(values[0]);
      } else if (!texts.empty()) {
        prefix = texts[0].text;
      }
      std::string pattern;
      for (char c : prefix) {
        if (c == '%' || c == '_' || c == '\\') pattern += '\\';
        pattern += c;
      }
      return name + " " + std::string(OperationSymbol(op)) + " " + Quote(pattern + "%");
    }
    default:
      return name + " " + std::string(OperationSymbol(op)) + " " +
             (literals.empty() ? std::string("?") : literals[0]);
  }
}

ExpressionPtr AlwaysTrue() {
  static const auto kTrue =
      std::make_shared<const Expression>(Expression{Operation::kTrue});
  return kTrue;
}

ExpressionPtr AlwaysFalse() {
  static const auto kFalse =
      std::make_shared<const Expression>(Expression{Operation::kFalse});
  return kFalse;
}

ExpressionPtr MakeAnd(ExpressionPtr left, ExpressionPtr right) {
  if (left->op == Operation::kFalse || right->op == Operation::kFalse)
    return AlwaysFalse();
  if (left->op == Operation::kTrue) return right;
  if (right->op == Operation::kTrue) return left;
  Expression expression;
  expression.op = Operation::kAnd;
  expression.left = std::move(left);
  expression.right = std::move(right);
  return std::make_shared<const Expression>(std::move(expression));
}

ExpressionPtr MakeOr(ExpressionPtr left, ExpressionPtr right) {
  if (left->op == Operation::kTrue || right->op == Operation::kTrue) return AlwaysTrue();
  if (left->op == Operation::kFalse) return right;
  if (right->op == Operation::kFalse) return left;
  Expression expression;
  expression.op = Operation::kOr;
  expression.left = std::move(left);
  expression.right = std::move(right);
  return std::make_shared<const Expression>(std::move(expression));
}

ExpressionPtr MakeNot(ExpressionPtr child) {
  if (child->op == Operation::kTrue) return AlwaysFalse();
  if (child->op == Operation::kFalse) return AlwaysTrue();
  if (child->op == Operation::kNot) return child->left;
  Expression expression;
  expression.op = Operation::kNot;
  expression.left = std::move(child);
  return std::make_shared<const Expression>(std::move(expression));
}

ExpressionPtr MakePredicate(Operation op, std::string column,
                            std::vector<LiteralText> texts) {
  Expression expression;
  expression.op = op;
  expression.column = std::move(column);
  expression.texts = std::move(texts);
  return std::make_shared<const Expression>(std::move(expression));
}

ExpressionPtr MakeBoundPredicate(Operation op, int field_id, TypePtr type,
                                 std::vector<Value> values, std::string column) {
  Expression expression;
  expression.op = op;
  expression.field_id = field_id;
  expression.type = std::move(type);
  expression.values = std::move(values);
  expression.column = std::move(column);
  return std::make_shared<const Expression>(std::move(expression));
}

Operation Negate(Operation op) {
  switch (op) {
    case Operation::kTrue:
      return Operation::kFalse;
    case Operation::kFalse:
      return Operation::kTrue;
    case Operation::kIsNull:
      return Operation::kNotNull;
    case Operation::kNotNull:
      return Operation::kIsNull;
    case Operation::kIsNaN:
      return Operation::kNotNaN;
    case Operation::kNotNaN:
      return Operation::kIsNaN;
    case Operation::kLt:
      return Operation::kGtEq;
    case Operation::kLtEq:
      return Operation::kGt;
    case Operation::kGt:
      return Operation::kLtEq;
    case Operation::kGtEq:
      return Operation::kLt;
    case Operation::kEq:
      return Operation::kNotEq;
    case Operation::kNotEq:
      return Operation::kEq;
    case Operation::kIn:
      return Operation::kNotIn;
    case Operation::kNotIn:
      return Operation::kIn;
    case Operation::kStartsWith:
      return Operation::kNotStartsWith;
    case Operation::kNotStartsWith:
      return Operation::kStartsWith;
    default:
      return op;
  }
}

Operation Flip(Operation op) {
  switch (op) {
    case Operation::kLt:
      return Operation::kGt;
    case Operation::kLtEq:
      return Operation::kGtEq;
    case Operation::kGt:
      return Operation::kLt;
    case Operation::kGtEq:
      return Operation::kLtEq;
    default:
      return op;
  }
}

ExpressionPtr RewriteNot(const ExpressionPtr& expression) {
  switch (expression->op) {
    case Operation::kAnd:
      return MakeAnd(RewriteNot(expression->left), RewriteNot(expression->right));
    case Operation::kOr:
      return MakeOr(RewriteNot(expression->left), RewriteNot(expression->right));
    case Operation::kNot:
      break;
    default:
      return expression;
  }
  const ExpressionPtr& child = expression->left;
  switch (child->op) {
    case Operation::kTrue:
      return AlwaysFalse();
    case Operation::kFalse:
      return AlwaysTrue();
    case Operation::kNot:
      return RewriteNot(child->left);
    // De Morgan.
    case Operation::kAnd:
      return MakeOr(RewriteNot(MakeNot(child->left)), RewriteNot(MakeNot(child->right)));
    case Operation::kOr:
      return MakeAnd(RewriteNot(MakeNot(child->left)), RewriteNot(MakeNot(child->right)));
    default:
      break;
  }
  auto negated = std::make_shared<Expression>(*child);
  negated->op = Negate(child->op);
  ExpressionPtr result = negated;
  // NaN fails both x < v and x >= v: the negation of an ordering comparison keeps the NaN
  // rows.
  bool ordering = child->op == Operation::kLt || child->op == Operation::kLtEq ||
                  child->op == Operation::kGt || child->op == Operation::kGtEq;
  if (ordering && child->is_bound() &&
      (child->type->id() == TypeId::kFloat || child->type->id() == TypeId::kDouble)) {
    result = MakeOr(result, MakeBoundPredicate(Operation::kIsNaN, child->field_id,
                                               child->type, {}, child->column));
  }
  return result;
}

namespace {
void CollectIds(const Expression& expression, std::set<int>* ids) {
  if (expression.left) CollectIds(*expression.left, ids);
  if (expression.right) CollectIds(*expression.right, ids);
  if (expression.is_predicate() && expression.is_bound())
    ids->insert(expression.field_id);
}
}  // namespace

std::set<int> ReferencedFieldIds(const Expression& expression) {
  std::set<int> ids;
  CollectIds(expression, &ids);
  return ids;
}

}  // namespace floe
