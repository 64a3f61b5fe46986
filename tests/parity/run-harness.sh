#!/usr/bin/env bash
# Run the iceberg-java parity harness:  run-harness.sh write|dump|transform|catalog|commit-bench <request.json>
# Prints one JSON object on stdout (exit 0 ok, 1 error, 2 usage, 3 clustered writer rejected the
# row order). Builds the harness first if the jar is missing.
#   run-harness.sh rest-server   runs iceberg-java's REST catalog test server
# (org.apache.iceberg.rest.RESTCatalogServer) in the foreground, configured by its environment:
# CATALOG_REST_PORT, CATALOG_URI (its JdbcCatalog's database), CATALOG_WAREHOUSE, CATALOG_IO__IMPL.
# Environment: JAVA_HOME (JDK 17+), PARITY_LOG_LEVEL (slf4j level, default error), MVN_FLAGS.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ $# -eq 1 && "$1" == rest-server ]]; then
  main=org.apache.iceberg.rest.RESTCatalogServer
  args=()
elif [[ $# -ne 2 ]]; then
  echo "usage: $0 write|dump|transform|catalog|commit-bench <request.json>  or  $0 rest-server" >&2
  exit 2
else
  main=floe.parity.Harness
  args=("$1" "$2")
fi
if [[ ! -f "$HERE/target/parity-harness.jar" || ! -d "$HERE/target/lib" ]]; then
  echo "building parity harness (mvn package)..." >&2
  mvn -q -T 1 ${MVN_FLAGS:-} -f "$HERE/pom.xml" package -DskipTests >&2
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
opts=(-Xmx${HARNESS_XMX:-1g} -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED)
# JDK major version from the JDK's release file (cheap), else from `java -version`.
release="$(dirname "$(dirname "$(readlink -f "$(command -v "$JAVA")")")")/release"
if [[ -f "$release" ]]; then
  major="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release")"
else
  major="$("$JAVA" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)"
fi
if [[ "${major%%.*}" =~ ^[0-9]+$ ]] && (( ${major%%.*} >= 23 )); then
  opts+=(--sun-misc-unsafe-memory-access=allow)   # caffeine's Unsafe use warns on JDK 23+
fi
exec "$JAVA" "${opts[@]}" -cp "$HERE/target/parity-harness.jar:$HERE/target/lib/*" \
  "$main" "${args[@]}"
