#include "floe/util/error.h"

#include <exception>
#include <memory>
#include <utility>
#include <vector>

namespace floe {
namespace {

constexpr char kDetailTypeId[] = "floe::ErrorDetail";

class ErrorDetail : public arrow::StatusDetail {
 public:
  explicit ErrorDetail(ErrorKind kind, std::vector<std::string> reasons = {})
      : kind_(kind), reasons_(std::move(reasons)) {}
  const char* type_id() const override { return kDetailTypeId; }
  std::string ToString() const override { return std::string(ErrorKindName(kind_)); }
  ErrorKind kind() const { return kind_; }
  const std::vector<std::string>& reasons() const { return reasons_; }

 private:
  ErrorKind kind_;
  std::vector<std::string> reasons_;
};

const ErrorDetail* DetailOf(const arrow::Status& status) {
  if (status.ok() || status.detail() == nullptr) return nullptr;
  if (std::string_view(status.detail()->type_id()) != kDetailTypeId) return nullptr;
  return static_cast<const ErrorDetail*>(status.detail().get());
}

arrow::StatusCode CodeFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNotSupported:
      return arrow::StatusCode::NotImplemented;
    case ErrorKind::kNoSuchTable:
    case ErrorKind::kNoSuchNamespace:
    case ErrorKind::kNotFound:
      return arrow::StatusCode::KeyError;
    case ErrorKind::kAlreadyExists:
      return arrow::StatusCode::AlreadyExists;
    case ErrorKind::kCommitFailed:
    case ErrorKind::kCommitStateUnknown:
      return arrow::StatusCode::IOError;
    case ErrorKind::kCancelled:
      return arrow::StatusCode::Cancelled;
    case ErrorKind::kInvalidMetadata:
    case ErrorKind::kInvalidInput:
    case ErrorKind::kValidationFailed:
    case ErrorKind::kNamespaceNotEmpty:
      return arrow::StatusCode::Invalid;
    case ErrorKind::kUnknown:
    case ErrorKind::kInternal:
      break;
  }
  return arrow::StatusCode::UnknownError;
}

}  // namespace

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kUnknown:
      return "Unknown";
    case ErrorKind::kCommitFailed:
      return "CommitFailed";
    case ErrorKind::kCommitStateUnknown:
      return "CommitStateUnknown";
    case ErrorKind::kValidationFailed:
      return "ValidationFailed";
    case ErrorKind::kNotSupported:
      return "NotSupported";
    case ErrorKind::kNoSuchTable:
      return "NoSuchTable";
    case ErrorKind::kNoSuchNamespace:
      return "NoSuchNamespace";
    case ErrorKind::kAlreadyExists:
      return "AlreadyExists";
    case ErrorKind::kNamespaceNotEmpty:
      return "NamespaceNotEmpty";
    case ErrorKind::kInvalidMetadata:
      return "InvalidMetadata";
    case ErrorKind::kInvalidInput:
      return "InvalidInput";
    case ErrorKind::kNotFound:
      return "NotFound";
    case ErrorKind::kCancelled:
      return "Cancelled";
    case ErrorKind::kInternal:
      return "Internal";
  }
  return "Unknown";
}

ErrorKind KindOf(const arrow::Status& status) {
  const ErrorDetail* detail = DetailOf(status);
  return detail ? detail->kind() : ErrorKind::kUnknown;
}

std::vector<std::string> DeclineReasons(const arrow::Status& status) {
  const ErrorDetail* detail = DetailOf(status);
  return detail ? detail->reasons() : std::vector<std::string>{};
}

arrow::Status MakeDeclinedError(std::string message, std::vector<std::string> reasons) {
  return arrow::Status(
      CodeFor(ErrorKind::kNotSupported), std::move(message),
      std::make_shared<ErrorDetail>(ErrorKind::kNotSupported, std::move(reasons)));
}

arrow::Status MakeError(ErrorKind kind, std::string message) {
  return arrow::Status(CodeFor(kind), std::move(message),
                       std::make_shared<ErrorDetail>(kind));
}

arrow::Status WithContext(const arrow::Status& status, std::string_view context) {
  if (status.ok()) return status;
  return arrow::Status(status.code(), std::string(context) + ": " + status.message(),
                       status.detail());
}

arrow::Status StatusFromCurrentException(std::string_view where) noexcept {
  std::string what;
  try {
    throw;
  } catch (const std::exception& error) {
    what = error.what();
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  return MakeError(ErrorKind::kInternal, "internal error in " + std::string(where) +
                                             ": " + what +
                                             " (a bug in floe: please report it)");
}

}  // namespace floe
