"""Delete files written by iceberg-java (position deletes and equality deletes in format v2,
deletion vectors in v3, through the harness's `catalog` command and its `row_delta`): floe's scans
return exactly the rows iceberg-java's own reader (IcebergGenerics) returns, with projections that
leave out the equality columns, with filters that prune row groups, across later appends that an
older equality delete must not touch, per partition, and with time travel to before the deletes.
floe's copy-on-write operations decline such tables at plan time."""

import hashlib
import os
import pathlib
import re
import subprocess

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest


def field(name, typ, fid, nullable=True):
    return pa.field(name, typ, nullable=nullable, metadata={"PARQUET:field_id": str(fid)})


SCHEMA = "id long not null, name string, amount double"
ARROW_SCHEMA = pa.schema([field("id", pa.int64(), 1, False), field("name", pa.string(), 2),
                          field("amount", pa.float64(), 3)])


def rows(start, count):
    ids = list(range(start, start + count))
    return pa.table({
        "id": ids,
        "name": [None if i % 13 == 0 else f"n{i} ü" for i in ids],
        "amount": [(-0.0 if i % 10 == 0 else 0.0) if i % 5 == 0 else i * 0.25 for i in ids],
    }, schema=ARROW_SCHEMA)


class Setup:
    def __init__(self, floe, harness, tmp_path):
        self.floe, self.harness, self.tmp = floe, harness, tmp_path
        self.base = {"uri": f"jdbc:sqlite:{floe.warehouse / 'catalog.db'}", "warehouse": str(floe.warehouse),
                     "name": "floe", "table": "db.t"}

    def java(self, **request):
        return self.harness.run("catalog", {**self.base, **request})

    def scan(self, *args):
        out = self.tmp / "scan.parquet"
        result = self.floe.run("scan", "db.t", "--format", "parquet", "--output", out, "--stats", *args)
        stats = dict(re.findall(r"(\w+)=(\d+)", result.stderr.split("scan stats:")[1]))
        return pq.read_table(out), {k: int(v) for k, v in stats.items()}


def stored(directory: pathlib.Path) -> dict:
    """Every file under `directory` with the SHA-256 of its bytes."""
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def paused(floe, *args, pause_ms=15000):
    """`floe <args>`, paused once its files are written and before it commits (for
    `pause_ms`); returns the running process."""
    from conftest import FLOE
    env = dict(os.environ, FLOE_TEST_PAUSE_AT="commit", FLOE_TEST_PAUSE_MS=str(pause_ms))
    process = subprocess.Popen(
        [FLOE, *map(str, args), "--warehouse", str(floe.warehouse)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seen = []
    for line in process.stderr:
        seen.append(line)
        if "paused at commit" in line:
            return process
    raise AssertionError(f"floe {args[0]} never paused:\n" + "".join(seen))


def paused_rewrite(floe):
    """`floe rewrite db.t --min-input-files 2`, paused before it commits."""
    return paused(floe, "rewrite", "db.t", "--min-input-files", "2")


def file_ids(path):
    return pq.read_table(path.removeprefix("file:")).column("id").to_pylist()


@pytest.fixture
def setup(floe, harness, tmp_path):
    floe.run("namespaces", "--create", "db")
    return Setup(floe, harness, tmp_path)


def test_position_and_equality_deletes_v2_read_as_iceberg_java_reads_them(setup, tmp_path):
    setup.floe.run("create", "db.t", "--schema", SCHEMA, "--property", "format-version=2")
    # A file iceberg-java appends, with ten row groups (so positions cross row-group
    # boundaries and a filter can skip groups), and one floe writes.
    multi = tmp_path / "multi.parquet"
    pq.write_table(rows(0, 1000), multi, row_group_size=100)
    setup.java(append_files=[str(multi)])
    pq.write_table(rows(1000, 500).cast(rows(0, 0).schema), tmp_path / "floe.parquet")
    setup.floe.run("append", "db.t", tmp_path / "floe.parquet")
    before = setup.java()
    assert before["row_count"] == 1500

    files = before["data_files"]
    multi_file = next(f for f in files if file_ids(f)[0] == 0)
    floe_file = next(f for f in files if f != multi_file)
    floe_positions = [0, 17, 499]
    floe_file_ids = file_ids(floe_file)
    deleted = setup.java(row_delta={
        "position_deletes": [{"file": multi_file, "positions": [0, 99, 100, 101, 555, 999]},
                             {"file": floe_file, "positions": floe_positions}],
        "equality_deletes": {"columns": ["id"], "rows": [{"id": 1200}, {"id": 1201}, {"id": 7}, {"id": 424242}]},
    })
    expected = deleted["ids"]
    gone = {0, 99, 100, 101, 555, 999, 1200, 1201, 7} | {floe_file_ids[p] for p in floe_positions}
    assert expected == sorted(set(range(1500)) - gone), "iceberg-java itself must delete these rows"

    table, stats = setup.scan()
    assert sorted(table.column("id").to_pylist()) == expected
    assert stats["delete_files"] == 3 and stats["rows_deleted"] == len(gone)
    # The bytes of the delete files count: the same scan before the deletes read less by
    # about their size.
    delete_bytes = sum(p.stat().st_size for p in (setup.floe.warehouse / "db" / "t" / "data").iterdir()
                       if "harness-delete" in p.name)
    appends = re.findall(r"(\d{6,})\s+\S+\s+append", setup.floe.run("snapshots", "db.t").stdout)
    _, before_stats = setup.scan("--snapshot", appends[1])
    assert before_stats["delete_files"] == 0
    # (a small file is read about twice: the footer read takes its tail, then its columns)
    assert delete_bytes / 2 < stats["bytes_read"] - before_stats["bytes_read"] <= 2 * delete_bytes
    # The equality column left out of the projection is still compared.
    table, _ = setup.scan("--columns", "name")
    assert table.column_names == ["name"] and table.num_rows == len(expected)
    # A filter that skips row groups keeps positions right in the groups it reads.
    table, stats = setup.scan("--where", "id >= 540 and id < 1000")
    assert stats["row_groups_skipped"] >= 5
    assert sorted(table.column("id").to_pylist()) == [i for i in expected if 540 <= i < 1000]

    # A second equality delete on a double column: -0.0 and 0.0 are different values to it.
    deleted = setup.java(row_delta={"equality_deletes": {"columns": ["amount"], "rows": [{"amount": -0.0}]}})
    expected = deleted["ids"]
    assert 10 not in expected and 5 in expected, "iceberg-java: -0.0 deletes -0.0 only"
    table, _ = setup.scan()
    assert sorted(table.column("id").to_pylist()) == expected

    # Rows appended after an equality delete are not deleted by it (sequence numbers).
    pq.write_table(pa.table({"id": pa.array([7, 1200], pa.int64()), "name": ["back", "again"],
                             "amount": [-0.0, 1.0]}), tmp_path / "later.parquet")
    setup.floe.run("append", "db.t", tmp_path / "later.parquet")
    after = setup.java()
    assert after["ids"].count(7) == 1 and after["ids"].count(1200) == 1
    table, _ = setup.scan()
    assert sorted(table.column("id").to_pylist()) == after["ids"]

    # Time travel to the snapshot before any delete reads every row.
    snapshots = setup.floe.run("snapshots", "db.t").stdout
    first_two = re.findall(r"(\d{6,})\s+\S+\s+append", snapshots)[:2]
    table, _ = setup.scan("--snapshot", first_two[1])
    assert sorted(table.column("id").to_pylist()) == list(range(1500))

    # A copy-on-write delete applies the position and equality deletes to the rows it
    # keeps (Spark's copy-on-write DELETE is compared in tests/spark/test_spark.py):
    # iceberg-java reads the rows it read before, less the deleted one.
    before = setup.java()["ids"]
    assert 4 in before
    setup.floe.run("delete", "db.t", "--where", "id = 4")
    assert setup.java()["ids"] == [i for i in before if i != 4]
    table, _ = setup.scan()
    assert sorted(table.column("id").to_pylist()) == [i for i in before if i != 4]

    # Compaction rewrites the small files without the rows their deletes delete (Spark's
    # rewrite_data_files is compared in tests/spark/test_spark.py): iceberg-java still reads
    # the same rows.
    rewritten = setup.floe.run("rewrite", "db.t", "--min-input-files", "2")
    assert "rewrote" in rewritten.stdout, rewritten.stdout
    assert setup.java()["ids"] == [i for i in before if i != 4]


def test_deletes_stay_in_their_partition(setup, tmp_path):
    setup.floe.run("create", "db.t", "--schema", "id long not null, region string", "--partition-by", "region")
    regions = ["a", "b", "c", "d", "e", "f", "g", "h"]
    table = pa.table({"id": pa.array([i for r in range(8) for i in range(10)], pa.int64()),
                      "region": [regions[r] for r in range(8) for _ in range(10)]})
    pq.write_table(table, tmp_path / "in.parquet")
    setup.floe.run("append", "db.t", tmp_path / "in.parquet")
    files = setup.java()["data_files"]
    assert len(files) == 8
    by_region = {}
    for f in files:
        by_region[re.search(r"/region=(\w)/", f).group(1)] = f
    deleted = setup.java(row_delta={
        "position_deletes": [{"file": by_region["b"], "positions": [0, 9]}],
        "equality_deletes": {"columns": ["id"], "rows": [{"id": 5}], "partition_of": by_region["a"]},
    })
    assert deleted["row_count"] == 80 - 3
    out, stats = setup.scan("--columns", "id,region")
    got = sorted(zip(out.column("region").to_pylist(), out.column("id").to_pylist()))
    expected = sorted((regions[r], i) for r in range(8) for i in range(10)
                      if not (regions[r] == "a" and i == 5) and not (regions[r] == "b" and i in (0, 9)))
    assert got == expected
    assert sorted(out.column("id").to_pylist()) == deleted["ids"]
    # A filter on the partition opens only that partition's data and delete files.
    out, stats = setup.scan("--where", "region = 'a'")
    assert stats["files_read"] == 1 and stats["delete_files"] == 1
    assert sorted(out.column("id").to_pylist()) == [i for i in range(10) if i != 5]


def test_deletion_vectors_v3_read_as_iceberg_java_reads_them(setup, tmp_path):
    setup.floe.run("create", "db.t", "--schema", SCHEMA, "--property", "format-version=3")
    multi = tmp_path / "multi.parquet"
    pq.write_table(rows(0, 5000), multi, row_group_size=700)
    setup.java(append_files=[str(multi)])
    pq.write_table(rows(5000, 300), tmp_path / "b.parquet")
    setup.floe.run("append", "db.t", tmp_path / "b.parquet")
    files = setup.java()["data_files"]
    multi_file = next(f for f in files if file_ids(f)[0] == 0)
    other = next(f for f in files if f != multi_file)
    # Enough positions in one 64K block for Roaring to choose a bitmap container, a run, and
    # scattered array entries.
    dense = list(range(1000, 4000))
    positions = [0, 1, 2, 699, 700, 4999] + dense
    deleted = setup.java(row_delta={"position_deletes": [{"file": multi_file, "positions": positions},
                                                         {"file": other, "positions": [3, 299]}]})
    assert deleted["row_count"] == 5300 - len(set(positions)) - 2
    assert list((setup.floe.warehouse / "db" / "t" / "data").glob("*.puffin")), "v3 deletes are DVs"
    table, stats = setup.scan()
    assert sorted(table.column("id").to_pylist()) == deleted["ids"]
    assert stats["rows_deleted"] == len(set(positions)) + 2
    table, _ = setup.scan("--where", "id >= 3990 and id < 5000")
    assert sorted(table.column("id").to_pylist()) == [i for i in deleted["ids"] if 3990 <= i < 5000]


def test_a_rewrite_takes_its_starting_sequence_number_and_races_deletes_as_iceberg_java_does(
        setup, tmp_path):
    """Compaction gives the files it writes its starting snapshot's data sequence number, as
    Spark's rewrite_data_files does (use-starting-sequence-number): an equality delete that
    iceberg-java commits while floe's rewrite runs does not fail it, and still deletes its
    rows from the rewritten files (iceberg-java's reader reads them gone). A position delete
    committed meanwhile for a file the rewrite replaces fails it (iceberg-java's
    validateNoNewDeletesForDataFiles), and the rewrite leaves nothing behind."""
    setup.floe.run("create", "db.t", "--schema", SCHEMA, "--property", "format-version=2")
    for start in (0, 100, 200):
        pq.write_table(rows(start, 100), tmp_path / f"in{start}.parquet")
        setup.floe.run("append", "db.t", tmp_path / f"in{start}.parquet")
    starting = setup.java()
    assert sorted(starting["data_sequence_numbers"].values()) == [1, 2, 3]

    rewrite = paused_rewrite(setup.floe)
    deleted = setup.java(row_delta={"equality_deletes": {"columns": ["id"],
                                                         "rows": [{"id": 7}, {"id": 150}]}})
    assert deleted["row_count"] == 298
    _, err = rewrite.communicate(timeout=120)
    assert rewrite.returncode == 0, err
    after = setup.java()
    assert after["operation"] == "replace"
    # One file, at the starting snapshot's sequence number (3), below the delete's (4).
    assert list(after["data_sequence_numbers"].values()) == [3], after
    assert after["ids"] == [i for i in range(300) if i not in (7, 150)]
    table, _ = setup.scan()
    assert sorted(table.column("id").to_pylist()) == after["ids"]

    # A position delete of a file the rewrite replaces, committed while it runs, fails it.
    for start in (300, 400):
        pq.write_table(rows(start, 100), tmp_path / f"in{start}.parquet")
        setup.floe.run("append", "db.t", tmp_path / f"in{start}.parquet")
    warehouse = setup.floe.warehouse
    before = stored(warehouse)
    victim = sorted(setup.java()["data_files"])[0]
    rewrite = paused_rewrite(setup.floe)
    paused = stored(warehouse)
    written = set(paused) - set(before)
    assert any(p.endswith(".parquet") for p in written), written  # the rewrite's files
    setup.java(row_delta={"position_deletes": [{"file": victim, "positions": [1]}]})
    raced = stored(warehouse)
    _, err = rewrite.communicate(timeout=120)
    assert rewrite.returncode != 0
    assert "found new delete for replaced data file" in err, err
    # Exactly the rewrite's own files are gone; iceberg-java's commit stays.
    assert stored(warehouse) == {p: h for p, h in raced.items() if p not in written}
    assert len(setup.java()["ids"]) == 298 + 200 - 1


def conflict_kind(message: str) -> str:
    """What a failed merge-on-read commit says, in words both floe and iceberg-java use."""
    for kind in ("concurrently added DV", "missing data files", "conflicting files",
                 "Missing required files to delete", "conflicting delete files"):
        if kind.lower() in message.lower():
            return kind
    return message


RACES = {
    # A concurrent append of rows the filter may match: serializable fails the delete.
    "append": lambda t, tmp: ["append", t, tmp / "more.parquet"],
    # A concurrent merge-on-read delete of other rows of the same files, which replaces
    # their delete files (v2) or vectors (v3).
    "delete-same-files": lambda t, tmp: ["delete", t, "--where", "id IN (4, 5, 6)"],
    # A concurrent delete that removes one of the files by metadata.
    "metadata-delete": lambda t, tmp: ["delete", t, "--where", "region = 'r1'"],
    # A concurrent copy-on-write delete that rewrites one of the files (an overwrite).
    "rewrite-of-a-file": lambda t, tmp: ["delete", t, "--where", "id = 2", "--option",
                                         "write.delete.mode=copy-on-write"],
}


@pytest.mark.parametrize("version,command", [(2, "delete"), (3, "delete"), (2, "update"),
                                             (3, "update"), (2, "upsert"), (3, "upsert")])
def test_merge_on_read_deletes_race_with_the_outcomes_iceberg_java_gives(setup, tmp_path,
                                                                         version, command):
    """A merge-on-read delete that read a snapshot and commits after a concurrent commit,
    by floe and by iceberg-java's RowDelta validated as Spark's merge-on-read DELETE
    validates it (from the snapshot read, the delete's filter as conflict filter, the data
    files deleted from must exist, serializable: no conflicting data files), on sibling
    tables, for each isolation level and each kind of concurrent commit: an append of
    matching rows, a delete of other rows of the same files, a delete of a whole file by
    metadata, a rewrite of a file. Each time floe's late delete commits exactly when
    iceberg-java's does, failing for the same reason, and the rows are the same. The same
    for a merge-on-read update against the RowDelta Spark's UPDATE commits (which also
    validates the delete files it replaces and delete files committed meanwhile); its
    rows differ by the updated ones, which iceberg-java's stand-in only deletes. And for a
    merge-on-read upsert against the RowDelta Spark's MERGE commits, validated the same as
    an update; its conflict filter is floe's (the input keys' range: Spark's MERGE on a key
    alone has no target-side predicate and so validates against every file, see
    docs/divergences.md)."""
    schema = "id long not null, region string, v long"
    ids = list(range(300))
    pq.write_table(pa.table({"id": pa.array(ids, pa.int64()),
                             "region": [f"r{i % 3}" for i in ids],
                             "v": pa.array(ids, pa.int64())}), tmp_path / "in.parquet")
    pq.write_table(pa.table({"id": pa.array([7, 500], pa.int64()), "region": ["r1", "r2"],
                             "v": pa.array([0, 0], pa.int64())}), tmp_path / "more.parquet")
    sevens = [i for i in ids if i % 10 == 7]
    pq.write_table(pa.table({"id": pa.array(sevens, pa.int64()),
                             "region": [f"r{i % 3}" for i in sevens],
                             "v": pa.array([-1] * len(sevens), pa.int64())}),
                   tmp_path / "sevens.parquet")
    where = f"id IN ({', '.join(map(str, sevens))})"
    outcomes = {}
    for level in ("serializable", "snapshot"):
        for race, concurrent in RACES.items():
            names = [f"db.{side}_{level}_{race}_{command}".replace("-", "_")
                     for side in ("f", "j")]
            mode = "merge" if command == "upsert" else command  # the property's word
            for name in names:
                setup.floe.run("create", name, "--schema", schema, "--partition-by", "region",
                               "--property", f"format-version={version}",
                               "--property", f"write.{mode}.mode=merge-on-read",
                               "--property", "write.delete.mode=merge-on-read",
                               "--property", f"write.{mode}.isolation-level={level}")
                setup.floe.run("append", name, tmp_path / "in.parquet")
                # Earlier deletes in every file, which the late delete merges.
                setup.floe.run("delete", name, "--where", "id IN (1, 11, 21, 31, 41)")
            start = setup.java(table=names[1])["current_snapshot_id"]
            # iceberg-java's late delete: the positions of the rows it deletes, and of those
            # already deleted in the same files (a file keeps one merged delete file).
            read = tmp_path / "positions.parquet"
            setup.floe.run("scan", names[1], "--columns", "id,_file,_pos,_deleted", "--where",
                           f"{where} OR id IN (1, 11, 21, 31, 41)", "--format", "parquet",
                           "--output", read)
            by_file = {}
            for row in pq.read_table(read).to_pylist():
                by_file.setdefault(row["_file"], []).append(row["_pos"])
            if command == "upsert":  # the sevens again, with v = -1
                late = paused(setup.floe, "upsert", names[0], tmp_path / "sevens.parquet",
                              "--on", "id", pause_ms=4000)
            else:
                late = paused(setup.floe, command, names[0], "--where", where,
                              *(["--set", "v = -1"] if command == "update" else []),
                              pause_ms=4000)
            for name in names:
                setup.floe.run(*concurrent(name, tmp_path))
            assert late.poll() is None, "the concurrent commits took longer than the pause"
            _, err = late.communicate(timeout=120)
            conflicts = ({"conflict_range": [min(sevens), max(sevens)]} if command == "upsert"
                         else {"conflict_ids": sevens})
            java = setup.harness.run("catalog", {**setup.base, "table": names[1], "row_delta": {
                "from_snapshot": start, "isolation": level, **conflicts,
                "rewrite_previous_deletes": True, "command": mode,
                "position_deletes": [{"file": f, "positions": sorted(p)} for f, p in by_file.items()],
            }}, expect_error=None)
            ours = "ok" if late.returncode == 0 else conflict_kind(err)
            theirs = conflict_kind(java["error"]) if "error" in java else "ok"
            outcomes[(level, race)] = ours
            assert ours == theirs, (level, race, err, java.get("error"))
            if ours == "ok":
                tables = []
                for name in names:
                    setup.floe.run("scan", name, "--format", "parquet", "--output", read)
                    tables.append(pq.read_table(read))
                if command != "delete":  # the updated rows are floe's alone
                    updated = tables[0].filter(pc.equal(tables[0].column("v"), -1))
                    assert set(updated.column("id").to_pylist()) <= set(sevens), (level, race)
                    tables[0] = tables[0].filter(pc.not_equal(tables[0].column("v"), -1))
                assert sorted(tables[0].column("id").to_pylist()) == \
                    sorted(tables[1].column("id").to_pylist()), (level, race)
    # Not vacuous: both outcomes occur.
    assert "ok" in outcomes.values() and set(outcomes.values()) != {"ok"}, outcomes
