"""Failures named truthfully: every way a careless or hostile user can make floe fail gives one
clear error line (naming the table, file, property or lock at fault), leaves storage as it was
(listed and hashed before and after) and never prints a secret. Signals cancel cleanly."""

import hashlib
import os
import pathlib
import resource
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from conftest import FLOE, stderr_until

TABLE = "db.t"


def tree(root: pathlib.Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.name.startswith("catalog.db")}


def big_input(path, rows=3_000_000):
    ids = pa.array(range(rows), pa.int64())
    pq.write_table(pa.table({"id": ids, "s": pc.cast(ids, pa.string())}), path, row_group_size=100_000)


def one_error_line(stderr):
    lines = [line for line in stderr.splitlines() if line.startswith("floe: ")]
    errors = [line for line in lines if "warning" not in line]
    assert len(errors) == 1, stderr
    return errors[0]


@pytest.mark.parametrize("stop,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_cancels_an_append_cleanly(floe, tmp_path, stop, code):
    floe.run("create", TABLE, "--schema", "id long not null, s string", "--partition-by", "bucket(8, id)")
    big_input(tmp_path / "in.parquet")
    before = tree(floe.warehouse)
    pointer = floe.metadata_location(TABLE)
    process = subprocess.Popen([FLOE, "append", TABLE, tmp_path / "in.parquet", "--threads", "2",
                                "--warehouse", floe.warehouse], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    # Wait until it is writing (progress says rows were read), then stop it.
    seen = stderr_until(process, "rows read")
    process.send_signal(stop)
    stdout, rest = process.communicate(timeout=120)
    stderr = "".join(seen) + rest
    assert process.returncode == code, stderr
    line = one_error_line(stderr)
    assert line.startswith(f"floe: cancelled by {signal.Signals(stop).name}") and "nothing was committed" in line
    assert floe.metadata_location(TABLE) == pointer
    assert tree(floe.warehouse) == before  # every data file it wrote is gone


def test_a_file_size_limit_is_a_write_error_not_a_crash(floe, tmp_path):
    floe.run("create", TABLE, "--schema", "id long not null, s string")
    big_input(tmp_path / "in.parquet")
    before = tree(floe.warehouse)
    limit = 256 * 1024

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = subprocess.run([FLOE, "append", TABLE, tmp_path / "in.parquet", "--warehouse", floe.warehouse],
                            capture_output=True, text=True, preexec_fn=small_files, timeout=600)
    assert result.returncode == 1, result.stderr  # an error, not SIGXFSZ
    line = one_error_line(result.stderr)
    assert "File too large" in line and ".parquet" in line and str(floe.warehouse) in line, line
    assert tree(floe.warehouse) == before  # the partial file is gone


def test_inputs_that_are_not_regular_files(floe, tmp_path):
    floe.run("create", TABLE, "--schema", "id long")
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    before = tree(floe.warehouse)
    started = time.monotonic()
    error = floe.fail("append", TABLE, fifo)  # would block forever on open
    assert time.monotonic() - started < 60
    assert f"input file {fifo} is a FIFO" in error
    assert f"input file {tmp_path} is a directory" in floe.fail("append", TABLE, tmp_path)
    assert "is a device" in floe.fail("append", TABLE, "/dev/zero")
    # A good file first and a bad one after: nothing is written before the check.
    pq.write_table(pa.table({"id": pa.array([1], pa.int64())}), tmp_path / "good.parquet")
    floe.fail("append", TABLE, tmp_path / "good.parquet", fifo)
    assert "is a FIFO" in floe.fail("create", "db.u", "--schema-from", fifo)
    assert tree(floe.warehouse) == before


def test_duplicate_input_columns_are_refused_not_nulled(floe, tmp_path):
    floe.run("create", TABLE, "--schema", "id long not null, region string")
    before = tree(floe.warehouse)
    for names in [["id", "id"], ["id", "region", "region"]]:
        columns = [pa.array([1, 2], pa.int64()), pa.array([3, 4], pa.int64()), pa.array(["a", "b"])][:len(names)]
        if names == ["id", "region", "region"]:
            columns = [pa.array([1, 2], pa.int64()), pa.array(["a", "b"]), pa.array(["c", "d"])]
        path = tmp_path / f"dup{len(names)}.parquet"
        pq.write_table(pa.Table.from_arrays(columns, names=names), path)
        error = floe.fail("append", TABLE, path)
        assert f"column '{names[-1]}': the input has more than one column of this name" in error, error
    assert tree(floe.warehouse) == before


def test_scan_output_is_replaced_only_on_success(floe, tmp_path):
    floe.run("create", TABLE, "--schema", "id long not null")
    pq.write_table(pa.table({"id": pa.array(range(1_000_000), pa.int64())}), tmp_path / "in.parquet")
    floe.run("append", TABLE, tmp_path / "in.parquet")
    for fmt in ["csv", "parquet"]:
        out = tmp_path / f"existing.{fmt}"
        out.write_bytes(b"precious earlier output")
        # Corrupt the table's data file so the scan fails part way.
        data = next((floe.warehouse / "db/t/data").glob("*.parquet"))
        original = data.read_bytes()
        broken = bytearray(original)
        broken[len(broken) // 2:len(broken) // 2 + 8] = b"\xff" * 8
        data.write_bytes(bytes(broken))
        floe.fail("scan", TABLE, "--format", fmt, "--output", out)
        assert out.read_bytes() == b"precious earlier output"
        assert sorted(p.name for p in tmp_path.iterdir() if "floe-tmp" in p.name) == []
        data.write_bytes(original)
        floe.run("scan", TABLE, "--format", fmt, "--output", out, "--limit", "3")
        assert out.read_bytes() != b"precious earlier output"
    # A link to a file: the file is replaced, the link stays a link.
    real = tmp_path / "real.csv"
    real.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    floe.run("scan", TABLE, "--format", "csv", "--output", link, "--limit", "2")
    assert link.is_symlink() and real.read_text().startswith("\"id\"")
    # Something that is not a regular file (a FIFO here, /dev/null in real life) is written
    # in place, never replaced by a file.
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo).read()))
    reader.start()
    floe.run("scan", TABLE, "--format", "csv", "--output", fifo, "--limit", "2")
    reader.join(timeout=60)
    assert received and received[0].startswith("\"id\"") and fifo.is_fifo()


def test_names_from_the_catalog_cannot_drive_the_terminal(floe, tmp_path):
    floe.run("create", TABLE, "--schema", "id long")
    hostile = "t\x1b[2J\x1b]0;owned\x07\u009b31m"
    with sqlite3.connect(floe.catalog_db) as connection:
        connection.execute("UPDATE iceberg_tables SET table_name = ? WHERE table_name = 't'", (hostile,))
    result = floe.run("tables", "db")
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout and "\u009b" not in result.stdout
    assert "t\\x1b[2J\\x1b]0;owned\\x07\\u009b31m" in result.stdout, result.stdout
    # Errors quoting such names are escaped too.
    error = floe.run("describe", "db.nothing\x1b[2J", check=False)
    assert "\x1b" not in error.stderr


def test_an_empty_append_commits_an_empty_snapshot_like_spark_and_pyiceberg(floe, pyiceberg_catalog, tmp_path):
    """iceberg-java's Spark writer (BatchAppend.commit) and pyiceberg's append both commit a
    snapshot for an empty input; both skip the commit of an empty dynamic overwrite."""
    floe.run("create", TABLE, "--schema", "id long, s string")
    (tmp_path / "empty.csv").write_text("id,s\n")
    pq.write_table(pa.table({"id": pa.array([], pa.int64()), "s": pa.array([], pa.string())}), tmp_path / "empty.parquet")
    floe.run("append", TABLE, tmp_path / "empty.csv")
    floe.run("append", TABLE, tmp_path / "empty.parquet")
    ours = pyiceberg_catalog.load_table(TABLE)
    assert len(ours.metadata.snapshots) == 2
    assert all(s.summary.operation.value == "append" for s in ours.metadata.snapshots)
    # pyiceberg's own empty append, on a table of its own in the same catalog.
    theirs = pyiceberg_catalog.create_table("db.p", schema=ours.schema())
    theirs.append(pa.table({"id": pa.array([], pa.int64()), "s": pa.array([], pa.string())}))
    theirs = pyiceberg_catalog.load_table("db.p")
    assert len(theirs.metadata.snapshots) == 1 and theirs.metadata.snapshots[0].summary.operation.value == "append"
    for key in ["total-records", "total-data-files", "total-files-size"]:
        assert ours.metadata.snapshots[-1].summary[key] == theirs.metadata.snapshots[0].summary[key] == "0"
    # An empty dynamic overwrite replaces nothing and commits nothing.
    pointer = floe.metadata_location(TABLE)
    result = floe.run("append", TABLE, tmp_path / "empty.parquet", "--mode", "dynamic-overwrite")
    assert "nothing committed" in result.stdout
    assert floe.metadata_location(TABLE) == pointer


def test_catalog_uris_are_honoured_or_refused(floe, tmp_path):
    for uri in ["sqlite://", "sqlite:///"]:
        error = floe.fail("namespaces", "--catalog", uri)
        assert "names no database file" in error
    error = floe.fail("namespaces", "--catalog", f"sqlite:///{tmp_path}/c.db?journal_mode=wal")
    assert "'journal_mode'" in error and not (tmp_path / "c.db").exists()
    # hadoop:///dir names the warehouse; a different --warehouse is a contradiction.
    other = tmp_path / "elsewhere"
    error = floe.fail("namespaces", "--catalog", f"hadoop://{other}")  # run() adds --warehouse
    assert "give one of them" in error
    result = subprocess.run([FLOE, "create", "db.h", "--schema", "id long", "--catalog", f"hadoop://{other}"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (other / "db" / "h" / "metadata").is_dir()
    # mode=ro: reads work, an append is refused before any data file is written.
    floe.run("create", TABLE, "--schema", "id long")
    pq.write_table(pa.table({"id": pa.array([1], pa.int64())}), tmp_path / "in.parquet")
    before = tree(floe.warehouse)
    read_only = ["--catalog", f"sqlite:///{floe.catalog_db}?mode=ro"]
    subprocess.run([FLOE, "describe", TABLE, *read_only], check=True, capture_output=True)
    result = subprocess.run([FLOE, "append", TABLE, tmp_path / "in.parquet", *read_only],
                            capture_output=True, text=True)
    assert result.returncode == 1 and "read-only (opened with mode=ro)" in result.stderr, result.stderr
    assert "CommitStateUnknown" not in result.stderr
    assert tree(floe.warehouse) == before


def test_a_catalog_this_user_cannot_write(floe, tmp_path):
    """The catalog file belongs to someone else: floe (run as another user) reads it, and an
    append fails before writing anything, naming the file. Not CommitStateUnknown."""
    shared = pathlib.Path(tempfile.mkdtemp(prefix="floe-shared-", dir="/tmp"))
    try:
        warehouse = shared / "warehouse"
        warehouse.mkdir()
        subprocess.run([FLOE, "create", TABLE, "--schema", "id long", "--warehouse", warehouse], check=True,
                       capture_output=True)
        pq.write_table(pa.table({"id": pa.array([1], pa.int64())}), shared / "in.parquet")
        for path in [shared, *shared.rglob("*")]:
            os.chmod(path, 0o777 if path.is_dir() else 0o666)
        catalog = warehouse / "catalog.db"
        os.chmod(catalog, 0o644)
        before = tree(warehouse)
        if os.getuid() == 0:  # root writes any file: run floe as nobody
            as_other = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            assert shutil.which("setpriv"), "setpriv (util-linux) is needed to run floe as another user"
        else:
            as_other = []
        result = subprocess.run([*as_other, FLOE, "append", TABLE, shared / "in.parquet", "--warehouse", warehouse],
                                capture_output=True, text=True)
        assert result.returncode == 1, result.stdout + result.stderr
        line = one_error_line(result.stderr)
        assert "read-only" in line and str(catalog) in line and "CommitStateUnknown" not in line, line
        assert tree(warehouse) == before
        scan = subprocess.run([*as_other, FLOE, "describe", TABLE, "--warehouse", warehouse],
                              capture_output=True, text=True)
        assert scan.returncode == 0, scan.stderr
    finally:
        shutil.rmtree(shared)


def hold_lock(database, statement, seconds, ready):
    connection = sqlite3.connect(database, isolation_level=None, timeout=60)
    connection.execute(statement)
    ready.set()
    time.sleep(seconds)
    connection.execute("ROLLBACK")
    connection.close()


@pytest.mark.parametrize("statement", ["BEGIN EXCLUSIVE", "BEGIN IMMEDIATE"])
def test_a_locked_catalog_is_waited_for_out_loud_within_bounds(floe, tmp_path, statement):
    floe.run("create", TABLE, "--schema", "id long",
             "--property", "commit.retry.num-retries=1", "--property", "commit.retry.min-wait-ms=100")
    pq.write_table(pa.table({"id": pa.array(range(100), pa.int64())}), tmp_path / "in.parquet")
    before = tree(floe.warehouse)
    pointer = floe.metadata_location(TABLE)
    ready = threading.Event()
    holder = threading.Thread(target=hold_lock, args=(floe.catalog_db, statement, 20, ready))
    holder.start()
    ready.wait()
    started = time.monotonic()
    result = floe.run("append", TABLE, tmp_path / "in.parquet", check=False)
    took = time.monotonic() - started
    holder.join()
    assert result.returncode == 1, result.stdout
    assert "another process holds its lock" in result.stderr  # said while waiting
    line = one_error_line(result.stderr)
    assert "is locked by another process" in line and str(floe.catalog_db) in line, line
    assert took < 18, took  # bounded: 5 s per statement, one retry
    assert floe.metadata_location(TABLE) == pointer
    assert tree(floe.warehouse) == before  # what it wrote, it deleted
    # Once the lock is gone the same append goes through.
    floe.run("append", TABLE, tmp_path / "in.parquet")


SECRET = "SuperSecret123"


@pytest.mark.parametrize("uri", [f"postgresql://u:{SECRET}@[::1", f"postgresql://u:{SECRET}%zz@127.0.0.1:1/db",
                                 f"postgresql://u@127.0.0.1:1/db?password={SECRET}&sslmode=bogus",
                                 f"jdbc:postgresql://u:{SECRET}@localhost:1/db?connect_timeout=x"])
def test_library_errors_never_carry_a_password(tmp_path, uri):
    result = subprocess.run([FLOE, "namespaces", "--catalog", uri], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    output = result.stdout + result.stderr
    assert SECRET not in output and "***" in output, output
