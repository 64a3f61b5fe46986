"""floe and pyiceberg share one SQLite catalog and read each other's tables.

Every check compares floe with an independent implementation: pyiceberg (metadata, manifests,
scans) and pyarrow (the data files themselves, the input rows)."""

import datetime
import os
import pathlib

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import generate_events
from arrow_compare import differences, sorted_by

TABLE = "shop.events"


def generate(directory: pathlib.Path, rows: int, files: int, seed: int = 7) -> list:
    directory.mkdir(parents=True, exist_ok=True)
    import numpy as np

    rng = np.random.default_rng(seed)
    paths = []
    per_file = rows // files
    for index in range(files):
        path = directory / f"part-{index}.parquet"
        pq.write_table(pa.Table.from_batches([generate_events.batch(index * per_file, per_file, rng)]), path)
        paths.append(path)
    return paths


def read_inputs(paths) -> pa.Table:
    return pa.concat_tables([pq.read_table(p) for p in paths])


def floe_scan(floe, table, tmp_path, *extra) -> pa.Table:
    out = tmp_path / f"scan-{len(list(tmp_path.glob('scan-*')))}.parquet"
    floe.run("scan", table, "--format", "parquet", "--output", out, *extra)
    return pq.read_table(out)


def field_ids(arrow_schema: pa.Schema) -> dict:
    """Full dotted name -> PARQUET:field_id of every field, at every depth."""
    ids = {}

    def visit(field: pa.Field, prefix: str):
        name = f"{prefix}{field.name}"
        ids[name] = int(field.metadata[b"PARQUET:field_id"])
        type_ = field.type
        if pa.types.is_struct(type_):
            for i in range(type_.num_fields):
                visit(type_.field(i), name + ".")
        elif pa.types.is_list(type_):
            visit(type_.value_field, name + ".")

    for field in arrow_schema:
        visit(field, "")
    return ids


def test_floe_writes_and_pyiceberg_reads_identical_rows(floe, pyiceberg_catalog, tmp_path):
    paths = generate(tmp_path / "in", rows=40_000, files=4)
    floe.run("create", TABLE, "--schema", generate_events.SCHEMA_TEXT, "--partition-by", "region")
    result = floe.run("append", TABLE, *paths, "--threads", "2")
    assert "appended 40,000 rows" in result.stdout

    table = pyiceberg_catalog.load_table(TABLE)
    expected = sorted_by(read_inputs(paths), ["order_id"])
    theirs = sorted_by(table.scan().to_arrow(), ["order_id"])
    assert differences(theirs, expected) == []
    assert differences(sorted_by(floe_scan(floe, TABLE, tmp_path), ["order_id"]), expected) == []

    # Partitioning as pyiceberg sees it: 8 regions, every file's rows in its partition.
    tasks = list(table.scan().plan_files())
    regions = {task.file.partition[0] for task in tasks}
    assert regions == set(generate_events.REGIONS)
    for task in tasks:
        data = pq.read_table(task.file.file_path)
        assert set(data.column("region").to_pylist()) == {task.file.partition[0]}
        # Record counts and sizes are what the files hold.
        assert task.file.record_count == data.num_rows
        assert task.file.file_size_in_bytes == os.path.getsize(task.file.file_path)
        # Null counts and bounds agree with pyarrow reading the file.
        ts_id = table.schema().find_field("ts").field_id
        assert task.file.null_value_counts[ts_id] == data.column("ts").null_count
        order_id = table.schema().find_field("order_id").field_id
        lower = int.from_bytes(task.file.lower_bounds[order_id], "little", signed=True)
        upper = int.from_bytes(task.file.upper_bounds[order_id], "little", signed=True)
        assert lower == pc.min(data.column("order_id")).as_py()
        assert upper == pc.max(data.column("order_id")).as_py()

    # The field ids in the data files are the ids pyiceberg reads from the metadata.
    schema = table.schema()
    for task in tasks[:3]:
        file_ids = field_ids(pq.read_schema(task.file.file_path))
        assert len(file_ids) == len(schema._lazy_id_to_field)
        for name, field_id in file_ids.items():
            assert schema.find_field(name).field_id == field_id, name

    # As under Spark's default hash distribution for a partitioned table, each region's files
    # come from one task (a file name starts with its task's partition id), and both tasks wrote.
    writers = {}
    for task in tasks:
        writers.setdefault(task.file.partition[0], set()).add(pathlib.Path(task.file.file_path).name.split("-")[0])
    assert all(len(ids) == 1 for ids in writers.values()), writers
    assert set().union(*writers.values()) == {"00000", "00001"}

    # Summary totals match what pyiceberg plans and what is on disk.
    summary = table.current_snapshot().summary
    assert summary.operation.value == "append"
    assert int(summary["total-records"]) == 40_000
    assert int(summary["added-records"]) == 40_000
    assert int(summary["total-data-files"]) == len(tasks)
    assert int(summary["total-files-size"]) == sum(os.path.getsize(t.file.file_path) for t in tasks)
    assert int(summary["changed-partition-count"]) == 8


def test_pyiceberg_writes_and_floe_reads_identical_rows(floe, pyiceberg_catalog, tmp_path):
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import IdentityTransform

    paths = generate(tmp_path / "in", rows=20_000, files=2, seed=11)
    data = read_inputs(paths)
    pyiceberg_catalog.create_namespace("shop")
    table = pyiceberg_catalog.create_table(TABLE, schema=data.schema)
    region_id = table.schema().find_field("region").field_id
    with table.update_spec() as update:
        update.add_identity("region")
    table.append(data)
    table.append(data.slice(0, 100))

    expected = sorted_by(table.scan().to_arrow(), ["order_id"])
    ours = sorted_by(floe_scan(floe, TABLE, tmp_path), ["order_id"])
    assert ours.num_rows == 20_100
    assert differences(ours, expected) == []

    # floe lists the same files and snapshots pyiceberg wrote.
    files = floe.run("files", TABLE).stdout
    for task in table.scan().plan_files():
        assert task.file.file_path in files
    snapshots = floe.run("snapshots", TABLE).stdout
    for snapshot in table.snapshots():
        assert str(snapshot.snapshot_id) in snapshots
    # A projection reads only the asked columns, by field id.
    projected = floe_scan(floe, TABLE, tmp_path, "--columns", "region,order_id")
    assert projected.column_names == ["region", "order_id"]
    assert sorted(projected.column("order_id").to_pylist()) == sorted(expected.column("order_id").to_pylist())


def test_engines_append_alternately_and_both_read_every_row_once(floe, pyiceberg_catalog, tmp_path):
    floe.run("create", TABLE, "--schema", generate_events.SCHEMA_TEXT, "--partition-by", "region")
    all_rows = []
    for round_ in range(5):
        floe_paths = generate(tmp_path / f"floe-{round_}", rows=2_000, files=1, seed=100 + round_)
        # Distinct order ids per append: shift each batch into its own range.
        floe_data = read_inputs(floe_paths)
        floe_data = floe_data.set_column(0, "order_id", pc.add(floe_data.column("order_id"), round_ * 100_000))
        pq.write_table(floe_data, floe_paths[0])
        floe.run("append", TABLE, floe_paths[0])
        all_rows.append(floe_data)

        table = pyiceberg_catalog.load_table(TABLE)
        py_data = read_inputs(generate(tmp_path / f"py-{round_}", rows=2_000, files=1, seed=200 + round_))
        py_data = py_data.set_column(0, "order_id", pc.add(py_data.column("order_id"), 50_000 + round_ * 100_000))
        table.append(py_data.cast(table.schema().as_arrow()))
        all_rows.append(py_data)

    expected = sorted_by(pa.concat_tables(all_rows), ["order_id"])
    table = pyiceberg_catalog.load_table(TABLE)
    theirs = sorted_by(table.scan().to_arrow(), ["order_id"])
    ours = sorted_by(floe_scan(floe, TABLE, tmp_path), ["order_id"])
    assert expected.num_rows == 20_000
    assert len(set(ours.column("order_id").to_pylist())) == 20_000
    assert differences(ours, expected) == []
    assert differences(theirs, expected) == []
    assert len(table.snapshots()) == 10
    assert int(table.current_snapshot().summary["total-records"]) == 20_000
    operations = [s.summary.operation.value for s in table.snapshots()]
    assert operations == ["append"] * 10


def test_distribution_mode_none_lets_every_task_write_every_partition(floe, pyiceberg_catalog, tmp_path):
    """write.distribution-mode=none: each task writes whichever rows reach it (Spark's none)."""
    paths = generate(tmp_path / "in", rows=40_000, files=8, seed=5)
    floe.run("create", TABLE, "--schema", generate_events.SCHEMA_TEXT, "--partition-by", "region",
             "--property", "write.distribution-mode=none")
    result = floe.run("append", TABLE, *paths, "--threads", "2")
    assert "appended 40,000 rows" in result.stdout
    table = pyiceberg_catalog.load_table(TABLE)
    expected = sorted_by(read_inputs(paths), ["order_id"])
    assert differences(sorted_by(table.scan().to_arrow(), ["order_id"]), expected) == []
    writers = {}
    for task in table.scan().plan_files():
        writers.setdefault(task.file.partition[0], set()).add(pathlib.Path(task.file.file_path).name.split("-")[0])
    assert any(len(ids) == 2 for ids in writers.values()), writers


def test_unknown_distribution_mode_is_refused_before_any_file(floe, tmp_path):
    paths = generate(tmp_path / "in", rows=1_000, files=1)
    floe.run("create", TABLE, "--schema", generate_events.SCHEMA_TEXT, "--partition-by", "region",
             "--property", "write.distribution-mode=zigzag")
    result = floe.run("append", TABLE, *paths, "--threads", "2", check=False)
    assert result.returncode != 0
    assert "write.distribution-mode" in result.stderr
    assert "zigzag" not in result.stderr
    assert not list(floe.warehouse.glob("**/*.parquet"))


def spark_order_key(fields):
    """A sort key with Spark's semantics for a sorted table's write ordering: each field is
    (column values, transform, descending, nulls_first); -0.0 equals 0.0, NaN is above every
    number, nulls go where the null order says whatever the direction."""

    def key(row):
        parts = []
        for values, transform, descending, nulls_first in fields:
            value = transform(values[row])
            if value is None:
                parts.append((0 if nulls_first else 2, 0))
                continue
            if isinstance(value, float):
                value = (1, 0.0) if value != value else (0, value + 0.0)  # NaN; -0.0 -> 0.0
            if descending:
                value = Reversed(value)
            parts.append((1, value))
        return tuple(parts)

    return key


class Reversed:
    def __init__(self, value):
        self.value = value

    def __lt__(self, other):
        return other.value < self.value

    def __eq__(self, other):
        return self.value == other.value


def test_sorted_table_files_hold_rows_in_its_sort_order(floe, pyiceberg_catalog, tmp_path):
    """A sort order set by pyiceberg: floe sorts each task's rows by it (partitions first, as
    Spark does), so every file stamped with the order's id holds sorted rows and a partition's
    files follow one another in that order."""
    from pyiceberg.table.sorting import NullOrder
    from pyiceberg.transforms import DayTransform, IdentityTransform

    paths = generate(tmp_path / "in", rows=30_000, files=4)
    floe.run("create", "shop.sorted", "--schema", generate_events.SCHEMA_TEXT, "--partition-by", "region")
    table = pyiceberg_catalog.load_table("shop.sorted")
    with table.update_sort_order() as update:
        update.desc("ts", DayTransform(), NullOrder.NULLS_FIRST)
        update.asc("score", IdentityTransform(), NullOrder.NULLS_LAST)
        # pyiceberg's asc defaults to nulls last; iceberg-java's (and floe's --sort-by) to first.
        update.asc("order_id", IdentityTransform(), NullOrder.NULLS_FIRST)
    explained = floe.run("explain-write", "shop.sorted").stdout
    assert "clustered, after each task sorts its rows by sort order 1 within partitions" in explained
    assert "spills sorted runs" in explained

    result = floe.run("append", "shop.sorted", *paths, "--threads", "2",
                      "--option", "write.target-file-size-bytes=65536")
    assert "appended 30,000 rows" in result.stdout
    table = pyiceberg_catalog.load_table("shop.sorted")
    order_id = table.sort_order().order_id
    assert order_id == 1
    assert differences(sorted_by(table.scan().to_arrow(), ["order_id"]),
                       sorted_by(read_inputs(paths), ["order_id"])) == []

    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    by_partition = {}
    for task in table.scan().plan_files():
        assert task.file.sort_order_id == order_id, task.file.file_path
        by_partition.setdefault(task.file.partition[0], []).append(task.file.file_path)
    assert len(by_partition) == len(generate_events.REGIONS)
    rolled = 0
    for region, files in by_partition.items():
        # The file counter ends each name: a partition's files in the order they were written.
        files.sort(key=lambda path: os.path.basename(path).rsplit("-", 1)[1])
        rolled += len(files) > 1
        data = pa.concat_tables([pq.read_table(path) for path in files])
        ts = data.column("ts").to_pylist()
        key = spark_order_key([
            (ts, lambda t: None if t is None else (t - epoch).days, True, True),
            (data.column("score").to_pylist(), lambda v: v, False, False),
            (data.column("order_id").to_pylist(), lambda v: v, False, True),
        ])
        rows = list(range(data.num_rows))
        assert rows == sorted(rows, key=key), f"{region}: rows out of the sort order"
        assert set(data.column("region").to_pylist()) == {region}
    assert rolled >= 4  # files rolled inside partitions, so the order across files counts too

    # The same order written by floe's --sort-by is the order pyiceberg made.
    floe.run("create", "shop.sorted_by_floe", "--schema", generate_events.SCHEMA_TEXT,
             "--sort-by", "days(ts) desc nulls first, score asc nulls last, order_id")
    made = pyiceberg_catalog.load_table("shop.sorted_by_floe").sort_order()
    assert made == table.sort_order(), (made, table.sort_order())


def test_sorted_unpartitioned_table_tasks_write_disjoint_key_ranges(floe, pyiceberg_catalog, tmp_path):
    """An unpartitioned sorted table written by 4 tasks: as under Spark's range distribution
    (the default for a sorted table), the tasks split the rows by sort key, so task 0's files
    hold the first quarter of the order, task 1's the next, and so on: all files in task and
    counter order are one sort of the table (keys checked with Spark's rules: NaN above every
    number, -0.0 equal to 0.0). Under write.distribution-mode=none each task sorts only the rows
    it is given, and the same check fails."""
    paths = generate(tmp_path / "in", rows=60_000, files=12)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

    def files_by_task(table):
        tasks = {}
        for task in table.scan().plan_files():
            name = os.path.basename(task.file.file_path)
            tasks.setdefault(int(name.split("-")[0]), []).append(task.file.file_path)
        for files in tasks.values():
            files.sort(key=lambda path: os.path.basename(path).rsplit("-", 1)[1])
        return tasks

    def keys_of(files):
        data = pa.concat_tables([pq.read_table(path) for path in files])
        key = spark_order_key([
            (data.column("ts").to_pylist(), lambda t: None if t is None else (t - epoch).days, True, True),
            (data.column("score").to_pylist(), lambda v: v, False, False),
        ])
        return [key(row) for row in range(data.num_rows)]

    def in_order(keys):
        return all(not keys[i + 1] < keys[i] for i in range(len(keys) - 1))

    for name, properties in [("shop.ranged", []), ("shop.unranged", ["--property", "write.distribution-mode=none"])]:
        floe.run("create", name, "--schema", generate_events.SCHEMA_TEXT,
                 "--sort-by", "days(ts) desc nulls first, score asc nulls last", *properties)
        explained = floe.run("explain-write", name).stdout
        assert ("split by sort key" in explained) == (name == "shop.ranged"), explained
        result = floe.run("append", name, *paths, "--threads", "4",
                          "--option", "write.target-file-size-bytes=200000")
        assert "appended 60,000 rows" in result.stdout
        table = pyiceberg_catalog.load_table(name)
        assert differences(sorted_by(table.scan().to_arrow(), ["order_id"]),
                           sorted_by(read_inputs(paths), ["order_id"])) == []
        tasks = files_by_task(table)
        assert sorted(tasks) == [0, 1, 2, 3], tasks
        assert sum(len(files) for files in tasks.values()) > 8  # rolled within tasks
        every = []
        for task in sorted(tasks):
            keys = keys_of(tasks[task])
            assert in_order(keys), f"{name}: task {task}'s files are out of the sort order"
            if name == "shop.ranged":
                # About a quarter of the rows each.
                assert 0.15 * 60_000 < len(keys) < 0.35 * 60_000, (task, len(keys))
                if every:
                    assert every[-1] < keys[0], f"task {task} starts within task {task - 1}'s keys"
            every += keys
        assert in_order(every) == (name == "shop.ranged")
