// Error kinds for floe's arrow::Status values.
//
// Every fallible floe function returns arrow::Status or arrow::Result<T>. A status that
// carries a floe ErrorKind (as its StatusDetail) tells callers *what kind* of failure
// happened, named after the iceberg-java exception a Java or Python user would expect, so
// behaviour can follow the kind: a CommitFailed is retried, a CommitStateUnknown never
// triggers cleanup.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arrow/status.h"

namespace floe {

/// What went wrong, mirroring iceberg-java's exceptions.
enum class ErrorKind {
  kUnknown = 0,         ///< A status that carries no floe kind.
  kCommitFailed,        ///< Lost the compare-and-swap; retryable (CommitFailedException).
  kCommitStateUnknown,  ///< The swap may or may not have happened; never clean up.
  kValidationFailed,    ///< A logical conflict or a broken requirement
                        ///< (ValidationException).
  kNotSupported,        ///< Declined by the eligibility gate or unsupported by floe.
  kNoSuchTable,         ///< NoSuchTableException.
  kNoSuchNamespace,     ///< NoSuchNamespaceException.
  kAlreadyExists,       ///< AlreadyExistsException (table or namespace).
  kNamespaceNotEmpty,   ///< NamespaceNotEmptyException.
  kInvalidMetadata,  ///< Table metadata, a manifest or a message that cannot be parsed.
  kInvalidInput,     ///< User input (data, schema, argument) that does not fit.
  kNotFound,         ///< A file that should exist does not.
  kCancelled,        ///< Stopped on request (a signal); what it wrote is deleted.
  kInternal,         ///< An exception caught at a public entry point: a bug in floe or a
                     ///< library.
};

/// The stable text of a kind, e.g. "CommitFailed".
std::string_view ErrorKindName(ErrorKind kind);

/// The kind attached to `status`, or kUnknown (also for OK).
ErrorKind KindOf(const arrow::Status& status);

/// A failed status of the given kind. The arrow::StatusCode is chosen to match the kind
/// (IOError for storage, Invalid for bad input, ...), so code that only knows Arrow still
/// gets a sensible code.
arrow::Status MakeError(ErrorKind kind, std::string message);

/// A NotSupported status for a write the eligibility gate declined, carrying the gate's
/// `reasons` (names only, never values) for callers that show them one by one.
arrow::Status MakeDeclinedError(std::string message, std::vector<std::string> reasons);

/// The gate's reasons a status made by MakeDeclinedError carries (also after
/// WithContext); empty for any other status.
std::vector<std::string> DeclineReasons(const arrow::Status& status);

/// The error for the exception being handled, caught at a public entry point (the floe
/// command, a Python binding, the JNI boundary) so that none crosses it: kInternal,
/// naming `where` and the exception's message. Call it only inside a catch block.
arrow::Status StatusFromCurrentException(std::string_view where) noexcept;

/// `status` with `context` prepended to its message ("context: message"), keeping its
/// code and its kind. OK stays OK.
arrow::Status WithContext(const arrow::Status& status, std::string_view context);

}  // namespace floe

/// Returns early with `expr`'s status, prefixed by `context`, when it is not OK.
#define FLOE_RETURN_NOT_OK_CONTEXT(expr, context)          \
  do {                                                     \
    ::arrow::Status _floe_status = (expr);                 \
    if (!_floe_status.ok()) {                              \
      return ::floe::WithContext(_floe_status, (context)); \
    }                                                      \
  } while (false)

/// Assigns the value of `rexpr` (an arrow::Result) to the existing lvalue `lhs`, or
/// returns its error. Unlike ARROW_ASSIGN_OR_RAISE it declares nothing in the enclosing
/// scope, so it can sit directly under a `case` label.
// NOLINTBEGIN(bugprone-macro-parentheses): `lhs` may be a declaration.
#define FLOE_ASSIGN_OR_RETURN(lhs, rexpr)                 \
  do {                                                    \
    auto&& _floe_result = (rexpr);                        \
    if (!_floe_result.ok()) return _floe_result.status(); \
    lhs = std::move(_floe_result).ValueUnsafe();          \
  } while (false)
// NOLINTEND(bugprone-macro-parentheses)
