#!/usr/bin/env bash
# floe's Spark plugin (spark/): one jar per Spark line, build/spark/floe-spark-<line>_2.13.jar,
# rebuilt by Maven when spark/'s sources change. Spark and iceberg-spark-runtime are
# `provided` (the session brings them); Maven fetches them, pinned in spark/pom.xml.
set -euo pipefail
cd "$(dirname "$0")/.."

# floe's native library for the jars: the library installed from the Python package's
# Release build (as scripts/example.sh installs it), then spark/native against it.
build="$(ls -d build/python/*/ 2>/dev/null | head -n 1)"
if [ -z "$build" ] || [ ! -f "$build/CMakeCache.txt" ]; then
  echo "scripts/build_spark_plugin.sh: no build of the Python package in build/python" >&2
  exit 1
fi
prefix="$PWD/build/spark/install"
cmake --build "$build" --target floe >/dev/null
cmake --install "$build" --prefix "$prefix" --component development >/dev/null
if [ ! -f build/spark/native/compile_commands.json ]; then  # make lint tidies with it
  cmake -S spark/native -B build/spark/native -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
fi
cmake --build build/spark/native >/dev/null
rm -rf build/spark/native-lib
mkdir -p build/spark/native-lib
cp build/spark/native/libfloe_spark.so build/spark/native-lib/libfloe_spark.so
# The Arrow C++ libraries it needs (from the pyarrow wheel floe was built with), transitively,
# go into the jar beside it (its RUNPATH is $ORIGIN); `libraries` lists what the JVM extracts.
arrow_dir="$(.venv/bin/python -c 'import pyarrow; print(pyarrow.get_library_dirs()[0])')"
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
pending=(build/spark/native-lib/libfloe_spark.so)
while ((${#pending[@]})); do
  library="${pending[0]}"
  pending=("${pending[@]:1}")
  for name in $(needed "$library"); do
    if [ -f "$arrow_dir/$name" ] && [ ! -f "build/spark/native-lib/$name" ]; then
      cp "$arrow_dir/$name" "build/spark/native-lib/$name"
      pending+=("build/spark/native-lib/$name")
    fi
  done
done
(cd build/spark/native-lib && ls -1 | grep -v '^libraries$' > libraries)

wanted="$( (find spark -type f -print0 | sort -z | xargs -0 sha256sum; \
            cd build/spark/native-lib && sha256sum -- *) | sha256sum | cut -d' ' -f1)"
for line in 4.0 4.1; do
  jar="build/spark/floe-spark-${line}_2.13.jar"
  stamp="build/spark/.floe-spark-${line}.sha256"
  if [ -f "$jar" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
    continue
  fi
  echo "bootstrap: building floe's Spark plugin for Spark $line (Maven)"
  mvn -q -B -f spark/pom.xml -Dspark.line="$line" package
  cp "build/spark/target-${line}/floe-spark-${line}_2.13.jar" "$jar"
  echo "$wanted" > "$stamp"
done
