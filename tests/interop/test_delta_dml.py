"""Delete by filter, replaceWhere and filtered scans on Delta tables by path: floe's result
is the table deltalake (delta-rs) leaves for the same operation on a copy of the same start,
read by deltalake; only the files holding selected rows are removed; conflicts with
concurrent writers fail on the side delta-spark's rules say, and a refused write leaves no
file behind."""

import json
import os
import pathlib
import shutil
import subprocess
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

deltalake = pytest.importorskip("deltalake")
from deltalake import DeltaTable, write_deltalake  # noqa: E402

from conftest import FLOE  # noqa: E402
from test_delta_read import assert_same_rows, floe_scan  # noqa: E402
from test_delta_write import SCHEMA, floe, input_batch, storage  # noqa: E402

def build_table(folder: pathlib.Path, parts: int) -> pathlib.Path:
    """A table partitioned by hostile region values, appended by floe in `parts` versions with
    1 to 4 tasks: many files per region, pre-1970 dates and timestamps, NaN, -0.0, nulls."""
    table = folder / "t"
    floe("create", table, "--schema", SCHEMA + ", region string", "--partition-by", "region")
    for part in range(parts):
        pq.write_table(input_batch(part * 53, 53), folder / f"in{part}.parquet")
        floe("append", table, folder / f"in{part}.parquet", "--threads", 1 + part % 4)
    return table


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    """The tables of 3 and 8 appends, built once per module and copied by each test."""
    return {parts: build_table(tmp_path_factory.mktemp(f"template{parts}"), parts)
            for parts in (3, 8)}


@pytest.fixture
def make_table(templates, tmp_path):
    def make(parts=8, name="t") -> pathlib.Path:
        table = tmp_path / name
        shutil.copytree(templates[parts], table)
        return table
    return make


def rows(table: pathlib.Path) -> pa.Table:
    return DeltaTable(str(table)).to_pyarrow_table()


def live_files(table: pathlib.Path) -> set:
    return set(DeltaTable(str(table)).file_uris())


def last_commit(table: pathlib.Path) -> list:
    version = DeltaTable(str(table)).version()
    text = (table / "_delta_log" / f"{version:020d}.json").read_text()
    return [json.loads(line) for line in text.splitlines()]


# (floe's filter, the same predicate in deltalake's SQL, the rows it selects as a pyarrow
# expression with SQL's null semantics): partition-only, data-only, mixed, nulls, pre-1970
# dates, unicode.
PREDICATES = [
    ("region = 'x=y'", "region = 'x=y'", pc.field("region") == "x=y"),
    ("id >= 100 AND id < 250", "id >= 100 AND id < 250",
     (pc.field("id") >= 100) & (pc.field("id") < 250)),
    ("region = 'a b' AND id < 200", "region = 'a b' AND id < 200",
     (pc.field("region") == "a b") & (pc.field("id") < 200)),
    ("s IS NULL OR i32 = -1", "s IS NULL OR i32 = -1",
     pc.field("s").is_null() | (pc.field("i32") == -1)),
    ("d < '1970-01-01'", "d < '1970-01-01'",
     pc.field("d") < pa.scalar(0, pa.int32()).cast(pa.date32())),
    ("region IS NULL", "region IS NULL", pc.field("region").is_null()),
    ("s = 'ünïcödé ☃'", "s = 'ünïcödé ☃'", pc.field("s") == "ünïcödé ☃"),
]
# deltalake 1.6.6 writes the remove of a file whose add.path spells a non-ASCII partition
# value unescaped (as Spark writes it, and floe) with the value percent-encoded; its own
# replay then keeps the file live. Rows there are compared with pyarrow's truth only.
NON_ASCII = pc.field("region") == "ünï"


@pytest.mark.parametrize("where,sql,selected", PREDICATES, ids=[p[0] for p in PREDICATES])
def test_delete_leaves_what_deltalake_leaves(tmp_path, make_table, where, sql, selected):
    table = make_table()
    theirs = tmp_path / "theirs"
    shutil.copytree(table, theirs)
    before = rows(table)
    files_before = live_files(table)
    disk_before = storage(table)
    result = floe("delete", table, "--where", where)
    DeltaTable(str(theirs)).delete(sql)
    ours, expected = rows(table), rows(theirs)
    gone = before.filter(selected)["id"].to_pylist()  # ids are unique
    truth = before.filter(~pc.field("id").isin(gone))
    assert_same_rows(ours.select(truth.column_names), truth, f"delete where {where} (pyarrow)")
    assert_same_rows(ours.filter(~NON_ASCII).select(expected.column_names),
                     expected.filter(~NON_ASCII), f"delete where {where} (deltalake)")
    deleted = before.num_rows - truth.num_rows
    assert deleted > 0, "the predicate must select rows"
    assert f"deleted {deleted} rows" in result.stdout, result.stdout
    # Only files holding selected rows were removed; every other file is still live.
    commit = last_commit(table)
    info = next(a["commitInfo"] for a in commit if "commitInfo" in a)
    assert info["operation"] == "DELETE"
    assert json.loads(info["operationParameters"]["predicate"]) == [where]
    assert info["operationMetrics"]["numDeletedRows"] == str(deleted)
    removed = {a["remove"]["path"] for a in commit if "remove" in a}
    added = [a["add"] for a in commit if "add" in a]
    for path in removed:
        held = pq.read_table(table / _unquote(path))
        assert held.num_rows > 0
    kept = {f for f in files_before if not any(f.endswith(p) for p in map(_unquote, removed))}
    assert kept <= live_files(table)
    assert sum(json.loads(a["stats"])["numRecords"] for a in added) == int(
        info["operationMetrics"]["numCopiedRows"])
    # Delta never deletes a file on delete: storage only grew, by the added files and the log.
    disk_after = storage(table)
    assert all(disk_after.get(name) == digest for name, digest in disk_before.items())
    new = set(disk_after) - set(disk_before)
    assert {n for n in new if not n.startswith("_delta_log/")} == {_unquote(a["path"]) for a in added}


def _unquote(path: str) -> str:
    import urllib.parse
    return urllib.parse.unquote(path)


def test_a_delete_that_matches_nothing_commits_nothing(make_table):
    table = make_table(parts=3)
    disk = storage(table)
    result = floe("delete", table, "--where", "id > 1000000")
    assert "deleted 0 rows" in result.stdout and "no version committed" in result.stdout
    assert storage(table) == disk
    assert DeltaTable(str(table)).version() == 3


@pytest.mark.parametrize("where,sql,selected", [
    ("region = 'x=y'", "region = 'x=y'", pc.field("region") == "x=y"),
    ("id < 150", "id < 150", pc.field("id") < 150),
])
def test_replace_where_leaves_what_deltalake_leaves(tmp_path, make_table, where, sql, selected):
    table = make_table()
    theirs = tmp_path / "theirs"
    shutil.copytree(table, theirs)
    before = rows(table)
    schema = before.schema
    fresh = input_batch(5000, 40)
    fresh = fresh.set_column(fresh.column_names.index("region"), "region",
                             pa.array(["x=y"] * 40))
    fresh = fresh.set_column(0, "id", pa.array(range(10, 50), pa.int64()))
    pq.write_table(fresh, tmp_path / "new.parquet")
    result = floe("overwrite", table, tmp_path / "new.parquet", "--where", where, "--threads", 4)
    assert "overwrote" in result.stdout, result.stdout
    write_deltalake(str(theirs), fresh.select(schema.names).cast(schema), mode="overwrite",
                    predicate=sql)
    ours, expected = rows(table), rows(theirs)
    assert_same_rows(ours.filter(~NON_ASCII).select(expected.column_names),
                     expected.filter(~NON_ASCII), f"replaceWhere {where} (deltalake)")
    kept = before.filter(~pc.field("id").isin(before.filter(selected)["id"].to_pylist()))
    truth = pa.concat_tables([kept, fresh.select(kept.column_names).cast(kept.schema)])
    assert_same_rows(ours.select(truth.column_names), truth, f"replaceWhere {where} (pyarrow)")
    info = next(a["commitInfo"] for a in last_commit(table) if "commitInfo" in a)
    assert info["operation"] == "WRITE" and info["operationParameters"]["mode"] == "Overwrite"
    assert json.loads(info["operationParameters"]["predicate"]) == [where]
    assert info["isBlindAppend"] is False


def test_replace_where_refuses_rows_outside_the_predicate_and_leaves_nothing(tmp_path, make_table):
    table = make_table(parts=3)
    disk = storage(table)
    fresh = input_batch(9000, 20)  # regions other than 'x=y' among them
    pq.write_table(fresh, tmp_path / "new.parquet")
    result = floe("overwrite", table, tmp_path / "new.parquet", "--where", "region = 'x=y'",
                  check=False)
    assert result.returncode != 0
    assert "do not match the overwrite's predicate region = 'x=y'" in result.stderr, result.stderr
    assert storage(table) == disk  # no data file, no log entry


def test_scan_where_skips_files_and_returns_what_pyarrow_filters(tmp_path, make_table):
    table = make_table()
    everything = rows(table)
    cases = [
        ("region = 'x=y'", pc.equal(everything["region"], "x=y")),
        ("id >= 100 AND id < 120", pc.and_(pc.greater_equal(everything["id"], 100),
                                            pc.less(everything["id"], 120))),
        ("d < '1970-01-01'", pc.less(everything["d"], pa.scalar(0, pa.int32()).cast(pa.date32()))),
        ("ts >= '2024-01-01T00:00:00Z'", pc.greater_equal(
            everything["ts"], pa.scalar(1704067200000000, pa.timestamp("us", "UTC")))),
    ]
    out = tmp_path / "out.parquet"
    for where, mask in cases:
        got, stderr = floe_scan(table, out, "--where", where, "--stats")
        expected = everything.filter(mask)
        assert got.num_rows == expected.num_rows > 0, where
        assert_same_rows(got.select(expected.column_names), expected, f"scan where {where}")
        skipped = int(stderr.split("files_skipped=")[1].split()[0])
        if where.startswith("region") or where.startswith("id"):
            assert skipped > 0, (where, stderr)  # partition values; id's min/max per file


def _paused(args, point="delta-commit", ms=6000):
    env = dict(os.environ, FLOE_TEST_PAUSE_AT=point, FLOE_TEST_PAUSE_MS=str(ms))
    process = subprocess.Popen([FLOE, *map(str, args)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    for line in process.stderr:
        if f"paused at {point}" in line:
            return process
        assert time.monotonic() < deadline
    process.wait()
    pytest.fail(f"floe never paused at {point}: exit {process.returncode}")


def deltalake_appends(table: pathlib.Path, region: str):
    """deltalake appends 10 rows (ids 7000 to 7009) into `region`."""
    late = input_batch(7000, 10)
    late = late.set_column(late.column_names.index("region"), "region", pa.array([region] * 10))
    schema = rows(table).schema
    write_deltalake(str(table), late.select(schema.names).cast(schema), mode="append")


def _operation_files(table: pathlib.Path) -> set:
    return {n for n in storage(table) if not n.startswith("_delta_log/")}


def test_a_concurrent_append_into_the_deleted_rows_fails_the_delete(make_table):
    table = make_table(parts=3)
    files = _operation_files(table)
    delete = _paused(["delete", table, "--where", "region = 'a b' AND id < 100"])
    deltalake_appends(table, "a b")  # a blind append into the region the delete reads
    out, err = delete.communicate(timeout=300)
    assert delete.returncode != 0, out
    assert "ConcurrentAppendException" in err and "nothing was committed" in err, err
    # The delete's rewritten files are gone; the append's rows are there, no row deleted.
    assert DeltaTable(str(table)).version() == 4
    assert rows(table).num_rows == 3 * 53 + 10
    assert _operation_files(table) - files == {
        _unquote(a["add"]["path"]) for a in last_commit(table) if "add" in a}


def test_a_concurrent_append_elsewhere_lets_the_delete_commit(make_table):
    table = make_table(parts=3)
    delete = _paused(["delete", table, "--where", "region = 'a b' AND id < 100"])
    deltalake_appends(table, "plain")
    out, err = delete.communicate(timeout=300)
    assert delete.returncode == 0, err
    assert "as version 5" in out and "attempt 2" in out, out
    got = rows(table)
    assert got.filter(pc.field("id") >= 7000).num_rows == 10
    assert got.filter((pc.field("region") == "a b") & (pc.field("id") < 100)).num_rows == 0


def test_a_concurrent_delete_of_a_file_read_fails_the_delete(make_table):
    table = make_table(parts=3)
    before = rows(table)
    delete = _paused(["delete", table, "--where", "id < 40"])
    # Removes a file this delete also read (deltalake's own deletes in a non-ASCII
    # partition are left out: see NON_ASCII).
    DeltaTable(str(table)).delete("id < 10 AND region = 'plain'")
    out, err = delete.communicate(timeout=300)
    assert delete.returncode != 0, out
    # deltalake's delete also wrote the file's other rows anew: delta-spark's checker
    # reports that add first (test_delta_spark.py races delta-spark itself).
    assert "ConcurrentAppendException" in err, err
    gone = before.filter((pc.field("id") < 10) & (pc.field("region") == "plain")).num_rows
    assert gone > 0
    assert rows(table).filter(pc.field("id") < 40).num_rows == 40 - gone


def test_a_concurrent_compaction_of_a_file_read_fails_the_delete(make_table):
    """deltalake's OPTIMIZE removes (dataChange false) files the paused delete read and adds
    their rows back in new files: the delete must fail, or its rows would live on in the
    compacted files (delta-spark counts every remove, whatever its dataChange)."""
    table = make_table(parts=8)
    before = rows(table)
    delete = _paused(["delete", table, "--where", "id < 40"])
    # One region's files (deltalake's removes in a non-ASCII one are left out: NON_ASCII).
    metrics = DeltaTable(str(table)).optimize.compact(
        partition_filters=[("region", "=", "plain")])
    assert metrics["numFilesRemoved"] > 0, metrics
    out, err = delete.communicate(timeout=300)
    assert delete.returncode != 0, out
    # Its adds are reported first, as delta-spark does (it counts adds whatever their
    # dataChange).
    assert "ConcurrentAppendException" in err, err
    assert_same_rows(rows(table), before, "after a compaction and a failed delete")
