"""Every table operation once through Python, checked against pyiceberg's reading."""

import os
import pathlib
import time

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from conftest import files_under

import floe

SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("region", pa.string()),
        pa.field("price", pa.float64()),
    ]
)
REGIONS = ["eu", "us", "ap", "sa", "af", "me", "oc", "an"]


def rows(start, count, regions=REGIONS):
    ids = list(range(start, start + count))
    return pa.table(
        {"id": ids, "region": [regions[i % len(regions)] for i in ids],
         "price": [i * 0.5 if i % 11 else None for i in ids]},
        schema=SCHEMA,
    )


def ids_of(table: pa.Table) -> list:
    return sorted(table["id"].to_pylist())


@pytest.fixture
def events(catalog):
    catalog.create_namespace("db")
    table = catalog.create_table("db.events", SCHEMA, partition_by="region")
    table.append(rows(0, 800), threads=2)
    return table


def theirs(pyiceberg_catalog, name="db.events"):
    return pyiceberg_catalog.load_table(name).scan().to_arrow()


def test_delete_overwrite_and_dynamic_overwrite(events, pyiceberg_catalog, warehouse):
    deleted = events.delete("region = 'eu' OR id < 10")
    assert isinstance(deleted, floe.RowLevelResult) and deleted.committed
    expected = [i for i in range(800) if REGIONS[i % 8] != "eu" and i >= 10]
    assert deleted.rows_removed == 800 - len(expected)
    assert deleted.commit.operation in ("delete", "overwrite")
    assert ids_of(theirs(pyiceberg_catalog)) == expected
    # Nothing matches: nothing committed.
    assert not events.delete("id > 100000").committed

    # Overwrite by filter: the 'us' rows are replaced.
    replaced = events.overwrite(rows(10_000, 40, ["us"]), where="region = 'us'")
    assert replaced.committed and replaced.rows == 40
    expected = [i for i in expected if REGIONS[i % 8] != "us"] + list(range(10_000, 10_040))
    assert ids_of(theirs(pyiceberg_catalog)) == sorted(expected)
    # A new row outside the filter is refused; nothing committed, nothing left.
    before = events.metadata_location
    files_before = files_under(warehouse)
    with pytest.raises(floe.InvalidInputError, match="does not match the overwrite filter"):
        events.overwrite(rows(20_000, 3, ["ap"]), where="region = 'us'")
    assert events.refresh().metadata_location == before
    assert files_under(warehouse) == files_before
    # A filter that cuts through a data file (region 'oc' files also hold other ids).
    with pytest.raises(floe.ValidationException):
        events.overwrite(rows(21_000, 1, ["oc"]), where="region = 'oc' AND id < 100")
    assert files_under(warehouse) == files_before

    # Dynamic partition overwrite (no where, partitioned table): 'ap' and 'sa' replaced.
    dynamic = events.overwrite(rows(30_000, 10, ["ap", "sa"]))
    assert isinstance(dynamic, floe.WriteResult) and dynamic.commit.operation == "overwrite"
    expected = [i for i in expected if i >= 10_000 or REGIONS[i % 8] not in ("ap", "sa")]
    expected += list(range(30_000, 30_010))
    assert ids_of(theirs(pyiceberg_catalog)) == sorted(expected)
    # No rows replace nothing and commit nothing.
    assert not events.overwrite(rows(0, 0)).committed


def test_update_by_text_and_by_mapping(events, pyiceberg_catalog, warehouse):
    """update sets columns of the matching rows (read back by pyiceberg); a mapping's
    values are quoted for the filter syntax; a value of the wrong type raises before
    anything is written."""
    updated = events.update("price = -0.25", where="region = 'eu' AND id < 100")
    assert isinstance(updated, floe.RowLevelResult) and updated.committed
    assert updated.rows_updated == len([i for i in range(100) if REGIONS[i % 8] == "eu"])
    assert updated.commit.operation == "overwrite"
    moved = events.update({"region": "it's new", "price": None}, where="id IN (1, 9, 17)")
    assert moved.rows_updated == 3
    read = theirs(pyiceberg_catalog)
    by_id = dict(zip(read["id"].to_pylist(), zip(read["region"].to_pylist(),
                                                 read["price"].to_pylist())))
    assert len(by_id) == 800
    for i in range(800):
        if i in (1, 9, 17):
            assert by_id[i] == ("it's new", None), i
        elif REGIONS[i % 8] == "eu" and i < 100:
            assert by_id[i] == ("eu", -0.25), i
        else:
            assert by_id[i] == (REGIONS[i % 8], i * 0.5 if i % 11 else None), i
    before = events.refresh().metadata_location
    files_before = files_under(warehouse)
    with pytest.raises(ValueError, match="price"):
        events.update({"price": "cheap"}, where="id < 5")
    with pytest.raises(TypeError):
        events.update(["price = 1"], where="id < 5")
    assert events.refresh().metadata_location == before
    assert files_under(warehouse) == files_before


def test_upsert_as_pyicebergs_on_a_sibling_table(catalog, pyiceberg_catalog, warehouse):
    """upsert replaces the rows whose key the input has and inserts the rest: the same
    rows as pyiceberg's upsert leaves on a sibling table, from a polars DataFrame; the key
    defaults to the table's identifier fields; a duplicate key raises before anything is
    written."""
    import polars as pl

    catalog.create_namespace("db")
    ours, sibling = (catalog.create_table(f"db.{n}", SCHEMA, partition_by="region")
                     for n in ("ours", "sibling"))
    for table in (ours, sibling):
        table.append(rows(0, 800), threads=2)
    # 100 replaced (new region and price, some moved to a new partition), 50 inserted.
    data = rows(750, 150, ["eu", "new region"]).set_column(
        2, "price", pa.array([-1.0] * 150, pa.float64()))
    result = ours.upsert(pl.from_arrow(data), join_cols="id")
    assert (result.rows_updated, result.rows_inserted) == (50, 100)
    assert result.commit.operation == "overwrite"
    theirs_result = pyiceberg_catalog.load_table("db.sibling").upsert(data, join_cols=["id"])
    assert (theirs_result.rows_updated, theirs_result.rows_inserted) == (50, 100)
    mine, expected = (theirs(pyiceberg_catalog, f"db.{n}").sort_by("id")
                      for n in ("ours", "sibling"))
    assert mine.equals(expected.cast(mine.schema))
    assert mine.num_rows == 900

    # The key defaults to the identifier fields (set here by pyiceberg).
    with pyiceberg_catalog.load_table("db.ours").update_schema() as update:
        update.set_identifier_fields("id")
    ours = catalog.load_table("db.ours")
    again = ours.upsert(rows(0, 3, ["zz"]))
    assert (again.rows_updated, again.rows_inserted) == (3, 0)
    assert sorted(theirs(pyiceberg_catalog, "db.ours").filter(
        pc.field("region") == "zz")["id"].to_pylist()) == [0, 1, 2]

    # Update only, then insert only (pyiceberg's when_* switches).
    only_update = ours.upsert(rows(898, 4, ["yy"]), when_not_matched_insert_all=False)
    assert (only_update.rows_updated, only_update.rows_inserted) == (2, 0)
    only_insert = ours.upsert(rows(898, 4, ["xx"]), when_matched_update_all=False)
    assert (only_insert.rows_updated, only_insert.rows_inserted) == (0, 2)
    read = theirs(pyiceberg_catalog, "db.ours")
    regions = dict(zip(read["id"].to_pylist(), read["region"].to_pylist()))
    assert [regions[i] for i in range(898, 902)] == ["yy", "yy", "xx", "xx"]
    assert read.num_rows == 902
    # No key matches and inserting is off: nothing to write, nothing committed.
    snapshot = ours.refresh().current_snapshot().snapshot_id
    assert not ours.upsert(rows(5000, 2), when_not_matched_insert_all=False).committed
    assert ours.refresh().current_snapshot().snapshot_id == snapshot

    before = ours.refresh().metadata_location
    files_before = files_under(warehouse)
    with pytest.raises(floe.InvalidInputError, match="nothing to do"):
        ours.upsert(rows(0, 3), when_matched_update_all=False, when_not_matched_insert_all=False)
    with pytest.raises(floe.InvalidInputError, match=r"key \(id=1\) twice"):
        ours.upsert(pa.concat_tables([rows(0, 3), rows(1, 1)]))
    with pytest.raises(floe.InvalidInputError, match="floating-point"):
        ours.upsert(rows(0, 3), join_cols=["price"])
    assert ours.refresh().metadata_location == before
    assert files_under(warehouse) == files_before


def test_overwrite_of_an_unpartitioned_table_without_where_replaces_everything(
    catalog, pyiceberg_catalog
):
    catalog.create_namespace("db")
    table = catalog.create_table("db.flat", SCHEMA)
    table.append(rows(0, 50))
    result = table.overwrite(rows(100, 5))
    assert result.committed
    assert ids_of(theirs(pyiceberg_catalog, "db.flat")) == list(range(100, 105))


def test_rewrite_expire_and_remove_orphans(events, pyiceberg_catalog, warehouse):
    for start in range(1000, 1060, 10):
        events.append(rows(start, 10, ["eu"]))
    before_rows = ids_of(theirs(pyiceberg_catalog))
    rewritten = events.rewrite(where="region = 'eu'", min_input_files=2)
    assert rewritten.committed and rewritten.commit.operation == "replace"
    assert rewritten.files_removed >= 7 and rewritten.data_files == 1
    assert ids_of(theirs(pyiceberg_catalog)) == before_rows

    snapshots = len(events.snapshots())
    dry = events.expire_snapshots(older_than=0, retain_last=1, dry_run=True)
    assert len(dry.expired) == snapshots - 1 and dry.data_files
    assert all(os.path.exists(f.removeprefix("file:")) for f in dry.data_files)  # kept
    assert len(events.refresh().snapshots()) == snapshots
    expired = events.expire_snapshots(older_than=0, retain_last=1)
    assert expired.expired == dry.expired
    assert len(events.snapshots()) == 1
    assert ids_of(theirs(pyiceberg_catalog)) == before_rows
    for path in expired.data_files:
        assert not os.path.exists(path.removeprefix("file:")), path

    # An orphan in the data folder (an Iceberg-style name, old enough), and a stranger's file.
    data = pathlib.Path(events.location.removeprefix("file:")) / "data"
    orphan = data / "00000-0-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee-00001.parquet"
    orphan.write_bytes(b"PAR1")
    notes = data / "notes.txt"
    notes.write_text("mine")
    old = time.time() - 10 * 24 * 3600
    for path in (orphan, notes):
        os.utime(path, (old, old))
    listed = events.remove_orphans(older_than="3d", dry_run=True)
    assert [p.removeprefix("file:") for p in listed.orphans] == [str(orphan)]
    assert listed.unrecognised == 1
    removed = events.remove_orphans(older_than="3d")
    assert not orphan.exists() and notes.exists()
    assert removed.orphans == listed.orphans
    assert ids_of(theirs(pyiceberg_catalog)) == before_rows


def test_rewrite_position_deletes(catalog, pyiceberg_catalog):
    """rewrite_position_deletes on a v2 merge-on-read table: the delete files of the
    compacted "eu" partition go, the others are rewritten one per data file (``delete_files``
    of them); pyiceberg reads the same rows; bad arguments are refused."""
    catalog.create_namespace("db")
    table = catalog.create_table("db.mor", SCHEMA, partition_by="region",
                                 properties={"format-version": "2",
                                             "write.delete.mode": "merge-on-read"})
    for start in (0, 800, 1600):
        table.append(rows(start, 800))
    table.delete("price < 100 OR id BETWEEN 1000 AND 1100 OR id > 2300")
    table.rewrite(where="region = 'eu'", min_input_files=2)
    before = ids_of(theirs(pyiceberg_catalog, "db.mor"))
    with pytest.raises(TypeError):
        table.rewrite_position_deletes(min_input_files="2")
    with pytest.raises(TypeError):
        table.rewrite_position_deletes(rewrite_all=1)
    assert not table.rewrite_position_deletes().committed  # three files a partition
    result = table.rewrite_position_deletes(min_input_files=3,
                                            options={"write.delete.parquet.compression-codec":
                                                     "snappy"})
    assert isinstance(result, floe.RowLevelResult)
    assert result.committed and result.commit.operation == "replace"
    assert result.delete_files_removed == 24 and result.delete_files == 21
    assert ids_of(theirs(pyiceberg_catalog, "db.mor")) == before
    summary = table.current_snapshot().summary
    assert summary["removed-position-delete-files"] == "24"
    assert summary["added-position-delete-files"] == "21"


def test_scan_options(events, pyiceberg_catalog):
    first = events.current_snapshot().snapshot_id
    events.append(rows(5000, 16))
    scan = events.scan(columns=["id", "price"], where="region = 'eu' AND price IS NOT NULL")
    table = scan.to_arrow()
    assert table.column_names == ["id", "price"]
    theirs_rows = (
        pyiceberg_catalog.load_table("db.events")
        .scan(row_filter="region = 'eu' and price is not null").to_arrow()
    )
    assert ids_of(table) == ids_of(theirs_rows)
    stats = scan.stats
    assert stats["files_skipped_by_partition"] >= 7 and stats["rows"] == table.num_rows
    # plan_files prunes by partition.
    planned = events.scan(where="region = 'us'").plan_files()
    their_plan = pyiceberg_catalog.load_table("db.events").scan(row_filter="region = 'us'").plan_files()
    assert sorted(f["file_path"] for f in planned) == sorted(t.file.file_path for t in their_plan)
    assert all("/region=us/" in f["file_path"] for f in planned)
    assert sum(f["record_count"] for f in planned) == 102
    # Time travel and limit.
    assert ids_of(events.scan(snapshot_id=first).to_arrow()) == list(range(800))
    assert events.scan(limit=7).to_arrow().num_rows == 7
    reader = events.scan(columns=["id"]).to_reader()
    assert isinstance(reader, pa.RecordBatchReader)
    assert sum(batch.num_rows for batch in reader) == 816
    assert events.scan().schema().names == ["id", "region", "price"]
    # Scans filter on metadata columns as Spark does (pyarrow's filter over the same
    # columns read is the oracle); deletes and rewrites take table columns only.
    every = events.scan(columns=["id", "_file", "_pos", "_partition"]).to_arrow()
    some_file = every.column("_file")[3].as_py()
    expected = every.filter(pc.or_(pc.less(every["_pos"], 3),
                                   pc.equal(every["_file"], some_file)))
    got = events.scan(columns=["id"], where=f"_pos < 3 OR _file = '{some_file}'").to_arrow()
    assert ids_of(got) == ids_of(expected) and 0 < got.num_rows < every.num_rows
    eu = events.scan(columns=["id"], where="_partition.region = 'eu'").to_arrow()
    assert ids_of(eu) == ids_of(events.scan(columns=["id"], where="region = 'eu'").to_arrow())
    snapshot = events.current_snapshot().snapshot_id
    for operation in (lambda: events.delete("_pos < 3"),
                      lambda: events.rewrite(where="_file = 'x'")):
        with pytest.raises(floe.FloeError, match="no column '_"):
            operation()
    assert events.refresh().current_snapshot().snapshot_id == snapshot


def test_explain_write_and_a_declined_write(events, warehouse):
    explained = events.explain_write()
    assert explained.supported and explained.plan["distribution"]
    declined = events.explain_write({"write.format.default": "orc"})
    assert not declined.supported
    assert any("write.format.default" in reason for reason in declined.reasons)
    before = files_under(warehouse)
    with pytest.raises(floe.WriteDeclinedError) as raised:
        events.append(rows(0, 5), options={"write.format.default": "orc"})
    assert raised.value.reasons == declined.reasons
    assert isinstance(raised.value, floe.FloeError)
    with pytest.raises(floe.WriteDeclinedError):
        events.plan_write(options={"write.format.default": "orc"})
    assert files_under(warehouse) == before


def test_memory_limit_and_progress(events, pyiceberg_catalog, warehouse):
    # A stream slow enough (20 batches, 20 ms each) that the progress callable, polled every
    # 50 ms on the calling thread, must be called several times while the write runs.
    def batches():
        for k in range(20):
            time.sleep(0.02)
            yield from rows(9000 + k * 100, 100).to_batches()

    seen = []
    reader = pa.RecordBatchReader.from_batches(SCHEMA, batches())
    result = events.append(reader, memory_limit="256M", progress=seen.append)
    assert result.rows == 2000
    assert len(seen) >= 2, seen
    assert all(isinstance(p, floe.WriteProgress) for p in seen)
    counts = [p.rows for p in seen]
    assert counts == sorted(counts) and 0 < counts[-1] <= 2000
    assert ids_of(theirs(pyiceberg_catalog)) == list(range(800)) + list(range(9000, 11000))
    # A progress callable that raises stops the write: nothing committed, nothing left.
    before = events.refresh().metadata_location
    files_before = files_under(warehouse)

    def stop(progress):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        events.append(pa.RecordBatchReader.from_batches(SCHEMA, batches()), progress=stop)
    assert events.refresh().metadata_location == before
    assert files_under(warehouse) == files_before
    assert events.append(rows(12000, 10), progress=True).rows == 10
    with pytest.raises(floe.InvalidInputError):
        events.append(rows(0, 1), memory_limit="lots")
