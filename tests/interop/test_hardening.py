"""Hardening round 3 through the floe command (issue 49): what a careless or hostile user
found, each checked against the independent readers (pyiceberg, deltalake) and against
the files on disk, listed and hashed before and after."""

import hashlib
import json
import os
import pathlib
import sqlite3
import subprocess
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FLOE, stderr_until

deltalake = pytest.importorskip("deltalake")


def tree(folder):
    """Every file below `folder` with the hash of its bytes (links by their target)."""
    out = {}
    for path in sorted(pathlib.Path(folder).rglob("*")):
        if path.is_symlink():
            out[str(path)] = "link:" + os.readlink(path)
        elif path.is_file():
            out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


PRICES = [float("inf"), 1.5, 0.0, -2.25, float("-inf")]


@pytest.fixture
def priced(floe, tmp_path):
    """db.t: five rows whose prices include both infinities."""
    data = tmp_path / "prices.parquet"
    pq.write_table(pa.table({"id": pa.array(range(5), pa.int64()), "price": PRICES}), data)
    floe.run("create", "db.t", "--schema", "id long, price double")
    floe.run("append", "db.t", data)
    return data


def test_a_literal_beyond_doubles_range_is_refused_and_deletes_nothing(floe, priced, tmp_path):
    """`delete --where "price >= 1e400"` deleted every row with price >= 0: the literal was
    read as 0. Spark refuses it (INVALID_NUMERIC_LITERAL_RANGE); so does floe."""
    before = tree(floe.warehouse)
    for args in [("delete", "db.t", "--where", "price >= 1e400"),
                 ("scan", "db.t", "--where", "price < 1e400"),
                 ("update", "db.t", "--set", "price = -1e400", "--where", "id = 1")]:
        error = floe.fail(*args)
        assert "outside the range of a double" in error, error
    assert tree(floe.warehouse) == before
    # Quoted, it is Spark's cast of a string: the infinity of its sign.
    rows = floe.run("scan", "db.t", "--where", "price >= '1e400'", "--format", "jsonl").stdout
    assert [json.loads(line)["id"] for line in rows.splitlines()] == [0]
    # The same on a Delta table.
    root = tmp_path / "delta"
    floe.run("create", root, "--schema", "id long, price double")
    floe.run("append", root, priced)
    delta_before = tree(root)
    assert "outside the range of a double" in floe.fail("delete", root, "--where", "price >= 1e400")
    assert tree(root) == delta_before
    assert sorted(deltalake.DeltaTable(str(root)).to_pyarrow_table()["id"].to_pylist()) == list(range(5))


def test_a_retention_in_microseconds_keeps_what_deltalake_keeps(floe, tmp_path):
    """delta.deletedFileRetentionDuration=interval 604800000000 microseconds is a week for
    delta-spark and deltalake; floe read it as 0, vacuumed a file removed seconds before,
    and its checkpoints dropped every tombstone."""
    root = tmp_path / "t"
    floe.run("create", root, "--schema", "id long", "--property",
             "delta.deletedFileRetentionDuration=interval 604800000000 microseconds")
    for k in range(3):
        pq.write_table(pa.table({"id": pa.array([k], pa.int64())}), tmp_path / f"{k}.parquet")
        floe.run("append", root, tmp_path / f"{k}.parquet")
    floe.run("overwrite", root, tmp_path / "0.parquet")  # removes three files, just now
    assert "file retention  604800000 ms" in floe.run("describe", root).stdout
    assert deltalake.DeltaTable(str(root)).vacuum(dry_run=True) == []
    before = tree(root)
    result = floe.run("vacuum", root)
    assert "0 files (0 bytes) deleted, retention 604800 s" in result.stdout, result.stdout
    assert tree(root) == before
    # Time travel to before the overwrite still reads, by floe and deltalake alike.
    old = floe.run("scan", root, "--snapshot", "3", "--format", "jsonl").stdout.splitlines()
    assert sorted(json.loads(line)["id"] for line in old) == [0, 1, 2]
    assert sorted(deltalake.DeltaTable(str(root), version=3).to_pyarrow_table()["id"].to_pylist()) == [0, 1, 2]
    # A checkpoint (every 10 versions) keeps the tombstones within the retention: the
    # three removed files (read with pyarrow, as any reader of the checkpoint would).
    for k in range(6):
        floe.run("append", root, tmp_path / "1.parquet")
    checkpoint = root / "_delta_log" / f"{10:020d}.checkpoint.parquet"
    removes = [r for r in pq.read_table(checkpoint).column("remove").to_pylist() if r]
    assert len(removes) == 3, removes
    assert deltalake.DeltaTable(str(root)).to_pyarrow_table().num_rows == 7
    # Overflow and units Spark has not are refused at create, naming the property.
    for value in ["interval 213503982335 days", "interval 5 nanoseconds", "interval 1 month"]:
        error = floe.fail("create", tmp_path / "bad", "--schema", "id long", "--property",
                          f"delta.deletedFileRetentionDuration={value}")
        assert "delta.deletedFileRetentionDuration" in error, error
        assert not (tmp_path / "bad").exists()


def test_remove_orphans_refuses_a_short_age_and_a_commit_never_publishes_a_deleted_file(
    floe, tmp_path, pyiceberg_catalog
):
    """remove-orphans --older-than 1s deleted a running append's data file and the append
    then reported success: every later scan failed. The age is refused under 24 hours
    unless the user says no write is running; and a commit whose file is gone fails."""
    data = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"id": pa.array(range(100), pa.int64())}), data)
    floe.run("create", "db.t", "--schema", "id long")
    floe.run("append", "db.t", data)
    env = dict(os.environ, FLOE_TEST_PAUSE_AT="commit", FLOE_TEST_PAUSE_MS="20000")
    append = subprocess.Popen([FLOE, "append", "db.t", data, "--warehouse", floe.warehouse],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    stderr_until(append, "paused at commit")
    time.sleep(1.2)  # the running append's data file is older than 1 s now
    before = tree(floe.warehouse)
    for age in ["1s", "23h"]:
        error = floe.fail("remove-orphans", "db.t", "--older-than", age)
        assert "under 24 hours" in error and "nothing was deleted" in error, error
    assert "not a duration" in floe.fail("remove-orphans", "db.t", "--older-than", "-5s")
    assert tree(floe.warehouse) == before
    removed = floe.run("remove-orphans", "db.t", "--older-than", "1s", "--no-concurrent-writes")
    assert "(1 orphan files" in removed.stdout, removed.stdout
    out, err = append.communicate(timeout=120)
    assert append.returncode == 1, (out, err)
    assert "is gone since the write made it" in err and "nothing was committed" in err
    table = pyiceberg_catalog.load_table("db.t")
    assert len(table.snapshots()) == 1
    assert sorted(table.scan().to_arrow()["id"].to_pylist()) == list(range(100))


def test_an_empty_delta_overwrite_predicate_replaces_nothing(floe, tmp_path):
    """`overwrite PATH file --where ""` (an unset shell variable) replaced the whole table."""
    root = tmp_path / "t"
    floe.run("create", root, "--schema", "id long")
    pq.write_table(pa.table({"id": pa.array(range(30), pa.int64())}), tmp_path / "all.parquet")
    pq.write_table(pa.table({"id": pa.array([99], pa.int64())}), tmp_path / "one.parquet")
    floe.run("append", root, tmp_path / "all.parquet")
    before = tree(root)
    for predicate in ["", "  "]:
        error = floe.fail("overwrite", root, tmp_path / "one.parquet", "--where", predicate)
        assert "empty predicate" in error, error
    assert tree(root) == before
    assert deltalake.DeltaTable(str(root)).to_pyarrow_table().num_rows == 30
    # Iceberg's overwrite refuses it too; without --where a Delta overwrite replaces all,
    # and says so in order.
    floe.run("create", "db.t", "--schema", "id long")
    assert "--where is empty" in floe.fail("overwrite", "db.t", tmp_path / "one.parquet",
                                           "--where", "")
    line = floe.run("overwrite", root, tmp_path / "one.parquet").stdout
    assert line.startswith(f"overwrote Delta table {root} with 1 rows in 1 data file (1 removed) "
                           "as version 2"), line


def test_scan_output_never_replaces_the_catalog_or_a_tables_files(floe, priced, tmp_path):
    floe.run("create", "db.other", "--schema", "id long")
    root = tmp_path / "delta"
    floe.run("create", root, "--schema", "id long, price double")
    floe.run("append", root, priced)
    table_folder = floe.warehouse / "db" / "t"
    data_file = next((table_folder / "data").rglob("*.parquet"))
    metadata = floe.metadata_location("db.t").removeprefix("file://")
    link = tmp_path / "innocent.csv"
    link.symlink_to(data_file)
    unrelated = tmp_path / "unrelated.db"
    with sqlite3.connect(unrelated) as connection:
        connection.execute("CREATE TABLE notes (x TEXT)")
    before = tree(floe.warehouse) | tree(root) | tree(tmp_path / "unrelated.db")
    targets = [floe.catalog_db, metadata, data_file, link, table_folder / "data" / "new.csv",
               floe.warehouse / "db" / "other" / "metadata" / "x.csv", unrelated]
    for target in targets:
        error = floe.fail("scan", "db.t", "--output", target, "--format", "csv")
        assert "would overwrite" in error, (target, error)
    for target in [root / "_delta_log" / f"{0:020d}.json", root / "out.csv"]:
        error = floe.fail("scan", root, "--output", target, "--format", "csv")
        assert "would overwrite" in error, (target, error)
    # A Delta table by path does not open the catalog: its database is still protected.
    assert "would overwrite" in floe.fail("scan", root, "--output", floe.catalog_db)
    assert tree(floe.warehouse) | tree(root) | tree(tmp_path / "unrelated.db") == before
    # Elsewhere it writes.
    floe.run("scan", "db.t", "--output", tmp_path / "out.csv", "--format", "csv")
    assert len((tmp_path / "out.csv").read_text().splitlines()) == 6


def test_a_stray_checkpoint_name_crashes_no_command(floe, tmp_path):
    """`: > _delta_log/<10>.checkpoint.9999999999.9999999999.parquet` made every Delta
    command abort with std::out_of_range from std::stoi (exit 134)."""
    root = tmp_path / "t"
    floe.run("create", root, "--schema", "id long")
    pq.write_table(pa.table({"id": pa.array(range(3), pa.int64())}), tmp_path / "rows.parquet")
    floe.run("append", root, tmp_path / "rows.parquet")
    (root / "_delta_log" / f"{10:020d}.checkpoint.9999999999.9999999999.parquet").touch()
    (root / "_delta_log" / f"{99999999999999999999:020d}.json").touch()  # past a long
    for args in [("scan", root), ("describe", root), ("snapshots", root), ("files", root),
                 ("vacuum", root, "--dry-run"), ("append", root, tmp_path / "rows.parquet")]:
        result = floe.run(*args, check=False)
        assert result.returncode == 0, (args, result.returncode, result.stderr)
    assert sorted(deltalake.DeltaTable(str(root)).to_pyarrow_table()["id"].to_pylist()) == [0, 0, 1, 1, 2, 2]


def test_an_exception_inside_a_command_is_an_error_not_an_abort(floe, tmp_path):
    """No exception crosses the command's main: one thrown mid-write (as std::stoi once
    threw on a file name) is a one-line error, exit 1, after the write's files went."""
    data = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"id": pa.array(range(10), pa.int64())}), data)
    floe.run("create", "db.t", "--schema", "id long")
    before = tree(floe.warehouse)
    env = dict(os.environ, FLOE_TEST_THROW_AT="commit")
    result = floe.run("append", "db.t", data, check=False, env=env)
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "floe: error: internal error in the floe command: floe: test: thrown at commit" in result.stderr
    assert "[Internal]" in result.stderr
    assert tree(floe.warehouse) == before


def test_read_only_commands_create_nothing(floe, tmp_path):
    """A mistyped warehouse got a folder and an empty catalog.db from a read; an
    unrelated SQLite database got catalog tables."""
    mistyped = tmp_path / "warehuose"
    for args in [("tables", "db"), ("namespaces",), ("scan", "db.t"), ("describe", "db.t")]:
        result = subprocess.run([FLOE, *args, "--warehouse", mistyped], capture_output=True,
                                text=True, timeout=120)
        assert result.returncode != 0 and "does not exist" in result.stderr, result.stderr
    assert not mistyped.exists()
    unrelated = tmp_path / "notes.db"
    with sqlite3.connect(unrelated) as connection:
        connection.execute("CREATE TABLE notes (x TEXT)")
    before = tree(tmp_path)
    result = subprocess.run([FLOE, "tables", "db", "--catalog", f"sqlite:///{unrelated}"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "holds no Iceberg SQL catalog" in result.stderr, result.stderr
    assert tree(tmp_path) == before
    with sqlite3.connect(unrelated) as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master")]
    assert names == ["notes"]


def test_small_slips_get_clear_errors(floe, priced, tmp_path):
    limited = floe.run("scan", "db.t", "--limit", "-1", check=False)
    assert limited.returncode == 2 and "cannot be negative" in limited.stderr, limited.stderr
    assert limited.stdout == ""
    long_value = "1" + "0" * 10_000
    error = floe.fail("update", "db.t", "--set", f"id = {long_value} + x", "--where", "id = 1")
    assert len(error) < 1200 and "nor is it" not in error and "neither" in error, error[:300]
    # The Delta gate names a writer version it does not know once, and nothing else.
    root = tmp_path / "future"
    (root / "_delta_log").mkdir(parents=True)
    (root / "_delta_log" / f"{0:020d}.json").write_text("\n".join(json.dumps(action) for action in [
        {"protocol": {"minReaderVersion": 1, "minWriterVersion": 99}},
        {"metaData": {"id": "x", "format": {"provider": "parquet", "options": {}},
                      "schemaString": json.dumps({"type": "struct", "fields": [
                          {"name": "id", "type": "long", "nullable": True, "metadata": {}}]}),
                      "partitionColumns": [], "configuration": {}, "createdTime": 0}},
    ]) + "\n")
    error = floe.fail("append", root, priced)
    assert error.count("writer version 99") == 1 and "CHECK" not in error, error


def test_every_destructive_command_refuses_a_slip(floe, priced, tmp_path):
    """What a slip of the user (an unset variable, a negative or zero count, a current
    snapshot's id) makes each destructive command do: refuse, with the files unchanged."""
    root = tmp_path / "delta"
    floe.run("create", root, "--schema", "id long, price double")
    floe.run("append", root, priced)
    snapshot = floe.run("snapshots", "db.t").stdout.split()[1]  # "* <current id> ..."
    before = tree(floe.warehouse) | tree(root)
    slips = [
        ("delete", "db.t", "--where", ""), ("delete", "db.t", "--where", "   "),
        ("update", "db.t", "--set", "price = 0", "--where", ""),
        ("update", "db.t", "--set", "price = 0", "--where", "  "),
        ("overwrite", "db.t", priced, "--where", ""),
        ("delete", root, "--where", ""), ("delete", root, "--where", " "),
        ("overwrite", root, priced, "--where", ""),
        ("expire", "db.t", "--retain-last", "0"),
        ("expire", "db.t", "--snapshot", snapshot),
        ("remove-orphans", "db.t", "--older-than", "0s"),
        ("vacuum", root, "--retain", "0s"),
    ]
    for slip in slips:
        result = floe.run(*slip, check=False)
        assert result.returncode != 0, (slip, result.stdout)
    assert tree(floe.warehouse) | tree(root) == before
    assert sorted(deltalake.DeltaTable(str(root)).to_pyarrow_table()["id"].to_pylist()) == list(range(5))
