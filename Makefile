# floe's entry points. `make demo` and `make test` do all set-up on a fresh machine.
SHELL := /bin/bash
JOBS ?= 2
BUILD_DEBUG := build/debug
BUILD_RELEASE := build/release
BUILD_TSAN := build/tsan
BUILD_FUZZ := build/fuzz
FUZZ_TARGETS := parser table_metadata manifest task_commit schema_ddl names input_files data_file_reader name_mapping deletion_vector delta_log log_names property_values
SECONDS ?= 300
# The tests that run threads: parallel write tasks, concurrent committers, the catalog race.
TSAN_TESTS := TableTest.*:WriteDriverTest.*:DefaultWriteTasksTest.*:DeltaWriteTest.DefaultTasks*:MutexTest.*:FirstErrorTest.*:PartitionDealerTest.*:SplitWriteTest.*:CommitRetryTest.*:SortedRangesTest.*:SqlCatalogTest.TwoHandles*:FaultInjectionTest.*:CommitterTest.*:DeltaWriteTest.Parallel*:DeltaWriteTest.ALostRace*:FileIOTest.WriteIfAbsent*
PYTHON := .venv/bin/python
# Arrow's wheel libraries are not instrumented; their containers trip ASan's container checks.
export ASAN_OPTIONS ?= detect_container_overflow=0:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1

.PHONY: bootstrap bootstrap-demo build-debug build-release demo test unit-test interop-test parity-test python-test spark-test spark-plugin example-test bench-python bench-row-level bench-spark bench-storage test-tsan fuzz-build fuzz-smoke fuzz format lint bench bench-scan bench-commit clean

bootstrap:
	@scripts/bootstrap.sh

# Only what the demo needs (scripts/bootstrap.sh --demo): no test tools.
bootstrap-demo:
	@scripts/bootstrap.sh --demo

$(BUILD_DEBUG)/build.ninja: | bootstrap
	cmake -S . -B $(BUILD_DEBUG) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFLOE_SANITIZE=address,undefined

$(BUILD_RELEASE)/build.ninja: | bootstrap-demo
	cmake -S . -B $(BUILD_RELEASE) -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLOE_BUILD_TESTS=OFF -DFLOE_BUILD_BENCHMARKS=ON

$(BUILD_TSAN)/build.ninja: | bootstrap
	cmake -S . -B $(BUILD_TSAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFLOE_SANITIZE=thread

$(BUILD_FUZZ)/build.ninja: | bootstrap
	CC=clang CXX=clang++ cmake -S . -B $(BUILD_FUZZ) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DFLOE_BUILD_TESTS=OFF -DFLOE_BUILD_FUZZERS=ON \
	  -DFLOE_SANITIZE=address,undefined

build-debug: bootstrap $(BUILD_DEBUG)/build.ninja
	cmake --build $(BUILD_DEBUG) -j$(JOBS)

build-release: bootstrap $(BUILD_RELEASE)/build.ninja
	cmake --build $(BUILD_RELEASE) -j$(JOBS)

## The main job: generate data, create a table in ./warehouse, append, inspect, scan, read with pyiceberg.
## Lean: installs only what the demo needs and builds only the CLI (one Release build).
demo: bootstrap-demo $(BUILD_RELEASE)/build.ninja
	cmake --build $(BUILD_RELEASE) -j$(JOBS) --target floe_cli
	@scripts/demo.sh $(BUILD_RELEASE)/src/floe/cli/floe

## Every test: unit tests (ASan+UBSan debug build), interop tests against pyiceberg/pyarrow,
## the parity tests against iceberg-java, the Python package's tests (and examples), and
## the Spark data source's tests against Spark's Iceberg writer and reader, and the C++
## example built against the installed library (find_package(floe)).
test: unit-test interop-test parity-test python-test spark-test example-test

unit-test: build-debug
	cd $(BUILD_DEBUG) && ctest -j$(JOBS) --output-on-failure

# Test modules run $(JOBS) at a time (pytest-xdist, whole modules per worker: a module's
# Spark session and servers are its own; its tests stay in order). The slowest tests are
# listed at the end, to show where CI's time goes.
PYTEST_PARALLEL := -n $(JOBS) --dist loadfile --durations=20

interop-test: build-debug
	FLOE_BIN=$(abspath $(BUILD_DEBUG)/src/floe/cli/floe) $(PYTHON) -m pytest -q $(PYTEST_PARALLEL) tests/interop

parity-test: build-debug
	FLOE_BIN=$(abspath $(BUILD_DEBUG)/src/floe/cli/floe) \
	FLOE_TRANSFORM_PROBE=$(abspath $(BUILD_DEBUG)/tests/parity/floe_transform_probe) \
	$(PYTHON) -m pytest -q $(PYTEST_PARALLEL) tests/parity

# The package bootstrap installed into .venv (a Release build of floe._floe).
python-test: bootstrap
	$(PYTHON) -m pytest -q tests/python

# examples/cpp against the installed package (scripts/example.sh).
example-test: bootstrap
	scripts/example.sh

# One local Spark session per test module (pyspark and the Iceberg runtime from bootstrap);
# tests/spark41 on pyspark 4.1, which bootstrap installs apart; the Spark plugin's tests
# (tests/spark_plugin, the jars bootstrap builds) on both lines.
spark-test: bootstrap
	$(PYTHON) -m pytest -q tests/spark
	$(PYTHON) -m pytest -q tests/spark_plugin
	PYTHONPATH=$(abspath .venv/pyspark-4.1) $(PYTHON) -m pytest -q tests/spark41
	PYTHONPATH=$(abspath .venv/pyspark-4.1) $(PYTHON) -m pytest -q tests/spark_plugin

# floe's Spark plugin jars, build/spark/floe-spark-<line>_2.13.jar (also built by bootstrap).
spark-plugin:
	scripts/build_spark_plugin.sh

## ThreadSanitizer over the tests that use threads (a finding fails the run).
test-tsan: bootstrap $(BUILD_TSAN)/build.ninja
	cmake --build $(BUILD_TSAN) -j$(JOBS) --target floe_unit_tests
	ARROW_DEFAULT_MEMORY_POOL=system \
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(abspath tests/sanitizers/tsan.supp)" \
	  $(BUILD_TSAN)/src/floe/floe_unit_tests --gtest_filter='$(TSAN_TESTS)'

## libFuzzer targets (clang): `make fuzz-smoke` runs each for 30 s from its seed corpus
## (tests/fuzz/corpus/<target>); `make fuzz TARGET=manifest SECONDS=600` runs one longer.
fuzz-build: bootstrap $(BUILD_FUZZ)/build.ninja
	cmake --build $(BUILD_FUZZ) -j$(JOBS) $(addprefix --target fuzz_,$(FUZZ_TARGETS))

fuzz-smoke: fuzz-build
	scripts/fuzz.sh $(BUILD_FUZZ) 30 $(FUZZ_TARGETS)

fuzz: fuzz-build
	scripts/fuzz.sh $(BUILD_FUZZ) $(SECONDS) $(TARGET)

## Formatting and static checks (.clang-format, .clang-tidy).
format:
	clang-format -i $$(git ls-files 'src/*.cc' 'src/*.h' 'bench/*.cc' 'bench/*.h' 'tests/*.cc' 'tests/*.h' 'python/*.cc' 'python/*.h' 'examples/*.cc')

lint: bootstrap
	scripts/lint.sh

## Benchmarks (release build): writes bench/results/.
bench: build-release
	$(PYTHON) bench/write/run_write_benchmark.py
	$(PYTHON) bench/write/run_sorted_benchmark.py
	$(PYTHON) bench/scan/run_scan_benchmark.py
	$(PYTHON) bench/commit/run_commit_benchmark.py

bench-scan: build-release
	$(PYTHON) bench/scan/run_scan_benchmark.py

bench-commit: build-release
	$(PYTHON) bench/commit/run_commit_benchmark.py

# The Python package's benchmark (against pyiceberg) and the Spark data source's (against
# Spark's Iceberg writer).
bench-python: build-release
	$(PYTHON) bench/python/run_python_benchmark.py

# Deletes and upserts: floe's Python package against pyiceberg and Spark (bootstrap
# installs all three; the package is a Release build).
bench-row-level: bootstrap
	$(PYTHON) bench/row_level/run_row_level_benchmark.py --rows 10000000

bench-spark: bootstrap
	$(PYTHON) bench/spark/run_spark_benchmark.py

# S3 (s3s-fs on loopback) against local disk, through the Python package.
bench-storage: bootstrap
	$(PYTHON) bench/storage/run_storage_benchmark.py

clean:
	rm -rf build
