"""`floe rewrite`: compaction of small files into a "replace" snapshot that changes no row.
Oracles: pyiceberg (rows, snapshot operation and summary, file listing, time travel); races with
a concurrent append (must rebase) and a concurrent delete of a rewritten file (must fail with
iceberg-java's "Missing required files to delete" and leave nothing behind)."""

import pyarrow as pa
import pyarrow.parquet as pq

from arrow_compare import differences, sorted_by
from conftest import files_under
from test_row_level import finish, run_paused
from test_scan import FLAT, flat_rows

TABLE = "c.t"
REGIONS = [f"r{k}" for k in range(8)]


def fragmented(floe, tmp_path, appends=6):
    floe.run("create", TABLE, "--schema", FLAT, "--partition-by", "region")
    parts = []
    for k in range(appends):
        part = flat_rows(k * 1000, 400, REGIONS)
        pq.write_table(part, tmp_path / f"in{k}.parquet")
        floe.run("append", TABLE, tmp_path / f"in{k}.parquet")
        parts.append(part)
    return pa.concat_tables(parts)


def data_files(table):
    return {p.removeprefix("file://") for p in table.inspect.files().column("file_path").to_pylist()}


def test_rewrite_compacts_each_partition_and_changes_no_row(floe, pyiceberg_catalog, tmp_path):
    rows = fragmented(floe, tmp_path)
    before = pyiceberg_catalog.load_table(TABLE)
    old_files = data_files(before)
    old_snapshot = before.current_snapshot().snapshot_id
    partitions = len(REGIONS) + 1  # and the null region
    assert len(old_files) == 6 * partitions

    # Delta's compaction settings are refused on an Iceberg table, not ignored.
    for flags in (["--min-file-size", "1"], ["--max-file-size", "1"], ["--threads", "2"]):
        assert "apply to Delta tables" in floe.fail("rewrite", TABLE, *flags)
    # Six small files per partition: below a threshold of seven nothing is rewritten.
    result = floe.run("rewrite", TABLE, "--min-input-files", "7")
    assert "nothing committed" in result.stdout
    result = floe.run("rewrite", TABLE)
    assert f"rewrote {len(old_files)} data files" in result.stdout and "(replace)" in result.stdout

    table = pyiceberg_catalog.load_table(TABLE)
    snapshot = table.current_snapshot()
    assert snapshot.summary.operation.value == "replace"
    assert int(snapshot.summary["deleted-data-files"]) == len(old_files)
    assert int(snapshot.summary["added-data-files"]) == partitions
    assert snapshot.summary["total-records"] == str(rows.num_rows)
    new_files = data_files(table)
    assert len(new_files) == partitions and not (new_files & old_files)
    assert not differences(sorted_by(rows, ["id"]), sorted_by(table.scan().to_arrow(), ["id"]))
    # The old snapshot still reads its own files.
    assert table.scan(snapshot_id=old_snapshot).to_arrow().num_rows == rows.num_rows
    # Nothing left to compact.
    assert "nothing committed" in floe.run("rewrite", TABLE).stdout


def test_rewrite_rebases_over_an_append_and_fails_on_a_concurrent_delete(floe, pyiceberg_catalog, tmp_path):
    rows = fragmented(floe, tmp_path)
    # An append while the rewrite waits to swap: the rewrite retries and keeps the new rows.
    rewrite = run_paused(floe, ["rewrite", TABLE], point="swap", pause_ms=3000)
    late = flat_rows(50_000, 10, ["r1"])
    pq.write_table(late, tmp_path / "late.parquet")
    floe.run("append", TABLE, tmp_path / "late.parquet")
    code, stdout, stderr = finish(rewrite)
    assert code == 0, stderr
    assert "committed on attempt 2" in stdout
    table = pyiceberg_catalog.load_table(TABLE)
    expected = pa.concat_tables([rows, late])
    assert not differences(sorted_by(expected, ["id"]), sorted_by(table.scan().to_arrow(), ["id"]))

    # A delete that removes a file the rewrite is replacing: the rewrite fails, naming it.
    for k in range(6):
        pq.write_table(flat_rows(100_000 + k * 100, 50, ["r3"]), tmp_path / f"more{k}.parquet")
        floe.run("append", TABLE, tmp_path / f"more{k}.parquet")
    table_dir = floe.warehouse / "c" / "t"
    rewrite = run_paused(floe, ["rewrite", TABLE, "--where", "region = 'r3'"], point="swap", pause_ms=3000)
    floe.run("delete", TABLE, "--where", "region = 'r3'")
    code, stdout, stderr = finish(rewrite)
    assert code != 0 and "Missing required files to delete" in stderr
    # The failed rewrite left no data file behind (every file on disk is one some snapshot
    # references), and the delete stands.
    table = pyiceberg_catalog.load_table(TABLE)
    referenced = {p.removeprefix("file://") for p in table.inspect.all_files().column("file_path").to_pylist()}
    assert files_under(table_dir / "data") == referenced
    assert table.scan(row_filter="region = 'r3'").to_arrow().num_rows == 0
    assert table.current_snapshot().summary.operation.value == "delete"
