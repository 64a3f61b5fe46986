#!/usr/bin/env bash
# floe's Spark plugin (spark/): one jar per Spark line, build/spark/floe-spark-<line>_2.13.jar,
# rebuilt by Maven when spark/'s sources change. Spark and iceberg-spark-runtime are
# `provided` (the session brings them); Maven fetches them, pinned in spark/pom.xml.
set -euo pipefail
cd "$(dirname "$0")/.."

wanted="$(find spark -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
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
