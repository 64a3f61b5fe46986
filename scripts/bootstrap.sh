#!/usr/bin/env bash
# Installs everything floe needs that is missing on this machine, and nothing else.
# Idempotent: a second run checks and returns in about a second.
#   scripts/bootstrap.sh --demo   what `make demo` needs: the Debian packages that build the
#                                 CLI, and a .venv with requirements-demo.txt (pyarrow, which
#                                 brings Arrow C++/Parquet, pyiceberg for the demo's read-back)
#   scripts/bootstrap.sh          all of it, for the tests and benchmarks: also GoogleTest, a
#                                 PostgreSQL server, the JDK and Maven (the iceberg-java parity
#                                 harness, Spark's jars), Clang's tools, the pinned Python tools
#                                 of requirements.txt, pyspark 4.1 apart in .venv/pyspark-4.1,
#                                 the S3 server of the storage tests, and the Python package
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
demo_only=false
[ "${1:-}" = "--demo" ] && demo_only=true

# What builds the library and the CLI.
debian_packages=(
  cmake ninja-build g++ make ccache pkg-config
  nlohmann-json3-dev libsqlite3-dev zlib1g-dev libcli11-dev
  libpq-dev libcurl4-openssl-dev libssl-dev python3-venv
)
# What the tests, the checks and the benchmarks add.
$demo_only || debian_packages+=(
  libgtest-dev libgmock-dev postgresql maven default-jdk-headless
  clang clang-format clang-tidy libclang-rt-14-dev strace
)
missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' \
    || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The .venv: requirements-demo.txt for the demo, requirements.txt (which includes it) for the
# rest; each stamped with the hash of what it installed.
python_bin="${FLOE_PYTHON:-python3}"
install_requirements() {  # <requirements file> <stamp>
  local wanted
  wanted="$(cat requirements-demo.txt "$1" | sha256sum | cut -d' ' -f1)"
  if [ -x .venv/bin/python ] && [ "$(cat "$2" 2>/dev/null)" = "$wanted" ]; then return; fi
  echo "bootstrap: installing Python tools into .venv ($1)"
  [ -x .venv/bin/python ] || "$python_bin" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$1"
  # Unversioned names (libarrow.so -> libarrow.so.N) so the linker finds the wheel's libraries.
  .venv/bin/python -c 'import pyarrow; pyarrow.create_library_symlinks()'
  echo "$wanted" > "$2"
}
if $demo_only; then
  # Everything of requirements.txt installed already covers the demo's.
  full_wanted="$(cat requirements-demo.txt requirements.txt | sha256sum | cut -d' ' -f1)"
  if [ "$(cat .venv/.floe-requirements.sha256 2>/dev/null)" != "$full_wanted" ]; then
    install_requirements requirements-demo.txt .venv/.floe-demo-requirements.sha256
  fi
  exit 0
fi
install_requirements requirements.txt .venv/.floe-requirements.sha256

# pyspark 4.1 apart from .venv's 4.0 (requirements-pyspark-4.1.txt): `make spark-test` puts
# it first on PYTHONPATH for tests/spark41 (the filters Spark pushes to floe's reader).
spark41_stamp=".venv/pyspark-4.1/.floe-requirements.sha256"
spark41_wanted="$(sha256sum requirements-pyspark-4.1.txt | cut -d' ' -f1)"
if [ "$(cat "$spark41_stamp" 2>/dev/null)" != "$spark41_wanted" ]; then
  echo "bootstrap: installing pyspark 4.1 into .venv/pyspark-4.1"
  rm -rf .venv/pyspark-4.1
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
    --target .venv/pyspark-4.1 -r requirements-pyspark-4.1.txt
  echo "$spark41_wanted" > "$spark41_stamp"
fi

# The iceberg-java parity harness (tests/parity): rebuilt when its sources change.
harness_stamp="tests/parity/target/.floe-sources.sha256"
harness_wanted="$(cat tests/parity/pom.xml $(find tests/parity/src -type f | sort) | sha256sum | cut -d' ' -f1)"
if [ ! -f tests/parity/target/parity-harness.jar ] || [ "$(cat "$harness_stamp" 2>/dev/null)" != "$harness_wanted" ]; then
  echo "bootstrap: building the iceberg-java parity harness (Maven)"
  mvn -q -B -T 1 -f tests/parity/pom.xml package -DskipTests
  echo "$harness_wanted" > "$harness_stamp"
fi

# Spark's Iceberg runtime and SQLite's JDBC driver, for tests/spark and bench/spark: the
# reference writer and reader floe's Spark data source is checked against; delta-spark, the
# reference Delta writer and reader tests/interop/test_delta_spark.py checks floe's Delta
# tables against (Maven, pinned).
for artifact in org.apache.iceberg:iceberg-spark-runtime-4.0_2.13:1.11.0 \
                org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.11.0 \
                org.xerial:sqlite-jdbc:3.54.1.0 \
                io.delta:delta-spark_2.13:4.0.0 \
                io.delta:delta-storage:4.0.0; do
  IFS=: read -r _ name version <<<"$artifact"
  if [ ! -f "build/spark-jars/$name-$version.jar" ]; then
    echo "bootstrap: fetching $artifact (Maven)"
    mvn -q -B dependency:copy -Dartifact="$artifact" -DoutputDirectory=build/spark-jars
  fi
done

# The S3-compatible server of the storage tests (tests/interop/test_s3.py): s3s-fs, pinned,
# built by cargo from crates.io.
scripts/install_s3_server.sh >/dev/null

# The Python package (pyproject.toml, python/): built (Release, incrementally in
# build/python) and installed into .venv when its sources changed.
package_stamp=".venv/.floe-package.sha256"
package_wanted="$(find CMakeLists.txt pyproject.toml cmake src python -type f \
  -not -path '*/__pycache__/*' -not -name '*_test.cc' -not -name '*_fuzz.cc' -print0 \
  | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
if ! .venv/bin/python -c 'import floe' 2>/dev/null \
   || [ "$(cat "$package_stamp" 2>/dev/null)" != "$package_wanted" ]; then
  echo "bootstrap: building and installing the Python package floe into .venv"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
    --no-build-isolation .
  echo "$package_wanted" > "$package_stamp"
fi

# floe's Spark plugin, one jar per Spark line with floe's native library built from the
# package's build above (tests/spark_plugin runs it on both lines).
scripts/build_spark_plugin.sh
