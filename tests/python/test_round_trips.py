"""floe's Python appends read back by pyiceberg, and pyiceberg's appends read by floe:
identical rows, with the data that breaks things, from every kind of Arrow source."""

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
from arrow_compare import differences, sorted_by
from conftest import EXTREMES_SCHEMA, extremes

import floe


def read_pyiceberg(pyiceberg_catalog, name):
    return pyiceberg_catalog.load_table(name).scan().to_arrow()


def assert_same(left: pa.Table, right: pa.Table, key="id"):
    problems = differences(sorted_by(left, [key]), sorted_by(right, [key]))
    assert not problems, problems


def test_pyarrow_append_is_read_identically_by_pyiceberg(catalog, pyiceberg_catalog):
    catalog.create_namespace("db")
    table = catalog.create_table("db.t", EXTREMES_SCHEMA, partition_by="bucket(8, id)")
    assert table.explain_write().supported, table.explain_write().reasons
    data = extremes(0, 400)
    result = table.append(data, threads=2)
    # floe's writer ran and committed: one snapshot with every row, a file per bucket.
    assert result.committed and result.rows == 400
    assert result.data_files == 8
    assert result.commit.operation == "append" and result.attempts == 1
    snapshot = table.current_snapshot()
    assert snapshot.snapshot_id == result.snapshot_id
    assert snapshot.summary["added-records"] == "400"
    assert_same(read_pyiceberg(pyiceberg_catalog, "db.t"), data)
    assert_same(table.scan().to_arrow(), data)


def test_a_record_batch_reader_is_streamed_and_a_record_batch_taken(catalog, pyiceberg_catalog):
    catalog.create_namespace("db")
    table = catalog.create_table("db.t", EXTREMES_SCHEMA)
    data = extremes(0, 300)
    batches = data.to_batches(max_chunksize=37)
    reader = pa.RecordBatchReader.from_batches(EXTREMES_SCHEMA, iter(batches))
    assert table.append(reader).rows == 300
    assert table.append(batches[0]).rows == batches[0].num_rows
    expected = pa.concat_tables([data, pa.Table.from_batches([batches[0]])])
    read = read_pyiceberg(pyiceberg_catalog, "db.t")
    key = ["id", "i32"]
    assert not differences(
        read.sort_by([(k, "ascending") for k in key]), expected.sort_by([(k, "ascending") for k in key])
    )


SIMPLE = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("score", pa.float64()),
        pa.field("day", pa.date32()),
        pa.field("ts", pa.timestamp("us")),
        pa.field("tags", pa.list_(pa.field("element", pa.string()))),
    ]
)


def simple_rows(start, rows):
    data = extremes(start, rows)
    return pa.table(
        {"id": data["id"], "name": data["s"], "score": data["f64"], "day": data["d"],
         "ts": data["ts"], "tags": data["tags"]},
        schema=SIMPLE,
    )


def test_polars_duckdb_and_pandas_sources(catalog, pyiceberg_catalog):
    catalog.create_namespace("db")
    table = catalog.create_table("db.t", SIMPLE, partition_by="day(ts)")
    expected = []
    # polars (string views and large lists across the C stream interface).
    part = simple_rows(0, 100)
    assert table.append(pl.from_arrow(part)).rows == 100
    expected.append(part)
    # A DuckDB relation.
    part = simple_rows(100, 100)
    connection = duckdb.connect()
    connection.register("part", part)
    relation = connection.sql("SELECT * FROM part")
    assert table.append(relation).rows == 100
    expected.append(part)
    # pandas, through pyarrow (no index column).
    part = simple_rows(200, 100).drop_columns(["tags", "ts"])
    frame = part.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert table.append(frame).rows == 100
    # What pyarrow makes of the frame (pandas turns a null double into NaN).
    converted = pa.Table.from_pandas(frame, preserve_index=False)
    expected.append(
        converted.append_column("ts", pa.nulls(100, pa.timestamp("us")))
        .append_column("tags", pa.nulls(100, SIMPLE.field("tags").type))
        .select(SIMPLE.names)
        .cast(SIMPLE)
    )
    read = read_pyiceberg(pyiceberg_catalog, "db.t")
    assert_same(read, pa.concat_tables(expected))
    assert len(table.snapshots()) == 3


def test_pyiceberg_appends_are_read_identically_by_floe(catalog, pyiceberg_catalog):
    pyiceberg_catalog.create_namespace("db")
    data = extremes(0, 250).drop_columns(["attrs"])  # pyiceberg writes maps of nan oddly
    written = pyiceberg_catalog.create_table("db.p", schema=data.schema)
    written.append(data)
    written.append(extremes(1000, 50).drop_columns(["attrs"]))
    table = catalog.load_table("db.p")
    assert len(table.snapshots()) == 2
    assert_same(table.to_arrow(), written.scan().to_arrow())
    # A filtered, projected scan matches pyiceberg's.
    mine = table.scan(columns=["id", "s", "address.city"], where="id >= 100 AND id < 1020").to_arrow()
    theirs = written.scan(row_filter="id >= 100 and id < 1020",
                          selected_fields=("id", "s", "address")).to_arrow()
    assert sorted(mine["id"].to_pylist()) == sorted(theirs["id"].to_pylist())
    assert mine.num_rows == 170
    cities = pc.struct_field(theirs["address"], "city")
    assert sorted(map(str, mine.column("address").combine_chunks().field("city").to_pylist())) == sorted(
        map(str, cities.to_pylist()))


def test_table_api_describes_the_table(catalog, pyiceberg_catalog):
    catalog.create_namespace("db")
    table = catalog.create_table(
        "db.t", "id long not null, region string, ts timestamptz",
        partition_by="region, day(ts)", sort_by="ts desc, id",
        properties={"write.parquet.compression-codec": "snappy"},
    )
    assert table.name == "db.t" and table.identifier == ("db", "t")
    assert table.properties["write.parquet.compression-codec"] == "snappy"
    theirs = pyiceberg_catalog.load_table("db.t")
    assert table.location == theirs.location()
    assert table.metadata_location == theirs.metadata_location
    assert [f["transform"] for f in table.spec()["fields"]] == ["identity", "day"]
    assert [f["direction"] for f in table.sort_order()["fields"]] == ["desc", "asc"]
    schema = table.schema()
    assert schema.names == ["id", "region", "ts"]
    assert [f.metadata[b"PARQUET:field_id"] for f in schema] == [b"1", b"2", b"3"]
    assert table.current_snapshot() is None and table.snapshots() == []
    assert table.metadata["format-version"] == 2
    assert isinstance(floe.__version__, str)


def test_appends_use_the_cores_by_default_and_pyiceberg_reads_them(catalog, pyiceberg_catalog):
    """Without `threads`, an append runs one task per core (os.cpu_count()), the tasks after
    the first joining in as the input passes 128 Ki rows a task. An unpartitioned sorted
    table splits its rows into one key range per task (whichever task took which batch), so
    the file count says how many tasks ran: a small input in many batches is one file, as
    with threads=1; a large one a file per task. pyiceberg reads every row."""
    import os

    catalog.create_namespace("db")
    table = catalog.create_table("db.t", pa.schema([("id", pa.int64()), ("name", pa.string())]),
                                 sort_by="id")
    small = pa.table({"id": list(range(3000)), "name": [f"n{i % 17}" for i in range(3000)]})
    result = table.append(pa.Table.from_batches(small.to_batches(max_chunksize=30)))
    assert result.data_files == 1
    rows = 4 * 128 * 1024
    ids = pa.array(range(3000, 3000 + rows), pa.int64())
    large = pa.table({"id": pc.multiply(ids, -1), "name": pc.cast(ids, pa.string())})
    result = table.append(large)
    assert result.rows == rows
    assert result.data_files == min(os.cpu_count() or 1, 4)
    assert table.append(large, threads=1).data_files == 1  # the same input, one task
    both = pa.concat_tables([small, large, large])
    assert_same(read_pyiceberg(pyiceberg_catalog, "db.t"), both)
