// floe._floe: the C++ engine's table API for the Python package (python/floe). The
// classes here are thin: they convert arguments, move Arrow data through the Arrow
// PyCapsule interface (no column data is copied), release the GIL around every call
// that does I/O, and turn floe's errors into the package's exceptions. The Python layer
// (python/floe/*.py) gives them the names, defaults and documentation users see.
//
// This file is the module; each concern's classes and functions, and their bindings, are
// in a file of their own (bindings_internal.h lists them and what they share).
#include "arrow/compute/initialize.h"
#include "bindings_internal.h"

NB_MODULE(_floe, m) {
  using namespace floe::python;
  m.doc() = "floe's C++ engine (use the floe package, not this module)";
  // Arrow's compute functions (casts, filters, validity checks) are registered by
  // libarrow_compute's initialisation, which pyarrow runs only when pyarrow.compute is
  // imported: a process that never imports it (a Spark Python worker) would find none.
  Check(arrow::compute::Initialize());

  BindErrors(m);
  BindUtilities(m);
  BindCatalog(m);
  BindTable(m);
  BindScan(m);
  BindSplitWrite(m);
  // After Catalog, which they take.
  BindDelta(m);
}
