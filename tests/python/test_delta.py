"""floe.delta: Delta tables by path from Python, checked with deltalake (delta-rs)."""

import datetime
import json
import os

import pyarrow as pa
import pytest

import floe
import floe.delta

deltalake = pytest.importorskip("deltalake")

SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("tiny", pa.int8()),
    pa.field("small", pa.int16()),
    pa.field("ratio", pa.float32()),
    pa.field("day", pa.date32()),
    pa.field("at", pa.timestamp("us", tz="UTC")),
    pa.field("region", pa.string()),
])


def rows(start, count):
    return pa.table({
        "id": pa.array(range(start, start + count), pa.int64()),
        "tiny": pa.array([i % 100 for i in range(count)], pa.int8()),
        "small": pa.array([-i for i in range(count)], pa.int16()),
        "ratio": pa.array([float("nan") if i % 5 == 0 else i / 3 for i in range(count)], pa.float32()),
        "day": pa.array([datetime.date(1960 + i % 80, 1, 1) for i in range(count)]),
        "at": pa.array([datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)] * count,
                       pa.timestamp("us", tz="UTC")),
        "region": pa.array([("eu", "us/west", None, "ünï")[i % 4] for i in range(count)]),
    }, schema=SCHEMA)


def test_create_write_read_and_time_travel(tmp_path):
    path = str(tmp_path / "events")
    assert floe.delta.create_table(path, SCHEMA, partition_by=["region"]) == 0
    first = floe.delta.write(path, rows(0, 40))
    assert (first.version, first.rows, first.files_added, first.attempts) == (1, 40, 4, 1)
    # pandas and polars data go in too.
    second = floe.delta.write(path, rows(40, 8).to_pandas())
    assert second.version == 2
    got = floe.delta.read(path).sort_by("id")
    assert got.num_rows == 48
    expected = deltalake.DeltaTable(path).to_pyarrow_table().sort_by("id")
    assert got.column("id").to_pylist() == expected.column("id").to_pylist()
    assert got.column("tiny").type == pa.int8() and got.column("region").to_pylist() == \
        expected.column("region").to_pylist()
    assert floe.delta.read(path, version=1).num_rows == 40
    assert floe.delta.read(path, columns=["region", "id"]).column_names == ["region", "id"]
    snap = floe.delta.snapshot(path)
    assert snap.version == 2 and snap.partition_columns == ("region",)
    assert snap.unreadable_reason is None and snap.schema.field("tiny").type == pa.int8()
    assert len(snap.files) == 8
    stats = json.loads(snap.files[0].stats)
    assert stats["numRecords"] > 0 and "ratio" in stats["nullCount"]
    replaced = floe.delta.write(path, rows(100, 4), mode="overwrite")
    assert replaced.files_removed == 8
    assert sorted(floe.delta.read(path).column("id").to_pylist()) == [100, 101, 102, 103]
    assert deltalake.DeltaTable(path).version() == 3


def test_a_snapshots_files_cross_as_arrow_as_deltalakes_add_actions(tmp_path):
    """snapshot().add_actions holds every live file once, as deltalake's get_add_actions
    lists them (path, size, modification time, partition values, stats), with a null
    partition, a unicode one and one that needs escaping; files are made from it."""
    path = str(tmp_path / "adds")
    floe.delta.create_table(path, SCHEMA, partition_by=["region"])
    data = rows(0, 30)
    regions = pa.array([None, "é/ü", "a b%"] * 10, pa.string())
    data = data.set_column(data.schema.get_field_index("region"), "region", regions)
    floe.delta.write(path, data)
    deltalake.write_deltalake(path, rows(30, 6), mode="append")
    floe.delta.delete(path, "id < 3")
    snap = floe.delta.snapshot(path)
    adds = snap.add_actions
    assert isinstance(adds, pa.Table) and adds.column_names == [
        "path", "location", "size_bytes", "modification_time", "data_change",
        "partition_values", "stats", "has_deletion_vector"]
    theirs = pa.table(deltalake.DeltaTable(path).get_add_actions(flatten=True))
    ours = {row["path"]: row for row in adds.to_pylist()}
    assert sorted(ours) == sorted(theirs.column("path").to_pylist())
    for index, name in enumerate(theirs.column("path").to_pylist()):
        row = ours[name]
        assert row["size_bytes"] == theirs.column("size_bytes")[index].as_py()
        stamp = theirs.column("modification_time")[index].as_py()  # ms since the epoch
        assert round(row["modification_time"].timestamp() * 1000) == stamp
        assert dict(row["partition_values"]) == {
            "region": theirs.column("partition.region")[index].as_py()}
        assert json.loads(row["stats"])["numRecords"] == theirs.column("num_records")[index].as_py()
        assert os.path.exists(row["location"]) and row["has_deletion_vector"] is False
    everyone = {None, "é/ü", "a b%", "eu", "us/west", "ünï"}
    assert {v for row in ours.values() for _, v in row["partition_values"]} == everyone
    files = snap.files
    assert len(files) == adds.num_rows and snap.files is files  # made once
    assert sorted(f.path for f in files) == sorted(adds.column("location").to_pylist())
    assert {f.partition_values["region"] for f in files} == everyone
    assert sum(f.size for f in files) == pa.compute.sum(adds.column("size_bytes")).as_py()


def test_create_table_takes_one_partition_column_as_a_str(tmp_path):
    # As write_deltalake takes partition_by="region": one column, not one per character.
    path = str(tmp_path / "one")
    assert floe.delta.create_table(path, SCHEMA, partition_by="region") == 0
    assert deltalake.DeltaTable(path).metadata().partition_columns == ["region"]
    with pytest.raises(TypeError, match="partition_by takes column names"):
        floe.delta.create_table(str(tmp_path / "bad"), SCHEMA, partition_by=[1])
    assert not os.path.exists(tmp_path / "bad")


def test_errors_are_the_packages_exceptions(tmp_path):
    path = str(tmp_path / "t")
    floe.delta.create_table(path, SCHEMA)
    with pytest.raises(floe.AlreadyExistsError):
        floe.delta.create_table(path, SCHEMA)
    with pytest.raises(floe.InvalidInputError, match="mode"):
        floe.delta.write(path, rows(0, 1), mode="upsert")
    with pytest.raises(floe.InvalidInputError, match="nope"):
        floe.delta.write(path, pa.table({"nope": [1]}))
    with pytest.raises(floe.NoSuchTableError):
        floe.delta.read(str(tmp_path / "missing"))
    cdf = str(tmp_path / "cdf")
    deltalake.write_deltalake(cdf, pa.table({"id": pa.array([1], pa.int64())}),
                              configuration={"delta.enableChangeDataFeed": "true"})
    with pytest.raises(floe.WriteDeclinedError) as declined:
        floe.delta.write(cdf, pa.table({"id": pa.array([2], pa.int64())}))
    assert any("delta.enableChangeDataFeed" in reason for reason in declined.value.reasons)
    assert deltalake.DeltaTable(cdf).version() == 0


def test_idempotent_writes_and_checkpoints(tmp_path):
    path = str(tmp_path / "stream")
    floe.delta.create_table(path, SCHEMA, partition_by=["region"],
                            properties={"delta.checkpointInterval": "3"})
    first = floe.delta.write(path, rows(0, 8), txn=("ingest", 1))
    assert (first.version, first.skipped, first.checkpoint_version) == (1, False, -1)
    replay = floe.delta.write(path, rows(0, 8), txn=("ingest", 1))
    assert replay.skipped and replay.version == 1 and replay.files_added == 0
    floe.delta.write(path, rows(8, 8), txn=("ingest", 2), threads=3)
    third = floe.delta.write(path, rows(16, 8), txn=("ingest", 3))
    assert third.checkpoint_version == 3
    table = deltalake.DeltaTable(path)
    assert table.transaction_version("ingest") == 3
    assert sorted(table.to_pyarrow_table().column("id").to_pylist()) == list(range(24))
    with pytest.raises(ValueError):
        floe.delta.write(path, rows(0, 1), txn=("", 4))
    for threads in (0, 257):
        with pytest.raises(ValueError):
            floe.delta.write(path, rows(0, 1), threads=threads)
    with pytest.raises(TypeError):
        floe.delta.write(path, rows(0, 1), threads=2.5)  # type: ignore[arg-type]
    assert deltalake.DeltaTable(path).version() == 3  # nothing written by the refusals


def test_catalog_managed_tables_through_a_catalog(tmp_path):
    """A catalog-managed table in floe's SQLite catalog: created, written and read by
    NAMESPACE.TABLE; checked here against the catalog's rows (sqlite3), the published JSON log
    and pyarrow's reading of the data files."""
    import pathlib
    import sqlite3
    import urllib.parse

    import pyarrow.parquet as pq

    catalog = floe.Catalog(warehouse=str(tmp_path / "warehouse"))
    assert floe.delta.create_table("lake.events", SCHEMA, partition_by=["region"], catalog=catalog) == 0
    for k in range(3):
        written = floe.delta.write("lake.events", rows(k * 10, 10), catalog=catalog, threads=2)
        assert written.version == k + 1
    snap = floe.delta.snapshot("lake.events", catalog=catalog)
    assert snap.version == 3 and "catalogManaged" in snap.reader_features
    assert snap.unreadable_reason is None
    assert sorted(floe.delta.read("lake.events", catalog=catalog).column("id").to_pylist()) == list(range(30))
    assert floe.delta.read("lake.events", catalog=catalog, version=1).num_rows == 10

    db = sqlite3.connect(tmp_path / "warehouse" / "catalog.db")
    (table_id, location, published), = db.execute(
        "SELECT table_id, location, latest_published_version FROM floe_delta_tables").fetchall()
    versions = [v for v, in db.execute("SELECT version FROM floe_delta_commits WHERE table_id = ? "
                                       "ORDER BY version", (table_id,))]
    db.close()
    assert versions == [1, 2, 3] and published == 3 and snap.table_id == table_id
    root = pathlib.Path(location)
    ids = []
    live = {}
    for v in range(4):
        for line in (root / "_delta_log" / f"{v:020d}.json").read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                live[action["add"]["path"]] = action["add"]
    for add in live.values():
        ids += pq.read_table(root / urllib.parse.unquote(add["path"])).column("id").to_pylist()
    assert sorted(ids) == list(range(30))

    # A delete through the catalog's coordinator: version 4 ratified and published, and the
    # published log (read above as pyarrow reads the files) without the deleted rows.
    gone = floe.delta.delete("lake.events", "region = 'eu' AND id >= 10", catalog=catalog)
    eu = lambda i: i % 10 % 4 == 0  # noqa: E731 (rows() picks regions by position in a batch)
    assert gone.version == 4 and gone.rows_deleted == sum(1 for i in range(10, 30) if eu(i))
    live = {}
    for v in range(5):
        for line in (root / "_delta_log" / f"{v:020d}.json").read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                live[action["add"]["path"]] = action["add"]
            if "remove" in action:
                live.pop(action["remove"]["path"])
    ids = []
    for add in live.values():
        ids += pq.read_table(root / urllib.parse.unquote(add["path"])).column("id").to_pylist()
    expected = [i for i in range(30) if not (eu(i) and i >= 10)]
    assert sorted(ids) == expected
    assert sorted(floe.delta.read("lake.events", catalog=catalog).column("id").to_pylist()) == expected

    # By path the protocol forbids it; a name the catalog does not have, or a wrong catalog.
    with pytest.raises(floe.InvalidInputError, match="catalog-managed"):
        floe.delta.read(location)
    with pytest.raises(floe.InvalidInputError, match="catalog"):
        floe.delta.write(location, rows(0, 1))
    with pytest.raises(floe.InvalidInputError, match="catalog"):
        floe.delta.delete(location, "id = 1")
    with pytest.raises(floe.NoSuchTableError, match="lake.missing"):
        floe.delta.read("lake.missing", catalog=catalog)
    with pytest.raises(TypeError):
        floe.delta.read("lake.events", catalog="sqlite:///x.db")  # type: ignore[arg-type]
    with pytest.raises(floe.AlreadyExistsError):
        floe.delta.create_table("lake.events", SCHEMA, catalog=catalog)
    with pytest.raises(floe.InvalidInputError, match="location"):
        floe.delta.create_table(str(tmp_path / "by-path"), SCHEMA, location=str(tmp_path / "x"))
    # None of the refused calls committed anything: version 4 is the delete's.
    assert floe.delta.snapshot("lake.events", catalog=catalog).version == 4


def test_delete_replace_where_and_filtered_reads(tmp_path):
    """floe.delta.delete, write(predicate=) and read(where=) leave and return the rows
    deltalake leaves and pyarrow selects."""
    path = str(tmp_path / "dml")
    floe.delta.create_table(path, SCHEMA, partition_by=["region"])
    for start in range(0, 160, 40):
        floe.delta.write(path, rows(start, 40), threads=2)
    theirs = str(tmp_path / "theirs")
    import shutil
    shutil.copytree(path, theirs)
    gone = floe.delta.delete(path, "region = 'eu' AND id >= 30")
    deltalake.DeltaTable(theirs).delete("region = 'eu' AND id >= 30")
    assert gone.rows_deleted == sum(1 for i in range(160) if i % 4 == 0 and i >= 30)
    assert gone.version == 5 and gone.files_removed > 0
    ids = lambda p: sorted(deltalake.DeltaTable(p).to_pyarrow_table().column("id").to_pylist())  # noqa: E731
    assert ids(path) == ids(theirs)
    nothing = floe.delta.delete(path, "id > 100000")
    assert nothing.skipped and nothing.version == 5
    fresh = rows(1000, 8).set_column(6, "region", pa.array(["us/west"] * 8))
    replaced = floe.delta.write(path, fresh, mode="overwrite", predicate="region = 'us/west'")
    assert replaced.rows == 8 and replaced.rows_deleted == 40
    got = floe.delta.read(path, where="region = 'us/west'")
    assert sorted(got.column("id").to_pylist()) == list(range(1000, 1008))
    everything = deltalake.DeltaTable(path).to_pyarrow_table()
    assert sorted(floe.delta.read(path, where="day < '1970-01-01'").column("id").to_pylist()) == \
        sorted(everything.filter(pa.compute.field("day") < datetime.date(1970, 1, 1))
               .column("id").to_pylist())
    with pytest.raises(floe.InvalidInputError, match="do not match"):
        floe.delta.write(path, rows(2000, 4), mode="overwrite", predicate="region = 'eu'")
    with pytest.raises(floe.InvalidInputError, match="nope"):
        floe.delta.delete(path, "nope = 1")
    with pytest.raises(floe.InvalidInputError, match="predicate"):
        floe.delta.delete(path, "")
    assert deltalake.DeltaTable(path).version() == 6


def test_compact_keeps_the_rows_deltalake_reads(tmp_path):
    """floe.delta.compact packs each partition's small files into one, rows unchanged as
    deltalake reads them; a data-column filter is refused and commits nothing."""
    path = str(tmp_path / "compact")
    floe.delta.create_table(path, SCHEMA, partition_by=["region"])
    for start in range(0, 320, 40):
        floe.delta.write(path, rows(start, 40), threads=2)
    before = deltalake.DeltaTable(path).to_pyarrow_table().sort_by("id")
    assert len(deltalake.DeltaTable(path).file_uris()) == 32
    with pytest.raises(floe.InvalidInputError, match="partition columns only"):
        floe.delta.compact(path, where="id < 3")
    only_eu = floe.delta.compact(path, where="region = 'eu'")
    assert (only_eu.version, only_eu.files_removed, only_eu.files_added) == (9, 8, 1)
    done = floe.delta.compact(path, threads=3)
    assert (done.version, done.files_removed, done.files_added, done.rows) == (10, 24, 3, 240)
    assert len(deltalake.DeltaTable(path).file_uris()) == 4
    after = deltalake.DeltaTable(path).to_pyarrow_table().sort_by("id")
    nan_safe = lambda t: [{k: ("NaN" if v != v else v) for k, v in r.items()}  # noqa: E731
                          for r in t.to_pylist()]
    assert after.schema == before.schema and nan_safe(after) == nan_safe(before)
    history = deltalake.DeltaTable(path).history(2)
    assert [h["operation"] for h in history] == ["OPTIMIZE", "OPTIMIZE"]
    assert floe.delta.compact(path).skipped
    with pytest.raises(TypeError, match="min_file_size"):
        floe.delta.compact(path, min_file_size="big")


def test_write_memory_limit(tmp_path):
    """memory_limit bounds a Delta write as an Iceberg one: too little fails saying so and
    leaves the table as it was; enough writes every row."""
    path = str(tmp_path / "limited")
    floe.delta.create_table(path, SCHEMA, partition_by=["region"])
    with pytest.raises(floe.FloeError, match="memory limit"):
        floe.delta.write(path, rows(0, 30_000), memory_limit="64K", threads=2)
    assert deltalake.DeltaTable(path).version() == 0
    assert len(list((tmp_path / "limited").rglob("*.parquet"))) == 0
    done = floe.delta.write(path, rows(0, 30_000), memory_limit=64 << 20, threads=2)
    assert done.rows == 30_000 and deltalake.DeltaTable(path).to_pyarrow_table().num_rows == 30_000
    with pytest.raises(TypeError, match="memory_limit"):
        floe.delta.write(path, rows(0, 1), memory_limit=[1])


def test_a_relative_path_is_the_current_folders(tmp_path, monkeypatch):
    """As the floe command takes it: ./lake/t and lake/t are below the current folder."""
    monkeypatch.chdir(tmp_path)
    floe.delta.create_table("lake/t", SCHEMA, partition_by=["region"])
    floe.delta.write("./lake/t", rows(0, 8))
    assert (tmp_path / "lake" / "t" / "_delta_log" / f"{1:020d}.json").exists()
    assert deltalake.DeltaTable(str(tmp_path / "lake" / "t")).to_pyarrow_table().num_rows == 8
    assert floe.delta.read("lake/t/").num_rows == 8
    assert floe.delta.snapshot("lake/../lake/t").version == 1


def test_versions_and_vacuum_as_deltalake_chooses_the_files(tmp_path):
    """floe.delta.versions lists the log's commits as deltalake's history has them;
    floe.delta.vacuum deletes exactly the files deltalake's vacuum would (its dry run is the
    oracle), and nothing else on disk; the table still reads the same."""
    path = tmp_path / "events"
    floe.delta.create_table(str(path), SCHEMA, partition_by=["region"])
    for start in (0, 100):
        floe.delta.write(str(path), rows(start, 100))
    floe.delta.write(str(path), rows(500, 40), mode="overwrite")
    listed = floe.delta.versions(str(path))
    assert [v.version for v in listed] == [0, 1, 2, 3]
    assert all(v.location.endswith(f"{v.version:020d}.json") for v in listed)
    history = deltalake.DeltaTable(str(path)).history()
    assert sorted(h["version"] for h in history) == [0, 1, 2, 3]
    stranger = path / "notes.txt"  # not a name Delta writers give: never deleted
    stranger.write_text("mine")

    theirs = deltalake.DeltaTable(str(path)).vacuum(retention_hours=0, dry_run=True,
                                                    enforce_retention_duration=False)
    expected = sorted(str(path / p) for p in theirs)
    assert expected  # the appends' files the overwrite removed
    with pytest.raises(floe.FloeError, match="retention"):
        floe.delta.vacuum(str(path), retention=0)  # shorter than the table's week
    dry = floe.delta.vacuum(str(path), retention=0, check_retention=False, dry_run=True)
    assert sorted(dry.deleted) == expected
    before = {p for p in path.rglob("*") if p.is_file()}
    done = floe.delta.vacuum(str(path), retention=0, check_retention=False)
    assert sorted(done.deleted) == expected and done.bytes > 0 and not done.failed
    after = {p for p in path.rglob("*") if p.is_file()}
    assert before - after == {path / p for p in theirs}
    assert stranger.exists()
    assert sorted(deltalake.DeltaTable(str(path)).to_pyarrow_table().column("id").to_pylist()) == \
        list(range(500, 540))
    with pytest.raises(floe.FloeError, match="no Delta table"):
        floe.delta.versions(str(tmp_path / "nothing"))


def test_one_way_to_open_any_table(tmp_path):
    """floe.open_table and the catalog resolve a name or a path as the floe command does
    (lakehouse's ResolveTable): a path is a Delta table, a name the catalog's catalog-managed
    Delta table or else its Iceberg table; drop, rename, list and exists see both formats.
    Checked against deltalake (a table it wrote and reads back), pyiceberg (the Iceberg
    table through the same SQLite catalog) and the catalog's own rows (sqlite3)."""
    import sqlite3

    from deltalake import DeltaTable as RsDeltaTable
    from deltalake import write_deltalake
    from pyiceberg.catalog.sql import SqlCatalog

    # A Delta table by path, written by deltalake: opened, read, appended through the handle.
    by_path = str(tmp_path / "rs events")
    write_deltalake(by_path, rows(0, 20))
    opened = floe.open_table(by_path)
    assert isinstance(opened, floe.delta.DeltaTable) and opened.catalog is None
    assert opened.version() == 0 and opened.schema() == SCHEMA
    nan_safe = lambda t: [{k: ("NaN" if v != v else v) for k, v in r.items()}  # noqa: E731
                          for r in t.sort_by("id").to_pylist()]
    theirs = RsDeltaTable(by_path).to_pyarrow_table()
    assert opened.read().schema == theirs.schema and nan_safe(opened.read()) == nan_safe(theirs)
    assert opened.write(rows(20, 5)).version == 1
    assert sorted(RsDeltaTable(by_path).to_pyarrow_table().column("id").to_pylist()) == list(range(25))
    assert [v.version for v in opened.versions()] == [0, 1]
    with pytest.raises(floe.NoSuchTableError, match="no Delta table"):
        floe.open_table(str(tmp_path / "nothing here"))

    # A catalog holding an Iceberg table and a catalog-managed Delta table in one namespace.
    warehouse = tmp_path / "warehouse"
    catalog = floe.Catalog(warehouse=str(warehouse))
    catalog.create_namespace("lake")
    iceberg_table = catalog.create_table("lake.ice", SCHEMA)
    iceberg_table.append(rows(0, 7))
    floe.delta.create_table("lake.events", SCHEMA, catalog=catalog)
    events = floe.open_table("lake.events", catalog=catalog)
    assert isinstance(events, floe.delta.DeltaTable) and events.table == "lake.events"
    assert events.write(rows(100, 3)).version == 1
    assert sorted(events.read().column("id").to_pylist()) == [100, 101, 102]
    with pytest.raises(floe.InvalidInputError, match="catalog-managed"):
        events.vacuum(dry_run=True)
    ice = floe.open_table("lake.ice", catalog=catalog)
    assert isinstance(ice, floe.Table)
    assert catalog.resolve_table("lake.ice") == "iceberg"
    assert catalog.resolve_table("lake.events") == "delta"
    with pytest.raises(floe.InvalidInputError, match="lake.events is a Delta table"):
        catalog.load_table("lake.events")
    with pytest.raises(floe.NoSuchTableError):
        floe.open_table("lake.missing", catalog=catalog)
    with pytest.raises(TypeError, match="storage"):
        floe.open_table("lake.ice", catalog=catalog, storage={"s3.endpoint": "x"})
    with pytest.raises(TypeError, match="path"):
        floe.open_table(by_path, catalog=catalog)
    py_catalog = SqlCatalog(catalog.name, uri=f"sqlite:///{warehouse / 'catalog.db'}",
                            warehouse=f"file://{warehouse}")
    assert py_catalog.load_table("lake.ice").scan().to_arrow().num_rows == 7

    assert catalog.list_tables("lake") == [("lake", "ice"), ("lake", "events")]
    assert catalog.table_exists("lake.events") and catalog.table_exists("lake.ice")
    assert not catalog.table_exists("lake.missing")

    def registered():
        db = sqlite3.connect(warehouse / "catalog.db")
        try:
            return sorted(db.execute("SELECT table_namespace, table_name FROM floe_delta_tables"))
        finally:
            db.close()

    # Rename and drop go to the table's own format; a name taken by the other format is refused.
    with pytest.raises(floe.TableAlreadyExistsError):
        catalog.rename_table("lake.ice", "lake.events")
    catalog.rename_table("lake.events", "lake.renamed")
    assert registered() == [("lake", "renamed")]
    assert sorted(floe.open_table("lake.renamed", catalog=catalog).read().column("id").to_pylist()) == [100, 101, 102]
    with pytest.raises(floe.NoSuchTableError):
        floe.open_table("lake.events", catalog=catalog)
    catalog.drop_table("lake.ice")
    assert py_catalog.list_tables("lake") == []
    with pytest.raises(floe.NamespaceNotEmptyError, match="renamed"):
        catalog.drop_namespace("lake")
    catalog.drop_table("lake.renamed")
    assert registered() == [] and catalog.list_tables("lake") == []
    catalog.drop_namespace("lake")
    assert not catalog.namespace_exists("lake")


def test_a_write_to_a_path_with_no_table_creates_it_as_write_deltalake_does(tmp_path):
    """floe.delta.write(path, data, partition_by=[...]) where no table is yet creates it in
    one version 0 holding the rows, as deltalake's write_deltalake does; deltalake reads
    it (partition columns, schema, rows) and appends to it; a later write asking for other
    partition columns is refused, nothing written. A table write_deltalake created is
    appended to the same way. Without threads= the write used the machine's cores: every
    row once, in no more files than tasks per partition."""
    import os

    path = str(tmp_path / "fresh")
    data = rows(0, 40)
    done = floe.delta.write(path, data, partition_by=["region"])
    assert done.version == 0
    theirs = deltalake.DeltaTable(path)
    assert theirs.version() == 0
    assert theirs.metadata().partition_columns == ["region"]
    log = [json.loads(line) for line in open(os.path.join(path, "_delta_log", "0" * 20 + ".json"))]
    assert [next(iter(action)) for action in log[:3]] == ["commitInfo", "protocol", "metaData"]
    assert log[0]["commitInfo"]["operation"] == "WRITE"
    assert sorted(theirs.to_pyarrow_table().column("id").to_pylist()) == list(range(40))
    assert pa.schema(theirs.schema().to_arrow()).names == SCHEMA.names
    deltalake.write_deltalake(path, rows(40, 5), mode="append")
    assert floe.delta.write(path, rows(45, 5), partition_by="region").version == 2
    before = sorted(str(p) for p in (tmp_path / "fresh").rglob("*"))
    with pytest.raises(floe.InvalidInputError, match=r"partitioned by \[region\], not \[day\]"):
        floe.delta.write(path, rows(50, 5), partition_by=["day"])
    with pytest.raises(floe.InvalidInputError, match="properties"):
        floe.delta.write(path, rows(50, 5), properties={"delta.appendOnly": "true"})
    assert sorted(str(p) for p in (tmp_path / "fresh").rglob("*")) == before
    assert sorted(deltalake.DeltaTable(path).to_pyarrow_table().column("id").to_pylist()) == list(range(50))

    # A table deltalake created, unpartitioned, at its defaults.
    rs_made = str(tmp_path / "rs")
    deltalake.write_deltalake(rs_made, rows(0, 10))
    assert floe.delta.write(rs_made, rows(10, 10)).version == 1
    assert sorted(deltalake.DeltaTable(rs_made).to_pyarrow_table().column("id").to_pylist()) == list(range(20))

    # Unpartitioned and created with properties; a large input at the default task count.
    big = str(tmp_path / "big")
    many = 3 * 128 * 1024
    large = pa.table({"id": pa.array(range(many), pa.int64()),
                      "name": pa.array([f"n{i % 97}" for i in range(many)])})
    written = floe.delta.write(big, large, properties={"delta.appendOnly": "true"})
    assert written.version == 0 and written.rows == many
    assert 1 <= written.files_added <= (os.cpu_count() or 1)
    rs = deltalake.DeltaTable(big)
    assert rs.metadata().configuration == {"delta.appendOnly": "true"}
    assert sorted(rs.to_pyarrow_table().column("id").to_pylist()) == list(range(many))


def test_a_failed_write_to_a_path_with_no_table_creates_nothing(tmp_path):
    """An input that fails midway, or a column Delta cannot hold, leaves no table and no
    file where the write would have created one; deltalake finds no table there."""
    path = tmp_path / "never"

    def failing():
        yield from rows(0, 50).to_batches(max_chunksize=10)
        raise RuntimeError("the source broke")

    broken = pa.RecordBatchReader.from_batches(SCHEMA, failing())
    with pytest.raises(Exception, match="the source broke"):
        floe.delta.write(str(path), broken, partition_by=["region"])
    with pytest.raises(floe.FloeError):
        floe.delta.write(str(path), pa.table({"id": [1], "d": pa.array([1], pa.duration("s"))}))
    left = [p for p in path.rglob("*") if p.is_file()] if path.exists() else []
    assert left == []
    assert not deltalake.DeltaTable.is_deltatable(str(path))
