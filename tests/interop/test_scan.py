"""Scans: nested-leaf projection, filters and pruning.

Oracles: the input rows themselves pruned by hand with pyarrow (nested projection), DuckDB
running the same WHERE text over the input (filters), pyarrow compute (IEEE NaN semantics), and
the Parquet footers read by pyarrow (how many bytes a pruned read may touch)."""

import datetime
import hashlib
import json
import decimal
import re

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from arrow_compare import differences, sorted_by
from conftest import Floe

NESTED = ("id long not null, region string, "
          "s struct<region: string, b: struct<c: string, d: double>>, "
          "items list<struct<price: decimal(9, 2), name: string>>, "
          "attrs map<string, struct<v: int, w: string>>")


def nested_rows(count):
    """Rows with nulls at every level: top-level, struct, nested struct, list, element, map, value."""
    ids, regions, structs, items, attrs = [], [], [], [], []
    for i in range(count):
        ids.append(i)
        regions.append(None if i % 11 == 0 else f"top{i % 3}")
        if i % 13 == 0:
            structs.append(None)
        else:
            inner = None if i % 5 == 0 else {
                "c": None if i % 7 == 0 else hashlib.sha512(str(i).encode()).hexdigest(),
                "d": None if i % 9 == 0 else i * 0.5,
            }
            structs.append({"region": None if i % 17 == 0 else f"r{i % 8}/ü", "b": inner})
        if i % 6 == 0:
            items.append(None)
        else:
            items.append([None if (j == 1 and i % 10 == 1) else
                          {"price": None if j == 2 else decimal.Decimal(i % 1000 + j).scaleb(-2),
                           "name": f"item {j} " + "y" * 60}
                          for j in range(i % 4)])
        if i % 8 == 3:
            attrs.append(None)
        else:
            attrs.append([(f"k{j}", None if j == 2 else {"v": None if j == 1 else j, "w": f"w{i}-{j}"})
                          for j in range(i % 4)])
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "region": pa.array(regions, pa.string()),
        "s": pa.array(structs, pa.struct([("region", pa.string()),
                                          ("b", pa.struct([("c", pa.string()), ("d", pa.float64())]))])),
        "items": pa.array(items, pa.list_(pa.struct([("price", pa.decimal128(9, 2)), ("name", pa.string())]))),
        "attrs": pa.array(attrs, pa.map_(pa.string(), pa.struct([("v", pa.int32()), ("w", pa.string())]))),
    })


def prune_struct(array, keep):
    """A struct array with only the children `keep` maps to (name -> pruning function or None)."""
    children = []
    names = []
    for name, inner in keep.items():
        child = array.field(name)
        children.append(inner(child) if inner else child)
        names.append(name)
    return pa.StructArray.from_arrays(children, names=names, mask=array.is_null())


def prune_list(array, element):
    array = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    return pa.ListArray.from_arrays(array.offsets, element(array.values), mask=array.is_null())


def prune_map(array, value):
    array = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    return pa.MapArray.from_arrays(array.offsets, array.keys, value(array.items), mask=array.is_null())


def column(table, name):
    return table.column(name).combine_chunks()


def scan(floe, tmp_path, table, *args):
    out = tmp_path / f"scan-{len(list(tmp_path.glob('scan-*')))}.parquet"
    result = floe.run("scan", table, "--format", "parquet", "--output", out, "--stats", *args)
    stats = dict(re.findall(r"(\w+)=(\d+)", result.stderr.split("scan stats:")[1]))
    return pq.read_table(out), {k: int(v) for k, v in stats.items()}


def data_files(floe, table_dir):
    return sorted(p for p in (table_dir / "data").rglob("*.parquet"))


def leaf_bytes(path, leaf_paths):
    """Compressed bytes of the given leaf columns (dotted Parquet paths) across row groups, plus
    the 100 bytes per chunk Arrow's reader may read past a chunk's end (its dictionary-header
    allowance)."""
    metadata = pq.ParquetFile(path).metadata
    total = 0
    for g in range(metadata.num_row_groups):
        row_group = metadata.row_group(g)
        for c in range(row_group.num_columns):
            chunk = row_group.column(c)
            if any(chunk.path_in_schema == p or chunk.path_in_schema.startswith(p + ".") for p in leaf_paths):
                total += chunk.total_compressed_size + 100
    return total


def test_nested_projection_reads_only_the_requested_leaves(floe, tmp_path):
    floe.run("create", "n.t", "--schema", NESTED, "--partition-by", "s.region")
    rows = nested_rows(24000)
    pq.write_table(rows, tmp_path / "in.parquet")
    floe.run("append", "n.t", tmp_path / "in.parquet", "--threads", 2)
    expected_ids = column(rows, "id")

    cases = {
        "id,s.b.d": lambda: {"id": expected_ids,
                             "s": prune_struct(column(rows, "s"), {"b": lambda b: prune_struct(b, {"d": None})})},
        "id,items.price": lambda: {"id": expected_ids,
                                   "items": prune_list(column(rows, "items"),
                                                       lambda e: prune_struct(e, {"price": None}))},
        "id,attrs.w": lambda: {"id": expected_ids,
                               "attrs": prune_map(column(rows, "attrs"), lambda v: prune_struct(v, {"w": None}))},
        "s.region,id,region": lambda: {"s": prune_struct(column(rows, "s"), {"region": None}),
                                       "id": expected_ids, "region": column(rows, "region")},
        "id,attrs.key": lambda: {"id": expected_ids, "attrs": column(rows, "attrs")},
    }
    for columns, build in cases.items():
        got, stats = scan(floe, tmp_path, "n.t", "--columns", columns)
        expected = pa.table(build())
        assert not differences(sorted_by(expected, ["id"]), sorted_by(got, ["id"])), columns
        assert stats["rows"] == rows.num_rows

    # Bytes: the pruned read touches footers and the requested leaves, nothing like the column.
    files = data_files(floe, floe.warehouse / "n" / "t")
    assert len(files) >= 8
    _, pruned = scan(floe, tmp_path, "n.t", "--columns", "id,s.b.d")
    _, whole = scan(floe, tmp_path, "n.t", "--columns", "id,s")
    # Arrow reads the last 64 KiB of a file for its footer, then each chunk it needs.
    assert all(p.stat().st_size > 65536 for p in files)
    footers = 65536 * len(files)
    allowed = footers + sum(leaf_bytes(p, ["id", "s.b.d"]) for p in files)
    assert pruned["bytes_read"] <= allowed, (pruned, allowed)
    assert pruned["bytes_read"] - footers < (whole["bytes_read"] - footers) / 3, (pruned, whole)
    leaves_of_s = sum(leaf_bytes(p, ["s"]) for p in files)
    assert whole["bytes_read"] >= leaves_of_s


def test_filter_on_a_partition_source_inside_a_pruned_struct(floe, tmp_path):
    # A top-level `region` and a partition source `s.region`: the filter's column sits inside a
    # struct the projection does not ask for, and must not collide with the top-level name.
    floe.run("create", "n.t", "--schema", NESTED, "--partition-by", "s.region")
    rows = nested_rows(4000)
    pq.write_table(rows, tmp_path / "in.parquet")
    floe.run("append", "n.t", tmp_path / "in.parquet")
    got, stats = scan(floe, tmp_path, "n.t", "--columns", "id,region", "--where", "s.region = 'r3/ü'")
    con = duckdb.connect()
    con.register("t", rows)
    expected = con.sql("SELECT id, region FROM t WHERE s.region = 'r3/ü'").to_arrow_table()
    assert not differences(sorted_by(expected, ["id"]), sorted_by(got, ["id"]))
    assert stats["files_read"] == 1 and stats["files_skipped_by_partition"] >= 8, stats


FLAT = "id long not null, region string, amount double, price decimal(9, 2), day date, ts timestamptz, flag boolean"


def flat_rows(start, count, regions):
    base = datetime.datetime(1969, 12, 20, tzinfo=datetime.timezone.utc)
    return pa.table({
        "id": pa.array(range(start, start + count), pa.int64()),
        "region": pa.array([None if i % 29 == 0 else regions[i % len(regions)] for i in range(count)]),
        "amount": pa.array([None if i % 31 == 0 else (-0.0 if i % 37 == 0 else (i % 200) * 0.75 - 20)
                            for i in range(count)], pa.float64()),
        "price": pa.array([None if i % 23 == 0 else decimal.Decimal((start + i) % 900 - 100).scaleb(-2)
                           for i in range(count)], pa.decimal128(9, 2)),
        "day": pa.array([datetime.date(1969, 12, 1) + datetime.timedelta(days=(start + i) % 90)
                         for i in range(count)], pa.date32()),
        "ts": pa.array([base + datetime.timedelta(hours=(start + i) % 2000) for i in range(count)],
                       pa.timestamp("us", tz="UTC")),
        "flag": pa.array([None if i % 19 == 0 else i % 3 == 0 for i in range(count)]),
    })


@pytest.fixture(scope="module")
def flat(tmp_path_factory):
    """One table for every filter test (eight appends, each of two regions, small row groups)."""
    directory = tmp_path_factory.mktemp("flat")
    (directory / "warehouse").mkdir()
    floe = Floe(directory / "warehouse")
    floe.run("create", "f.t", "--schema", FLAT, "--partition-by", "region, day(ts)",
             "--property", "write.parquet.row-group-size-bytes=16384")
    parts = []
    for k in range(8):
        part = flat_rows(k * 3000, 3000, APPEND_REGIONS[k])
        pq.write_table(part, directory / f"in{k}.parquet")
        floe.run("append", "f.t", directory / f"in{k}.parquet")
        parts.append(part)
    return floe, pa.concat_tables(parts)


APPEND_REGIONS = [[f"r{k}", f"r{(k + 1) % 8}"] for k in range(8)]


FILTERS = [
    "region = 'r3'",
    "region IN ('r1', 'r5') AND amount > 10.5",
    "NOT (region = 'r2') OR price IS NULL",
    "ts >= '1970-01-15T00:00:00Z' AND ts < '1970-01-20T12:00:00Z'",
    "day BETWEEN '1969-12-25' AND '1970-01-15'",
    "price <= 3.50 OR id < 100",
    "region LIKE 'r1%' AND NOT (flag = true)",
    "amount IS NULL OR amount = 0",
    "NOT (amount BETWEEN 1 AND 100)",
    "id NOT IN (1, 2, 3) AND region != 'r0' AND id < 5000",
    "id >= 12000 AND id < 12010",
    "flag IS NULL AND day < '1969-12-31'",
    "region IS NULL",
    "price > 99999999",
    "NOT (region IN ('r0', 'r1', 'r2', 'r3') OR ts > '1970-02-01T00:00:00Z')",
]


@pytest.mark.parametrize("where", FILTERS)
def test_filters_return_what_duckdb_returns(tmp_path, flat, where):
    floe, flat_table = flat
    got, stats = scan(floe, tmp_path, "f.t", "--where", where)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.register("t", flat_table)
    expected = con.sql(f"SELECT * FROM t WHERE {where}").to_arrow_table()
    assert got.num_rows == expected.num_rows, (where, stats)
    assert not differences(sorted_by(expected, ["id"]), sorted_by(got, ["id"])), where
    assert stats["rows"] == expected.num_rows


def test_pruning_opens_only_what_can_match(tmp_path, flat):
    floe, _ = flat
    table_dir = floe.warehouse / "f" / "t"
    all_files = data_files(floe, table_dir)
    r3_files = [p for p in all_files if "/region=r3/" in str(p)]
    _, stats = scan(floe, tmp_path, "f.t", "--where", "region = 'r3'")
    # A manifest is skipped when 'r3' lies outside its appends' region bounds.
    skippable = sum(1 for regions in APPEND_REGIONS if not min(regions) <= "r3" <= max(regions))
    assert skippable == 5
    assert stats["manifests"] == 8 and stats["manifests_skipped"] == skippable, stats
    assert stats["files_read"] == len(r3_files) == stats["files_planned"], stats
    # Ids are disjoint per append: metrics rule out the files of every other append.
    _, stats = scan(floe, tmp_path, "f.t", "--where", "id >= 12000 AND id < 12010")
    assert stats["files_skipped_by_metrics"] > 0 and stats["files_read"] < len(all_files) / 4, stats
    # A filter no row can satisfy reads no data file at all.
    _, stats = scan(floe, tmp_path, "f.t", "--where", "price > 99999999")
    assert stats["files_read"] == 0 and stats["rows"] == 0, stats


def test_row_groups_are_pruned_by_their_statistics(floe, tmp_path):
    floe.run("create", "g.t", "--schema", FLAT, "--property", "write.parquet.row-group-size-bytes=32768")
    rows = flat_rows(0, 40000, ["a", "b"])
    pq.write_table(rows, tmp_path / "in.parquet")
    floe.run("append", "g.t", tmp_path / "in.parquet")
    files = data_files(floe, floe.warehouse / "g" / "t")
    groups = sum(pq.ParquetFile(p).metadata.num_row_groups for p in files)
    assert len(files) == 1 and groups >= 8
    got, stats = scan(floe, tmp_path, "g.t", "--where", "id >= 12000 AND id < 12010")
    assert sorted(got.column("id").to_pylist()) == list(range(12000, 12010))
    assert stats["row_groups_read"] == 1 and stats["row_groups_skipped"] == groups - 1, stats
    assert stats["rows_read"] < 40000 / 4, stats


def test_nan_and_signed_zero_follow_ieee(floe, tmp_path):
    floe.run("create", "z.t", "--schema", "id long not null, x double, y float", "--partition-by", "x")
    values = [float("nan"), -0.0, 0.0, 1.5, None, float("inf"), -2.0, float("nan")]
    table = pa.table({"id": pa.array(range(len(values)), pa.int64()), "x": pa.array(values, pa.float64()),
                      "y": pa.array(values, pa.float32())})
    pq.write_table(table, tmp_path / "in.parquet")
    floe.run("append", "z.t", tmp_path / "in.parquet")
    x = table.column("x")
    oracles = {
        "x > 1": pc.greater(x, 1),
        "NOT (x > 1)": pc.invert(pc.greater(x, 1)),
        "x = 0": pc.equal(x, 0.0),
        "x = -0.0": pc.equal(x, -0.0),
        "x IN (0, 1.5)": pc.or_kleene(pc.equal(x, 0.0), pc.equal(x, 1.5)),
        "x NOT IN (0, 1.5)": pc.invert(pc.or_kleene(pc.equal(x, 0.0), pc.equal(x, 1.5))),
        "x IS NAN": pc.and_kleene(pc.is_valid(x), pc.is_nan(x)),
        "x IS NOT NAN": pc.invert(pc.and_kleene(pc.is_valid(x), pc.is_nan(x))),
        "y <= 0": pc.less_equal(table.column("y"), 0.0),
        "x < 'Infinity'": pc.less(x, float("inf")),
    }
    for where, mask in oracles.items():
        got, _ = scan(floe, tmp_path, "z.t", "--where", where)
        expected = table.filter(mask)
        assert sorted(got.column("id").to_pylist()) == sorted(expected.column("id").to_pylist()), where


def test_bad_filters_fail_naming_the_problem(floe, tmp_path):
    floe.run("create", "b.t", "--schema", FLAT)
    for where, expected in [("nope = 1", "no column 'nope'"), ("id = ", "expected a literal"),
                            ("amount = 'NaN'", "IS NAN"), ("day = '2024-13-01'", "yyyy-mm-dd"),
                            ("region LIKE '%x'", "prefix patterns")]:
        error = floe.fail("scan", "b.t", "--where", where)
        assert expected in error, (where, error)


def test_metadata_columns_from_the_command(floe, tmp_path):
    """`floe scan --columns` with Iceberg's metadata columns on a format-v3 table written by
    2 tasks into 9 partitions (paths that need escaping): `_file` and `_pos` are each row's
    file and position in it as pyarrow reads the files themselves, `_row_id` is the file's
    first row id plus the position (ids 0 to N-1 over the append, one contiguous range per
    file), `_last_updated_sequence_number` the append's sequence number, `_spec_id` 0.
    Spark's reader checks the same columns on rewritten files and deletion vectors
    (tests/spark/test_spark.py)."""
    floe.run("create", "m.t", "--schema", "id long not null, region string",
             "--partition-by", "region", "--property", "format-version=3")
    regions = ["eu", "us/west", "Zürich", "a=b&c", "東京", "", None, "50%", "tab\there"]
    rows = pa.table({"id": pa.array(range(3000), pa.int64()),
                     "region": [regions[i % len(regions)] for i in range(3000)]})
    pq.write_table(rows, tmp_path / "in.parquet")
    floe.run("append", "m.t", tmp_path / "in.parquet", "--threads", 2)
    columns = "id,_file,_pos,_spec_id,_row_id,_last_updated_sequence_number"
    got, _ = scan(floe, tmp_path, "m.t", "--columns", columns)
    assert got.column_names == columns.split(",")
    assert got.num_rows == 3000

    # Each file's own rows, in the order pyarrow reads them: (file, position) -> id.
    files = data_files(floe, floe.warehouse / "m" / "t")
    assert len(files) == len(regions)
    where = {}
    for path in files:
        for position, row_id in enumerate(pq.read_table(path).column("id").to_pylist()):
            where[row_id] = (str(path), position)
    by_file = {}
    for row in got.to_pylist():
        path = row["_file"].removeprefix("file:")
        assert (path, row["_pos"]) == where[row["id"]], row
        assert row["_spec_id"] == 0 and row["_last_updated_sequence_number"] == 1, row
        by_file.setdefault(path, set()).add(row["_row_id"] - row["_pos"])
    # One first row id per file, and the files' ranges tile 0..N-1.
    assert all(len(firsts) == 1 for firsts in by_file.values())
    assert sorted(got.column("_row_id").to_pylist()) == list(range(3000))

    error = floe.fail("scan", "m.t", "--columns", "id,_position")
    assert "no column '_position'" in error


def test_partition_column_from_the_command_is_each_files_partition_as_pyiceberg_lists_it(
        floe, tmp_path, pyiceberg_catalog):
    """`floe scan --columns _partition` on a table partitioned by identity, day (pre-1970,
    far-future and null times) and truncate, written by 2 tasks: each row's `_partition`
    is the partition pyiceberg's files table gives that row's `_file`; in Parquet and JSON
    lines output. On an unpartitioned table it is null, and Parquet output, which cannot
    hold a struct without fields, is refused before any file is written."""
    floe.run("create", "p.t", "--schema", "id long not null, region string, ts timestamptz",
             "--partition-by", "region, day(ts), truncate(100, id)")
    regions = ["eu", "us/west", "Zürich", "a=b&c", "", None]
    times = [-2208988800123456, -1, 0, 253402300799999999, None]
    count = 1200
    rows = pa.table({"id": pa.array(range(-300, count - 300), pa.int64()),
                     "region": [regions[i % len(regions)] for i in range(count)],
                     "ts": pa.array([times[i % len(times)] for i in range(count)],
                                    pa.timestamp("us", tz="UTC"))})
    pq.write_table(rows, tmp_path / "in.parquet")
    floe.run("append", "p.t", tmp_path / "in.parquet", "--threads", 2)
    got, _ = scan(floe, tmp_path, "p.t", "--columns", "id,_file,_partition")
    assert got.num_rows == count
    assert [f.name for f in got.schema.field("_partition").type] == \
        ["region", "ts_day", "id_trunc"]

    files = pyiceberg_catalog.load_table("p.t").inspect.files().to_pylist()
    assert len(files) > 20
    partition_of = {f["file_path"]: f["partition"] for f in files}
    for row in got.to_pylist():
        assert row["_partition"] == partition_of[row["_file"]], row
    lines = floe.run("scan", "p.t", "--columns", "_file,_partition", "--format", "jsonl")
    for line in lines.stdout.splitlines():
        row = json.loads(line)
        expected = dict(partition_of[row["_file"]])
        if expected["ts_day"] is not None:
            expected["ts_day"] = expected["ts_day"].isoformat()
        assert row["_partition"] == expected, row

    floe.run("create", "p.u", "--schema", "id long")
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64())}), tmp_path / "u.parquet")
    floe.run("append", "p.u", tmp_path / "u.parquet")
    lines = floe.run("scan", "p.u", "--columns", "id,_partition", "--format", "jsonl")
    assert [json.loads(line)["_partition"] for line in lines.stdout.splitlines()] == \
        [None, None]
    error = floe.fail("scan", "p.u", "--columns", "id,_partition", "--format", "parquet",
                      "--output", tmp_path / "u-out.parquet")
    assert "'_partition' is a struct without fields" in error
    assert not (tmp_path / "u-out.parquet").exists()
