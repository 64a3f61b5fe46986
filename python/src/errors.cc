// floe's errors on their way to Python: a failed status becomes the package's exception
// for its kind (the package's _errors.error_for makes it), any other C++ exception an
// InternalError.
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "bindings_internal.h"
#include "floe/util/error.h"

using namespace nb::literals;

namespace floe::python {
namespace {

// A failed floe status on its way to Python: the translator below makes it the
// exception the package's _errors.error_for gives for `kind`.
struct StatusError : std::exception {
  std::string kind;
  std::string message;
  std::vector<std::string> reasons;
  const char* what() const noexcept override { return message.c_str(); }
};

// The Python callable (kind, message, reasons) -> exception instance, set once by the
// package at import. Never released: it lives as long as the interpreter.
PyObject* error_factory = nullptr;

}  // namespace

[[noreturn]] void Throw(const arrow::Status& status, std::string kind) {
  StatusError error;
  error.kind =
      kind.empty() ? std::string(ErrorKindName(KindOf(status))) : std::move(kind);
  // A status from Arrow carries no floe kind: its code says which exception fits best,
  // so that none arrives as the bare base class.
  if (error.kind == "Unknown") {
    if (status.IsIOError()) {
      error.kind = "IOError";
    } else if (status.IsNotImplemented()) {
      error.kind = "NotSupported";
    } else if (status.IsCancelled()) {
      error.kind = "Cancelled";
    } else if (status.IsInvalid() || status.IsTypeError() || status.IsIndexError() ||
               status.IsKeyError() || status.IsCapacityError()) {
      error.kind = "InvalidInput";
    }
  }
  error.message = status.message();
  error.reasons = DeclineReasons(status);
  throw error;
}

void BindErrors(nb::module_& m) {
  // Every exception leaving a binding becomes a FloeError: a floe status as its kind's
  // exception, and any other C++ exception (a bug; nanobind would make std::out_of_range
  // a bare IndexError) as InternalError. nanobind's own (a Python error passing
  // through, a type error it raised) and MemoryError keep their meaning.
  nb::register_exception_translator([](const std::exception_ptr& pointer, void*) {
    auto raise = [](const StatusError& error) {
      if (error_factory == nullptr) {
        PyErr_SetString(PyExc_RuntimeError, error.message.c_str());
        return;
      }
      try {
        nb::object made =
            nb::borrow(error_factory)(error.kind, error.message, error.reasons);
        PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(made.ptr())), made.ptr());
      } catch (nb::python_error& raised) {
        raised.restore();
      }
    };
    try {
      std::rethrow_exception(pointer);
    } catch (const StatusError& error) {
      raise(error);
    } catch (const nb::python_error&) {
      throw;
    } catch (const nb::builtin_exception&) {
      throw;
    } catch (const nb::cast_error&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (...) {
      const arrow::Status status =
          floe::StatusFromCurrentException("floe's Python binding");
      StatusError error;
      error.kind = std::string(floe::ErrorKindName(floe::KindOf(status)));
      error.message = status.message();
      raise(error);
    }
  });
  m.def(
      "set_error_factory",
      [](nb::object factory) {
        Py_XDECREF(error_factory);
        error_factory = factory.release().ptr();
      },
      "factory"_a);
}

}  // namespace floe::python
