// Arrow through the PyCapsule interface: streams and schemas cross to and from pyarrow
// (or any Arrow library) without a copy of column data.
#include <memory>
#include <utility>

#include "arrow/c/abi.h"
#include "arrow/c/bridge.h"
#include "bindings_internal.h"
#include "floe/util/error.h"

namespace floe::python {

std::shared_ptr<arrow::RecordBatchReader> ImportStream(nb::handle capsule) {
  auto* stream = static_cast<ArrowArrayStream*>(
      PyCapsule_GetPointer(capsule.ptr(), "arrow_array_stream"));
  if (stream == nullptr) throw nb::python_error();
  if (stream->release == nullptr) {
    Throw(MakeError(ErrorKind::kInvalidInput,
                    "the input stream was already consumed or released"));
  }
  return Unwrap(arrow::ImportRecordBatchReader(stream));
}

nb::capsule ExportStream(std::shared_ptr<arrow::RecordBatchReader> reader) {
  auto stream = std::make_unique<ArrowArrayStream>();
  Check(arrow::ExportRecordBatchReader(std::move(reader), stream.get()));
  return nb::capsule(stream.release(), "arrow_array_stream", [](void* pointer) noexcept {
    auto* stream = static_cast<ArrowArrayStream*>(pointer);
    if (stream->release != nullptr) stream->release(stream);
    delete stream;
  });
}

nb::capsule ExportSchema(const arrow::Schema& schema) {
  auto exported = std::make_unique<ArrowSchema>();
  Check(arrow::ExportSchema(schema, exported.get()));
  return nb::capsule(exported.release(), "arrow_schema", [](void* pointer) noexcept {
    auto* schema = static_cast<ArrowSchema*>(pointer);
    if (schema->release != nullptr) schema->release(schema);
    delete schema;
  });
}

std::shared_ptr<arrow::Schema> ImportSchema(nb::handle capsule) {
  auto* schema =
      static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule.ptr(), "arrow_schema"));
  if (schema == nullptr) throw nb::python_error();
  return Unwrap(arrow::ImportSchema(schema));
}

}  // namespace floe::python
