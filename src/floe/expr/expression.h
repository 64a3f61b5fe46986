// Row filters: the expression tree that `--where` parses into, binds to a schema by field
// id, and that scans use to prune manifests, data files and row groups and to filter
// rows.
//
// Semantics are SQL's (the engines floe serves apply these): a predicate over a null
// value is unknown, and a row passes only when the whole filter is true; comparisons of
// floating-point values follow IEEE 754 (NaN compares false, -0.0 equals 0.0), and NaN is
// tested with IS NAN. iceberg-java's row-level Evaluator differs (it orders nulls first
// and NaN last); its pruning evaluators agree with SQL. See docs/divergences.md.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "floe/types/type.h"
#include "floe/types/value.h"

namespace floe {

enum class Operation {
  kTrue,
  kFalse,
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kNotNull,
  kIsNaN,
  kNotNaN,
  kLt,
  kLtEq,
  kGt,
  kGtEq,
  kEq,
  kNotEq,
  kIn,
  kNotIn,
  kStartsWith,
  kNotStartsWith,
};

/// A literal as written, before it is converted to a column's type.
struct LiteralText {
  enum class Kind { kNumber, kString, kBoolean, kHex };
  Kind kind = Kind::kString;
  std::string
      text;  ///< Digits and sign, the unquoted string, "true"/"false", or hex digits.
  bool operator==(const LiteralText&) const = default;
};

struct Expression;
using ExpressionPtr = std::shared_ptr<const Expression>;

/// Immutable once built. A predicate is unbound (column name and literal texts) until
/// Bind() resolves it to a field id, the field's type and literal values of that type.
struct Expression {
  Operation op = Operation::kTrue;
  /// kAnd, kOr: both; kNot: left only.
  ExpressionPtr left;
  ExpressionPtr right;

  /// Predicates: the column as the user wrote it.
  std::string column;
  std::vector<LiteralText> texts;
  /// Bound predicates: the field, its type and the literals converted to it (sorted and
  /// de-duplicated for kIn / kNotIn).
  int field_id = 0;
  TypePtr type;
  std::vector<Value> values;

  bool is_predicate() const { return op >= Operation::kIsNull; }
  bool is_bound() const { return type != nullptr; }
  /// The literal of a single-literal predicate.
  const Value& value() const { return values.front(); }

  /// SQL-like text that parses back to the same tree (bound literals print as typed
  /// text).
  std::string ToString() const;
};

// Builders.
ExpressionPtr AlwaysTrue();
ExpressionPtr AlwaysFalse();
/// Simplifies constant operands (true AND x = x, false AND x = false, ...).
ExpressionPtr MakeAnd(ExpressionPtr left, ExpressionPtr right);
ExpressionPtr MakeOr(ExpressionPtr left, ExpressionPtr right);
ExpressionPtr MakeNot(ExpressionPtr child);
/// An unbound predicate.
ExpressionPtr MakePredicate(Operation op, std::string column,
                            std::vector<LiteralText> texts = {});
/// A bound predicate.
ExpressionPtr MakeBoundPredicate(Operation op, int field_id, TypePtr type,
                                 std::vector<Value> values = {}, std::string column = {});

/// The negation of a predicate's operation (kLt -> kGtEq, kIn -> kNotIn, ...).
Operation Negate(Operation op);
/// The operation with its operands swapped (5 < x is x > 5).
Operation Flip(Operation op);
std::string_view OperationSymbol(Operation op);

/// Pushes every NOT down to the predicates and negates them there, so the tree has no
/// kNot (pruning evaluators need that). Sound under SQL's three-valued logic and IEEE
/// comparisons: on a bound floating-point column NOT (x < 5) becomes (x >= 5 OR x IS
/// NAN), since NaN fails both x < 5 and x >= 5.
ExpressionPtr RewriteNot(const ExpressionPtr& expression);

/// The field ids a bound expression reads.
std::set<int> ReferencedFieldIds(const Expression& expression);

}  // namespace floe
