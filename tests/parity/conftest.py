"""Fixtures for the parity tests: floe (the binary under test) and iceberg-java (the harness)."""

import itertools
import json
import os
import pathlib
import sqlite3
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "interop"))
FLOE = os.environ.get("FLOE_BIN", str(ROOT / "build/debug/src/floe/cli/floe"))
TRANSFORM_PROBE = os.environ.get("FLOE_TRANSFORM_PROBE", str(ROOT / "build/debug/tests/parity/floe_transform_probe"))


class Harness:
    """iceberg-java through tests/parity/run-harness.sh."""

    def __init__(self, work: pathlib.Path):
        self.work = work
        self.count = itertools.count(1)  # next() is atomic: tests call run() from threads

    def run(self, command: str, request: dict, expect_error: bool | None = False,
            java_home: str = None) -> dict:
        """`java_home` runs the harness on that JDK instead of the one on PATH.
        `expect_error=None` accepts either outcome: a failure returns {"error": ...}."""
        path = self.work / f"{command}-{next(self.count)}.json"
        path.write_text(json.dumps(request))
        env = dict(os.environ, JAVA_HOME=java_home) if java_home else None
        result = subprocess.run([str(HERE / "run-harness.sh"), command, str(path)],
                                capture_output=True, text=True, timeout=900, env=env)
        if expect_error is None and result.returncode != 0:
            return json.loads(result.stdout) if result.stdout.strip() else {"error": result.stderr}
        if expect_error:
            assert result.returncode != 0, "iceberg-java accepted what it should have refused"
            return json.loads(result.stdout) if result.stdout.strip() else {"error": result.stderr}
        if result.returncode != 0:
            raise AssertionError(f"harness {command} failed ({result.returncode}):\n{result.stdout}\n{result.stderr[-3000:]}")
        return json.loads(result.stdout)


class Floe:
    def __init__(self, warehouse: pathlib.Path):
        self.warehouse = warehouse

    def run(self, *args, check=True):
        result = subprocess.run([FLOE, *map(str, args), "--warehouse", str(self.warehouse)],
                                capture_output=True, text=True, timeout=900)
        if check and result.returncode != 0:
            raise AssertionError(f"floe {' '.join(map(str, args))} failed:\n{result.stderr}")
        return result

    def metadata_location(self, table: str) -> str:
        namespace, name = table.rsplit(".", 1)
        with sqlite3.connect(self.warehouse / "catalog.db") as connection:
            return connection.execute(
                "SELECT metadata_location FROM iceberg_tables WHERE table_namespace=? AND table_name=?",
                (namespace, name)).fetchone()[0]


@pytest.fixture(scope="session")
def harness(tmp_path_factory):
    return Harness(tmp_path_factory.mktemp("harness"))


@pytest.fixture
def floe(tmp_path):
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    return Floe(warehouse)
