"""Row-level deletes, overwrites and dynamic partition overwrites, alone and racing appends.

Oracles: DuckDB evaluates the same filters over the expected rows; pyiceberg reads the table and
its snapshot summaries."""

import hashlib
import os
import signal
import subprocess
import time

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.avro.file import AvroFile
from pyiceberg.manifest import (DATA_FILE_TYPE, MANIFEST_ENTRY_SCHEMAS, DataFile, DataFileContent,
                                FileFormat, ManifestContent, ManifestEntry, ManifestEntryStatus)

from arrow_compare import differences, sorted_by
from conftest import FLOE, files_under
from test_scan import FLAT, flat_rows, scan

TABLE = "r.t"


def duck(table, sql):
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.register("t", table)
    return con.sql(sql).to_arrow_table()


def read_all(floe, tmp_path):
    got, _ = scan(floe, tmp_path, TABLE)
    return got


def make_table(floe, tmp_path, properties=()):
    args = []
    for prop in properties:
        args += ["--property", prop]
    floe.run("create", TABLE, "--schema", FLAT, "--partition-by", "region", *args)
    parts = []
    for k in range(8):
        part = flat_rows(k * 1000, 1000, [f"r{k}", f"r{(k + 3) % 8}"])
        pq.write_table(part, tmp_path / f"in{k}.parquet")
        floe.run("append", TABLE, tmp_path / f"in{k}.parquet")
        parts.append(part)
    return pa.concat_tables(parts)


def assert_rows(floe, pyiceberg_catalog, tmp_path, expected):
    got = read_all(floe, tmp_path)
    assert not differences(sorted_by(expected, ["id"]), sorted_by(got, ["id"]))
    table = pyiceberg_catalog.load_table(TABLE)
    via_pyiceberg = table.scan().to_arrow()
    assert sorted(via_pyiceberg.column("id").to_pylist()) == sorted(expected.column("id").to_pylist())
    summary = table.current_snapshot().summary
    # Rows deleted by position (deletion vectors, each row in one) still count as records.
    deleted = int(summary.get("total-position-deletes", 0))
    assert int(summary["total-records"]) - deleted == expected.num_rows
    # No data file is left that no snapshot references (removed files stay for time travel).
    referenced = {p.removeprefix("file://") for p in table.inspect.all_files().column("file_path").to_pylist()}
    assert files_under(floe.warehouse / "r" / "t" / "data") == referenced
    return table


def test_deletes_match_duckdb_and_pyiceberg(floe, pyiceberg_catalog, tmp_path):
    expected = make_table(floe, tmp_path)
    for where in ["amount < 0", "region = 'r3'", "price IS NULL OR id BETWEEN 100 AND 2500",
                  "NOT (ts < '1970-01-10T00:00:00Z') AND flag = true", "id = 7151"]:
        before = expected
        expected = duck(before, f"SELECT * FROM t WHERE NOT coalesce({where}, false)")
        result = floe.run("delete", TABLE, "--where", where, "--threads", 2)
        removed = before.num_rows - expected.num_rows
        assert removed > 0, where
        assert f"deleted {removed:,} rows" in result.stdout, result.stdout
        table = assert_rows(floe, pyiceberg_catalog, tmp_path, expected)
        summary = table.current_snapshot().summary
        assert summary.operation.value in ("delete", "overwrite")
    # A whole partition's files are removed without rewriting anything.
    assert "r3" not in read_all(floe, tmp_path).column("region").to_pylist()
    # No match: nothing committed.
    snapshots = len(pyiceberg_catalog.load_table(TABLE).snapshots())
    assert "nothing committed" in floe.run("delete", TABLE, "--where", "id < 0").stdout
    assert len(pyiceberg_catalog.load_table(TABLE).snapshots()) == snapshots


def test_rewrite_position_deletes_changes_no_row_and_deletes_no_file(floe, pyiceberg_catalog,
                                                                     tmp_path):
    """`floe rewrite --position-deletes` on a v2 table after merge-on-read deletes and a
    compaction of two partitions: the position delete files of the compacted partitions
    (deleting nothing now) are dropped and the rest rewritten one per data file; pyiceberg
    and DuckDB read the same rows before and after; nothing on disk is removed or changed
    (hashes); misused flags are refused before anything is read."""
    expected = make_table(floe, tmp_path, ["format-version=2", "write.delete.mode=merge-on-read"])
    for where in ["amount < 0", "id BETWEEN 100 AND 2500", "price IS NULL"]:
        expected = duck(expected, f"SELECT * FROM t WHERE NOT coalesce({where}, false)")
        floe.run("delete", TABLE, "--where", where)
    floe.run("rewrite", TABLE, "--where", "region = 'r0' OR region = 'r3'", "--min-input-files", "2")
    # The dangling deletes still count in total-position-deletes: rows only here.
    assert not differences(sorted_by(expected, ["id"]), sorted_by(read_all(floe, tmp_path), ["id"]))
    assert sorted(pyiceberg_catalog.load_table(TABLE).scan().to_arrow().column("id").to_pylist()) == \
        sorted(expected.column("id").to_pylist())
    data = floe.warehouse / "r" / "t" / "data"
    before = {path: hashlib.sha256(open(path, "rb").read()).hexdigest()
              for path in files_under(data)}

    assert "--position-deletes" in floe.fail("rewrite", TABLE, "--rewrite-all")
    assert "already drops" in floe.fail("rewrite", TABLE, "--position-deletes",
                                        "--remove-dangling-deletes")
    result = floe.run("rewrite", TABLE, "--position-deletes", "--rewrite-all")
    assert "position delete files of r.t into" in result.stdout and "(replace)" in result.stdout
    table = assert_rows(floe, pyiceberg_catalog, tmp_path, expected)
    summary = table.current_snapshot().summary
    assert summary.operation.value == "replace"
    removed = int(summary["removed-position-delete-files"])
    added = int(summary.get("added-position-delete-files", 0))
    assert f"rewrote {removed} position delete files of r.t into {added} " in result.stdout
    assert removed > added > 0  # r0's and r3's are gone
    after = {path: hashlib.sha256(open(path, "rb").read()).hexdigest()
             for path in files_under(data)}
    assert {path: after[path] for path in before} == before
    new = set(after) - set(before)
    assert len(new) == added and all(path.endswith("-deletes.parquet") for path in new)
    assert not any("/region=r0/" in path or "/region=r3/" in path for path in new), new
    # Every delete file left is one data file's.
    files = table.inspect.files().to_pylist()
    live_data = {f["file_path"] for f in files if f["content"] == 0}
    for f in files:
        if f["content"] == 1:
            lower, upper = dict(f["lower_bounds"]), dict(f["upper_bounds"])
            assert lower[2147483546] == upper[2147483546]
            assert lower[2147483546].decode() in live_data
    # No partition holds nine delete files: nothing to do.
    assert "nothing committed" in floe.run("rewrite", TABLE, "--position-deletes",
                                           "--min-input-files", "9").stdout


def referenced_data_files(table):
    """referenced_data_file of each live delete file, read by pyiceberg's Avro reader with
    the format-v3 manifest schema (its ManifestFile reads v2 fields only)."""
    index = [field.name for field in DATA_FILE_TYPE[3].fields].index("referenced_data_file")
    targets = []
    for manifest in table.current_snapshot().manifests(table.io):
        if manifest.content != ManifestContent.DELETES:
            continue
        with AvroFile[ManifestEntry](
                table.io.new_input(manifest.manifest_path), MANIFEST_ENTRY_SCHEMAS[3],
                read_types={-1: ManifestEntry, 2: DataFile},
                read_enums={0: ManifestEntryStatus, 101: FileFormat, 134: DataFileContent}) as reader:
            targets += [entry.data_file[index] for entry in reader
                        if entry.status != ManifestEntryStatus.DELETED]
    return targets


@pytest.mark.parametrize("version", [2, 3])
def test_merge_on_read_deletes_write_delete_files_pyiceberg_reads(floe, pyiceberg_catalog, tmp_path,
                                                                 version):
    """Under write.delete.mode=merge-on-read: the same deletes as above, each a set of
    delete files (no data file written; deletion vectors on v3, Parquet position delete
    files on v2) that pyiceberg's reader applies, the rows matching DuckDB's; on v3 a data
    file keeps one vector however many deletes touched it."""
    expected = make_table(floe, tmp_path, [f"format-version={version}",
                                           "write.delete.mode=merge-on-read"])
    files = files_under(floe.warehouse / "r" / "t" / "data")
    for where in ["amount < 0", "price IS NULL OR id BETWEEN 100 AND 2500",
                  "NOT (ts < '1970-01-10T00:00:00Z') AND flag = true", "id = 7151",
                  "region = 'r3'"]:
        before = expected
        expected = duck(before, f"SELECT * FROM t WHERE NOT coalesce({where}, false)")
        result = floe.run("delete", TABLE, "--where", where)
        removed = before.num_rows - expected.num_rows
        assert f"deleted {removed:,} rows" in result.stdout, result.stdout
        table = assert_rows(floe, pyiceberg_catalog, tmp_path, expected)
        summary = table.current_snapshot().summary
        assert summary.operation.value == "delete"
        if where != "region = 'r3'":  # a whole partition goes by metadata
            assert "delete file" in result.stdout, result.stdout
            assert int(summary["added-dvs" if version == 3 else "added-position-delete-files"]) > 0
        new = files_under(floe.warehouse / "r" / "t" / "data") - files
        suffix = "-deletes.puffin" if version == 3 else "-deletes.parquet"
        assert all(path.endswith(suffix) for path in new), new
        if version == 2:
            continue
        targets = referenced_data_files(table)
        assert targets and None not in targets or where == "region = 'r3'", targets
        assert len(targets) == len(set(targets)), "a data file has two deletion vectors"
    assert "r3" not in read_all(floe, tmp_path).column("region").to_pylist()


@pytest.mark.parametrize("isolation", ["serializable", "snapshot"])
def test_two_merge_on_read_deletes_of_the_same_file_conflict(floe, pyiceberg_catalog, tmp_path,
                                                            isolation):
    """Two merge-on-read deletes racing over one file: the later commit fails under either
    level (a concurrent vector for its file) and leaves no Puffin file behind."""
    existing = make_table(floe, tmp_path, ["format-version=3", "write.delete.mode=merge-on-read",
                                           f"write.delete.isolation-level={isolation}"])
    first = run_paused(floe, ["delete", TABLE, "--where", "region = 'r2' AND id < 2500"])
    floe.run("delete", TABLE, "--where", "region = 'r2' AND amount > 50")
    before = files_under(floe.warehouse / "r" / "t" / "data")
    paused_puffins = [p for p in before if p.endswith("-deletes.puffin")]
    assert len(paused_puffins) == 2  # the paused delete's and the other's
    code, _, stderr = finish(first)
    assert code == 1, stderr
    assert "Found conflicting files" in stderr or "Found concurrently added DV" in stderr, stderr
    # The failed delete's Puffin file (written before it paused) is gone, nothing else
    # changed; assert_rows checks that no file under data/ is left that no snapshot
    # references.
    after = files_under(floe.warehouse / "r" / "t" / "data")
    assert after < before and len(before - after) == 1
    assert (before - after).pop().endswith("-deletes.puffin")
    expected = duck(existing, "SELECT * FROM t WHERE NOT coalesce(region = 'r2' AND amount > 50, false)")
    assert_rows(floe, pyiceberg_catalog, tmp_path, expected)


@pytest.mark.parametrize("version", [2, 3])
def test_a_signal_cancels_a_merge_on_read_delete_and_its_delete_files_go(floe, pyiceberg_catalog,
                                                                          tmp_path, version):
    """SIGINT while a merge-on-read delete has written its delete files and not committed:
    it exits as cancelled, the delete files are gone (the folder listed before and after)
    and the table is as it was."""
    existing = make_table(floe, tmp_path, [f"format-version={version}", "write.delete.mode=merge-on-read"])
    before = files_under(floe.warehouse / "r" / "t")
    pointer = floe.metadata_location(TABLE)
    paused = run_paused(floe, ["delete", TABLE, "--where", "region = 'r2' AND id < 2500"])
    written = files_under(floe.warehouse / "r" / "t")
    assert [p for p in written if p not in before and "-deletes." in p]  # written, paused
    paused.send_signal(signal.SIGINT)
    code, _, stderr = finish(paused)
    assert code == 130, stderr
    assert "cancelled" in stderr and "nothing was committed" in stderr, stderr
    assert files_under(floe.warehouse / "r" / "t") == before
    assert floe.metadata_location(TABLE) == pointer
    assert_rows(floe, pyiceberg_catalog, tmp_path, existing)


def test_update_sets_columns_as_duckdb_does_and_bad_input_changes_nothing(floe, pyiceberg_catalog,
                                                                        tmp_path):
    """`floe update`: the rows DuckDB's UPDATE leaves (values in place, rows moved to
    another partition, NULL), read back by floe and pyiceberg; a value of the wrong type,
    an unknown column (in --set or --where, a metadata column in --where), NULL for a
    required column, a filter that does not parse: one clear error, the table and its
    files unchanged."""
    expected = make_table(floe, tmp_path)
    for set_text, where in [("amount = -1.5, flag = false", "id BETWEEN 100 AND 2500"),
                            ("region = 'it''s Zürich', price = NULL", "region = 'r3' AND id < 3400")]:
        con = duckdb.connect()
        con.sql("SET TimeZone = 'UTC'")
        con.register("src", expected)
        con.sql("CREATE TABLE t AS SELECT * FROM src")
        changed = con.sql(f"SELECT count(*) FROM src WHERE {where}").fetchall()[0][0]
        con.sql(f"UPDATE t SET {set_text} WHERE {where}")
        expected = con.sql("SELECT * FROM t").to_arrow_table().cast(expected.schema)
        con.close()
        result = floe.run("update", TABLE, "--set", set_text, "--where", where)
        assert changed > 0
        assert f"updated {changed:,} rows" in result.stdout, result.stdout
        assert_rows(floe, pyiceberg_catalog, tmp_path, expected)
    pointer = floe.metadata_location(TABLE)
    before = files_under(floe.warehouse / "r" / "t")
    for set_text, where, message in [("id = 'x'", "id < 10", "id"),
                                     ("nope = 1", "id < 10", "nope"),
                                     ("id = NULL", "id < 10", "required"),
                                     ("amount = 1", "nope < 10", "no column 'nope'"),
                                     ("amount = 1", "_pos < 10", "no column '_pos'"),
                                     ("amount = 1", "id <", "cannot parse filter")]:
        error = floe.fail("update", TABLE, "--set", set_text, "--where", where)
        assert message in error, error
    assert floe.metadata_location(TABLE) == pointer
    assert files_under(floe.warehouse / "r" / "t") == before


@pytest.mark.parametrize("version", [2, 3])
def test_upsert_replaces_and_inserts_as_duckdb_computes_and_bad_input_changes_nothing(
        floe, pyiceberg_catalog, tmp_path, version):
    """`floe upsert`: the rows DuckDB computes for "input rows, plus the table's rows
    whose key the input lacks", read back by floe and pyiceberg, by copy-on-write and
    then merge-on-read, on one key and on two; duplicate keys, a floating-point key, an
    unknown key: one clear error, the table and its files unchanged."""
    expected = make_table(floe, tmp_path, [f"format-version={version}"])
    upserts = [
        # 500 keys replaced (moved to other regions), 500 inserted.
        (flat_rows(7500, 1000, ["r2", "r9 ü"]), "id", []),
        # A merge-on-read upsert on two columns: the input's day differs for some rows,
        # which then insert instead of replace.
        (flat_rows(100, 300, ["r0"]), "id,day", ["--option", "write.merge.mode=merge-on-read"]),
    ]
    for number, (data, on, options) in enumerate(upserts):
        keys = on.split(",")
        if number == 1:  # shift every other day: those keys are new
            days = data.column("day").to_pylist()
            days = [d if i % 2 else d.replace(year=2199) for i, d in enumerate(days)]
            data = data.set_column(data.schema.get_field_index("day"), "day",
                                   pa.array(days, pa.date32()))
        path = tmp_path / f"upsert{number}.parquet"
        pq.write_table(data, path)
        join = " AND ".join(f"t.{k} = s.{k}" for k in keys)
        con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'")
        con.register("t", expected)
        con.register("s", data)
        replaced = con.sql(f"SELECT count(*) FROM t JOIN s ON {join}").fetchall()[0][0]
        expected = con.sql(f"SELECT * FROM s UNION ALL SELECT * FROM t "
                           f"WHERE NOT EXISTS (SELECT 1 FROM s WHERE {join})"
                           ).to_arrow_table().cast(expected.schema)
        con.close()
        result = floe.run("upsert", TABLE, path, "--on", on, *options)
        inserted = data.num_rows - replaced
        assert replaced > 0 and inserted > 0
        assert f"replaced {replaced:,} rows and inserted {inserted:,}" in result.stdout, result.stdout
        table = assert_rows(floe, pyiceberg_catalog, tmp_path, expected)
        if options:
            assert int(table.current_snapshot().summary["added-delete-files"]) > 0
    # Insert only (MERGE ... WHEN NOT MATCHED THEN INSERT *): matched rows stay as they are.
    data = flat_rows(8400, 200, ["r4"])
    pq.write_table(data, tmp_path / "insert_only.parquet")
    new = duck(data, "SELECT * FROM t").filter(
        pa.compute.invert(pa.compute.is_in(data.column("id"), expected.column("id"))))
    result = floe.run("upsert", TABLE, tmp_path / "insert_only.parquet", "--on", "id",
                      "--when-matched", "ignore")
    assert f"replaced 0 rows and inserted {new.num_rows:,}" in result.stdout, result.stdout
    assert 0 < new.num_rows < data.num_rows
    expected = pa.concat_tables([expected, new.cast(expected.schema)])
    table = assert_rows(floe, pyiceberg_catalog, tmp_path, expected)
    assert table.current_snapshot().summary.operation.value == "append"
    pointer = floe.metadata_location(TABLE)
    before = files_under(floe.warehouse / "r" / "t")
    good = flat_rows(5, 3, ["r1"])
    pq.write_table(pa.concat_tables([good, good.slice(1, 1)]), tmp_path / "twice.parquet")
    pq.write_table(good, tmp_path / "good.parquet")
    # Without its key column day (optional), a file's rows would all read as NULL keys.
    pq.write_table(good.drop(["day"]), tmp_path / "no_day.parquet")
    for path, on, message in [("twice.parquet", "id", "the input holds the key (id=6) twice, in rows 2 and 4"),
                              ("good.parquet", "amount", "floating-point"),
                              ("good.parquet", "nope", "no top-level column nope"),
                              ("no_day.parquet", "id,day", "no_day.parquet has no column day")]:
        error = floe.fail("upsert", TABLE, tmp_path / path, "--on", on)
        assert message in error and "r.t" in error, error
    assert floe.metadata_location(TABLE) == pointer
    assert files_under(floe.warehouse / "r" / "t") == before


def test_whole_file_delete_reports_a_delete_snapshot(floe, pyiceberg_catalog, tmp_path):
    make_table(floe, tmp_path)
    floe.run("delete", TABLE, "--where", "region IN ('r1', 'r2')")
    summary = pyiceberg_catalog.load_table(TABLE).current_snapshot().summary
    assert summary.operation.value == "delete"
    assert int(summary["deleted-data-files"]) > 0 and "added-data-files" not in summary.additional_properties


def test_dynamic_overwrite_replaces_only_the_partitions_written(floe, pyiceberg_catalog, tmp_path):
    existing = make_table(floe, tmp_path)
    new = flat_rows(50000, 500, ["r1", "r6"])
    pq.write_table(new, tmp_path / "new.parquet")
    result = floe.run("append", TABLE, tmp_path / "new.parquet", "--mode", "dynamic-overwrite")
    assert "overwrote partitions" in result.stdout
    # Rows of the input with a null region land in the null partition, which is replaced too.
    kept = duck(existing, "SELECT * FROM t WHERE region IS NOT NULL AND region NOT IN ('r1', 'r6')")
    expected = pa.concat_tables([kept, new])
    table = assert_rows(floe, pyiceberg_catalog, tmp_path, expected)
    assert table.current_snapshot().summary["replace-partitions"] == "true"


def test_overwrite_by_filter(floe, pyiceberg_catalog, tmp_path):
    existing = make_table(floe, tmp_path)
    new = flat_rows(90000, 300, ["r5"]).filter(pa.compute.is_valid(flat_rows(90000, 300, ["r5"]).column("region")))
    pq.write_table(new, tmp_path / "new.parquet")
    floe.run("overwrite", TABLE, tmp_path / "new.parquet", "--where", "region = 'r5'")
    expected = pa.concat_tables([duck(existing, "SELECT * FROM t WHERE NOT coalesce(region = 'r5', false)"), new])
    assert_rows(floe, pyiceberg_catalog, tmp_path, expected)

    pointer = floe.metadata_location(TABLE)
    before = files_under(floe.warehouse / "r" / "t")
    # A file holding some but not all matching rows: refused before anything is written.
    error = floe.fail("overwrite", TABLE, tmp_path / "new.parquet", "--where", "id < 10")
    assert "some, but not all, rows match" in error
    # A new row outside the filter: refused, and the files already written are removed.
    error = floe.fail("overwrite", TABLE, tmp_path / "new.parquet", "--where", "region = 'r4'")
    assert "does not match the overwrite filter" in error
    assert floe.metadata_location(TABLE) == pointer
    assert files_under(floe.warehouse / "r" / "t") == before


def run_paused(floe, args, point="commit", pause_ms=4000):
    """Starts floe paused at `point`; returns the process once it is there."""
    env = dict(os.environ, FLOE_TEST_PAUSE_AT=point, FLOE_TEST_PAUSE_MS=str(pause_ms))
    process = subprocess.Popen([FLOE, *map(str, args), "--warehouse", str(floe.warehouse)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for line in process.stderr:
        if f"paused at {point}" in line:
            return process
    process.wait()
    pytest.fail(f"floe {args} never paused: {process.stdout.read()}")


def finish(process):
    stdout, stderr = process.communicate(timeout=120)
    return process.returncode, stdout, stderr


def append_rows(floe, tmp_path, name, start, regions):
    rows = flat_rows(start, 200, regions)
    rows = rows.filter(pa.compute.is_valid(rows.column("region")))
    pq.write_table(rows, tmp_path / name)
    floe.run("append", TABLE, tmp_path / name)
    return rows


@pytest.mark.parametrize("isolation", ["serializable", "snapshot"])
def test_delete_racing_an_append_into_the_same_partition(floe, pyiceberg_catalog, tmp_path, isolation):
    existing = make_table(floe, tmp_path, [f"write.delete.isolation-level={isolation}"])
    deleting = run_paused(floe, ["delete", TABLE, "--where", "region = 'r3' AND amount > 0"])
    appended = append_rows(floe, tmp_path, "race.parquet", 70000, ["r3"])
    code, stdout, stderr = finish(deleting)
    if isolation == "serializable":
        assert code == 1, stdout
        assert "Found conflicting files that can contain records matching" in stderr
        assert "(append)" in stderr
        expected = pa.concat_tables([existing, appended])
    else:
        # Snapshot isolation: the delete commits; the concurrently appended rows stay, even
        # those matching its filter (iceberg-java's behaviour).
        assert code == 0, stderr
        kept = duck(existing, "SELECT * FROM t WHERE NOT coalesce(region = 'r3' AND amount > 0, false)")
        expected = pa.concat_tables([kept, appended])
    # assert_rows also shows that a failed delete's rewritten files were removed.
    assert_rows(floe, pyiceberg_catalog, tmp_path, expected)


def test_delete_racing_an_append_into_another_partition_succeeds(floe, pyiceberg_catalog, tmp_path):
    existing = make_table(floe, tmp_path)
    deleting = run_paused(floe, ["delete", TABLE, "--where", "region = 'r3' AND amount > 0"])
    appended = append_rows(floe, tmp_path, "other.parquet", 70000, ["r5"])
    code, stdout, stderr = finish(deleting)
    assert code == 0, stderr
    assert "committed on attempt 2" in stdout
    kept = duck(existing, "SELECT * FROM t WHERE NOT coalesce(region = 'r3' AND amount > 0, false)")
    assert_rows(floe, pyiceberg_catalog, tmp_path, pa.concat_tables([kept, appended]))


@pytest.mark.parametrize("isolation", ["serializable", "snapshot"])
def test_two_deletes_of_the_same_file_conflict(floe, pyiceberg_catalog, tmp_path, isolation):
    existing = make_table(floe, tmp_path, [f"write.delete.isolation-level={isolation}"])
    first = run_paused(floe, ["delete", TABLE, "--where", "region = 'r2' AND id < 3000"])
    floe.run("delete", TABLE, "--where", "region = 'r2' AND amount > 50")
    code, _, stderr = finish(first)
    # Serializable sees the other delete's rewritten file as new data that might match; under
    # either level the file the first delete rewrites is gone.
    expected_error = ("Found conflicting files" if isolation == "serializable"
                      else "Missing required files to delete")
    assert code == 1 and expected_error in stderr, stderr
    expected = duck(existing, "SELECT * FROM t WHERE NOT coalesce(region = 'r2' AND amount > 50, false)")
    assert_rows(floe, pyiceberg_catalog, tmp_path, expected)


@pytest.mark.parametrize("isolation", ["serializable", "snapshot"])
def test_dynamic_overwrite_racing_an_append(floe, pyiceberg_catalog, tmp_path, isolation):
    existing = make_table(floe, tmp_path)
    new = flat_rows(50000, 300, ["r4"])
    new = new.filter(pa.compute.is_valid(new.column("region")))
    pq.write_table(new, tmp_path / "new.parquet")
    overwriting = run_paused(floe, ["append", TABLE, tmp_path / "new.parquet", "--mode", "dynamic-overwrite",
                                    "--option", f"isolation-level={isolation}"])
    appended = append_rows(floe, tmp_path, "race.parquet", 70000, ["r4"])
    code, stdout, stderr = finish(overwriting)
    if isolation == "serializable":
        assert code == 1 and "Found conflicting files" in stderr, stderr
        expected = pa.concat_tables([existing, appended])
    else:
        # Snapshot isolation: the replace wins and takes the concurrent append's partition rows
        # with it, as iceberg-java's ReplacePartitions does.
        assert code == 0, stderr
        expected = pa.concat_tables([duck(existing, "SELECT * FROM t WHERE region IS NULL OR region != 'r4'"), new])
    assert_rows(floe, pyiceberg_catalog, tmp_path, expected)
