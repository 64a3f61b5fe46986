"""Shared fixtures: the floe binary under test, a fresh warehouse with its SQLite catalog, and
pyiceberg's SqlCatalog on the same catalog file."""

import os
import pathlib
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "data"))

from s3_server import start_s3_server  # noqa: E402

FLOE = os.environ.get("FLOE_BIN", str(pathlib.Path(__file__).parents[2] / "build/debug/src/floe/cli/floe"))


class Floe:
    """Runs the floe command against one warehouse."""

    def __init__(self, warehouse: pathlib.Path):
        self.warehouse = warehouse
        self.catalog_db = warehouse / "catalog.db"

    def run(self, *args, check=True, env=None):
        command = [FLOE, *map(str, args), "--warehouse", str(self.warehouse)]
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        if check and result.returncode != 0:
            raise AssertionError(f"floe {' '.join(map(str, args))} failed ({result.returncode}):\n{result.stderr}")
        return result

    def fail(self, *args):
        result = self.run(*args, check=False)
        assert result.returncode != 0, f"floe {args} should have failed:\n{result.stdout}"
        lines = [line for line in result.stderr.splitlines() if line.startswith("floe: error:")]
        assert len(lines) == 1, f"expected one error line:\n{result.stderr}"
        return lines[0]

    def metadata_location(self, table: str) -> str:
        namespace, name = table.rsplit(".", 1)
        with sqlite3.connect(self.catalog_db) as connection:
            row = connection.execute(
                "SELECT metadata_location FROM iceberg_tables WHERE table_namespace=? AND table_name=?",
                (namespace, name),
            ).fetchone()
        return row[0] if row else None


def kill_at(floe, point, *args):
    """Runs floe paused at `point` and SIGKILLs it there. Returns its stderr so far."""
    env = dict(os.environ, FLOE_TEST_PAUSE_AT=point, FLOE_TEST_PAUSE_MS="120000")
    process = subprocess.Popen([FLOE, *map(str, args), "--warehouse", str(floe.warehouse)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    deadline = time.monotonic() + 300
    for line in process.stderr:
        lines.append(line)
        if f"paused at {point}" in line:
            break
        assert time.monotonic() < deadline
    else:
        process.wait()
        pytest.fail(f"floe never reached pause point {point} (exit {process.returncode}):\n{''.join(lines)}")
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL
    return "".join(lines)


@pytest.fixture
def floe(tmp_path):
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    return Floe(warehouse)


@pytest.fixture
def pyiceberg_catalog(floe):
    from pyiceberg.catalog.sql import SqlCatalog

    # pyiceberg creates the catalog tables floe shares (the same ones floe's first write
    # would create; a command that only reads creates none).
    return SqlCatalog("floe", uri=f"sqlite:///{floe.catalog_db}", warehouse=f"file://{floe.warehouse}")


def files_under(directory: pathlib.Path) -> set:
    return {str(p) for p in directory.rglob("*") if p.is_file()}


def stderr_until(process, marker: str) -> list:
    """Reads a running process's stderr line by line until a line holds `marker` and returns
    the lines read; fails the test when the stream ends first."""
    seen = []
    for line in process.stderr:
        seen.append(line)
        if marker in line:
            return seen
    raise AssertionError(f"never saw {marker!r} on stderr:\n{''.join(seen)}")


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """One S3 server for the whole session."""
    server = start_s3_server(tmp_path_factory.mktemp("s3"))
    yield server
    server.stop()
