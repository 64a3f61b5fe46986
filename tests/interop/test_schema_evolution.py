"""Schema evolution and files without field ids, with pyiceberg as the oracle: pyiceberg evolves a
floe table (add, rename, int->long and float->double promotion, drop) and appends; files written
without field ids are added with pyiceberg's add_files (which sets schema.name-mapping.default).
floe must read what pyiceberg reads, time travel with the schema of the snapshot, and refuse a
file without ids when there is no mapping instead of returning NULLs."""

import pyarrow as pa
import pyarrow.parquet as pq

from arrow_compare import differences, sorted_by
from test_scan import scan

TABLE = "ev.t"


def test_evolved_schema_and_name_mapped_files_read_as_pyiceberg_reads_them(floe, pyiceberg_catalog, tmp_path):
    from pyiceberg.types import DoubleType, LongType, StringType

    floe.run("create", TABLE, "--schema", "id long not null, small int, name string, score float, gone string")
    first = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "small": pa.array([1, None, -2**31], pa.int32()),
                      "name": ["a", None, "ü/é"], "score": pa.array([1.5, None, float("nan")], pa.float32()),
                      "gone": ["x", "y", None]})
    pq.write_table(first, tmp_path / "first.parquet")
    floe.run("append", TABLE, tmp_path / "first.parquet")
    table = pyiceberg_catalog.load_table(TABLE)
    first_snapshot = table.current_snapshot().snapshot_id
    with table.update_schema() as update:
        update.add_column("added", StringType())
        update.rename_column("name", "label")
        update.update_column("small", LongType())
        update.update_column("score", DoubleType())
        update.delete_column("gone")
    table = pyiceberg_catalog.load_table(TABLE)
    table.append(pa.table({"id": [4], "small": [2**40], "label": ["c"], "score": [2.5], "added": ["new"]})
                 .cast(table.schema().as_arrow()))

    # A file without field ids, added by name (pyiceberg writes the name mapping).
    no_ids = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("small", pa.int64()),
                        pa.field("label", pa.string()), pa.field("score", pa.float64()),
                        pa.field("added", pa.string())])
    pq.write_table(pa.table({"id": [10, 11], "small": [7, None], "label": ["nf", None], "score": [0.5, -0.0],
                             "added": ["z", None]}, schema=no_ids), tmp_path / "no-ids.parquet")
    table.add_files([str(tmp_path / "no-ids.parquet")])
    table = pyiceberg_catalog.load_table(TABLE)
    assert "schema.name-mapping.default" in table.properties

    got, _ = scan(floe, tmp_path, TABLE)
    expected = table.scan().to_arrow()
    assert got.column_names == ["id", "small", "label", "score", "added"]
    assert not differences(sorted_by(expected, ["id"]), sorted_by(got.cast(expected.schema), ["id"]))
    # Projection and filters reach the mapped file too.
    got, _ = scan(floe, tmp_path, TABLE, "--columns", "label,id", "--where", "small > 5")
    assert sorted(got.column("id").to_pylist()) == [4, 10]

    # Time travel reads the first snapshot with its own schema, the dropped column included.
    old, _ = scan(floe, tmp_path, TABLE, "--snapshot", first_snapshot)
    assert old.column_names == ["id", "small", "name", "score", "gone"]
    assert not differences(sorted_by(first, ["id"]), sorted_by(old.cast(first.schema), ["id"]))

    # A copy-on-write delete rewrites the mapped file through the mapping.
    floe.run("delete", TABLE, "--where", "id = 10")
    got, _ = scan(floe, tmp_path, TABLE)
    assert sorted(got.column("id").to_pylist()) == [1, 2, 3, 4, 11]
    assert sorted(pyiceberg_catalog.load_table(TABLE).scan().to_arrow().column("id").to_pylist()) == [1, 2, 3, 4, 11]


def test_nested_files_without_field_ids_and_no_mapping(floe, pyiceberg_catalog, tmp_path):
    floe.run("create", "ev.nested", "--schema",
             "id long not null, s struct<a: int, b: string>, l list<int>, m map<string, int>")
    struct = pa.struct([pa.field("a", pa.int32()), pa.field("b", pa.string())])
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("s", struct),
                        pa.field("l", pa.list_(pa.field("element", pa.int32()))),
                        pa.field("m", pa.map_(pa.string(), pa.int32()))])
    rows = pa.table({"id": [1, 2, 3], "s": [{"a": 1, "b": "x"}, None, {"a": None, "b": "z"}],
                     "l": [[1, None], None, []], "m": [[("k", 1)], [], None]}, schema=schema)
    pq.write_table(rows, tmp_path / "nested.parquet")
    table = pyiceberg_catalog.load_table("ev.nested")
    table.add_files([str(tmp_path / "nested.parquet")])
    got, _ = scan(floe, tmp_path, "ev.nested")
    expected = pyiceberg_catalog.load_table("ev.nested").scan().to_arrow()
    assert got.column("s").to_pylist() == expected.column("s").to_pylist()
    assert got.column("l").to_pylist() == expected.column("l").to_pylist()
    assert got.column("m").to_pylist() == expected.column("m").to_pylist()
    leaf, _ = scan(floe, tmp_path, "ev.nested", "--columns", "s.b,id")
    assert leaf.column("s").to_pylist() == [{"b": "x"}, None, {"b": "z"}]

    # Without the mapping the file's columns cannot be found: an error naming the file and the
    # property, never a table of NULLs.
    with table.transaction() as transaction:
        transaction.remove_properties("schema.name-mapping.default")
    error = floe.fail("scan", "ev.nested", "--format", "jsonl", "--output", tmp_path / "x.jsonl")
    assert "nested.parquet" in error and "schema.name-mapping.default" in error
