#!/usr/bin/env bash
# The C++ example (examples/cpp) built against an installed floe, as a user builds it:
# the library, its public headers and its package config installed from the build the
# Python package already made (Release, build/python/<wheel tag>; scripts/bootstrap.sh),
# then find_package(floe) in a separate CMake project, then the program run on a new
# warehouse. Fails if any step does or the rows read back differ. Run by make test.
set -euo pipefail
cd "$(dirname "$0")/.."
build="$(ls -d build/python/*/ 2>/dev/null | head -n 1)"
if [ -z "$build" ] || [ ! -f "$build/CMakeCache.txt" ]; then
  echo "scripts/example.sh: no build of the Python package in build/python; run scripts/bootstrap.sh" >&2
  exit 1
fi
prefix="$PWD/build/install"
rm -rf "$prefix" build/example
cmake --build "$build" --target floe
cmake --install "$build" --prefix "$prefix" --component development
cmake -S examples/cpp -B build/example -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix"
cmake --build build/example
mkdir -p build/example/warehouse
build/example/floe_example "$PWD/build/example/warehouse"
