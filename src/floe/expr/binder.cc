#include "floe/expr/binder.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "floe/util/date_time.h"
#include "floe/util/error.h"
#include "floe/util/number_text.h"
#include "floe/util/text.h"

namespace floe {
namespace {

arrow::Status CannotConvert(const LiteralText& literal, const Type& type,
                            const std::string& why = "") {
  const std::string text = Printable(ShortenForMessage(literal.text));
  std::string shown =
      literal.kind == LiteralText::Kind::kString ? "'" + text + "'" : text;
  return MakeError(ErrorKind::kInvalidInput,
                   "literal " + shown + " cannot be compared with a " + type.ToString() +
                       " column" + (why.empty() ? "" : ": " + why));
}

bool AllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// An exact decimal number: sign, digits, optional fraction (no exponent).
struct ExactNumber {
  bool negative = false;
  std::string digits;  // integer and fraction digits, leading zeros stripped
  int scale = 0;       // digits after the point
};

std::optional<ExactNumber> ParseExact(std::string_view text) {
  ExactNumber number;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    number.negative = text[0] == '-';
    text.remove_prefix(1);
  }
  size_t point = text.find('.');
  std::string_view whole = text.substr(0, point);
  std::string_view fraction =
      point == std::string_view::npos ? "" : text.substr(point + 1);
  if (whole.empty() && fraction.empty()) return std::nullopt;
  if ((!whole.empty() && !AllDigits(whole)) ||
      (!fraction.empty() && !AllDigits(fraction))) {
    return std::nullopt;
  }
  number.digits = std::string(whole) + std::string(fraction);
  number.scale = static_cast<int>(fraction.size());
  size_t first = number.digits.find_first_not_of('0');
  number.digits = first == std::string::npos ? "" : number.digits.substr(first);
  return number;
}

// Integers: -1/+1 overflow beyond [min, max].
arrow::Result<Value> ToInteger(const LiteralText& literal, const Type& type, int64_t min,
                               int64_t max, int* overflow) {
  auto number = ParseExact(literal.text);
  if (!number) return CannotConvert(literal, type, "not a number");
  // A fraction of zeros is fine (5.0); anything else is not an integer.
  std::string digits = number->digits;
  for (int i = 0; i < number->scale; ++i) {
    if (digits.empty()) break;
    if (digits.back() != '0') return CannotConvert(literal, type, "not an integer");
    digits.pop_back();
  }
  if (digits.size() > 19) {
    *overflow = number->negative ? -1 : 1;
    return Value{};
  }
  __int128 value = 0;
  for (char c : digits) value = value * 10 + (c - '0');
  if (number->negative) value = -value;
  if (value < min) {
    *overflow = -1;
    return Value{};
  }
  if (value > max) {
    *overflow = 1;
    return Value{};
  }
  if (type.id() == TypeId::kInt) return Value{static_cast<int32_t>(value)};
  return Value{static_cast<int64_t>(value)};
}

arrow::Result<Value> ToDecimal(const LiteralText& literal, const PrimitiveType& type,
                               int* overflow) {
  auto number = ParseExact(literal.text);
  if (!number) return CannotConvert(literal, type, "not a decimal number");
  std::string digits = number->digits;
  int scale = number->scale;
  // Trailing zeros past the column's scale carry no value.
  while (scale > type.scale() && !digits.empty() && digits.back() == '0') {
    digits.pop_back();
    --scale;
  }
  if (digits.empty()) scale = std::min(scale, type.scale());
  if (scale > type.scale()) {
    return CannotConvert(literal, type,
                         "it has more digits after the point than the column");
  }
  digits.append(static_cast<size_t>(type.scale() - scale), '0');
  size_t first = digits.find_first_not_of('0');
  digits = first == std::string::npos ? "" : digits.substr(first);
  if (static_cast<int>(digits.size()) > type.precision()) {
    *overflow = number->negative ? -1 : 1;
    return Value{};
  }
  __int128 unscaled = 0;
  for (char c : digits) unscaled = unscaled * 10 + (c - '0');
  return Value{Decimal{number->negative ? -unscaled : unscaled}};
}

arrow::Result<Value> ToFloating(const LiteralText& literal, const Type& type,
                                int* overflow) {
  const std::string& text = literal.text;
  double value = 0;
  const std::string lowered = AsciiLower(text);
  if (lowered == "nan" || lowered == "+nan" || lowered == "-nan") {
    return MakeError(ErrorKind::kInvalidInput,
                     "NaN cannot be compared with: use IS NAN or IS NOT NAN");
  }
  if (lowered == "infinity" || lowered == "+infinity" || lowered == "inf") {
    value = std::numeric_limits<double>::infinity();
  } else if (lowered == "-infinity" || lowered == "-inf") {
    value = -std::numeric_limits<double>::infinity();
  } else {
    auto parsed = ParseDecimalDouble(text);
    if (!parsed) return CannotConvert(literal, type, "not a number");
    // Spark's SQL parser refuses a numeric literal beyond double's range
    // (INVALID_NUMERIC_LITERAL_RANGE) and casts a quoted one to the infinity of its sign;
    // one too small for a double is zero, in both.
    if (parsed->out_of_range && literal.kind != LiteralText::Kind::kString) {
      return MakeError(ErrorKind::kInvalidInput,
                       "numeric literal " + Printable(ShortenForMessage(text)) +
                           " is outside the range of a double (-1.7976931348623157E308 "
                           "to 1.7976931348623157E308), as Spark SQL refuses it; write "
                           "'Infinity' or '-Infinity' for the infinities");
    }
    value = parsed->value;
  }
  if (type.id() == TypeId::kDouble) return Value{value};
  if (std::isfinite(value) && std::abs(value) > std::numeric_limits<float>::max()) {
    *overflow = value < 0 ? -1 : 1;
    return Value{};
  }
  return Value{static_cast<float>(value)};
}

// Parses "[+-]yyyy-mm-dd" at the start of `text`; returns the days and advances `text`.
std::optional<int64_t> ParseDatePart(std::string_view* text) {
  std::string_view rest = *text;
  bool negative = false;
  bool signed_year = false;
  if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) {
    negative = rest[0] == '-';
    signed_year = true;
    rest.remove_prefix(1);
  }
  // Four or more year digits, or any number after a sign (Java writes year -1 as "-001").
  size_t dash = rest.find('-');
  if (dash == std::string_view::npos || dash < (signed_year ? 1u : 4u) || dash > 9 ||
      !AllDigits(rest.substr(0, dash))) {
    return std::nullopt;
  }
  int64_t year = ParseDigits(rest.substr(0, dash)).value_or(0);  // at most 9 digits
  if (negative) year = -year;
  rest.remove_prefix(dash + 1);
  if (rest.size() < 5 || !AllDigits(rest.substr(0, 2)) || rest[2] != '-' ||
      !AllDigits(rest.substr(3, 2))) {
    return std::nullopt;
  }
  int month = (rest[0] - '0') * 10 + (rest[1] - '0');
  int day = (rest[3] - '0') * 10 + (rest[4] - '0');
  if (month < 1 || month > 12 || day < 1) return std::nullopt;
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap =
      (FloorMod(year, 4) == 0 && FloorMod(year, 100) != 0) || FloorMod(year, 400) == 0;
  if (day > kDays[month - 1] || (month == 2 && day == 29 && !leap)) return std::nullopt;
  rest.remove_prefix(5);
  *text = rest;
  return DaysFromCivil(year, month, day);
}

// Parses "hh:mm[:ss[.fffffffff]]" at the start of `text` into nanoseconds of the day.
std::optional<int64_t> ParseTimePart(std::string_view* text, int* fraction_digits) {
  std::string_view rest = *text;
  auto two = [&](size_t at) -> int {
    if (rest.size() < at + 2 || !AllDigits(rest.substr(at, 2))) return -1;
    return (rest[at] - '0') * 10 + (rest[at + 1] - '0');
  };
  int hour = two(0);
  if (hour < 0 || hour > 23 || rest.size() < 5 || rest[2] != ':') return std::nullopt;
  int minute = two(3);
  if (minute < 0 || minute > 59) return std::nullopt;
  size_t used = 5;
  int second = 0;
  int64_t nanos = 0;
  *fraction_digits = 0;
  if (rest.size() > 5 && rest[5] == ':') {
    second = two(6);
    if (second < 0 || second > 59) return std::nullopt;
    used = 8;
    if (rest.size() > 8 && rest[8] == '.') {
      size_t end = 9;
      while (end < rest.size() && std::isdigit(static_cast<unsigned char>(rest[end])))
        ++end;
      int digits = static_cast<int>(end - 9);
      if (digits == 0 || digits > 9) return std::nullopt;
      for (size_t i = 9; i < end; ++i) nanos = nanos * 10 + (rest[i] - '0');
      for (int i = digits; i < 9; ++i) nanos *= 10;
      *fraction_digits = digits;
      used = end;
    }
  }
  rest.remove_prefix(used);
  *text = rest;
  return ((hour * 60 + minute) * 60 + second) * int64_t{1000000000} + nanos;
}

arrow::Status TimestampError(std::string_view text, const std::string& why) {
  return MakeError(ErrorKind::kInvalidInput,
                   "'" + std::string(text) + "' is not a timestamp: " + why);
}

}  // namespace

arrow::Result<int64_t> ParseIsoTimestamp(std::string_view text, int64_t units_per_second,
                                         bool with_zone) {
  std::string_view rest = text;
  auto days = ParseDatePart(&rest);
  if (!days) return TimestampError(text, "expected yyyy-mm-dd[Thh:mm[:ss[.f]]][offset]");
  int64_t nanos_of_day = 0;
  int fraction_digits = 0;
  if (!rest.empty() && (rest[0] == 'T' || rest[0] == 't' || rest[0] == ' ')) {
    rest.remove_prefix(1);
    auto time = ParseTimePart(&rest, &fraction_digits);
    if (!time) return TimestampError(text, "the time must be hh:mm[:ss[.fffffffff]]");
    nanos_of_day = *time;
  }
  int64_t offset_seconds = 0;
  if (!rest.empty()) {
    if (!with_zone)
      return TimestampError(text, "a timestamp without time zone takes no offset");
    if (rest == "Z" || rest == "z") {
      rest = {};
    } else if ((rest[0] == '+' || rest[0] == '-') && rest.size() == 6 && rest[3] == ':' &&
               AllDigits(rest.substr(1, 2)) && AllDigits(rest.substr(4, 2))) {
      int hours = (rest[1] - '0') * 10 + (rest[2] - '0');
      int minutes = (rest[4] - '0') * 10 + (rest[5] - '0');
      if (hours > 18 || minutes > 59)
        return TimestampError(text, "the offset is out of range");
      offset_seconds = (hours * 3600 + minutes * 60) * (rest[0] == '-' ? -1 : 1);
    } else {
      return TimestampError(text, "expected Z or an offset +hh:mm after the time");
    }
  }
  const int64_t nanos_per_unit = 1000000000 / units_per_second;
  if (nanos_of_day % nanos_per_unit != 0) {
    return TimestampError(
        text,
        "its fraction is finer than the column's " +
            std::string(units_per_second == 1000000 ? "microseconds" : "nanoseconds"));
  }
  __int128 value = static_cast<__int128>(*days) * 86400 * units_per_second +
                   nanos_of_day / nanos_per_unit -
                   static_cast<__int128>(offset_seconds) * units_per_second;
  if (value < std::numeric_limits<int64_t>::min() ||
      value > std::numeric_limits<int64_t>::max()) {
    return TimestampError(text, "it is outside the column type's range");
  }
  (void)fraction_digits;
  return static_cast<int64_t>(value);
}

arrow::Result<Value> ConvertLiteral(const LiteralText& literal, const Type& type,
                                    int* overflow) {
  *overflow = 0;
  using Kind = LiteralText::Kind;
  const bool is_text = literal.kind == Kind::kString;
  switch (type.id()) {
    case TypeId::kBoolean: {
      const std::string lowered = AsciiLower(literal.text);
      if ((literal.kind == Kind::kBoolean || is_text) &&
          (lowered == "true" || lowered == "false")) {
        return Value{lowered == "true"};
      }
      return CannotConvert(literal, type);
    }
    case TypeId::kInt:
      if (literal.kind != Kind::kNumber && !is_text) return CannotConvert(literal, type);
      return ToInteger(literal, type, std::numeric_limits<int32_t>::min(),
                       std::numeric_limits<int32_t>::max(), overflow);
    case TypeId::kLong:
      if (literal.kind != Kind::kNumber && !is_text) return CannotConvert(literal, type);
      return ToInteger(literal, type, std::numeric_limits<int64_t>::min(),
                       std::numeric_limits<int64_t>::max(), overflow);
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (literal.kind != Kind::kNumber && !is_text) return CannotConvert(literal, type);
      return ToFloating(literal, type, overflow);
    case TypeId::kDecimal:
      if (literal.kind != Kind::kNumber && !is_text) return CannotConvert(literal, type);
      return ToDecimal(literal, static_cast<const PrimitiveType&>(type), overflow);
    case TypeId::kDate: {
      if (!is_text) return CannotConvert(literal, type, "write dates as 'yyyy-mm-dd'");
      std::string_view rest = literal.text;
      auto days = ParseDatePart(&rest);
      if (!days || !rest.empty())
        return CannotConvert(literal, type, "expected 'yyyy-mm-dd'");
      if (*days < std::numeric_limits<int32_t>::min() ||
          *days > std::numeric_limits<int32_t>::max()) {
        *overflow = *days < 0 ? -1 : 1;
        return Value{};
      }
      return Value{static_cast<int32_t>(*days)};
    }
    case TypeId::kTime: {
      if (!is_text)
        return CannotConvert(literal, type, "write times as 'hh:mm:ss[.ffffff]'");
      std::string_view rest = literal.text;
      int digits = 0;
      auto nanos = ParseTimePart(&rest, &digits);
      if (!nanos || !rest.empty())
        return CannotConvert(literal, type, "expected 'hh:mm:ss[.ffffff]'");
      if (*nanos % 1000 != 0)
        return CannotConvert(literal, type, "finer than microseconds");
      return Value{*nanos / 1000};
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      if (!is_text)
        return CannotConvert(literal, type, "write timestamps as 'yyyy-mm-ddThh:mm:ss'");
      bool nanos =
          type.id() == TypeId::kTimestampNs || type.id() == TypeId::kTimestampTzNs;
      bool zone =
          type.id() == TypeId::kTimestampTz || type.id() == TypeId::kTimestampTzNs;
      ARROW_ASSIGN_OR_RAISE(
          int64_t value,
          ParseIsoTimestamp(literal.text, nanos ? 1000000000 : 1000000, zone));
      return Value{value};
    }
    case TypeId::kString:
      if (!is_text) return CannotConvert(literal, type, "quote strings ('...')");
      return Value{literal.text};
    case TypeId::kUuid: {
      if (!is_text) return CannotConvert(literal, type);
      std::string hex;
      for (char c : literal.text) {
        if (c != '-') hex += c;
      }
      if (literal.text.size() != 36 || hex.size() != 32)
        return CannotConvert(literal, type, "not a UUID");
      Bytes bytes;
      for (size_t i = 0; i < 32; i += 2) {
        unsigned value = 0;
        auto [end, error] =
            std::from_chars(hex.data() + i, hex.data() + i + 2, value, 16);
        if (error != std::errc() || end != hex.data() + i + 2)
          return CannotConvert(literal, type, "not a UUID");
        bytes.push_back(static_cast<uint8_t>(value));
      }
      return Value{std::move(bytes)};
    }
    case TypeId::kBinary:
    case TypeId::kFixed: {
      if (literal.kind != Kind::kHex)
        return CannotConvert(literal, type, "write bytes as X'0A1B'");
      if (literal.text.size() % 2 != 0)
        return CannotConvert(literal, type, "odd number of hex digits");
      Bytes bytes;
      for (size_t i = 0; i < literal.text.size(); i += 2) {
        unsigned value = 0;
        auto [end, error] = std::from_chars(literal.text.data() + i,
                                            literal.text.data() + i + 2, value, 16);
        if (error != std::errc() || end != literal.text.data() + i + 2) {
          return CannotConvert(literal, type, "not hex");
        }
        bytes.push_back(static_cast<uint8_t>(value));
      }
      if (type.id() == TypeId::kFixed &&
          static_cast<int>(bytes.size()) !=
              static_cast<const PrimitiveType&>(type).length()) {
        return CannotConvert(literal, type, "wrong length");
      }
      return Value{std::move(bytes)};
    }
    default:
      return CannotConvert(literal, type, "filters on this type are not supported");
  }
}

namespace {

struct Binder {
  const Schema& schema;

  // Binds `expression`, or its negation when `negate`: NOT is pushed down to the
  // predicates here, so folding (below) is only ever done in a positive context, where
  // "unknown" and "false" both drop a row. The bound tree has no kNot.
  arrow::Result<ExpressionPtr> Bind(const ExpressionPtr& expression, bool negate) {
    switch (expression->op) {
      case Operation::kTrue:
        return negate ? AlwaysFalse() : AlwaysTrue();
      case Operation::kFalse:
        return negate ? AlwaysTrue() : AlwaysFalse();
      case Operation::kAnd:
      case Operation::kOr: {
        ARROW_ASSIGN_OR_RAISE(auto left, Bind(expression->left, negate));
        ARROW_ASSIGN_OR_RAISE(auto right, Bind(expression->right, negate));
        bool conjunction = (expression->op == Operation::kAnd) != negate;
        return conjunction ? MakeAnd(std::move(left), std::move(right))
                           : MakeOr(std::move(left), std::move(right));
      }
      case Operation::kNot:
        return Bind(expression->left, !negate);
      default: {
        Operation op = negate ? Negate(expression->op) : expression->op;
        ARROW_ASSIGN_OR_RAISE(auto bound, BindPredicate(*expression, op));
        // NaN fails both x < v and x >= v: the negation of an ordering comparison keeps
        // NaN.
        bool ordering =
            expression->op == Operation::kLt || expression->op == Operation::kLtEq ||
            expression->op == Operation::kGt || expression->op == Operation::kGtEq;
        if (negate && ordering) {
          auto id = schema.FindFieldId(expression->column);
          const NestedField* field = id ? schema.FindField(*id) : nullptr;
          if (field && (field->type->id() == TypeId::kFloat ||
                        field->type->id() == TypeId::kDouble)) {
            bound = MakeOr(std::move(bound),
                           MakeBoundPredicate(
                               Operation::kIsNaN, *id, field->type, {},
                               schema.FindColumnName(*id).value_or(expression->column)));
          }
        }
        return bound;
      }
    }
  }

  arrow::Result<ExpressionPtr> BindPredicate(const Expression& predicate, Operation op) {
    if (predicate.is_bound()) {
      auto copy = std::make_shared<Expression>(predicate);
      copy->op = op;
      return copy;
    }
    const std::string& name = predicate.column;
    auto id = schema.FindFieldId(name);
    if (!id)
      return MakeError(ErrorKind::kInvalidInput,
                       "no column '" + name + "' in the table schema");
    for (auto parent = schema.FindParentId(*id); parent;
         parent = schema.FindParentId(*parent)) {
      TypeId parent_type = schema.FindField(*parent)->type->id();
      if (parent_type == TypeId::kList || parent_type == TypeId::kMap) {
        return MakeError(
            ErrorKind::kInvalidInput,
            "column '" + name + "' is inside a list or map; filters cannot reference it");
      }
    }
    const NestedField* field = schema.FindField(*id);
    const TypePtr& type = field->type;
    const std::string canonical = schema.FindColumnName(*id).value_or(name);
    if (op == Operation::kIsNull || op == Operation::kNotNull) {
      if (type->id() == TypeId::kList || type->id() == TypeId::kMap) {
        return MakeError(ErrorKind::kInvalidInput,
                         "IS NULL on list or map column '" + name + "' is not supported");
      }
      // A required column is never null, unless an optional struct around it is.
      bool never_null = field->required;
      for (auto parent = schema.FindParentId(*id); parent && never_null;
           parent = schema.FindParentId(*parent)) {
        never_null = schema.FindField(*parent)->required;
      }
      if (never_null) return op == Operation::kIsNull ? AlwaysFalse() : AlwaysTrue();
      return MakeBoundPredicate(op, *id, type, {}, canonical);
    }
    if (type->is_nested()) {
      return MakeError(ErrorKind::kInvalidInput,
                       "column '" + name + "' has type " + type->ToString() +
                           ", which filters can only test with IS NULL");
    }
    if (op == Operation::kIsNaN || op == Operation::kNotNaN) {
      if (type->id() != TypeId::kFloat && type->id() != TypeId::kDouble) {
        return MakeError(ErrorKind::kInvalidInput,
                         "IS NAN applies to float and double columns, not '" + name +
                             "' (" + type->ToString() + ")");
      }
      return MakeBoundPredicate(op, *id, type, {}, canonical);
    }
    if ((op == Operation::kStartsWith || op == Operation::kNotStartsWith) &&
        type->id() != TypeId::kString) {
      return MakeError(ErrorKind::kInvalidInput,
                       "LIKE and starts_with apply to string columns, not '" + name +
                           "' (" + type->ToString() + ")");
    }
    auto not_null = [&] {
      return MakeBoundPredicate(Operation::kNotNull, *id, type, {}, canonical);
    };
    if (op == Operation::kIn || op == Operation::kNotIn) {
      std::vector<Value> values;
      for (const auto& text : predicate.texts) {
        int overflow = 0;
        auto value = ConvertLiteral(text, *type, &overflow);
        if (!value.ok()) return WithContext(value.status(), "column '" + name + "'");
        if (overflow == 0)
          values.push_back(std::move(*value));  // out of range: never equal
      }
      std::sort(values.begin(), values.end(),
                [](const Value& a, const Value& b) { return CompareValues(a, b) < 0; });
      values.erase(std::unique(values.begin(), values.end(),
                               [](const Value& a, const Value& b) {
                                 return CompareValues(a, b) == 0;
                               }),
                   values.end());
      if (values.empty()) return op == Operation::kIn ? AlwaysFalse() : not_null();
      if (values.size() == 1) {
        return MakeBoundPredicate(
            op == Operation::kIn ? Operation::kEq : Operation::kNotEq, *id, type,
            std::move(values), canonical);
      }
      return MakeBoundPredicate(op, *id, type, std::move(values), canonical);
    }
    if (predicate.texts.size() != 1) {
      return MakeError(ErrorKind::kInvalidInput,
                       "predicate on '" + name + "' needs one literal");
    }
    int overflow = 0;
    auto value = ConvertLiteral(predicate.texts[0], *type, &overflow);
    if (!value.ok()) return WithContext(value.status(), "column '" + name + "'");
    if (overflow != 0) {
      // The literal lies beyond every value of the type: the comparison is decided for
      // every non-null value.
      bool above = overflow > 0;
      switch (op) {
        case Operation::kLt:
        case Operation::kLtEq:
          return above ? not_null() : AlwaysFalse();
        case Operation::kGt:
        case Operation::kGtEq:
          return above ? AlwaysFalse() : not_null();
        case Operation::kEq:
          return AlwaysFalse();
        case Operation::kNotEq:
          return not_null();
        default:
          break;
      }
    }
    return MakeBoundPredicate(op, *id, type, {std::move(*value)}, canonical);
  }
};

}  // namespace

arrow::Result<ExpressionPtr> Bind(const ExpressionPtr& expression, const Schema& schema) {
  Binder binder{schema};
  return binder.Bind(expression, /*negate=*/false);
}

}  // namespace floe
