"""floe's Spark plugin, the split plan: with spark.floe.iceberg.write.enabled on, an Iceberg
write Spark plans runs as FloeIcebergCommit (driver, once: iceberg-java's BatchWrite.commit)
over FloeIcebergNativeWrite (executors, inside AQE: floe's native tasks, the rows handed over
as Arrow) when floe's gate admits it, and keeps Spark's own plan when it does not; with
spark.floe.iceberg.write.native off, the split plan runs iceberg-java's writer in its tasks
(FloeIcebergWrite: the plan's shape alone). Each operation runs on two sibling tables made
alike, once with the flag off (Spark's own plan) and once on, and the tables must end equal:
rows, partition directories, every manifest field of every file (but its name and sizes), and
the snapshot summary. Which plan ran is read from the plugin's CapturedPlans listener."""

import pathlib
import re
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from arrow_compare import differences, sorted_by
from conftest import SECRET, files_under
from extremes import EXTREMES_SCHEMA, extremes
from task_faults import fail_in
from pyspark import cloudpickle

import floe

cloudpickle.register_pickle_by_value(sys.modules[__name__])
cloudpickle.register_pickle_by_value(sys.modules["task_faults"])

FLAG = "spark.floe.iceberg.write.enabled"
NATIVE = "spark.floe.iceberg.write.native"
REGIONS = ["eu", "us/west", "Zürich", "a=b&c", "東京", "", None, "50%", "tab\there"]
SCHEMA = EXTREMES_SCHEMA.append(pa.field("region", pa.string()))
ROWS = 400  # the source; tables start with ids below 300
PARTITIONING = "bucket(4, id), region"

# The operation each statement plans, as Spark's own operator is named in a plan.
APPEND, OVERWRITE, DYNAMIC = "AppendData", "OverwriteByExpression", "OverwritePartitionsDynamic"
REPLACE, DELTA = "ReplaceData", "WriteDelta"
STOCK_NODES = (APPEND, OVERWRITE, DYNAMIC, REPLACE, DELTA)


def _data(rows: int = ROWS, start: int = 0) -> pa.Table:
    table = extremes(start, rows)
    regions = [REGIONS[i % len(REGIONS)] for i in range(start, start + rows)]
    return table.append_column(SCHEMA.field("region"), pa.array(regions, pa.string()))


@pytest.fixture(scope="module")
def source(spark, tmp_path_factory):
    """The view `src`: ROWS rows of extremes (NaN, -0.0, pre-1970 and far-future dates, type
    extremes, nulls, unicode) and a region that needs escaping in partition paths, in 8
    partitions."""
    path = tmp_path_factory.mktemp("source") / "src.parquet"
    pq.write_table(_data(), path)
    spark.read.parquet(str(path)).repartition(8, "id").createOrReplaceTempView("src")
    return path


def _plans(spark) -> list:
    return list(spark._jvm.org.apache.floe.spark.CapturedPlans.drain())


def _run(spark, enabled: bool, action, native: bool = True) -> list:
    """Runs `action` with the flag on or off (and floe's native tasks or iceberg-java's in
    the split plan) and returns the plans it executed."""
    _plans(spark)
    spark.conf.set(FLAG, "true" if enabled else "false")
    spark.conf.set(NATIVE, "true" if native else "false")
    try:
        action()
    finally:
        spark.conf.unset(FLAG)
        spark.conf.unset(NATIVE)
    return _plans(spark)


def _assert_split(plans: list, name: str, native: bool) -> None:
    """floe's split plan ran for the write to `name`, with floe's native tasks (and the gate
    did not decline) or iceberg-java's."""
    text = "\n".join(plans)
    assert "FloeIcebergCommit" in text, text
    if native:
        assert "FloeIcebergNativeWrite" in text, text
        assert f"floe: floe.{name}: " in text and "(floe's native tasks)" in text, text
    else:
        assert "FloeIcebergWrite" in text and "FloeIcebergNativeWrite" not in text, text
        assert f"floe: floe.{name}: " in text and "(iceberg-java writer tasks)" in text, text
    assert "declined" not in text, text
    assert not any(f"{stock} " in text or f"{stock}\n" in text for stock in STOCK_NODES), text


def _assert_stock(plans: list, node: str) -> None:
    text = "\n".join(plans)
    assert "Floe" not in text and "floe:" not in text, text
    assert re.search(rf"(^|\W){node}\W", text), text


def _create(spark, name: str, mode: str, rows_below: int = 300) -> None:
    spark.sql(f"DROP TABLE IF EXISTS floe.{name}")
    spark.sql(
        f"CREATE TABLE floe.{name} USING iceberg PARTITIONED BY ({PARTITIONING}) "
        f"TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='{mode}', "
        f"'write.update.mode'='{mode}', 'write.merge.mode'='{mode}') "
        f"AS SELECT * FROM src WHERE id < {rows_below}")


def _ctas(spark, t):
    spark.sql(f"DROP TABLE IF EXISTS {t}")
    spark.sql(f"CREATE TABLE {t} USING iceberg PARTITIONED BY ({PARTITIONING}) "
              "AS SELECT * FROM src WHERE id % 3 <> 1")


def _rtas(spark, t):
    spark.sql(f"REPLACE TABLE {t} USING iceberg PARTITIONED BY (region) "
              "AS SELECT * FROM src WHERE id % 5 <> 2")


def _static_overwrite(spark, t):
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "static")
    try:
        spark.sql(f"INSERT OVERWRITE {t} SELECT * FROM src WHERE id % 3 = 0")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")


def _dynamic_overwrite(spark, t):
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        spark.sql(f"INSERT OVERWRITE {t} SELECT * FROM src WHERE id % 3 = 0 AND id > 100")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")


def _merge(spark, t):
    spark.sql(
        f"MERGE INTO {t} t USING (SELECT * FROM src WHERE id % 7 = 0 OR id >= 350) u "
        "ON t.id = u.id "
        "WHEN MATCHED AND u.id % 2 = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET t.i32 = -1, t.s = concat(coalesce(t.s, ''), '✓') "
        "WHEN NOT MATCHED THEN INSERT *")


def _overwrite_where(spark, t):
    from pyspark.sql import functions as F

    spark.table("src").where("id >= 300").writeTo(t).overwrite(F.col("region") == "eu")


# name: (table mode, the operator Spark plans, the statement). Merge-on-read operations
# (WriteDelta) are not yet written by floe's native tasks: their gate declines.
OPERATIONS = {
    "insert_into": ("copy-on-write", APPEND,
                    lambda spark, t: spark.sql(f"INSERT INTO {t} SELECT * FROM src WHERE id >= 300")),
    "append_api": ("copy-on-write", APPEND,
                   lambda spark, t: spark.table("src").where("id >= 300").writeTo(t).append()),
    "insert_overwrite_static": ("copy-on-write", OVERWRITE, _static_overwrite),
    "overwrite_where_api": ("copy-on-write", OVERWRITE, _overwrite_where),
    "insert_overwrite_dynamic": ("copy-on-write", DYNAMIC, _dynamic_overwrite),
    "overwrite_partitions_api": (
        "copy-on-write", DYNAMIC,
        lambda spark, t: spark.table("src").where("id % 2 = 0").writeTo(t).overwritePartitions()),
    "ctas": ("copy-on-write", APPEND, _ctas),
    "rtas": ("copy-on-write", OVERWRITE, _rtas),
    "cow_delete": ("copy-on-write", REPLACE,
                   lambda spark, t: spark.sql(f"DELETE FROM {t} WHERE id % 5 = 0")),
    "cow_update": ("copy-on-write", REPLACE,
                   lambda spark, t: spark.sql(f"UPDATE {t} SET s = 'ü\\n' WHERE id % 4 = 1")),
    "cow_merge": ("copy-on-write", REPLACE, _merge),
    "mor_delete": ("merge-on-read", DELTA,
                   lambda spark, t: spark.sql(f"DELETE FROM {t} WHERE id % 5 = 0")),
    "mor_update": ("merge-on-read", DELTA,
                   lambda spark, t: spark.sql(f"UPDATE {t} SET s = 'ü\\n' WHERE id % 4 = 1")),
    "mor_merge": ("merge-on-read", DELTA, _merge),
}

NATIVE_OPS = [op for op, (_, node, _) in OPERATIONS.items() if node != DELTA]
# Each operation with iceberg-java's tasks in the split plan, and the native-eligible ones with
# floe's native tasks too.
CASES = [(op, False) for op in OPERATIONS] + [(op, True) for op in NATIVE_OPS]
# With AQE off as well: one operation of each kind.
AQE_OFF = [("insert_into", True), ("insert_overwrite_dynamic", True), ("ctas", True),
           ("cow_merge", True), ("insert_into", False), ("cow_merge", False),
           ("mor_merge", False)]


def _location(catalog, name: str) -> str:
    return catalog.load_table(name).location


def _relative(value, location: str):
    """`value` with the table's location replaced and data file names dropped (in strings
    and in the bytes of a position delete file's path bounds): file names carry each
    write's own task and operation ids."""
    if isinstance(value, str):
        return re.sub(r"(<table>/data/(.*/)?)[^/]+\.parquet$", r"\1<file>",
                      value.replace(location, "<table>"))
    if isinstance(value, (bytes, bytearray)):
        return re.sub(rb"(<table>/data/(.*/)?)[^/]+\.parquet$", rb"\1<file>",
                      bytes(value).replace(location.encode(), b"<table>"))
    if isinstance(value, dict):
        return {k: _relative(v, location) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_relative(v, location) for v in value]
    return value


# What may differ between the two writers' files: the name, the sizes (and the offsets
# and metrics derived from them), nothing else.
UNCOMPARED = {"file_path", "file_size_in_bytes", "column_sizes", "split_offsets",
              "readable_metrics", "key_metadata", "content_size_in_bytes", "content_offset"}


def _files(spark, catalog, name: str) -> list:
    location = _location(catalog, name)
    out = []
    files = spark.table(f"floe.{name}.files")
    kept = [c for c in files.columns if c == "file_path" or c not in UNCOMPARED]
    for row in files.select(*kept).collect():
        values = row.asDict(recursive=True)
        entry = {k: _relative(v, location) for k, v in values.items() if k not in UNCOMPARED}
        path = _relative(values["file_path"], location)
        entry["directory"] = path.rsplit("/", 1)[0]
        out.append(repr(sorted(entry.items())))
    return sorted(out)


SIZE_KEYS = {"added-files-size", "removed-files-size", "total-files-size"}


def _summary(spark, name: str) -> dict:
    row = spark.sql(f"SELECT operation, summary FROM floe.{name}.snapshots "
                    "ORDER BY committed_at DESC LIMIT 1").collect()[0]
    return {"operation": row.operation,
            **{k: v for k, v in row.summary.items() if k not in SIZE_KEYS}}


def _rows(spark, name: str) -> pa.Table:
    return sorted_by(spark.table(f"floe.{name}").toArrow(), ["id"])


def _assert_siblings_equal(spark, catalog, stock: str, split: str) -> None:
    assert differences(_rows(spark, stock), _rows(spark, split)) == []
    assert _files(spark, catalog, stock) == _files(spark, catalog, split)
    assert _summary(spark, stock) == _summary(spark, split)


def _siblings(spark, catalog, op: str, native: bool, aqe: bool, tag: str = "") -> None:
    mode, node, statement = OPERATIONS[op]
    stem = f"db.{op}_{'native' if native else 'jvm'}_{'aqe' if aqe else 'noaqe'}{tag}"
    stock, split = f"{stem}_spark", f"{stem}_floe"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    for name in (stock, split):
        _create(spark, name, mode)
    spark.conf.set("spark.sql.adaptive.enabled", "true" if aqe else "false")
    try:
        _assert_stock(_run(spark, False, lambda: statement(spark, f"floe.{stock}")), node)
        _assert_split(_run(spark, True, lambda: statement(spark, f"floe.{split}"), native),
                      split, native)
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")
    _assert_siblings_equal(spark, catalog, stock, split)


@pytest.mark.parametrize("op,native", CASES)
def test_each_write_through_the_split_plan_equals_sparks_own(spark, catalog, source, op,
                                                             native):
    _siblings(spark, catalog, op, native, aqe=True)


@pytest.mark.parametrize("op,native", AQE_OFF)
def test_each_write_through_the_split_plan_equals_sparks_own_without_aqe(spark, catalog,
                                                                        source, op, native):
    _siblings(spark, catalog, op, native, aqe=False)


def _columnar_source(spark, folder: pathlib.Path, cached: bool) -> None:
    """The view `columnar_src`: the extremes with a region, plus byte, short and 18-digit
    decimal columns, in 8 Parquet files read as 8 partitions by Spark's columnar Parquet
    scan (or its in-memory cache, of the primitive columns) with nothing between the scan
    and the write but the projection Spark plans to fit the file's columns to the table."""
    import decimal

    table = _data()
    ids = table.column("id").to_pylist()
    table = table.append_column("i8", pa.array(
        [[-128, 127, 0, None][i % 4] for i in ids], pa.int8()))
    table = table.append_column("i16", pa.array(
        [[-32768, 32767, -1, None][i % 4] for i in ids], pa.int16()))
    table = table.append_column("dec18", pa.array(
        [[decimal.Decimal("-9999999999999999.99"), decimal.Decimal("9999999999999999.99"),
          decimal.Decimal("-0.01"), None][i % 4] for i in ids], pa.decimal128(18, 2)))
    folder.mkdir()
    for part in range(8):
        pq.write_table(table.slice(part * ROWS // 8, ROWS // 8), folder / f"part-{part}.parquet")
    # One file a partition: opening a file costs as much as a whole partition may hold.
    spark.conf.set("spark.sql.files.openCostInBytes", str(128 << 20))
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(128 << 20))
    df = spark.read.parquet(str(folder))
    if cached:
        # Spark's cache hands out batches only for columns of primitive types.
        df = df.select("id", "i32", "i64", "f32", "f64", "flag", "i8", "i16").cache()
        assert df.count() == ROWS
    df.createOrReplaceTempView("columnar_src")
    assert df.rdd.getNumPartitions() == 8


@pytest.mark.parametrize("cached", [False, True])
def test_a_columnar_input_is_copied_by_column_and_equals_sparks_own(spark, catalog, tmp_path,
                                                                    cached):
    """Straight from a columnar scan (or a cached relation), floe's tasks copy Spark's column
    batches into Arrow column by column (fixed-width types in bulk, decimals of up to 18
    digits by their unscaled longs, strings and binary by their bytes, the rest value by
    value through Spark's own Arrow writers); the files must be Spark's writer's."""
    _columnar_source(spark, tmp_path / "columnar", cached)
    stem = f"db.columnar_{'cached' if cached else 'parquet'}"
    stock, split = f"{stem}_spark", f"{stem}_floe"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    try:
        for name in (stock, split):
            spark.sql(f"DROP TABLE IF EXISTS floe.{name}")
            # Fanout without a distribution: nothing is planned between the scan and the write.
            spark.sql(f"CREATE TABLE floe.{name} USING iceberg PARTITIONED BY "
                      f"({'bucket(4, id)' if cached else PARTITIONING}) "
                      "TBLPROPERTIES ('format-version'='2', 'write.distribution-mode'='none', "
                      "'write.spark.fanout.enabled'='true') AS SELECT * FROM columnar_src LIMIT 0")
        statement = "INSERT INTO floe.{} SELECT * FROM columnar_src"
        _assert_stock(_run(spark, False, lambda: spark.sql(statement.format(stock))), APPEND)
        plans = _run(spark, True, lambda: spark.sql(statement.format(split)))
    finally:
        spark.conf.unset("spark.sql.files.openCostInBytes")
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
        spark.catalog.clearCache()
    _assert_split(plans, split, native=True)
    assert "native tasks: input as columnar batches" in "\n".join(plans), plans
    _assert_siblings_equal(spark, catalog, stock, split)
    assert spark.table(f"floe.{split}").count() == ROWS


def test_the_columnar_copy_appends_batches_of_any_vector_kind(spark):
    """Spark's own vectors (a scan's, a cache's) and Arrow-backed ones (which refuse to read a
    null slot, so their fixed-width columns go value by value) appended into one Arrow batch:
    offsets, validity and values continue across the appends."""
    import decimal

    jvm = spark._jvm
    types = jvm.org.apache.spark.sql.types.DataTypes
    vectorized = jvm.org.apache.spark.sql.execution.vectorized
    gateway = spark.sparkContext._gateway
    target = types.createStructType([
        types.createStructField("i", types.IntegerType, True),
        types.createStructField("s", types.StringType, True),
        types.createStructField("m", types.createDecimalType(15, 2), True),
        types.createStructField("f", types.BooleanType, True),
        types.createStructField("w", types.IntegerType, True)])
    source_types = [types.IntegerType, types.StringType, types.createDecimalType(15, 2),
                    types.BooleanType, types.ByteType]
    rows = [(7, "Zürich", decimal.Decimal("-12.34"), True, -128),
            (-(2**31), "", decimal.Decimal("9999999999999.99"), False, 127),
            (None, None, None, None, None),
            (2**31 - 1, "東京\t", decimal.Decimal("-0.01"), True, 0)]

    def heap_batch(part):
        columns = gateway.new_array(jvm.org.apache.spark.sql.vectorized.ColumnVector, 5)
        for c, dtype in enumerate(source_types):
            vector = vectorized.OnHeapColumnVector(len(part), dtype)
            for r, row in enumerate(part):
                value = row[c]
                if value is None:
                    vector.putNull(r)
                elif c == 1:
                    vector.putByteArray(r, value.encode())
                elif c == 2:
                    vector.putLong(r, int(value.scaleb(2)))
                elif c == 3:
                    vector.putBoolean(r, value)
                elif c == 4:
                    vector.putByte(r, value)
                else:
                    vector.putInt(r, value)
            columns[c] = vector
        return columns

    allocator = jvm.org.apache.spark.sql.util.ArrowUtils.rootAllocator().newChildAllocator(
        "test", 0, 1 << 30)
    first, second = heap_batch(rows[:2]), heap_batch(rows[2:])
    # The second batch's ints as an Arrow vector with a null.
    ints = jvm.org.apache.arrow.vector.IntVector("i", allocator)
    ints.allocateNew(2)
    ints.setNull(0)
    ints.set(1, rows[3][0])
    ints.setValueCount(2)
    second[0] = jvm.org.apache.spark.sql.vectorized.ArrowColumnVector(ints)
    batches = [jvm.org.apache.spark.sql.vectorized.ColumnarBatch(first, 2),
               jvm.org.apache.spark.sql.vectorized.ColumnarBatch(second, 2)]
    schema = jvm.org.apache.spark.sql.util.ArrowUtils.toArrowSchema(target, "UTC", True, False)
    root = jvm.org.apache.arrow.vector.VectorSchemaRoot.create(schema, allocator)
    ordinals = gateway.new_array(gateway.jvm.int, 5)
    sources = gateway.new_array(jvm.org.apache.spark.sql.types.DataType, 5)
    for c in range(5):
        ordinals[c] = c
        sources[c] = source_types[c]
    copier = jvm.org.apache.spark.sql.execution.arrow.ColumnarArrowCopier(
        root, target, ordinals, sources)
    try:
        for _ in range(2):  # a reset batch is filled again from its start
            copier.reset()
            for batch in batches:
                copier.append(batch)
            copier.finish()
            assert root.getRowCount() == 4
            got = [tuple(None if root.getVector(c).isNull(r) else root.getVector(c).getObject(r)
                         for c in range(5)) for r in range(4)]
            got = [(i, None if s is None else s.toString(), m, f, w) for i, s, m, f, w in got]
            assert got == rows
    finally:
        root.close()
        ints.close()
        for batch in batches:
            batch.close()
        allocator.close()


def test_a_session_time_zone_other_than_utc_changes_nothing(spark, catalog, source):
    """Spark hands timestamps to floe labelled with the session's zone; the values are
    instants either way, and the files must be Spark's writer's."""
    spark.conf.set("spark.sql.session.timeZone", "Asia/Kolkata")
    try:
        _siblings(spark, catalog, "append_api", native=True, aqe=True, tag="_kolkata")
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")


def _normalised_explain(spark, statement: str) -> str:
    text = spark.sql(f"EXPLAIN {statement}").collect()[0][0]
    # Expression and plan ids, and the hash codes in objects' default strings, differ
    # between any two plannings.
    return re.sub(r"(#\d+L?|plan_id=\d+|@[0-9a-f]+)", "", text)


def test_the_kill_switch_restores_sparks_plan_exactly(spark, source):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    _create(spark, "db.kill_switch", "copy-on-write")
    statements = ["INSERT INTO floe.db.kill_switch SELECT * FROM src",
                  "DELETE FROM floe.db.kill_switch WHERE id = 3"]
    for statement in statements:
        default = _normalised_explain(spark, statement)  # the flag unset
        spark.conf.set(FLAG, "true")
        # The DELETE's split plan runs iceberg-java's tasks (floe's native gate declines
        # row-level writes and would leave Spark's plan).
        spark.conf.set(NATIVE, "false" if statement.startswith("DELETE") else "true")
        split = _normalised_explain(spark, statement)
        spark.conf.unset(NATIVE)
        spark.conf.set(FLAG, "false")
        off = _normalised_explain(spark, statement)
        spark.conf.unset(FLAG)
        assert "FloeIcebergCommit" in split, split
        assert off == default and "Floe" not in default, default
        assert "AppendData" in default or "ReplaceData" in default, default


def test_an_unreadable_flag_keeps_sparks_plan_and_says_why(spark, catalog, source):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    _create(spark, "db.bad_flag", "copy-on-write", rows_below=0)
    spark.conf.set(FLAG, "yes")
    try:
        explained = spark.sql(
            "EXPLAIN EXTENDED INSERT INTO floe.db.bad_flag SELECT * FROM src").collect()[0][0]
        _plans(spark)
        spark.sql("INSERT INTO floe.db.bad_flag SELECT * FROM src")
        plans = _plans(spark)
    finally:
        spark.conf.unset(FLAG)
    reason = "declined: spark.floe.iceberg.write.enabled is not true or false"
    assert reason in explained and "FloeIcebergCommit" not in explained, explained
    text = "\n".join(plans)
    assert "FloeIcebergCommit" not in text and "AppendData" in text, text
    assert f"floe: AppendData: {reason}" in text, text
    assert spark.table("floe.db.bad_flag").count() == ROWS


# Each rule of the native gate, declined (the sibling tests are the accepted side: format 2,
# unsorted, Parquet, the main branch, no Parquet setting in Hadoop's configuration, the
# table's own properties): (name, table properties, setup statements, session settings, the
# statement, what the reason says).
DECLINES = {
    "format_v3": ("'format-version'='3'", [], {}, "INSERT INTO {t} SELECT * FROM src",
                  "format-version is 3"),
    "sorted": ("'format-version'='2'", ["ALTER TABLE {t} WRITE ORDERED BY id"], {},
               "INSERT INTO {t} SELECT * FROM src", "the table has a sort order"),
    "orc": ("'write.format.default'='orc'", [], {}, "INSERT INTO {t} SELECT * FROM src",
            "write-format/write.format.default is not parquet"),
    "branch": ("'format-version'='2'", ["ALTER TABLE {t} CREATE BRANCH b1"], {},
               "INSERT INTO {t}.branch_b1 SELECT * FROM src", "the write targets a branch"),
    "hadoop_parquet_setting": ("'format-version'='2'", [], {"parquet.page.size": "4096"},
                               "INSERT INTO {t} SELECT * FROM src",
                               "Hadoop settings parquet.page.size"),
    "unvetted_property": ("'write.parquet.bloom-filter-enabled.column.id'='true'", [], {},
                          "INSERT INTO {t} SELECT * FROM src", "floe's gate: unsupported"),
    "merge_on_read": ("'write.delete.mode'='merge-on-read'", [], {},
                      "DELETE FROM {t} WHERE id < 5", "merge-on-read writes are not yet written"),
    "row_lineage": ("'format-version'='3', 'write.update.mode'='copy-on-write'", [], {},
                    "UPDATE {t} SET i32 = 1 WHERE id < 5",
                    "the copy-on-write rewrite carries row lineage metadata"),
    "data_path": ("'format-version'='2'",
                  ["ALTER TABLE {t} SET TBLPROPERTIES ('write.data.path'='/tmp/floe-elsewhere')"],
                  {}, "INSERT INTO {t} SELECT * FROM src WHERE id < 0", "write.data.path is set"),
}


@pytest.mark.parametrize("case", list(DECLINES))
def test_each_native_gate_rule_declines_to_sparks_plan_and_says_why(spark, source, case):
    properties, setup, settings, statement, reason = DECLINES[case]
    name = f"db.declined_{case}"
    t = f"floe.{name}"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    spark.sql(f"DROP TABLE IF EXISTS {t}")
    spark.sql(f"CREATE TABLE {t} USING iceberg PARTITIONED BY ({PARTITIONING}) "
              f"TBLPROPERTIES ({properties}) AS SELECT * FROM src WHERE id < 100")
    for step in setup:
        spark.sql(step.format(t=t))
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        plans = _run(spark, True, lambda: spark.sql(statement.format(t=t)))
    finally:
        for key in settings:
            spark.conf.unset(key)
    text = "\n".join(plans)
    assert "FloeIcebergCommit" not in text, text
    assert re.search(r"floe: (AppendData|ReplaceData|WriteDelta): declined: .*" + re.escape(reason),
                     text), text


def test_a_write_that_is_not_icebergs_is_left_alone(spark, tmp_path):
    plans = _run(spark, True, lambda: spark.range(20).write.mode("overwrite").parquet(
        str(tmp_path / "plain")))
    text = "\n".join(plans)
    assert "Floe" not in text and "floe:" not in text, text
    assert spark.read.parquet(str(tmp_path / "plain")).count() == 20


def test_no_plan_string_carries_the_catalogs_credentials(spark, source):
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    _create(spark, "db.secrets", "merge-on-read", rows_below=100)
    spark.conf.set(FLAG, "true")
    try:
        texts = [spark.sql(f"EXPLAIN {mode} {statement}").collect()[0][0]
                 for mode in ("EXTENDED", "FORMATTED", "COST")
                 for statement in ("INSERT INTO floe.db.secrets SELECT * FROM src",
                                   "DELETE FROM floe.db.secrets WHERE id = 3")]
        spark.sql("UPDATE floe.db.secrets SET i32 = 0 WHERE id < 10")
        texts += _plans(spark)
    finally:
        spark.conf.unset(FLAG)
    assert any("FloeIcebergCommit" in t for t in texts)
    assert not [t for t in texts if SECRET in t]


def _failing_input(spark, function):
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "10")
    df = spark.table("src")
    return df.mapInArrow(function, df.schema)


def _data_files(spark, catalog, name: str) -> tuple:
    """The data and delete files on disk under the table's data folder, and those its
    current snapshot references."""
    location = _location(catalog, name).removeprefix("file:")
    listed = set(files_under(f"{location}/data"))
    referenced = {r.file_path.removeprefix("file:")
                  for r in spark.sql(f"SELECT file_path FROM floe.{name}.files").collect()}
    # Hadoop's local file system keeps a checksum beside each file: `.<name>.crc`.
    checksums = {p for p in listed if re.search(r"/\.[^/]+\.crc$", p)}
    guarded = {re.sub(r"/\.([^/]+)\.crc$", r"/\1", p) for p in checksums}
    assert guarded <= listed, sorted(guarded - listed)  # no checksum outlives its file
    return listed - checksums, referenced


def _settled(directory, seconds: float = 20.0) -> dict:
    """The listing of `directory` once it stopped changing (tasks a failed job cancelled may
    still be aborting their writers)."""
    deadline = time.monotonic() + seconds
    last = files_under(directory)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = files_under(directory)
        if now == last:
            return now
        last = now
    return last


@pytest.mark.parametrize("native", [True, False])
def test_a_task_retried_after_failing_mid_write_leaves_its_rows_once(spark, catalog, source,
                                                                     native):
    name = f"db.retried_{'native' if native else 'jvm'}"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    _create(spark, name, "copy-on-write", rows_below=0)
    try:
        plans = _run(spark, True, lambda: _failing_input(spark, fail_in(3, 1)).writeTo(
            f"floe.{name}").option("distribution-mode", "none").append(), native)
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    _assert_split(plans, name, native)
    assert differences(_rows(spark, name), sorted_by(
        spark.table("src").toArrow(), ["id"])) == []
    on_disk, referenced = _data_files(spark, catalog, name)
    assert on_disk == referenced


def _listing(location: str) -> dict:
    """What a failing write may touch: the table's folder, and the folder outside it that a
    link in its data folder leads to (see `_before_a_failing_write`)."""
    return {**files_under(location), **files_under(location + "-outside")}


def _before_a_failing_write(spark, catalog, prefix: str, enabled: bool, native: bool,
                            mode: str = "copy-on-write"):
    """A table for a write that will fail: its name, snapshot count, location and listing.
    Its data folder also holds what is not this write's, and a cleanup must leave it: a
    foreign file, a nested table's file named like a task's, and a link to a folder outside
    the table."""
    name = f"db.{prefix}_{('native' if native else 'jvm') if enabled else 'spark'}"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    _create(spark, name, mode, rows_below=100)
    snapshots = spark.table(f"floe.{name}.snapshots").count()
    location = _location(catalog, name).removeprefix("file:")
    data = pathlib.Path(location) / "data"
    (data / "foreign.parquet").write_bytes(b"not a task's")
    nested = data / "nested_table" / "data"
    nested.mkdir(parents=True)
    (nested / "00000-0-7d3c9a1e-5b2f-4c8d-9e6a-0f1b2c3d4e5f-0-00001.parquet").write_bytes(
        b"another table's")
    outside = pathlib.Path(location + "-outside")
    outside.mkdir()
    (outside / "keep.parquet").write_bytes(b"outside the table")
    (data / "linked").symlink_to(outside, target_is_directory=True)
    return name, snapshots, location, _listing(location)


def _assert_left_as_before(spark, name, snapshots, location, before, enabled,
                           planted_outside: int = 0) -> None:
    """No snapshot was added; with the split plan the table's folder (and the folder a link
    in it leads to) is byte for byte as before, while Spark's own plan (the control) left
    files behind. A test that put `planted_outside` files in the linked folder (named as this
    write's, through the link) finds them all there: they are not the table's."""
    assert spark.table(f"floe.{name}.snapshots").count() == snapshots
    _settled(location)
    after = _listing(location)
    planted = {p for p in after if pathlib.Path(p).parent == pathlib.Path(location + "-outside")
               and pathlib.Path(p).name.startswith("left-")}
    assert len(planted) == planted_outside, sorted(planted)
    after = {p: h for p, h in after.items() if p not in planted}
    assert (pathlib.Path(location) / "data" / "linked").is_symlink()
    if enabled:
        assert after == before
    else:
        assert set(before) < set(after)  # orphans


@pytest.mark.parametrize("enabled,native", [(True, True), (True, False), (False, False)])
def test_a_job_that_fails_after_some_tasks_finished_leaves_storage_as_it_was(
        spark, catalog, warehouse, source, enabled, native):
    """With the split plan the driver deletes the files of the tasks that completed; Spark's
    own plan (the control: the tasks did complete and write) leaves them behind."""
    name, snapshots, location, before = _before_a_failing_write(spark, catalog, "failed_job",
                                                                enabled, native)
    try:
        with pytest.raises(Exception, match="injected task failure"):
            _run(spark, enabled, lambda: _failing_input(spark, fail_in(5, 99)).writeTo(
                f"floe.{name}").option("distribution-mode", "none").append(), native)
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    _assert_left_as_before(spark, name, snapshots, location, before, enabled)


def _late_success(markers: str, failing: int, late: int):
    """A mapInArrow function for a task that succeeds after its job failed: partition `late`
    passes its rows through, says it is waiting, and ends only once the job has failed (the
    test's watcher says so); partition `failing` fails every attempt, once `late` waits."""

    def passthrough(batches):
        import os
        import time

        from pyspark import TaskContext

        context = TaskContext.get()
        waiting = os.path.join(markers, "late-task-waiting")
        failed = os.path.join(markers, "job-failed")
        deadline = time.monotonic() + 60
        if context.partitionId() == failing:
            while not os.path.exists(waiting) and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(0.5)  # the late task's JVM side has taken every row by then
            raise RuntimeError("injected task failure")
        yield from batches
        if context.partitionId() == late and context.attemptNumber() == 0:
            # Every batch sent: the serializer's stream (a caller's `stream`) is flushed, so
            # the JVM takes every row and waits in its last read, past its last kill check.
            frame = sys._getframe().f_back
            while frame is not None and not hasattr(frame.f_locals.get("stream"), "flush"):
                frame = frame.f_back
            if frame is None:
                open(os.path.join(markers, "no-stream"), "w").close()
            else:
                frame.f_locals["stream"].flush()
            open(waiting, "w").close()
            while not os.path.exists(failed) and time.monotonic() < deadline:
                time.sleep(0.02)

    return passthrough


@pytest.mark.parametrize("enabled,native", [(True, True), (True, False), (False, False)])
def test_a_task_that_succeeds_after_its_job_failed_leaves_no_files(
        spark, catalog, source, tmp_path, enabled, native):
    """A task whose kill (its job failed) arrives after it took its last row: the executor
    does not interrupt it, lets its writer finish, then reports the task killed, and no one
    aborts the writer. Spark's own plan (the control) leaves that task's files behind; the
    split plan finds the task's message on the listener bus and deletes them (a native task
    sees the kill itself once floe closed its files, and deletes them)."""
    import threading

    name, snapshots, location, before = _before_a_failing_write(spark, catalog, "late_task",
                                                                enabled, native)
    markers = tmp_path / "markers"
    markers.mkdir()
    tracker = spark.sparkContext.statusTracker()
    known = set(tracker.getJobIdsForGroup())
    done = threading.Event()

    def watch():  # tells the late task once the write's job has failed
        while not done.is_set():
            for job in set(tracker.getJobIdsForGroup()) - known:
                info = tracker.getJobInfo(job)
                if info is not None and info.status == "FAILED":
                    (markers / "job-failed").touch()
                    return
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with pytest.raises(Exception, match="injected task failure"):
            _run(spark, enabled, lambda: _failing_input(
                spark, _late_success(str(markers), failing=5, late=7)).writeTo(
                    f"floe.{name}").option("distribution-mode", "none").append(), native)
    finally:
        done.set()
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    watcher.join()
    # The late task waited for its job's failure before it ended.
    assert (markers / "late-task-waiting").exists() and (markers / "job-failed").exists()
    assert not (markers / "no-stream").exists()
    _assert_left_as_before(spark, name, snapshots, location, before, enabled)


def _leaking_condition(data: str, known: set, failing_id: int):
    """A DELETE condition (a Python UDF: true for ids divisible by 5) whose task holding
    `failing_id` fails every attempt, once another task of the write wrote a file (one not in
    `known`, the names there before): first it
    leaves files named with the write's query id (taken from that file's name) that no task
    reports, one beside that file and one in the folder the link `data/linked` leads to."""

    def condition(i):
        if i != failing_id:
            return i % 5 == 0
        import os
        import re
        import time

        uuid = re.compile(r"-([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})-")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for folder, _, names in os.walk(data):  # not through the link
                for n in names:
                    found = uuid.search(n)
                    if found and n not in known and not n.startswith((".", "left-")):
                        for target in (folder, os.path.join(data, "linked")):
                            with open(os.path.join(target, f"left-{n}"), "wb") as out:
                                out.write(b"a task's, reported to no one")
                        raise RuntimeError("injected task failure")
            time.sleep(0.05)
        raise RuntimeError("injected task failure: no file of the write appeared")

    return condition


@pytest.mark.parametrize("enabled", [True, False])
def test_a_failed_merge_on_read_delete_leaves_storage_as_it_was(spark, catalog, source,
                                                               enabled):
    """A merge-on-read DELETE whose job fails: the split plan deletes the delete files of the
    tasks that completed and, named with the write's query id (iceberg-java keeps it in the
    position-delta write's context), what a failed task wrote and reported to no one; never a
    file reached through a link, nor anything not named for this write. Spark's own plan (the
    control) leaves them."""
    from pyspark.sql.types import BooleanType

    name, snapshots, location, before = _before_a_failing_write(
        spark, catalog, "failed_mor_delete", enabled, False, mode="merge-on-read")
    spark.sql(f"ALTER TABLE floe.{name} SET TBLPROPERTIES ("
              "'write.delete.distribution-mode'='none', 'read.split.target-size'='1')")
    before = _listing(location)  # the properties' metadata file is the table's own
    spark.udf.register("leaking_condition",
                       _leaking_condition(
        f"{location}/data", {pathlib.Path(p).name for p in before}, failing_id=95), BooleanType())
    with pytest.raises(Exception, match="injected task failure"):
        _run(spark, enabled, lambda: spark.sql(
            f"DELETE FROM floe.{name} WHERE leaking_condition(id)"), native=False)
    plans = _plans(spark)
    if enabled:
        assert "FloeIcebergCommit" in "\n".join(plans), plans
    # Every attempt of the failing task planted one file there (named for a file it saw).
    attempts = len(files_under(location + "-outside")) - 1
    assert attempts >= 1
    _assert_left_as_before(spark, name, snapshots, location, before, enabled,
                           planted_outside=attempts)


def _concurrent_append(warehouse: str, name: str, data: pa.Table, partition: int):
    """A mapInArrow function whose task for `partition` (first attempt) commits `data` to
    `name` through floe, between the write's start and its commit."""

    def passthrough(batches):
        from pyspark import TaskContext

        context = TaskContext.get()
        if context.partitionId() == partition and context.attemptNumber() == 0:
            floe.Catalog(warehouse=warehouse).load_table(name).append(data)
        yield from batches

    return passthrough


@pytest.mark.parametrize("enabled", [True, False])
def test_a_concurrent_commit_between_write_and_commit(spark, catalog, warehouse, source,
                                                      enabled):
    # With the flag on, floe's native tasks write (the gate admits both writes).
    """An append racing the write: iceberg-java's commit retries and both land. An overwrite
    validated as serializable against an append into the overwritten partition: iceberg-java's
    validation fails the write, exactly as on Spark's plan, and its files are deleted."""
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    suffix = "floe" if enabled else "spark"
    racer = _data(1, start=999)  # region "eu"
    assert racer["region"].to_pylist() == ["eu"]

    appended = f"db.race_append_{suffix}"
    _create(spark, appended, "copy-on-write", rows_below=0)  # one (empty) append
    plans = _run(spark, enabled, lambda: _failing_input(
        spark, _concurrent_append(str(warehouse), appended, racer, 2)).writeTo(
            f"floe.{appended}").option("distribution-mode", "none").append())
    spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    if enabled:
        _assert_split(plans, appended, native=True)
    else:
        _assert_stock(plans, APPEND)
    assert spark.table(f"floe.{appended}").count() == ROWS + racer.num_rows
    assert [r.operation for r in spark.sql(
        f"SELECT operation FROM floe.{appended}.snapshots ORDER BY committed_at").collect()
    ] == ["append", "append", "append"]
    on_disk, referenced = _data_files(spark, catalog, appended)
    assert on_disk == referenced  # every task's files committed, none left behind

    overwritten = f"db.race_overwrite_{suffix}"
    _create(spark, overwritten, "copy-on-write", rows_below=300)
    base = spark.sql(f"SELECT snapshot_id FROM floe.{overwritten}.snapshots").collect()[0][0]
    from pyspark.sql import functions as F

    def overwrite():
        (_failing_input(spark, _concurrent_append(str(warehouse), overwritten, racer, 2))
         .where("id >= 300").writeTo(f"floe.{overwritten}")
         .option("isolation-level", "serializable")
         .option("validate-from-snapshot-id", str(base))
         .overwrite(F.col("region") == "eu"))

    try:
        with pytest.raises(Exception, match="Found conflicting files"):
            _run(spark, enabled, overwrite)
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    # The racer's commit stands; the overwrite's files are gone.
    assert spark.table(f"floe.{overwritten}").count() == 300 + racer.num_rows
    on_disk, referenced = _data_files(spark, catalog, overwritten)
    assert on_disk == referenced


def _message_parts(message: bytes) -> tuple:
    """A task's commit message (DESIGN.md): the locations block, then the manifest."""
    count, at = int.from_bytes(message[:4], "big"), 4
    locations = []
    for _ in range(count):
        size = int.from_bytes(message[at:at + 4], "big")
        locations.append(message[at + 4:at + 4 + size].decode())
        at += 4 + size
    return locations, message[at:]


def test_tasks_of_one_executor_read_each_its_own_message(spark, catalog):
    """Two tasks of one executor decode their messages at the same moment (the JVM is
    shared): each must get its own files. iceberg-java's InMemoryFileIO keeps one map for the
    whole JVM, so a fixed manifest path there once handed a task its neighbour's files, and
    iceberg-java's commit, which drops a data file listed twice, then lost the task's rows.
    And a message naming files its task did not write fails the task."""
    name = "db.message_decoding"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    spark.sql(f"DROP TABLE IF EXISTS floe.{name}")
    spark.sql(f"CREATE TABLE floe.{name} (id bigint, s string) USING iceberg")
    plan = catalog.load_table(name).plan_write(tasks=2)
    expected, manifests = [], []
    for task_id in range(2):
        with floe.WriteTask(plan, partition_id=task_id, attempt_id=0) as task:
            rows = 10 + task_id
            task.write(pa.table({"id": pa.array(range(rows), pa.int64()),
                                 "s": pa.array([f"task {task_id}"] * rows)}))
            locations, manifest = _message_parts(task.finish())
        assert len(locations) == 1, locations
        expected.append(locations[0])
        manifests.append(manifest)

    jvm = spark._jvm
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(
        spark._jsparkSession, f"floe.{name}")
    # The Scala object itself (its package-private methods have no static forwarders).
    task = getattr(jvm.org.apache.spark.sql.execution.datasources.v2.floe,
                   "NativeWriteTask$").__getattr__("MODULE$")
    specs, spec_id = table.specs(), table.spec().specId()
    import threading

    wrong = []

    def decode(task_id: int) -> None:
        try:
            for _ in range(150):
                files = task.decode(manifests[task_id], spec_id, specs)
                got = [files[i].location() for i in range(len(files))]
                if got != [expected[task_id]]:
                    wrong.append((task_id, got))
        except Exception as error:  # noqa: BLE001  (reported by the assertion below)
            wrong.append((task_id, repr(error)))

    threads = [threading.Thread(target=decode, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []

    files = task.decode(manifests[0], spec_id, specs)
    own = spark.sparkContext._gateway.new_array(jvm.java.lang.String, 1)
    own[0] = expected[0]
    task.checkFiles(files, own, 10, 0)  # its own files, every row: accepted
    other = spark.sparkContext._gateway.new_array(jvm.java.lang.String, 1)
    other[0] = expected[1]
    with pytest.raises(Exception, match="names 1 data files the task did not write"):
        task.checkFiles(files, other, 10, 0)
    with pytest.raises(Exception, match="was given 11 rows and its data files hold 10"):
        task.checkFiles(files, own, 11, 0)

    # And the committer refuses two messages that list one data file.
    written = getattr(jvm.org.apache.spark.sql.execution.datasources.v2.floe,
                      "WrittenFiles$").__getattr__("MODULE$")
    messages = spark.sparkContext._gateway.new_array(
        jvm.org.apache.spark.sql.connector.write.WriterCommitMessage, 2)
    messages[0] = task.taskCommit(files)
    messages[1] = task.taskCommit(task.decode(manifests[1], spec_id, specs))
    assert written.sharedDataFile(messages).isEmpty()
    messages[1] = task.taskCommit(task.decode(manifests[0], spec_id, specs))
    assert written.sharedDataFile(messages).get() == expected[0]


def test_a_failed_tasks_cleanup_deletes_only_below_its_table_never_through_a_link(
        spark, catalog, tmp_path):
    """The failure listener of a native task hands floe the locations the task opened;
    floe deletes each only if it is a file below the plan's table location, reached
    without a symbolic link. Anything else a confused message could name survives: a file
    beside the table, one in a table whose location merely starts with this one's, one
    reached through a link inside the table's folder, a path that climbs out with `..`."""
    name = "db.cleanup_bounds"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    spark.sql(f"DROP TABLE IF EXISTS floe.{name}")
    spark.sql(f"CREATE TABLE floe.{name} (id bigint) USING iceberg")
    location = _location(catalog, name).removeprefix("file:")
    plan = catalog.load_table(name).plan_write().to_bytes().decode()

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.parquet").write_bytes(b"not the table's")
    sibling = pathlib.Path(location + "-sibling") / "data"
    sibling.mkdir(parents=True)
    (sibling / "keep.parquet").write_bytes(b"another table's")
    data = pathlib.Path(location) / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "linked").symlink_to(outside, target_is_directory=True)
    own = data / "00000-0-own.parquet"
    own.write_bytes(b"the task's")
    before = {**files_under(outside), **files_under(sibling)}

    names = [f"file:{own}", f"file:{outside / 'keep.parquet'}",
             f"file:{sibling / 'keep.parquet'}", f"file:{data / 'linked' / 'keep.parquet'}",
             f"file:{data}/../../{pathlib.Path(location).name}-sibling/data/keep.parquet",
             f"file:{location}"]
    jvm = spark._jvm
    locations = spark.sparkContext._gateway.new_array(jvm.java.lang.String, len(names))
    for i, path in enumerate(names):
        locations[i] = path
    native = getattr(jvm.org.apache.spark.sql.execution.datasources.v2.floe,
                     "FloeNative$").__getattr__("MODULE$")
    native.ensureLoaded()
    assert native.deleteFiles(plan, locations) == len(names) - 1
    assert not own.exists()
    assert {**files_under(outside), **files_under(sibling)} == before
    assert (data / "linked").is_symlink()


def test_the_jar_carries_the_arrow_it_was_built_with(spark, catalog, source):
    """floe's native library runs on the Arrow C++ libraries inside the jar (extracted beside
    it), not on those of the machine that built it: its RUNPATH is its own folder."""
    name = "db.bundled_arrow"
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    spark.sql(f"DROP TABLE IF EXISTS floe.{name}")
    spark.sql(f"CREATE TABLE floe.{name} USING iceberg AS SELECT * FROM src WHERE id < 0")
    plans = _run(spark, True, lambda: spark.sql(f"INSERT INTO floe.{name} SELECT * FROM src"))
    _assert_split(plans, name, native=True)
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    mapped = {}
    for line in pathlib.Path(f"/proc/{pid}/maps").read_text().splitlines():
        path = line.split()[-1] if len(line.split()) >= 6 else ""
        if re.search(r"/lib(floe_spark|arrow|parquet|arrow_compute|arrow_s3)\.so", path):
            mapped[pathlib.Path(path).name] = pathlib.Path(path).parent
    assert "libfloe_spark.so" in mapped, sorted(mapped)
    folder = mapped["libfloe_spark.so"]
    assert folder.name.startswith("floe-spark"), folder
    for library in ("libarrow.so", "libparquet.so"):
        found = {n: f for n, f in mapped.items() if n.startswith(library)}
        assert found and set(found.values()) == {folder}, (library, found)
