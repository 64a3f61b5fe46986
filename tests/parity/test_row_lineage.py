"""Format v3 row lineage: every row keeps its `_row_id` through manifest merges and every other
manifest rewrite, as iceberg-java keeps it.

The same four merge appends (`table.newAppend()`, what Spark's writer commits) are made by floe
and by iceberg-java on tables with commit.manifest.min-count-to-merge=2, so every append after
the first merges the manifests. After each, iceberg-java's own reader reads `_row_id` and
`_last_updated_sequence_number` of every row of both tables (inherited from the files'
first_row_id and sequence numbers), and the two must be equal, as must next-row-id, the
snapshot's first-row-id and added-rows and each manifest's first_row_id. Rewrites of rows (a
partial copy-on-write delete, compaction) keep every kept row's lineage by writing it into the
new files, read back here by iceberg-java's reader."""

import hashlib
import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq

from conftest import ROOT  # noqa: F401 - the harness fixtures live there

TABLE = "lineage.t"
PROPERTIES = {"format-version": "3", "commit.manifest.min-count-to-merge": "2"}


def write_commits(tmp_path, commits=4, rows=10):
    paths = []
    for k in range(commits):
        ids = pa.array(range(1000 * (k + 1), 1000 * (k + 1) + rows), pa.int64())
        schema = pa.schema([pa.field("id", pa.int64(), nullable=False,
                                     metadata={b"PARQUET:field_id": b"1"})])
        path = tmp_path / f"commit{k}.parquet"
        pq.write_table(pa.table({"id": ids}, schema=schema), path)
        paths.append(path)
    return paths


def by_id(lineage):
    return {row["id"]: (row["_row_id"], row["_last_updated_sequence_number"])
            for row in lineage["lineage_rows"]}


def summary(lineage):
    return {key: lineage.get(key) for key in
            ["next_row_id", "snapshot_first_row_id", "snapshot_added_rows", "manifest_first_row_ids"]}


def create(floe, name=TABLE):
    args = ["create", name, "--schema", "id long not null"]
    for key, value in PROPERTIES.items():
        args += ["--property", f"{key}={value}"]
    floe.run(*args)


def test_row_ids_survive_manifest_merges_as_in_iceberg_java(floe, harness, tmp_path):
    inputs = write_commits(tmp_path)
    create(floe)
    ours = []
    for path in inputs:
        result = floe.run("append", TABLE, path)
        assert "appended 10 rows" in result.stdout, result.stdout + result.stderr
        ours.append(harness.run("dump", {"metadata_location": floe.metadata_location(TABLE),
                                          "lineage": True}))
    metadata = json.loads(pathlib.Path(floe.metadata_location(TABLE)).read_text())
    java = harness.run("write", {
        "table_location": str(tmp_path / "java_table"), "format_version": 3,
        "schema": metadata["schemas"][0], "partition_spec": metadata["partition-specs"][0],
        "properties": {k: v for k, v in metadata["properties"].items() if k != "format-version"},
        "mode": "unpartitioned", "input_files": [str(inputs[0])],
        "more_appends": [[str(p)] for p in inputs[1:]]})["commits"]
    assert len(java) == len(ours) == 4
    previous = {}
    for k, (mine, theirs) in enumerate(zip(ours, java)):
        assert by_id(mine) == by_id(theirs), f"after append {k + 1}"
        assert summary(mine) == summary(theirs), f"after append {k + 1}"
        # The rows already there keep their ids and sequence numbers: merging changes neither.
        current = by_id(mine)
        assert {i: current[i] for i in previous} == previous
        assert len(current) == 10 * (k + 1)
        previous = current
    # Merges happened: one manifest after each append.
    assert [len(m["manifest_first_row_ids"]) for m in ours] == [1, 1, 1, 1]


def three_appends(floe, harness, tmp_path):
    """The table after three appends of 10 rows, and its lineage as iceberg-java reads it."""
    create(floe)
    for path in write_commits(tmp_path, commits=3):
        floe.run("append", TABLE, path)
    return harness.run("dump", {"metadata_location": floe.metadata_location(TABLE), "lineage": True})


def test_rewrites_keep_every_rows_lineage_as_iceberg_java_reads_it(floe, harness, tmp_path):
    """A copy-on-write delete keeping part of a file and a compaction write the kept rows'
    `_row_id` and `_last_updated_sequence_number` into the new files: iceberg-java's reader
    reads every kept row with the lineage it had before, and the commits take fresh row
    ids for the rows of the manifests they wrote (next-row-id grows by the snapshot's
    added-rows), as iceberg-java's rewrites do. Spark's own DELETE and rewrite_data_files
    are compared with floe's in tests/spark/test_spark.py."""
    before = three_appends(floe, harness, tmp_path)

    floe.run("delete", TABLE, "--where", "id < 1005")
    deleted = harness.run("dump", {"metadata_location": floe.metadata_location(TABLE), "lineage": True})
    kept = {i: v for i, v in by_id(before).items() if i >= 1005}
    assert by_id(deleted) == kept and len(kept) == 25
    # The rewritten file holds the 5 rows id >= 1005 of the first commit's file. The commit
    # also rewrote the one (merged) manifest, which still lists the other two files' 20
    # rows: iceberg-java gives a new manifest row ids for its existing rows as well as its
    # added ones (the rule the merge test above checks against iceberg-java itself).
    assert deleted["snapshot_added_rows"] == 25
    assert deleted["snapshot_first_row_id"] == before["next_row_id"]
    assert deleted["next_row_id"] == before["next_row_id"] + 25

    floe.run("rewrite", TABLE, "--min-input-files", "2")
    compacted = harness.run("dump", {"metadata_location": floe.metadata_location(TABLE), "lineage": True})
    assert by_id(compacted) == kept
    assert compacted["snapshot_added_rows"] == 25
    assert compacted["next_row_id"] == deleted["next_row_id"] + 25
    # The lineage is in the files the two rewrites wrote (and in no appended file).
    files = list((floe.warehouse / "lineage" / "t" / "data").rglob("*.parquet"))
    assert sum("_row_id" in pq.read_schema(p).names for p in files) == 2


def test_deletes_and_overwrites_of_whole_files_keep_lineage(floe, harness, tmp_path):
    before = three_appends(floe, harness, tmp_path)

    # A delete of whole files rewrites no row: it runs, and the rows left keep their lineage.
    floe.run("delete", TABLE, "--where", "id >= 2000 and id < 3000")
    after = harness.run("dump", {"metadata_location": floe.metadata_location(TABLE), "lineage": True})
    kept = by_id(before)
    kept = {i: v for i, v in kept.items() if not 2000 <= i < 3000}
    assert by_id(after) == kept and len(kept) == 20
    # An overwrite by filter removes whole files too (floe refuses one that would keep part
    # of a file), as iceberg-java's overwriteByRowFilter: kept rows keep their ids, the new
    # rows take fresh ones from next-row-id.
    replacement = tmp_path / "replacement.parquet"
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False, metadata={b"PARQUET:field_id": b"1"})])
    pq.write_table(pa.table({"id": pa.array(range(3000, 3005), pa.int64())}, schema=schema), replacement)
    floe.run("overwrite", TABLE, replacement, "--where", "id >= 3000")
    overwritten = harness.run("dump", {"metadata_location": floe.metadata_location(TABLE), "lineage": True})
    ids = by_id(overwritten)
    assert {i: v for i, v in ids.items() if i < 2000} == {i: v for i, v in kept.items() if i < 2000}
    fresh = sorted(v[0] for i, v in ids.items() if i >= 3000)
    assert fresh == list(range(after["next_row_id"], after["next_row_id"] + 5))

