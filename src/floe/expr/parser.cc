#include "floe/expr/parser.h"

#include <cctype>
#include <string>
#include <vector>

#include "floe/util/error.h"
#include "floe/util/text.h"

namespace floe {
namespace {

constexpr int kMaxDepth = 256;

enum class TokenKind { kEnd, kName, kQuotedName, kNumber, kString, kHex, kSymbol };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string
      text;  // names as written (unquoted for quoted names), symbols, literal content
  size_t position = 0;
};

bool IsNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool EqualsKeyword(const Token& token, std::string_view keyword) {
  if (token.kind != TokenKind::kName || token.text.size() != keyword.size()) return false;
  for (size_t i = 0; i < keyword.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(token.text[i])) != keyword[i])
      return false;
  }
  return true;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  arrow::Result<ExpressionPtr> Parse() {
    ARROW_RETURN_NOT_OK(Tokenize());
    ARROW_ASSIGN_OR_RAISE(auto expression, ParseOr(0));
    if (Peek().kind != TokenKind::kEnd) return Error("AND, OR or the end of the filter");
    return expression;
  }

 private:
  arrow::Status Tokenize() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      Token token;
      token.position = i;
      if ((c == 'x' || c == 'X') && i + 1 < text_.size() && text_[i + 1] == '\'') {
        ARROW_ASSIGN_OR_RAISE(token.text, ReadQuoted(i + 1, '\'', &i));
        for (char digit : token.text) {
          if (!std::isxdigit(static_cast<unsigned char>(digit))) {
            return ErrorAt(token.position, "X'...' holds hex digits only");
          }
        }
        token.kind = TokenKind::kHex;
      } else if (IsNameStart(c)) {
        size_t start = i;
        while (i < text_.size() && IsNameChar(text_[i])) ++i;
        token.kind = TokenKind::kName;
        token.text = std::string(text_.substr(start, i - start));
      } else if (c == '"' || c == '`') {
        ARROW_ASSIGN_OR_RAISE(token.text, ReadQuoted(i, c, &i));
        if (token.text.empty())
          return ErrorAt(token.position, "a quoted name must not be empty");
        token.kind = TokenKind::kQuotedName;
      } else if (c == '\'') {
        ARROW_ASSIGN_OR_RAISE(token.text, ReadQuoted(i, '\'', &i));
        token.kind = TokenKind::kString;
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && i + 1 < text_.size() &&
                  std::isdigit(static_cast<unsigned char>(text_[i + 1])))) {
        size_t start = i;
        while (i < text_.size() &&
               (std::isdigit(static_cast<unsigned char>(text_[i])) || text_[i] == '.')) {
          ++i;
        }
        if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
          ++i;
          if (i < text_.size() && (text_[i] == '+' || text_[i] == '-')) ++i;
          while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i])))
            ++i;
        }
        if (i < text_.size() && IsNameChar(text_[i])) {
          return ErrorAt(i, "a number must not run into a name");
        }
        token.kind = TokenKind::kNumber;
        token.text = std::string(text_.substr(start, i - start));
      } else {
        static constexpr std::string_view kTwo[] = {"<=", ">=", "<>", "!=", "=="};
        static constexpr std::string_view kOne = "=<>(),.-+";
        std::string_view rest = text_.substr(i);
        token.kind = TokenKind::kSymbol;
        for (auto symbol : kTwo) {
          if (rest.substr(0, 2) == symbol) token.text = std::string(symbol);
        }
        if (token.text.empty() && kOne.find(c) != std::string_view::npos)
          token.text = std::string(1, c);
        if (token.text.empty())
          return ErrorAt(i, "unexpected character '" + std::string(1, c) + "'");
        i += token.text.size();
      }
      tokens_.push_back(std::move(token));
    }
    Token end;
    end.position = text_.size();
    tokens_.push_back(end);
    return arrow::Status::OK();
  }

  // Reads a quoted run starting at `open` (the quote); a doubled quote stands for itself.
  arrow::Result<std::string> ReadQuoted(size_t open, char quote, size_t* next) {
    std::string out;
    size_t i = open + 1;
    while (i < text_.size()) {
      if (text_[i] == quote) {
        if (i + 1 < text_.size() && text_[i + 1] == quote) {
          out += quote;
          i += 2;
          continue;
        }
        *next = i + 1;
        return out;
      }
      out += text_[i++];
    }
    return ErrorAt(open, std::string("unterminated ") + quote);
  }

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(index_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() { return tokens_[std::min(index_++, tokens_.size() - 1)]; }
  bool AcceptSymbol(std::string_view symbol) {
    if (Peek().kind == TokenKind::kSymbol && Peek().text == symbol) {
      ++index_;
      return true;
    }
    return false;
  }
  bool AcceptKeyword(std::string_view keyword) {
    if (EqualsKeyword(Peek(), keyword)) {
      ++index_;
      return true;
    }
    return false;
  }

  arrow::Status ErrorAt(size_t position, const std::string& what) const {
    return MakeError(
        ErrorKind::kInvalidInput,
        "cannot parse filter at position " + std::to_string(position + 1) + ": " + what);
  }
  arrow::Status Error(const std::string& expected) const {
    const Token& token = Peek();
    std::string found =
        token.kind == TokenKind::kEnd ? "the end" : "'" + token.text + "'";
    return ErrorAt(token.position, "expected " + expected + ", found " + found);
  }

  arrow::Result<ExpressionPtr> ParseOr(int depth) {
    if (depth > kMaxDepth)
      return ErrorAt(Peek().position, "the filter is nested too deeply");
    ARROW_ASSIGN_OR_RAISE(auto left, ParseAnd(depth));
    while (AcceptKeyword("OR")) {
      ARROW_ASSIGN_OR_RAISE(auto right, ParseAnd(depth));
      left = MakeOrUnsimplified(std::move(left), std::move(right));
    }
    return left;
  }

  arrow::Result<ExpressionPtr> ParseAnd(int depth) {
    ARROW_ASSIGN_OR_RAISE(auto left, ParseUnary(depth));
    while (AcceptKeyword("AND")) {
      ARROW_ASSIGN_OR_RAISE(auto right, ParseUnary(depth));
      left = MakeAndUnsimplified(std::move(left), std::move(right));
    }
    return left;
  }

  // Keeps the tree as written; simplification happens when the filter is bound.
  static ExpressionPtr MakeAndUnsimplified(ExpressionPtr left, ExpressionPtr right) {
    Expression expression;
    expression.op = Operation::kAnd;
    expression.left = std::move(left);
    expression.right = std::move(right);
    return std::make_shared<const Expression>(std::move(expression));
  }
  static ExpressionPtr MakeOrUnsimplified(ExpressionPtr left, ExpressionPtr right) {
    Expression expression;
    expression.op = Operation::kOr;
    expression.left = std::move(left);
    expression.right = std::move(right);
    return std::make_shared<const Expression>(std::move(expression));
  }

  arrow::Result<ExpressionPtr> ParseUnary(int depth) {
    if (depth > kMaxDepth)
      return ErrorAt(Peek().position, "the filter is nested too deeply");
    if (AcceptKeyword("NOT")) {
      ARROW_ASSIGN_OR_RAISE(auto child, ParseUnary(depth + 1));
      Expression expression;
      expression.op = Operation::kNot;
      expression.left = std::move(child);
      return std::make_shared<const Expression>(std::move(expression));
    }
    if (AcceptSymbol("(")) {
      ARROW_ASSIGN_OR_RAISE(auto inner, ParseOr(depth + 1));
      if (!AcceptSymbol(")")) return Error("')'");
      return inner;
    }
    if (IsConstant()) {
      bool value = EqualsKeyword(Next(), "TRUE");
      return value ? AlwaysTrue() : AlwaysFalse();
    }
    if (EqualsKeyword(Peek(), "STARTS_WITH") && Peek(1).kind == TokenKind::kSymbol &&
        Peek(1).text == "(") {
      index_ += 2;
      ARROW_ASSIGN_OR_RAISE(std::string column, ParseColumn());
      if (!AcceptSymbol(",")) return Error("','");
      if (Peek().kind != TokenKind::kString) return Error("a quoted prefix");
      std::string prefix = Next().text;
      if (!AcceptSymbol(")")) return Error("')'");
      return MakePredicate(Operation::kStartsWith, column,
                           {LiteralText{LiteralText::Kind::kString, prefix}});
    }
    return ParsePredicate();
  }

  // TRUE or FALSE standing alone (not the left side of a comparison).
  bool IsConstant() const {
    if (!EqualsKeyword(Peek(), "TRUE") && !EqualsKeyword(Peek(), "FALSE")) return false;
    const Token& after = Peek(1);
    return !(after.kind == TokenKind::kSymbol && after.text != ")" && after.text != ",");
  }

  bool AtColumn() const {
    const Token& token = Peek();
    if (token.kind == TokenKind::kQuotedName) return true;
    if (token.kind != TokenKind::kName) return false;
    for (auto keyword : {"TRUE", "FALSE", "DATE", "TIME", "TIMESTAMP", "NULL"}) {
      if (EqualsKeyword(token, keyword)) {
        // DATE '...' is a typed literal; a column named date is written without a string
        // after.
        if (std::string_view(keyword) == "TRUE" || std::string_view(keyword) == "FALSE" ||
            std::string_view(keyword) == "NULL" || Peek(1).kind == TokenKind::kString) {
          return false;
        }
      }
    }
    return true;
  }

  arrow::Result<std::string> ParseColumn() {
    std::string name;
    while (true) {
      const Token& token = Peek();
      if (token.kind != TokenKind::kName && token.kind != TokenKind::kQuotedName) {
        return Error("a column name");
      }
      name += Next().text;
      if (!AcceptSymbol(".")) break;
      name += '.';
    }
    return name;
  }

  arrow::Result<LiteralText> ParseLiteral() {
    if (EqualsKeyword(Peek(), "NULL")) {
      return ErrorAt(Peek().position,
                     "NULL is not a value to compare with: use IS NULL or IS NOT NULL");
    }
    if (EqualsKeyword(Peek(), "TRUE") || EqualsKeyword(Peek(), "FALSE")) {
      return LiteralText{LiteralText::Kind::kBoolean, AsciiLower(Next().text)};
    }
    if ((EqualsKeyword(Peek(), "DATE") || EqualsKeyword(Peek(), "TIME") ||
         EqualsKeyword(Peek(), "TIMESTAMP")) &&
        Peek(1).kind == TokenKind::kString) {
      ++index_;
      return LiteralText{LiteralText::Kind::kString, Next().text};
    }
    std::string sign;
    if (AcceptSymbol("-")) {
      sign = "-";
    } else {
      AcceptSymbol("+");
    }
    const Token& token = Peek();
    switch (token.kind) {
      case TokenKind::kNumber:
        return LiteralText{LiteralText::Kind::kNumber, sign + Next().text};
      case TokenKind::kString:
        if (!sign.empty()) break;
        return LiteralText{LiteralText::Kind::kString, Next().text};
      case TokenKind::kHex:
        if (!sign.empty()) break;
        return LiteralText{LiteralText::Kind::kHex, Next().text};
      default:
        break;
    }
    return Error("a literal (number, 'string', X'hex', TRUE, FALSE, DATE '...')");
  }

  arrow::Result<Operation> ParseComparison() {
    const Token& token = Peek();
    if (token.kind == TokenKind::kSymbol) {
      static const std::pair<std::string_view, Operation> kOps[] = {
          {"=", Operation::kEq},     {"==", Operation::kEq},  {"!=", Operation::kNotEq},
          {"<>", Operation::kNotEq}, {"<", Operation::kLt},   {"<=", Operation::kLtEq},
          {">", Operation::kGt},     {">=", Operation::kGtEq}};
      for (const auto& [symbol, op] : kOps) {
        if (token.text == symbol) {
          ++index_;
          return op;
        }
      }
    }
    return Error("a comparison (=, !=, <, <=, >, >=), IN, BETWEEN, LIKE or IS");
  }

  arrow::Result<ExpressionPtr> ParsePredicate() {
    if (Peek().kind == TokenKind::kEnd) return Error("a predicate");
    if (!AtColumn()) {
      // literal op column
      size_t position = Peek().position;
      ARROW_ASSIGN_OR_RAISE(auto literal, ParseLiteral());
      ARROW_ASSIGN_OR_RAISE(Operation op, ParseComparison());
      if (!AtColumn())
        return ErrorAt(position, "a comparison needs a column on one side");
      ARROW_ASSIGN_OR_RAISE(std::string column, ParseColumn());
      return MakePredicate(Flip(op), column, {literal});
    }
    ARROW_ASSIGN_OR_RAISE(std::string column, ParseColumn());
    if (AcceptKeyword("IS")) {
      bool negated = AcceptKeyword("NOT");
      if (AcceptKeyword("NULL")) {
        return MakePredicate(negated ? Operation::kNotNull : Operation::kIsNull, column);
      }
      if (AcceptKeyword("NAN")) {
        return MakePredicate(negated ? Operation::kNotNaN : Operation::kIsNaN, column);
      }
      return Error("NULL or NAN");
    }
    bool negated = false;
    if (EqualsKeyword(Peek(), "NOT") &&
        (EqualsKeyword(Peek(1), "IN") || EqualsKeyword(Peek(1), "LIKE") ||
         EqualsKeyword(Peek(1), "BETWEEN"))) {
      ++index_;
      negated = true;
    }
    if (AcceptKeyword("IN")) {
      if (!AcceptSymbol("(")) return Error("'('");
      std::vector<LiteralText> literals;
      do {
        ARROW_ASSIGN_OR_RAISE(auto literal, ParseLiteral());
        literals.push_back(std::move(literal));
      } while (AcceptSymbol(","));
      if (!AcceptSymbol(")")) return Error("',' or ')'");
      return MakePredicate(negated ? Operation::kNotIn : Operation::kIn, column,
                           std::move(literals));
    }
    if (AcceptKeyword("BETWEEN")) {
      ARROW_ASSIGN_OR_RAISE(auto low, ParseLiteral());
      if (!AcceptKeyword("AND")) return Error("AND");
      ARROW_ASSIGN_OR_RAISE(auto high, ParseLiteral());
      auto between = MakeAndUnsimplified(MakePredicate(Operation::kGtEq, column, {low}),
                                         MakePredicate(Operation::kLtEq, column, {high}));
      if (!negated) return between;
      Expression expression;
      expression.op = Operation::kNot;
      expression.left = between;
      return std::make_shared<const Expression>(std::move(expression));
    }
    if (EqualsKeyword(Peek(), "LIKE")) {
      size_t position = Next().position;
      if (Peek().kind != TokenKind::kString) return Error("a quoted pattern");
      ARROW_ASSIGN_OR_RAISE(auto like,
                            LikeToPredicate(column, Next().text, negated, position));
      return like;
    }
    ARROW_ASSIGN_OR_RAISE(Operation op, ParseComparison());
    ARROW_ASSIGN_OR_RAISE(auto literal, ParseLiteral());
    return MakePredicate(op, column, {literal});
  }

  // 'abc%' is starts_with('abc'); a pattern without wildcards is equality. \% \_
  // \\ escape.
  arrow::Result<ExpressionPtr> LikeToPredicate(const std::string& column,
                                               const std::string& pattern, bool negated,
                                               size_t position) {
    std::string prefix;
    bool trailing_percent = false;
    for (size_t i = 0; i < pattern.size(); ++i) {
      char c = pattern[i];
      if (c == '\\' && i + 1 < pattern.size()) {
        prefix += pattern[++i];
        continue;
      }
      if (c == '%' && i + 1 == pattern.size()) {
        trailing_percent = true;
        continue;
      }
      if (c == '%' || c == '_') {
        return ErrorAt(position, "LIKE supports prefix patterns only ('abc%'), not '" +
                                     pattern + "'");
      }
      prefix += c;
    }
    LiteralText literal{LiteralText::Kind::kString, prefix};
    if (!trailing_percent) {
      return MakePredicate(negated ? Operation::kNotEq : Operation::kEq, column,
                           {literal});
    }
    return MakePredicate(negated ? Operation::kNotStartsWith : Operation::kStartsWith,
                         column, {literal});
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t index_ = 0;
};

}  // namespace

arrow::Result<ExpressionPtr> ParseFilter(std::string_view text) {
  Parser parser(text);
  return parser.Parse();
}

}  // namespace floe
