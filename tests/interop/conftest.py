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

    # Let floe create the catalog tables first, as the embedded default would.
    floe.run("namespaces")
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


class S3Server:
    """An s3s-fs server on loopback (scripts/install_s3_server.sh), serving buckets that are
    folders of `root`. The credentials are test values, used to prove they never leak."""

    access_key = "AKIAFLOETESTKEY00001"
    secret_key = "floe-test-secret/Zq8+never-printed"

    def __init__(self, binary: str, root: pathlib.Path):
        import socket

        self.root = root
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.log = open(root.parent / "s3s-fs.log", "w")
        self.process = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", str(self.port), "--access-key", self.access_key,
             "--secret-key", self.secret_key, str(root)],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                assert self.process.poll() is None, "s3s-fs exited at start"
                assert time.monotonic() < deadline, "s3s-fs never listened"
                time.sleep(0.1)

    def bucket(self, name: str) -> str:
        """A fresh empty bucket; returns its name."""
        (self.root / name).mkdir()
        return name

    def properties(self) -> dict:
        """The iceberg-java storage properties that reach this server."""
        return {"s3.endpoint": self.endpoint, "s3.access-key-id": self.access_key,
                "s3.secret-access-key": self.secret_key, "s3.path-style-access": "true",
                "client.region": "us-east-1"}

    def filesystem(self):
        """pyarrow's own S3 client on this server: the independent view of what is stored."""
        from pyarrow import fs

        return fs.S3FileSystem(access_key=self.access_key, secret_key=self.secret_key,
                               endpoint_override=self.endpoint, region="us-east-1")

    def objects(self, prefix: str) -> dict:
        """Key -> size of every object under `prefix` ("bucket/path"), by pyarrow."""
        from pyarrow import fs

        infos = self.filesystem().get_file_info(fs.FileSelector(prefix, recursive=True, allow_not_found=True))
        return {info.path: info.size for info in infos if info.type == fs.FileType.File}

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """One S3 server for the whole session."""
    binary = subprocess.run([str(pathlib.Path(__file__).parents[2] / "scripts/install_s3_server.sh")],
                            check=True, capture_output=True, text=True).stdout.strip()
    root = tmp_path_factory.mktemp("s3") / "buckets"
    root.mkdir()
    server = S3Server(binary, root)
    yield server
    server.stop()
