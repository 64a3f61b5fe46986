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
mkdir -p build/spark/native-lib
cp build/spark/native/libfloe_spark.so build/spark/native-lib/libfloe_spark.so

wanted="$( (find spark -type f -print0 | sort -z | xargs -0 sha256sum; \
            sha256sum build/spark/native-lib/libfloe_spark.so) | sha256sum | cut -d' ' -f1)"
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
