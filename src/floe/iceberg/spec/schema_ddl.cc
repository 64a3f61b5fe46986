#include "floe/iceberg/spec/schema_ddl.h"

#include <cctype>

#include "floe/iceberg/spec/table_metadata.h"
#include "floe/util/error.h"
#include "floe/util/text.h"

namespace floe::iceberg {
namespace {

constexpr int kMaxDepth = 64;

class DdlParser {
 public:
  explicit DdlParser(std::string_view text) : text_(text) {}

  arrow::Result<std::vector<NestedField>> Columns() {
    std::vector<NestedField> fields;
    do {
      ARROW_ASSIGN_OR_RAISE(auto field, Field(/*colon_allowed=*/false, 0));
      fields.push_back(std::move(field));
    } while (Accept(","));
    SkipSpaces();
    if (position_ != text_.size()) return Error("expected ',' or the end of the schema");
    return fields;
  }

 private:
  arrow::Status Error(const std::string& message) const {
    return MakeError(
        ErrorKind::kInvalidInput,
        "schema text at offset " + std::to_string(position_) + ": " + message);
  }

  void SkipSpaces() {
    while (position_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[position_]))) {
      ++position_;
    }
  }

  bool Accept(std::string_view token) {
    SkipSpaces();
    if (text_.substr(position_, token.size()) == token) {
      position_ += token.size();
      return true;
    }
    return false;
  }

  // Case-insensitive keyword that must end at a word boundary.
  bool AcceptKeyword(std::string_view keyword) {
    SkipSpaces();
    if (position_ + keyword.size() > text_.size()) return false;
    if (AsciiLower(text_.substr(position_, keyword.size())) != keyword) return false;
    size_t end = position_ + keyword.size();
    if (end < text_.size() &&
        (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) {
      return false;
    }
    position_ = end;
    return true;
  }

  arrow::Result<std::string> Name() {
    SkipSpaces();
    if (position_ < text_.size() && text_[position_] == '`') {
      size_t end = text_.find('`', position_ + 1);
      if (end == std::string_view::npos) return Error("unterminated `name`");
      std::string name(text_.substr(position_ + 1, end - position_ - 1));
      position_ = end + 1;
      if (name.empty()) return Error("empty column name");
      return name;
    }
    size_t start = position_;
    while (position_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[position_])) ||
            text_[position_] == '_' ||
            static_cast<unsigned char>(text_[position_]) >= 0x80)) {
      ++position_;
    }
    if (start == position_) return Error("expected a column name");
    return std::string(text_.substr(start, position_ - start));
  }

  bool AcceptNotNull() {
    size_t saved = position_;
    if (AcceptKeyword("not") && AcceptKeyword("null")) return true;
    position_ = saved;
    return AcceptKeyword("required");
  }

  arrow::Result<NestedField> Field(bool colon_allowed, int depth) {
    ARROW_ASSIGN_OR_RAISE(std::string name, Name());
    if (colon_allowed) Accept(":");
    ARROW_ASSIGN_OR_RAISE(TypePtr type, TypeText(depth));
    bool required = AcceptNotNull();
    NestedField field{0, std::move(name), required, std::move(type)};
    if (AcceptKeyword("comment")) {
      SkipSpaces();
      if (position_ >= text_.size() || text_[position_] != '\'')
        return Error("expected 'comment'");
      size_t end = text_.find('\'', position_ + 1);
      if (end == std::string_view::npos) return Error("unterminated comment");
      field.doc = std::string(text_.substr(position_ + 1, end - position_ - 1));
      position_ = end + 1;
    }
    return field;
  }

  arrow::Result<TypePtr> TypeText(int depth) {
    if (depth > kMaxDepth) return Error("types nested too deeply");
    SkipSpaces();
    if (AcceptKeyword("struct")) {
      if (!Accept("<")) return Error("expected '<' after struct");
      std::vector<NestedField> fields;
      do {
        ARROW_ASSIGN_OR_RAISE(auto field, Field(/*colon_allowed=*/true, depth + 1));
        fields.push_back(std::move(field));
      } while (Accept(","));
      if (!Accept(">")) return Error("expected '>' to close struct");
      return std::static_pointer_cast<const Type>(types::Struct(std::move(fields)));
    }
    if (AcceptKeyword("list") || AcceptKeyword("array")) {
      if (!Accept("<")) return Error("expected '<' after list");
      ARROW_ASSIGN_OR_RAISE(TypePtr element, TypeText(depth + 1));
      bool required = AcceptNotNull();
      if (!Accept(">")) return Error("expected '>' to close list");
      return types::List(0, std::move(element), required);
    }
    if (AcceptKeyword("map")) {
      if (!Accept("<")) return Error("expected '<' after map");
      ARROW_ASSIGN_OR_RAISE(TypePtr key, TypeText(depth + 1));
      if (!Accept(",")) return Error("expected ',' between map key and value types");
      ARROW_ASSIGN_OR_RAISE(TypePtr value, TypeText(depth + 1));
      bool required = AcceptNotNull();
      if (!Accept(">")) return Error("expected '>' to close map");
      return types::Map(0, std::move(key), 0, std::move(value), required);
    }
    // A primitive: a word, optionally followed by (...) or [...].
    size_t start = position_;
    while (position_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[position_])) ||
            text_[position_] == '_')) {
      ++position_;
    }
    if (start == position_) return Error("expected a type");
    std::string word = AsciiLower(text_.substr(start, position_ - start));
    SkipSpaces();
    if (position_ < text_.size() &&
        (text_[position_] == '(' || text_[position_] == '[')) {
      char close = text_[position_] == '(' ? ')' : ']';
      size_t end = text_.find(close, position_);
      if (end == std::string_view::npos) return Error("unclosed type arguments");
      word += std::string(text_.substr(position_, end - position_ + 1));
      position_ = end + 1;
    }
    if (word == "bigint") word = "long";
    if (word == "integer") word = "int";
    if (word == "bool") word = "boolean";
    if (word == "varchar" || word == "text") word = "string";
    if (word == "bytes") word = "binary";
    auto type = PrimitiveType::FromString(word);
    if (!type.ok()) return Error("unknown type '" + word + "'");
    return *type;
  }

  std::string_view text_;
  size_t position_ = 0;
};

}  // namespace

arrow::Result<SchemaPtr> ParseSchemaText(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return MakeError(ErrorKind::kInvalidInput, "the schema text is empty");
  }
  if (text[first] == '{') return SchemaFromJson(text);
  DdlParser parser(text);
  ARROW_ASSIGN_OR_RAISE(auto fields, parser.Columns());
  int last_id = 0;
  return Schema::Make(0, AssignFreshIds(fields, &last_id));
}

}  // namespace floe::iceberg
