"""floe's Delta tables against delta-spark 4.0.0 (pyspark 4.0, Maven jars fetched by
scripts/bootstrap.sh), the reference Delta writer: the same rows written by delta-spark and
by floe give the same partition values, record counts and per-file statistics; delta-spark
reads floe's tables and history; floe reads delta-spark's tables (partitions, checkpoints,
deletes, deletion vectors) at every version; both append to one table at the same time. One Spark session for
the module."""

import datetime
import decimal
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FLOE  # noqa: E402
from test_delta_read import (READ_WRONG_BY_DELTALAKE, SHARED, assert_same_rows, floe_scan,  # noqa: E402
                             shared_tables)

JARS = pathlib.Path(__file__).resolve().parents[2] / "build" / "spark-jars"
DELTA_JARS = [JARS / "delta-spark_2.13-4.0.0.jar", JARS / "delta-storage-4.0.0.jar"]
UTC = datetime.timezone.utc


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    for jar in DELTA_JARS:
        assert jar.is_file(), f"{jar} is missing: run scripts/bootstrap.sh"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("floe-delta-spark")
        .config("spark.jars", ",".join(map(str, DELTA_JARS)))
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def floe(*args, check=True):
    result = subprocess.run([FLOE, *map(str, args)], capture_output=True, text=True, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"floe {' '.join(map(str, args))} failed:\n{result.stderr}")
    return result


def rows_table(count: int) -> pa.Table:
    """Every Delta type with the edge values the issue names, 8+ partitions."""
    floats = [float("nan"), -0.0, 0.0, 5e-324, float("inf"), -float("inf"), 1.5, None, 1e300, -2.25]
    strings = ["plain", "ünïcödé ☃", "", None, "quote\"back\\slash", "x" * 40, "é" * 40, "𝄞", "a/b=c%d", "z"]
    dates = [datetime.date(1900, 1, 1), datetime.date(1969, 12, 31), datetime.date(1970, 1, 1),
             datetime.date(2024, 2, 29), datetime.date(9999, 12, 31), None, datetime.date(1, 1, 1)]
    stamps = [datetime.datetime(1900, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
              datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
              datetime.datetime(2024, 6, 15, 19, 30, 45, 123456, tzinfo=UTC),
              datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), None,
              datetime.datetime(1970, 1, 1, tzinfo=UTC), datetime.datetime(1677, 9, 21, tzinfo=UTC)]
    parts = ["US/East", "a b", "x=y", "ünï", "100%", None, "co:lon", "[br]{ce}", "p8", "p9"]
    ids = list(range(count))
    pick = lambda values, i: values[i % len(values)]  # noqa: E731
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "b8": pa.array([(-128, 127, 0, None)[i % 4] for i in ids], pa.int8()),
        "s16": pa.array([(-32768, 32767, 1, None)[i % 4] for i in ids], pa.int16()),
        "i32": pa.array([(-2**31, 2**31 - 1, -1, None)[i % 4] for i in ids], pa.int32()),
        "f32": pa.array([pick(floats, i * 7) for i in ids], pa.float32()),
        "f64": pa.array([pick(floats, i) for i in ids], pa.float64()),
        "dec": pa.array([None if i % 5 == 0 else decimal.Decimal(i * 1001 - 7000) / 100 for i in ids],
                        pa.decimal128(12, 2)),
        "flag": pa.array([(True, False, None)[i % 3] for i in ids]),
        "s": pa.array([pick(strings, i * 3) for i in ids]),
        "raw": pa.array([None if i % 4 == 0 else bytes([i % 256, 0]) for i in ids], pa.binary()),
        "d": pa.array([pick(dates, i) for i in ids], pa.date32()),
        "ts": pa.array([pick(stamps, i) for i in ids], pa.timestamp("us", tz="UTC")),
        "nested": pa.array([None if i % 6 == 0 else {"x": i, "y": pick(strings, i), "z": pick(floats, i)}
                            for i in ids], pa.struct([("x", pa.int64()), ("y", pa.string()), ("z", pa.float64())])),
        "items": pa.array([None if i % 7 == 0 else list(range(i % 3)) for i in ids], pa.list_(pa.int32())),
        "attrs": pa.array([None if i % 5 == 1 else [("k", i)] for i in ids], pa.map_(pa.string(), pa.int64())),
        "p": pa.array([pick(parts, i // 3) for i in ids]),
    })


def collected(frame) -> list:
    """A DataFrame's rows, by id, NaN and -0.0 spelled out (so they compare)."""
    def canonical(value):
        if isinstance(value, float):
            return repr(value)
        if isinstance(value, dict):
            return {k: canonical(v) for k, v in value.items()}
        if isinstance(value, list):
            return [canonical(v) for v in value]
        return value
    rows = [canonical(row.asDict(recursive=True)) for row in frame.collect()]
    return sorted(rows, key=lambda row: row["id"])


def adds_by_partition(table: pathlib.Path) -> dict:
    adds = {}
    for log in sorted((table / "_delta_log").glob("*.json")):
        for line in log.read_text().splitlines():
            action = json.loads(line)
            if "add" in action:
                add = action["add"]
                key = json.dumps(add["partitionValues"], sort_keys=True)
                assert key not in adds, f"two files for partition {key}"
                adds[key] = add
    return adds


def test_statistics_and_partition_values_match_delta_spark(spark, tmp_path):
    data = rows_table(120)
    pq.write_table(data, tmp_path / "in.parquet")
    # delta-spark: one task per partition value (its writer's files per partition).
    spark_table = tmp_path / "by_spark"
    (spark.read.parquet(str(tmp_path / "in.parquet")).repartition(1)
     .write.format("delta").partitionBy("p").save(str(spark_table)))
    floe_table = tmp_path / "by_floe"
    floe("create", floe_table, "--schema-from", tmp_path / "in.parquet", "--partition-by", "p")
    floe("append", floe_table, tmp_path / "in.parquet")
    # The schemas agree (the same Spark types, nullability aside).
    spark_schema = spark.read.format("delta").load(str(spark_table)).schema
    floe_schema = spark.read.format("delta").load(str(floe_table)).schema
    assert [(f.name, f.dataType) for f in spark_schema] == [(f.name, f.dataType) for f in floe_schema]
    by_spark, by_floe = adds_by_partition(spark_table), adds_by_partition(floe_table)
    assert sorted(by_spark) == sorted(by_floe)
    assert len(by_floe) >= 8
    for key in by_spark:
        # Numbers as spelled: -0.0 is not 0.0, 1.50 is not 1.5.
        expected = json.loads(by_spark[key]["stats"], parse_float=str, parse_int=str)
        got = json.loads(by_floe[key]["stats"], parse_float=str, parse_int=str)
        assert got == expected, f"partition {key}:\nfloe  {got}\nspark {expected}"
        # The folder: Spark's escaping (the file names differ).
        assert by_floe[key]["path"].split("/")[0] == by_spark[key]["path"].split("/")[0]
    # delta-spark reads floe's rows exactly as its own.
    spark_rows = collected(spark.read.format("delta").load(str(spark_table)))
    floe_rows = collected(spark.read.format("delta").load(str(floe_table)))
    assert floe_rows == spark_rows


def partition_records(table: pathlib.Path) -> dict:
    """partitionValues (as JSON) -> (the folders of its files, its records) over the log."""
    found = {}
    for log in sorted((table / "_delta_log").glob("*.json")):
        for line in log.read_text().splitlines():
            add = json.loads(line).get("add")
            if add:
                key = json.dumps(add["partitionValues"], sort_keys=True)
                folders, records = found.get(key, (set(), 0))
                folders.add(add["path"].split("/")[0])
                found[key] = (folders, records + json.loads(add["stats"])["numRecords"])
    return found


def as_instant(key: str) -> str:
    """A timestamp partition value as the instant it names (delta-spark's legacy spelling
    in its UTC session, or the ISO-8601 form with Z)."""
    value = json.loads(key)["ts"]
    if value is None:
        return key
    stamp = datetime.datetime.fromisoformat(value.replace("Z", "+00:00").replace(" ", "T"))
    return (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).isoformat()


@pytest.mark.parametrize("column", ["b8", "s16", "i32", "f32", "f64", "dec", "flag", "d", "ts"])
def test_partition_values_of_every_type_are_spelled_as_delta_spark_spells_them(spark, tmp_path,
                                                                             column):
    """A table partitioned by a column of each type Delta partitions by, with the edge
    values (type extremes, -0.0, NaN, infinities, subnormals, pre-1970 and far-future dates
    and times, nulls), written by delta-spark and by floe: the same partitionValues strings
    and folders, the same records in each, and delta-spark reads floe's rows as its own.
    Timestamps are the one spelling that differs: floe writes the protocol's recommended
    UTC ISO-8601 form ("1970-01-01T00:00:00.000000Z", as delta-kernel-rs), delta-spark its
    legacy form in the session time zone (which a reader in another zone reads wrong):
    they name the same instants. (delta-spark writes several files for -0.0 and 0.0, which
    its sort does not keep apart; floe one each.)"""
    data = rows_table(60).select(["id", "s", column])
    pq.write_table(data, tmp_path / "in.parquet")
    spark_table = tmp_path / "by_spark"
    (spark.read.parquet(str(tmp_path / "in.parquet")).repartition(1)
     .write.format("delta").partitionBy(column).save(str(spark_table)))
    floe_table = tmp_path / "by_floe"
    floe("create", floe_table, "--schema-from", tmp_path / "in.parquet", "--partition-by", column)
    floe("append", floe_table, tmp_path / "in.parquet")
    by_spark, by_floe = partition_records(spark_table), partition_records(floe_table)
    assert len(by_floe) >= 3
    if column == "ts":
        assert sorted(map(as_instant, by_floe)) == sorted(map(as_instant, by_spark))
        assert all(json.loads(key)["ts"] is None or json.loads(key)["ts"].endswith("Z")
                   for key in by_floe)
    else:
        assert sorted(by_floe) == sorted(by_spark)
        for key, (folders, records) in by_floe.items():
            assert (folders, records) == by_spark[key], key
    spark_rows = collected(spark.read.format("delta").load(str(spark_table)))
    floe_rows = collected(spark.read.format("delta").load(str(floe_table)))
    assert floe_rows == spark_rows


@pytest.mark.parametrize("setting", [
    ("delta.dataSkippingNumIndexedCols", "3"),
    ("delta.dataSkippingNumIndexedCols", "0"),
    ("delta.dataSkippingNumIndexedCols", "-1"),
    ("delta.dataSkippingNumIndexedCols", "12"),  # past the nested struct and the list
    ("delta.dataSkippingStatsColumns", "id, nested.y,f64"),
    ("delta.dataSkippingStatsColumns", "`s`,nested,`d`"),
    # A column whose name holds a dot, and names in another case than the schema's.
    ("delta.dataSkippingStatsColumns", "`a.b`, NESTED.Y,ID"),
])
def test_statistics_limits_as_delta_spark_applies_them(spark, tmp_path, setting):
    """delta.dataSkippingNumIndexedCols and delta.dataSkippingStatsColumns set on tables
    delta-spark and floe write the same rows to (nested, list and map columns among them):
    the same statistics, file for file."""
    key, value = setting
    data = rows_table(90)
    if "a.b" in value:
        data = data.append_column("a.b", pa.array([i % 11 - 5 for i in range(90)], pa.int32()))
    pq.write_table(data, tmp_path / "in.parquet")
    spark_table = tmp_path / "by_spark"
    spark.sql(f"CREATE TABLE delta.`{spark_table}` USING delta PARTITIONED BY (p) "
              f"TBLPROPERTIES ('{key}' = '{value}') AS SELECT * FROM parquet.`{tmp_path}/in.parquet` "
              "LIMIT 0")
    (spark.read.parquet(str(tmp_path / "in.parquet")).repartition(1)
     .write.format("delta").mode("append").save(str(spark_table)))
    floe_table = tmp_path / "by_floe"
    floe("create", floe_table, "--schema-from", tmp_path / "in.parquet", "--partition-by", "p",
         "--property", f"{key}={value}")
    floe("append", floe_table, tmp_path / "in.parquet")
    by_spark, by_floe = adds_by_partition(spark_table), adds_by_partition(floe_table)
    assert sorted(by_spark) == sorted(by_floe)
    for partition in by_spark:
        expected = json.loads(by_spark[partition]["stats"], parse_float=str, parse_int=str)
        got = json.loads(by_floe[partition]["stats"], parse_float=str, parse_int=str)
        assert got == expected, f"{key}={value}, partition {partition}:\nfloe  {got}\nspark {expected}"
    # Statistics of a list or map column are refused, by floe as by delta-spark.
    if key == "delta.dataSkippingStatsColumns":
        for column in ("items", "attrs", "`attrs`"):
            error = floe("create", tmp_path / f"bad-{column}", "--schema-from",
                         tmp_path / "in.parquet", "--property", f"{key}=id,{column}",
                         check=False)
            assert error.returncode != 0 and "list or map" in error.stderr, error.stderr
            assert not (tmp_path / f"bad-{column}" / "_delta_log").exists()


def test_delta_spark_reads_floe_history_and_floe_reads_delta_spark(spark, tmp_path):
    table = tmp_path / "history"
    floe("create", table, "--schema", "id long not null, p string", "--partition-by", "p")
    for part in range(3):
        pq.write_table(pa.table({"id": pa.array(range(part * 10, part * 10 + 10), pa.int64()),
                                 "p": [f"p{part}"] * 10}), tmp_path / f"in{part}.parquet")
        floe("append", table, tmp_path / f"in{part}.parquet")
    history = spark.sql(f"DESCRIBE HISTORY delta.`{table}`").orderBy("version").collect()
    assert [row.version for row in history] == [0, 1, 2, 3]
    assert [row.operation for row in history] == ["CREATE TABLE", "WRITE", "WRITE", "WRITE"]
    assert all(row.engineInfo.startswith("floe/") for row in history)
    assert [row.isBlindAppend for row in history][1:] == [True, True, True]
    assert history[1].operationMetrics["numOutputRows"] == "10"
    # delta-spark appends, deletes and checkpoints the same table; floe reads every version.
    spark.sql(f"ALTER TABLE delta.`{table}` SET TBLPROPERTIES ('delta.checkpointInterval' = '2')")
    for part in range(3, 6):
        spark.createDataFrame([(i, f"p{part % 4}") for i in range(part * 10, part * 10 + 10)], "id long, p string") \
            .write.format("delta").mode("append").save(str(table))
    spark.sql(f"DELETE FROM delta.`{table}` WHERE id % 3 = 0")
    assert list((table / "_delta_log").glob("*.checkpoint.parquet"))
    out = tmp_path / "out.parquet"
    latest = spark.sql(f"DESCRIBE HISTORY delta.`{table}`").agg({"version": "max"}).collect()[0][0]
    for version in range(latest + 1):
        expected = spark.read.format("delta").option("versionAsOf", version).load(str(table))
        rows, _ = floe_scan(table, out, "--snapshot", version)
        assert sorted(rows.to_pylist(), key=lambda r: r["id"]) == collected(expected), version
    # floe appends after delta-spark's commits and checkpoint.
    floe("append", table, tmp_path / "in0.parquet")
    assert spark.read.format("delta").load(str(table)).count() == rows.num_rows + 10


def test_floe_deletes_and_replaces_where_as_delta_spark_does(spark, tmp_path):
    """floe's DELETE and replaceWhere leave the rows delta-spark's leave on a copy of the same
    table, and delta-spark reads floe's history of them."""
    ours = tmp_path / "ours"
    floe("create", ours, "--schema", "id long not null, p string, s string", "--partition-by", "p")
    for part in range(4):
        pq.write_table(pa.table({"id": pa.array(range(part * 25, part * 25 + 25), pa.int64()),
                                 "p": [f"p{i % 3}" for i in range(25)],
                                 "s": [None if i % 4 == 0 else f"s{i}" for i in range(25)]}),
                       tmp_path / f"in{part}.parquet")
        floe("append", ours, tmp_path / f"in{part}.parquet", "--threads", 2)
    theirs = tmp_path / "theirs"
    shutil.copytree(ours, theirs)
    floe("delete", ours, "--where", "p = 'p1' AND id >= 30")
    spark.sql(f"DELETE FROM delta.`{theirs}` WHERE p = 'p1' AND id >= 30")
    floe("delete", ours, "--where", "s IS NULL")
    spark.sql(f"DELETE FROM delta.`{theirs}` WHERE s IS NULL")
    fresh = pa.table({"id": pa.array(range(40, 50), pa.int64()), "p": ["p2"] * 10,
                      "s": [f"new{i}" for i in range(10)]})
    pq.write_table(fresh, tmp_path / "fresh.parquet")
    floe("overwrite", ours, tmp_path / "fresh.parquet", "--where", "p = 'p2' AND id < 60")
    spark.createDataFrame(fresh.to_pylist(), "id long, p string, s string").write.format("delta") \
        .mode("overwrite").option("replaceWhere", "p = 'p2' AND id < 60").save(str(theirs))
    read = lambda path: sorted(  # noqa: E731
        (tuple(r) for r in spark.read.format("delta").load(str(path)).select("id", "p", "s").collect()))
    assert read(ours) == read(theirs)
    assert len(read(ours)) > 0
    history = spark.sql(f"DESCRIBE HISTORY delta.`{ours}`").orderBy("version").collect()
    assert [row.operation for row in history][-3:] == ["DELETE", "DELETE", "WRITE"]
    assert history[-3].operationParameters["predicate"] == '["p = \'p1\' AND id >= 30"]'
    assert history[-3].operationMetrics["numDeletedRows"] == str(
        sum(1 for i in range(100) if i % 25 % 3 == 1 and i >= 30))
    assert history[-1].operationParameters["mode"] == "Overwrite"
    assert all(not row.isBlindAppend for row in history[-3:])


def test_floe_compacts_as_delta_spark_optimizes(spark, tmp_path):
    """floe's compaction and delta-spark's OPTIMIZE of copies of one table leave the same rows,
    the same files per partition, and commits with the same operation, parameters and metric
    names; delta-spark reads floe's compacted table and its history."""
    ours = tmp_path / "ours"
    floe("create", ours, "--schema", "id long not null, p string, s string", "--partition-by", "p")
    for part in range(8):
        pq.write_table(pa.table({"id": pa.array(range(part * 30, part * 30 + 30), pa.int64()),
                                 "p": [None if i % 7 == 0 else f"p{i % 3}" for i in range(30)],
                                 "s": [None if i % 4 == 0 else f"s{i}" for i in range(30)]}),
                       tmp_path / f"in{part}.parquet")
        floe("append", ours, tmp_path / f"in{part}.parquet", "--threads", 1 + part % 3)
    theirs = tmp_path / "theirs"
    shutil.copytree(ours, theirs)
    floe("rewrite", ours, "--threads", 2)
    spark.sql(f"OPTIMIZE delta.`{theirs}`")
    read = lambda path: sorted(  # noqa: E731
        (tuple(r) for r in spark.read.format("delta").load(str(path)).select("id", "p", "s").collect()),
        key=lambda r: r[0])
    assert read(ours) == read(theirs) and len(read(ours)) == 240
    files = lambda path: sorted(  # noqa: E731
        (r.p or "", r.n) for r in spark.sql(
            f"SELECT p, count(*) AS n FROM (SELECT DISTINCT p, _metadata.file_path AS f "
            f"FROM delta.`{path}`) GROUP BY p").collect())
    assert files(ours) == files(theirs) == [("", 1), ("p0", 1), ("p1", 1), ("p2", 1)]
    ours_last, theirs_last = (spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0]
                              for path in (ours, theirs))
    assert ours_last.operation == theirs_last.operation == "OPTIMIZE"
    assert ours_last.operationParameters == theirs_last.operationParameters
    assert ours_last.isolationLevel == theirs_last.isolationLevel == "SnapshotIsolation"
    assert ours_last.isBlindAppend is theirs_last.isBlindAppend is False
    assert set(ours_last.operationMetrics) == set(theirs_last.operationMetrics)
    for name in ("numRemovedFiles", "numAddedFiles", "numDeletionVectorsRemoved"):
        assert ours_last.operationMetrics[name] == theirs_last.operationMetrics[name], name
    # Both commits' file actions change no data.
    for path in (ours, theirs):
        text = sorted((path / "_delta_log").glob("*.json"))[-1].read_text()
        actions = [json.loads(line) for line in text.splitlines()]
        assert all(a[k]["dataChange"] is False for a in actions for k in ("add", "remove") if k in a)


SHARED_DELTA = SHARED / "kernel" / "tests" / "data"


def test_floe_applies_the_deletion_vectors_delta_spark_writes(spark, tmp_path):
    """Deletion vectors delta-spark writes (on disk, beside the data, several per file over
    versions) and those of the shared kernel tables: floe reads what delta-spark reads, at
    every version."""
    table = tmp_path / "dv"
    spark.createDataFrame([(i, f"p{i % 8}") for i in range(4000)], "id long, part string") \
        .repartition(3).write.format("delta").partitionBy("part") \
        .option("delta.enableDeletionVectors", "true").save(str(table))
    spark.sql(f"DELETE FROM delta.`{table}` WHERE id % 7 = 0")
    spark.sql(f"DELETE FROM delta.`{table}` WHERE id % 11 = 3")   # a second DV replaces the first
    spark.sql(f"DELETE FROM delta.`{table}` WHERE part = 'p5' AND id > 100")
    log = [json.loads(line) for path in sorted((table / "_delta_log").glob("*.json"))
           for line in path.read_text().splitlines()]
    assert any((a.get("add") or {}).get("deletionVector") for a in log), "delta-spark wrote no deletion vector"
    assert list(table.glob("**/deletion_vector_*.bin"))
    out = tmp_path / "out.parquet"
    latest = spark.sql(f"DESCRIBE HISTORY delta.`{table}`").agg({"version": "max"}).collect()[0][0]
    for version in range(latest + 1):
        expected = spark.read.format("delta").option("versionAsOf", version).load(str(table))
        rows, _ = floe_scan(table, out, "--snapshot", version)
        assert sorted(rows.to_pylist(), key=lambda r: r["id"]) == collected(expected), version
    for name, columns in (("table-with-dv-small", ["value"]), ("with-short-dv", ["id", "value"])):
        shared = SHARED_DELTA / name
        expected = sorted(tuple(row) for row in spark.read.format("delta").load(str(shared))
                          .select(*columns).collect())
        rows, _ = floe_scan(shared, out, "--columns", ",".join(columns))
        got = sorted(tuple(row[c] for c in columns) for row in rows.to_pylist())
        stored = sum(pq.read_metadata(f).num_rows for f in shared.glob("*.parquet"))
        assert got == expected and len(got) < stored, name  # rows were deleted, and stay so
    # The write side still declines the feature (floe writes no deletion vectors), before any
    # file exists.
    before = sorted(p.name for p in table.rglob("*"))
    pq.write_table(pa.table({"id": pa.array([1], pa.int64()), "part": ["p1"]}), tmp_path / "in.parquet")
    result = floe("append", table, tmp_path / "in.parquet", check=False)
    assert result.returncode != 0 and "deletionVectors" in result.stderr, result.stderr
    assert sorted(p.name for p in table.rglob("*")) == before


def test_floe_reads_column_mapped_tables_as_delta_spark_does(spark, tmp_path):
    """The shared tables with column mapping in name and id modes (physical names in the files
    and the partition values, nested structs, lists and maps of them): floe's rows against
    delta-spark's, which writes them out as Parquet for the comparison."""
    tables = shared_tables(tmp_path / "kernel")
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    out = tmp_path / "out.parquet"
    for name in sorted(READ_WRONG_BY_DELTALAKE):
        table = tables[name]
        expected_path = tmp_path / (name.replace("/", "_") + ".spark")
        spark.read.format("delta").load(str(table)).write.parquet(str(expected_path))
        expected = pq.read_table(expected_path)
        rows, _ = floe_scan(table, out)
        assert rows.num_rows == expected.num_rows > 0, name
        assert all(expected.column(c).null_count < expected.num_rows
                   for c in expected.column_names if c in ("id", "as_int", "ByteType")), name
        assert_same_rows(rows, expected, name)


@pytest.mark.parametrize("mode", ["name", "id"])
def test_a_write_to_a_column_mapped_table_is_declined_before_any_file(spark, tmp_path, mode):
    """floe reads column-mapped tables but does not write them: an append, a delete and an
    overwrite of a table delta-spark created with delta.columnMapping.mode are declined at
    plan time, naming the feature, with storage byte for byte as it was; delta-spark still
    reads its rows. Creating one is refused too."""
    table = tmp_path / f"mapped-{mode}"
    spark.sql(f"CREATE TABLE delta.`{table}` (id BIGINT, `a b` STRING) USING delta "
              f"TBLPROPERTIES ('delta.columnMapping.mode' = '{mode}', "
              "'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5')")
    spark.sql(f"INSERT INTO delta.`{table}` VALUES (1, 'x'), (2, 'y')")
    pq.write_table(pa.table({"id": pa.array([3], pa.int64()), "a b": ["z"]}), tmp_path / "in.parquet")

    def stored():
        return {p.relative_to(table): p.read_bytes() for p in table.rglob("*") if p.is_file()}

    before = stored()
    for command in (["append", table, tmp_path / "in.parquet"],
                    ["delete", table, "--where", "id = 1"],
                    ["overwrite", table, tmp_path / "in.parquet"]):
        result = floe(*command, check=False)
        assert result.returncode != 0, command
        assert "declines" in result.stderr and "columnMapping" in result.stderr, result.stderr
        assert stored() == before, command
    assert sorted(r.id for r in spark.read.format("delta").load(str(table)).collect()) == [1, 2]
    refused = floe("create", tmp_path / "new", "--schema", "id long", "--property",
                   f"delta.columnMapping.mode={mode}", check=False)
    assert refused.returncode != 0 and "columnMapping" in refused.stderr, refused.stderr
    assert not (tmp_path / "new" / "_delta_log").exists()


def test_delta_spark_and_floe_append_at_the_same_time(spark, tmp_path):
    table = tmp_path / "concurrent"
    spark.createDataFrame([(0, "seed")], "id long, p string").write.format("delta") \
        .partitionBy("p").save(str(table))
    errors = []

    def spark_appends():
        try:
            for round_ in range(5):
                spark.createDataFrame([(1000 + round_ * 10 + i, "spark") for i in range(10)], "id long, p string") \
                    .write.format("delta").mode("append").save(str(table))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    thread = threading.Thread(target=spark_appends)
    thread.start()
    for round_ in range(5):
        pq.write_table(pa.table({"id": pa.array(range(round_ * 10 + 1, round_ * 10 + 11), pa.int64()),
                                 "p": ["floe"] * 10}), tmp_path / f"f{round_}.parquet")
        floe("append", table, tmp_path / f"f{round_}.parquet")
    thread.join()
    assert not errors, errors
    versions = sorted(int(p.name[:20]) for p in (table / "_delta_log").glob("*.json"))
    assert versions == list(range(11))
    ids = [row.id for row in spark.read.format("delta").load(str(table)).collect()]
    assert len(ids) == len(set(ids)) == 101
    rows, _ = floe_scan(table, tmp_path / "out.parquet")
    assert sorted(rows.column("id").to_pylist()) == sorted(ids)


def test_delta_spark_reads_floe_checkpoints_txns_and_in_commit_timestamps(spark, tmp_path):
    """A floe table with in-commit timestamps, checkpointed at version 10 by floe: with the
    commits before it deleted, delta-spark reads it, honours floe's idempotent-write marker (a
    replayed txnVersion writes nothing), and delta-spark's and floe's commits keep the in-commit
    timestamps rising."""
    table = tmp_path / "ict"
    floe("create", table, "--schema", "id long not null, p string", "--partition-by", "p",
         "--property", "delta.enableInCommitTimestamps=true")
    for version in range(1, 11):
        pq.write_table(pa.table({"id": pa.array(range(version * 10, version * 10 + 10), pa.int64()),
                                 "p": [f"p{i % 8}" for i in range(10)]}), tmp_path / f"in{version}.parquet")
        floe("append", table, tmp_path / f"in{version}.parquet", "--txn", f"stream:{version}")
    log = table / "_delta_log"
    assert (log / f"{10:020d}.checkpoint.parquet").is_file()
    for version in range(0, 10):
        (log / f"{version:020d}.json").unlink()
    detail = spark.sql(f"DESCRIBE DETAIL delta.`{table}`").collect()[0]
    assert "inCommitTimestamp" in detail.tableFeatures, detail.tableFeatures
    assert spark.read.format("delta").load(str(table)).count() == 100
    # delta-spark skips a batch floe's txn already holds (read from floe's checkpoint).
    frame = spark.createDataFrame([(9999, "dup")], "id long, p string")
    frame.write.format("delta").mode("append").option("txnAppId", "stream").option("txnVersion", 10) \
        .save(str(table))
    assert spark.read.format("delta").load(str(table)).count() == 100
    assert not (log / f"{11:020d}.json").exists()
    # A new batch lands; then floe appends after delta-spark.
    frame.write.format("delta").mode("append").option("txnAppId", "stream").option("txnVersion", 11) \
        .save(str(table))
    floe("append", table, tmp_path / "in1.parquet")
    stamps = []
    for version in (10, 11, 12):
        first = json.loads((log / f"{version:020d}.json").read_text().splitlines()[0])["commitInfo"]
        stamps.append(first["inCommitTimestamp"])
    assert stamps == sorted(stamps) and len(set(stamps)) == 3, stamps
    history = spark.sql(f"DESCRIBE HISTORY delta.`{table}`").orderBy("version").collect()
    assert [row.version for row in history] == [10, 11, 12]
    assert [int(row.timestamp.replace(tzinfo=UTC).timestamp() * 1000) for row in history] == stamps
    expected = spark.read.format("delta").load(str(table))
    rows, _ = floe_scan(table, tmp_path / "out.parquet")
    assert sorted(rows.to_pylist(), key=lambda r: r["id"]) == collected(expected)
    assert expected.count() == 111


def _gated_spark_delete(spark, table, where, gate_dir):
    """delta-spark's DELETE of `where` from `table` in a thread, held inside its scan (a
    Python UDF in the condition waits for `gate_dir`/go) once it has read the snapshot.
    Returns (thread, outcome list)."""
    from pyspark.sql.functions import udf

    @udf("boolean")
    def gate(_):
        import pathlib as p
        import time as t
        (p.Path(gate_dir) / "reached").touch()
        deadline = t.monotonic() + 120
        while not (p.Path(gate_dir) / "go").exists() and t.monotonic() < deadline:
            t.sleep(0.05)
        return True

    spark.udf.register("floe_gate", gate)
    outcome = []

    def run():
        try:
            spark.sql(f"DELETE FROM delta.`{table}` WHERE {where} AND floe_gate(id)")
            outcome.append("ok")
        except Exception as error:  # noqa: BLE001 - the outcome compared below
            outcome.append(str(error))

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 120
    while not (pathlib.Path(gate_dir) / "reached").exists():
        assert thread.is_alive() and time.monotonic() < deadline, outcome
        time.sleep(0.05)
    return thread, outcome


def _conflict(message: str) -> str:
    for kind in ("ConcurrentAppendException", "ConcurrentDeleteReadException"):
        if kind in message:
            return kind
    return "ok" if message == "ok" else message


@pytest.mark.parametrize("level", ["Serializable", "WriteSerializable"])
def test_a_late_delete_racing_another_commit_ends_as_delta_spark_decides(spark, tmp_path, level):
    """A delete that read the table before a concurrent commit landed, on a table at each
    isolation level (WriteSerializable as a Databricks table has it: delta-spark refuses to
    set it but honours it), for a blind append into the region the delete reads and one
    elsewhere, and for a delete in that region (removing the file the late delete read)
    and one elsewhere: delta-spark's late DELETE (floe commits meanwhile) and floe's late
    delete (delta-spark commits meanwhile) commit or fail alike, with the same rows left
    and the same isolation level recorded."""
    races = {  # the concurrent commit: kind, and the region it touches
        "append-into-read-region": ("append", "r1"), "append-elsewhere": ("append", "r5"),
        "delete-in-read-region": ("delete", "r1"), "delete-elsewhere": ("delete", "r5"),
        "compaction-of-read-region": ("compact", "r1"),
    }
    outcomes = {}
    for race, (kind, region) in races.items():
        tables = {side: tmp_path / f"{side}-{level}-{race}" for side in ("spark", "floe")}
        pq.write_table(pa.table({"id": pa.array(range(80), pa.int64()),
                                 "region": [f"r{i % 8}" for i in range(80)]}),
                       tmp_path / "in.parquet")
        pq.write_table(pa.table({"id": pa.array([900, 901], pa.int64()),
                                 "region": [region] * 2}), tmp_path / "more.parquet")
        pq.write_table(pa.table({"id": pa.array(range(100, 116), pa.int64()),
                                 "region": [f"r{i % 8}" for i in range(16)]}),
                       tmp_path / "in2.parquet")
        for table in tables.values():
            floe("create", table, "--schema", "id long not null, region string",
                 "--partition-by", "region", "--property", f"delta.isolationLevel={level}")
            floe("append", table, tmp_path / "in.parquet")
            floe("append", table, tmp_path / "in2.parquet")  # two files a region
        where = "region = 'r1' AND id < 50"
        concurrent_where = f"region = '{region}' AND id >= 50"
        # delta-spark deletes late; floe commits while it waits.
        gate_dir = tmp_path / f"gate-{level}-{race}"
        gate_dir.mkdir()
        thread, outcome = _gated_spark_delete(spark, tables["spark"], where, gate_dir)
        if kind == "append":
            floe("append", tables["spark"], tmp_path / "more.parquet")
        elif kind == "delete":
            floe("delete", tables["spark"], "--where", concurrent_where)
        else:
            floe("rewrite", tables["spark"], "--where", f"region = '{region}'")
        (gate_dir / "go").touch()
        thread.join(timeout=300)
        theirs = _conflict(outcome[0])
        # floe deletes late; delta-spark commits while it waits.
        env = dict(os.environ, FLOE_TEST_PAUSE_AT="delta-commit", FLOE_TEST_PAUSE_MS="8000")
        late = subprocess.Popen([FLOE, "delete", str(tables["floe"]), "--where", where],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for line in late.stderr:
            if "paused at delta-commit" in line:
                break
        if kind == "append":
            spark.read.parquet(str(tmp_path / "more.parquet")).write.format("delta") \
                .mode("append").save(str(tables["floe"]))
        elif kind == "delete":
            spark.sql(f"DELETE FROM delta.`{tables['floe']}` WHERE {concurrent_where}")
        else:
            spark.sql(f"OPTIMIZE delta.`{tables['floe']}` WHERE region = '{region}'")
        _, err = late.communicate(timeout=300)
        ours = "ok" if late.returncode == 0 else _conflict(err)
        outcomes[race] = ours
        assert ours == theirs, (level, race, err, outcome[0][:400])
        rows = [collected(spark.read.format("delta").load(str(t))) for t in tables.values()]
        assert rows[0] == rows[1], (level, race)
        if ours == "ok":  # both deletes committed: the level each recorded
            levels = [spark.sql(f"DESCRIBE HISTORY delta.`{t}`").orderBy("version", ascending=False)
                      .filter("operation = 'DELETE' AND readVersion = 2").first().isolationLevel
                      for t in tables.values()]
            assert levels == [level, level], levels
    # Not vacuous, and the levels differ where they should: only Serializable fails on a
    # blind append into what the delete read. A delete or a compaction of a file it read
    # fails both, reported (as delta-spark's checker does, adds first) as the winner's
    # add into the region read.
    assert outcomes == {
        "append-into-read-region": "ConcurrentAppendException" if level == "Serializable" else "ok",
        "append-elsewhere": "ok", "delete-in-read-region": "ConcurrentAppendException",
        "delete-elsewhere": "ok", "compaction-of-read-region": "ConcurrentAppendException",
    }, outcomes
    # Any other level is refused at create, naming the property, with nothing written.
    bad = floe("create", tmp_path / "bad", "--schema", "id long", "--property",
               "delta.isolationLevel=SnapshotIsolation", check=False)
    assert bad.returncode != 0 and "delta.isolationLevel" in bad.stderr, bad.stderr
    assert not (tmp_path / "bad").exists() or not any((tmp_path / "bad").rglob("*"))


INTERVALS = [
    "interval 1 week", "1 week", "INTERVAL 2 DAYS 3 HOURS", "interval 7 Days", "interval 1 MINUTES",
    "interval 604800000000 microseconds", "interval 604800000 milliseconds", "interval 5 nanoseconds",
    "interval 1.5 seconds", "interval .5 second", "interval 1.999999999 seconds",
    "interval 1.0000000001 seconds", "interval 1.5 hours", "interval -1 day", "interval 1 day -1 hour",
    "interval 2 days -1 hour", "interval 1 month", "interval 1 year", "interval 5days", "interval 5",
    "interval\t5 days", "intervals 5 days", "interval 5 dayss", "interval 5 days,", "interval + 4 hours",
    "interval - 4 hours", "  interval   3   day  ", "interval 0001 week", "interval 1 millisecond",
    "interval 1 microsecond", "interval 3 weeks 2 days 1 hour 1 minute 1 second 1 millisecond 1 microsecond",
    "interval", "interval one week", "interval 213503982335 days", "interval 2147483648 days",
    "interval 106751991 days", "interval 9223372036854775807 microseconds",
    "interval 9223372036854775808 microseconds", "interval 9223372036854775807 hours", "0 seconds",
]


def test_intervals_read_as_delta_spark_reads_them(spark, tmp_path):
    """delta.deletedFileRetentionDuration read by floe (describe's "file retention") and by
    delta-spark's own DeltaConfigs.parseCalendarInterval and getMilliSeconds, called through
    py4j: the same milliseconds, or both refusing. Where Scala's long arithmetic would wrap
    (a total past 2^63 microseconds), floe refuses."""
    from py4j.java_gateway import get_field

    configs = spark._jvm.org.apache.spark.sql.delta.DeltaConfigs
    compared = 0
    for k, text in enumerate(INTERVALS):
        try:
            interval = configs.parseCalendarInterval(text)
            months, days = get_field(interval, "months"), get_field(interval, "days")
            micros = days * 86_400_000_000 + get_field(interval, "microseconds")
            wraps = not -2**63 <= micros < 2**63
            theirs = None if months != 0 or micros < 0 or wraps else configs.getMilliSeconds(interval)
        except Exception:  # noqa: BLE001 (delta-spark refuses it)
            theirs = None
        root = tmp_path / f"t{k}"
        (root / "_delta_log").mkdir(parents=True)
        (root / "_delta_log" / f"{0:020d}.json").write_text("\n".join(json.dumps(action) for action in [
            {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
            {"metaData": {"id": f"t{k}", "format": {"provider": "parquet", "options": {}},
                          "schemaString": json.dumps({"type": "struct", "fields": [
                              {"name": "id", "type": "long", "nullable": True, "metadata": {}}]}),
                          "partitionColumns": [], "createdTime": 0,
                          "configuration": {"delta.deletedFileRetentionDuration": text}}},
        ]) + "\n")
        described = floe("describe", root).stdout
        line = next(line for line in described.splitlines() if line.startswith("file retention"))
        ours = int(line.split()[2]) if line.endswith(" ms") else None
        assert ours == theirs, (text, line, theirs)
        compared += theirs is not None
    assert compared >= 15  # not vacuous: most of the texts are read by both


def test_numeric_literals_read_as_spark_sql_reads_them(spark, tmp_path):
    """A literal beyond double's range was read as 0 by floe. Spark's parser refuses it
    (INVALID_NUMERIC_LITERAL_RANGE), reads one too small as a zero, and casts a quoted one
    to the infinity of its sign: floe answers every comparison as Spark does, on one table."""
    root = tmp_path / "prices"
    prices = [float("inf"), 1.5, 0.0, -0.0, -2.25, float("-inf"), 1e308, 5e-324, -5e-324, None]
    pq.write_table(pa.table({"id": pa.array(range(len(prices)), pa.int64()), "price": prices}),
                   tmp_path / "prices.parquet")
    floe("create", root, "--schema", "id long, price double")
    floe("append", root, tmp_path / "prices.parquet")
    refused = 0
    for literal in ["1e400", "-1e400", "1e-400", "-1e-400", "1e308", "1.7976931348623157e308",
                    "1.7976931348623159e308", "'1e400'", "'-1e400'", "5e-324", "2e-324", "-2e-324",
                    "1e309"]:
        for op in [">=", "<", "="]:
            condition = f"price {op} {literal}"
            try:
                theirs = sorted(r.id for r in spark.sql(
                    f"SELECT id FROM delta.`{root}` WHERE {condition}").collect())
            except Exception:  # noqa: BLE001 (Spark's parser refuses it)
                theirs = None
            result = floe("scan", root, "--where", condition, "--columns", "id", "--format",
                          "jsonl", check=False)
            ours = (sorted(json.loads(line)["id"] for line in result.stdout.splitlines())
                    if result.returncode == 0 else None)
            assert ours == theirs, (condition, theirs, result.stderr)
            refused += theirs is None
    assert refused == 12  # 1e400, -1e400, 1.797...159e308 and 1e309, each operator
