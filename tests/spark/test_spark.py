"""floe's Spark data source against Spark's own Iceberg writer and reader (iceberg-spark-
runtime 1.11.0 over the same SQLite catalog): every table floe's data source writes is read
back by Spark's Iceberg reader, and compared, partition by partition, with the sibling table
Spark's Iceberg writer makes of the same DataFrame."""

import contextlib
import datetime
import decimal
import math
import pathlib
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from arrow_compare import differences, sorted_by
from conftest import files_under
from extremes import EXTREMES_SCHEMA, extremes
from task_faults import fail_in

import floe
import floe.spark

# The test's own data source classes travel to Spark's Python workers by value (the
# workers cannot import this module).
from pyspark import cloudpickle  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])
cloudpickle.register_pickle_by_value(sys.modules["task_faults"])

REGIONS = ["eu", "us/west", "Zürich", "a=b&c", "東京", "", None, "50%", "tab\there"]
SCHEMA = EXTREMES_SCHEMA.append(pa.field("region", pa.string()))

# The specs of the issue: unpartitioned, identity, bucket and day (each written by 8
# Spark tasks or more before the distribution).
SPECS = {
    "unpartitioned": None,
    "identity": "region",
    "bucket": "bucket(8, id)",
    "day": "day(ts)",
}


def _data(rows: int = 400, start: int = 0) -> pa.Table:
    table = extremes(start, rows)
    regions = [REGIONS[i % len(REGIONS)] for i in range(start, start + rows)]
    return table.append_column(SCHEMA.field("region"), pa.array(regions, pa.string()))


def _dataframe(spark, tmp_path: pathlib.Path, data: pa.Table, name: str, partitions: int = 8):
    """`data` as a Spark DataFrame of `partitions` partitions, read from Parquet (the
    same rows in the same order each time it is computed)."""
    path = tmp_path / f"{name}.parquet"
    pq.write_table(data, path)
    return spark.read.parquet(str(path)).repartition(partitions, "id")


def _siblings(catalog, stem: str, partition_by) -> tuple:
    """Two empty tables of SCHEMA and `partition_by`: floe's data source writes the
    first, Spark's Iceberg writer the second."""
    catalog.create_namespace_if_not_exists("db")
    names = (f"db.{stem}_floe", f"db.{stem}_spark")
    for name in names:
        catalog.create_table(name, SCHEMA, partition_by=partition_by)
    return names


def _options(warehouse) -> dict:
    return {"warehouse": str(warehouse)}


def _spark_rows(spark, name: str) -> pa.Table:
    """What Spark's Iceberg reader reads of floe.<name>."""
    return spark.table(f"floe.{name}").toArrow()


def _same_rows(expected: pa.Table, actual: pa.Table) -> list:
    actual = actual.select(expected.column_names)
    # Spark reads every column as nullable; compare values and types, not nullability.
    loose = pa.schema([f.with_nullable(True) for f in expected.schema])
    return differences(
        sorted_by(expected.cast(loose), ["id"]), sorted_by(actual.cast(loose), ["id"])
    )


def _file_metrics(spark, name: str) -> dict:
    """Per partition: each data file's record count, value, null and NaN counts and lower
    and upper bounds (column sizes depend on the encoder, so they are left out)."""
    files = spark.table(f"floe.{name}.files")
    columns = ["record_count", "value_counts", "null_value_counts", "nan_value_counts",
               "lower_bounds", "upper_bounds"]
    has_partition = "partition" in files.columns
    rows = files.select(*(["partition"] if has_partition else []), *columns).collect()
    out: dict = {}
    for row in rows:
        values = row.asDict(recursive=True)
        key = repr(values.get("partition"))
        metrics = tuple(
            tuple(sorted((values[c] or {}).items())) if c != "record_count" else values[c]
            for c in ("record_count", "value_counts", "null_value_counts",
                      "nan_value_counts", "lower_bounds", "upper_bounds")
        )
        out.setdefault(key, []).append(metrics)
    return {key: sorted(per_file) for key, per_file in out.items()}


def _assert_every_data_file_is_referenced(table: floe.Table) -> None:
    """Listing the table's data folder shows no file that no manifest references."""
    table.refresh()
    referenced = {f["file_path"].removeprefix("file:") for f in table.scan().plan_files()}
    data_dir = pathlib.Path(table.location.removeprefix("file:")) / "data"
    assert set(files_under(data_dir)) == referenced


@contextlib.contextmanager
def _small_batches(spark):
    """Arrow batches of 10 rows, so a task has handed floe rows before it dies."""
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "10")
    try:
        yield
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")


def _assert_floe_wrote(table: floe.Table, spark) -> None:
    """floe's writer made the current snapshot (not Spark's), inside this application."""
    summary = table.refresh().current_snapshot().summary
    assert summary["engine-name"] == "floe", summary
    assert summary["spark.app.id"] == spark.sparkContext.applicationId, summary


@pytest.mark.parametrize("spec", list(SPECS))
def test_append_reads_back_and_matches_sparks_iceberg_writer(spark, catalog, warehouse,
                                                            tmp_path, spec):
    ours, theirs = _siblings(catalog, f"append_{spec}", SPECS[spec])
    data = _data()
    df = _dataframe(spark, tmp_path, data, spec)
    assert df.rdd.getNumPartitions() >= 8

    floe.spark.write(df, ours, warehouse=str(warehouse))
    df.writeTo(f"floe.{theirs}").append()

    table = catalog.load_table(ours)
    _assert_floe_wrote(table, spark)
    assert _same_rows(data, _spark_rows(spark, ours)) == []
    assert _same_rows(data, _spark_rows(spark, theirs)) == []  # the reference is sound
    ours_metrics, theirs_metrics = _file_metrics(spark, ours), _file_metrics(spark, theirs)
    assert ours_metrics.keys() == theirs_metrics.keys()
    for partition in theirs_metrics:
        assert ours_metrics[partition] == theirs_metrics[partition], partition
    _assert_every_data_file_is_referenced(table)


def test_dataframe_writer_api_appends_and_overwrites_partitions(spark, catalog, warehouse,
                                                                tmp_path):
    ours, theirs = _siblings(catalog, "modes", "region")
    first = _dataframe(spark, tmp_path, _data(200), "first")
    second = _dataframe(spark, tmp_path, _data(90, start=1000), "second").where(
        "region IN ('eu', 'Zürich')")

    first.write.format("floe").options(**_options(warehouse)).mode("append").save(ours)
    second.write.format("floe").options(**_options(warehouse)).mode("overwrite").save(ours)
    first.writeTo(f"floe.{theirs}").append()
    second.writeTo(f"floe.{theirs}").overwritePartitions()

    table = catalog.load_table(ours)
    _assert_floe_wrote(table, spark)
    snapshot = table.current_snapshot()
    reference = catalog.load_table(theirs).current_snapshot()
    assert snapshot.operation == reference.operation == "overwrite"
    assert snapshot.summary["replace-partitions"] == reference.summary["replace-partitions"]
    assert _same_rows(_spark_rows(spark, theirs), _spark_rows(spark, ours)) == []


def test_a_declined_write_raises_on_the_driver_and_writes_nothing(spark, catalog, warehouse,
                                                                  tmp_path):
    catalog.create_namespace_if_not_exists("db")
    table = catalog.create_table("db.declined", SCHEMA,
                                 properties={"write.format.default": "orc"})
    before = files_under(warehouse)
    df = _dataframe(spark, tmp_path, _data(50), "declined")
    with pytest.raises(Exception) as raised:
        df.write.format("floe").options(**_options(warehouse)).mode("append").save(
            "db.declined")
    assert "write.format.default" in str(raised.value)
    assert files_under(warehouse) == before
    assert table.refresh().current_snapshot() is None


def test_snapshot_properties_and_write_options_reach_the_commit(spark, catalog, warehouse,
                                                                tmp_path):
    catalog.create_namespace_if_not_exists("db")
    table = catalog.create_table("db.options", SCHEMA)
    df = _dataframe(spark, tmp_path, _data(80), "options")
    (df.write.format("floe").options(**_options(warehouse))
     .option("snapshot-property.pipeline", "nightly")
     .option("write.parquet.compression-codec", "gzip")
     .mode("append").save("db.options"))
    summary = table.refresh().current_snapshot().summary
    assert summary["pipeline"] == "nightly"
    for task in table.scan().plan_files():
        path = task["file_path"].removeprefix("file:")
        assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "GZIP"
    with pytest.raises(Exception, match="no option 'compresion'"):
        (df.write.format("floe").options(**_options(warehouse))
         .option("compresion", "gzip").mode("append").save("db.options"))
    with pytest.raises(Exception, match="added-records"):
        (df.write.format("floe").options(**_options(warehouse))
         .option("snapshot-property.added-records", "1").mode("append").save("db.options"))
    assert len(table.refresh().snapshots()) == 1


def test_spark_reads_a_floe_table_through_floes_scan(spark, catalog, warehouse, tmp_path):
    catalog.create_namespace_if_not_exists("db")
    table = catalog.create_table("db.read", SCHEMA, partition_by="bucket(4, id)")
    data = _data(300)
    table.append(data)
    first = table.current_snapshot().snapshot_id
    table.append(_data(20, start=5000))

    read = spark.read.format("floe").options(**_options(warehouse))
    assert _same_rows(table.to_arrow(), read.load("db.read").toArrow()) == []
    # Files packed into Spark partitions as Spark's Iceberg reader packs them: by its
    # adaptive split size, and by a split size and open cost the read names.
    files = len(table.scan().plan_files())
    assert files >= 8
    spark_tasks = spark.table("floe.db.read").rdd.getNumPartitions()
    assert read.load("db.read").rdd.getNumPartitions() == spark_tasks
    for size, cost in (("4194304", "1048576"), ("1", "1")):
        named = {"split-size": size, "file-open-cost": cost}
        theirs = spark.read.options(**named).table("floe.db.read").rdd.getNumPartitions()
        ours = (spark.read.format("floe").options(**_options(warehouse), **named)
                .load("db.read").rdd.getNumPartitions())
        assert ours == theirs, (named, ours, theirs)
    assert theirs == files  # one file a task: the comparison above is not vacuous
    with pytest.raises(Exception, match="option 'split-size' must be a positive integer"):
        (spark.read.format("floe").options(**_options(warehouse)).option("split-size", "0")
         .load("db.read").collect())
    old = read.option("snapshot-id", str(first)).load("db.read").toArrow()
    assert _same_rows(data, old) == []
    filtered = read.option("where", "id < 10").load("db.read").toArrow()
    assert sorted(filtered.column("id").to_pylist()) == list(range(10))


def test_spark_reads_splits_of_large_files_as_sparks_iceberg_reader_splits_them(
        spark, catalog, warehouse):
    """Files of many row groups read in splits: floe's data source cuts each file at its
    row groups (split_offsets) and packs the splits into as many Spark partitions as
    Spark's Iceberg reader makes of the same table, for several split sizes, open costs
    and files with deletion vectors; the rows read are the table's, each once."""
    catalog.create_namespace_if_not_exists("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        pa.field("text", pa.string())])
    table = catalog.create_table("db.splits", schema, properties={
        "format-version": "3", "write.parquet.row-group-size-bytes": "65536",
        "write.delete.mode": "merge-on-read"})
    for start, count in ((0, 60000), (60000, 25000), (85000, 3000)):
        ids = list(range(start, start + count))
        table.append(pa.table({"id": ids, "text": [f"row {i} of the split test ü" * 2
                                                   for i in ids]}, schema=schema))
    files = table.scan().plan_files()
    assert len(files) == 3 and max(len(f["split_offsets"]) for f in files) >= 8
    def read():  # a reader of its own each time (a reader's options stay set)
        return spark.read.format("floe").options(**_options(warehouse))

    for deleted in (False, True):
        if deleted:
            spark.sql("DELETE FROM floe.db.splits WHERE id % 11 = 4")
            assert any(f["delete_files"] for f in table.refresh().scan().plan_files())
        # Settings whose packing does not depend on the order the files are planned in
        # (Spark's Iceberg scan plans manifests in parallel): splits weighing their open
        # cost, or everything in one bin.
        settings = [("131072", "4194304"), ("1", "1"), ("134217728", "4194304"),
                    ("20000000", "1000000")] + ([] if deleted else [("300000", "1")])
        for size, cost in settings:
            named = {"split-size": size, "file-open-cost": cost}
            theirs = spark.read.options(**named).table("floe.db.splits")
            ours = read().options(**named).load("db.splits")
            assert ours.rdd.getNumPartitions() == theirs.rdd.getNumPartitions(), named
            rows = ours.toArrow()
            assert sorted(rows.column("id").to_pylist()) == \
                [i for i in range(88000) if not (deleted and i % 11 == 4)], named
        # The default (adaptive) split size too.
        assert (read().load("db.splits").rdd.getNumPartitions() ==
                spark.table("floe.db.splits").rdd.getNumPartitions())
    assert spark.read.options(**{"split-size": "1"}).table(
        "floe.db.splits").rdd.getNumPartitions() > 8  # files were split


def test_a_task_retried_after_failing_mid_write_leaves_its_rows_once(spark, catalog,
                                                                     warehouse, tmp_path):
    catalog.create_namespace_if_not_exists("db")
    table = catalog.create_table("db.retry", SCHEMA, partition_by="bucket(4, id)")
    data = _data(400)
    with _small_batches(spark):
        df = _dataframe(spark, tmp_path, data, "retry")
        df = df.mapInArrow(fail_in(3, 1), df.schema)
        (df.write.format("floe").options(**_options(warehouse)).option(
            "write.distribution-mode", "none").mode("append").save("db.retry"))
    table.refresh()
    assert _same_rows(data, _spark_rows(spark, "db.retry")) == []
    _assert_every_data_file_is_referenced(table)


def test_a_job_that_fails_after_some_tasks_finished_commits_and_leaves_nothing(
        spark, catalog, warehouse, tmp_path):
    catalog.create_namespace_if_not_exists("db")
    table = catalog.create_table("db.failed_job", SCHEMA)
    before = files_under(warehouse)
    with _small_batches(spark):
        df = _dataframe(spark, tmp_path, _data(400), "failed_job")
        df = df.mapInArrow(fail_in(5, 99), df.schema)
        with pytest.raises(Exception, match="injected task failure"):
            (df.write.format("floe").options(**_options(warehouse))
             .mode("append").save("db.failed_job"))
    assert table.refresh().current_snapshot() is None
    after = files_under(warehouse)
    assert {p: h for p, h in after.items() if not p.endswith("catalog.db")} == {
        p: h for p, h in before.items() if not p.endswith("catalog.db")}


def test_streaming_commits_each_epoch_once_across_a_restart(spark, catalog, warehouse,
                                                            tmp_path):
    catalog.create_namespace_if_not_exists("db")
    table = catalog.create_table("db.stream", SCHEMA, partition_by="day(ts)")
    source, checkpoint = tmp_path / "in", tmp_path / "checkpoint"
    source.mkdir()
    batches = [_data(60, start=100 * k) for k in range(4)]

    def run():
        query = (spark.readStream.schema(spark.read.parquet(str(source)).schema)
                 .option("maxFilesPerTrigger", 1).parquet(str(source))
                 .writeStream.format("floe").options(**_options(warehouse))
                 .option("checkpointLocation", str(checkpoint))
                 .trigger(availableNow=True).start("db.stream"))
        query.awaitTermination()
        assert query.exception() is None

    for k in range(3):
        pq.write_table(batches[k], source / f"part-{k}.parquet")
    run()
    assert len(table.refresh().snapshots()) == 3
    # Spark forgets it committed the last epoch: the restart replays it.
    commits = sorted((checkpoint / "commits").iterdir(), key=lambda p: p.name)
    last = [p for p in commits if p.name.isdigit()][-1]
    last.unlink()
    (last.parent / f".{last.name}.crc").unlink(missing_ok=True)  # Hadoop's checksum file
    pq.write_table(batches[3], source / "part-3.parquet")
    run()
    table.refresh()
    epochs = [s.summary.get(floe.spark.EPOCH_ID_PROPERTY) for s in table.snapshots()]
    assert epochs == ["0", "1", "2", "3"], epochs
    assert len({s.summary[floe.spark.QUERY_ID_PROPERTY] for s in table.snapshots()}) == 1
    expected = pa.concat_tables(batches)
    assert _same_rows(expected, _spark_rows(spark, "db.stream")) == []
    _assert_every_data_file_is_referenced(table)
    # Each epoch's tasks wrote with an operation id of the epoch's own (so each commit's
    # sweep looks for its own files only): "<partition>-<attempt>-<uuid>-<count>.parquet".
    names = [pathlib.Path(f["file_path"]).name for f in table.scan().plan_files()]
    assert len({name.split("-", 2)[2][:36] for name in names}) == 4, names


class _KillingWriter(floe.spark.FloeBatchWriter):
    """floe's batch writer, except that the first attempt of Spark partition 2 SIGKILLs its
    own Python worker after handing floe a few batches: the attempt's files are on disk
    and its message never arrives."""

    def write(self, iterator):
        import os
        import signal

        from pyspark import TaskContext

        context = TaskContext.get()
        doomed = context.partitionId() == 2 and context.attemptNumber() == 0

        def batches():
            for k, batch in enumerate(iterator):
                if doomed and k == 3:
                    os.kill(os.getpid(), signal.SIGKILL)
                yield batch

        return super().write(batches())


class _KillingSource(floe.spark.FloeDataSource):
    @classmethod
    def name(cls):
        return "floe_killing"

    def writer(self, schema, overwrite):
        return _KillingWriter(self._parsed, schema, overwrite, None)


def test_a_worker_killed_mid_task_leaves_no_file_once_the_job_commits(spark, catalog,
                                                                      warehouse, tmp_path):
    catalog.create_namespace_if_not_exists("db")
    table = catalog.create_table("db.killed", SCHEMA)
    data = _data(400)
    spark.dataSource.register(_KillingSource)
    with _small_batches(spark):
        df = _dataframe(spark, tmp_path, data, "killed")
        df.write.format("floe_killing").options(**_options(warehouse)).mode("append").save(
            "db.killed")
    table.refresh()
    assert table.current_snapshot().summary["added-data-files"] == "8"
    assert _same_rows(data, _spark_rows(spark, "db.killed")) == []
    _assert_every_data_file_is_referenced(table)


def test_floe_and_sparks_iceberg_writer_append_concurrently_without_losing_a_commit(
        spark, catalog, warehouse, tmp_path):
    import threading

    catalog.create_namespace_if_not_exists("db")
    table = catalog.create_table("db.race", SCHEMA, partition_by="bucket(4, id)")
    rounds = 3
    frames = {
        (writer, k): _dataframe(spark, tmp_path, _data(50, start=1000 * (2 * k + i)),
                                f"race-{writer}-{k}", partitions=8)
        for i, writer in enumerate(("floe", "spark")) for k in range(rounds)
    }
    errors = []

    def run(writer):
        try:
            for k in range(rounds):
                df = frames[(writer, k)]
                if writer == "floe":
                    floe.spark.write(df, "db.race", warehouse=str(warehouse))
                else:
                    df.writeTo("floe.db.race").append()
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    # Spark's writer on a thread of its own, floe's on this one (a Python data source
    # registered on one thread is not found by a save on another: Spark 4.0 looks it up
    # in the thread's active session).
    other = threading.Thread(target=run, args=("spark",))
    other.start()
    run("floe")
    other.join()
    assert errors == [], [str(e)[:3000] for e in errors]
    table.refresh()
    snapshots = table.snapshots()
    assert len(snapshots) == 2 * rounds
    # One linear history: each snapshot's parent is the one before it.
    by_time = sorted(snapshots, key=lambda s: s.sequence_number)
    assert by_time[0].parent_snapshot_id is None
    for parent, child in zip(by_time, by_time[1:]):
        assert child.parent_snapshot_id == parent.snapshot_id
    engines = [s.summary.get("engine-name") for s in by_time]
    assert engines.count("floe") == rounds and engines.count("spark") == rounds
    expected = pa.concat_tables(
        [_data(50, start=1000 * (2 * k + i)) for i in range(2) for k in range(rounds)])
    history = [(s.summary.get("engine-name"), s.summary.get("added-records"),
                s.summary.get("total-records")) for s in by_time]
    assert _same_rows(expected, _spark_rows(spark, "db.race")) == [], history


def test_where_replaces_the_rows_matching_a_filter_as_sparks_overwrite_does(
        spark, catalog, warehouse, tmp_path):
    from pyspark.sql import functions as F

    ours, theirs = _siblings(catalog, "where", "region")
    first = _dataframe(spark, tmp_path, _data(200), "where-first")
    replacement = _dataframe(spark, tmp_path, _data(40, start=3000), "where-new").where(
        "region = 'eu'")
    floe.spark.write(first, ours, warehouse=str(warehouse))  # one file per partition
    first.writeTo(f"floe.{theirs}").append()
    (replacement.write.format("floe").options(**_options(warehouse))
     .option("where", "region = 'eu'").mode("overwrite").save(ours))
    replacement.writeTo(f"floe.{theirs}").overwrite(F.col("region") == "eu")

    table = catalog.load_table(ours)
    _assert_floe_wrote(table, spark)
    reference = catalog.load_table(theirs).current_snapshot()
    assert table.current_snapshot().operation == reference.operation == "overwrite"
    for key in ("added-records", "deleted-records", "total-records", "deleted-data-files"):
        assert table.current_snapshot().summary[key] == reference.summary[key], key
    assert _same_rows(_spark_rows(spark, theirs), _spark_rows(spark, ours)) == []

    # A row the filter does not select fails the write; nothing is committed or left.
    before = files_under(pathlib.Path(table.location.removeprefix("file:")))
    snapshots = len(table.refresh().snapshots())
    stray = _dataframe(spark, tmp_path, _data(40, start=4000), "where-stray")
    with pytest.raises(Exception, match="does not match the overwrite filter"):
        (stray.write.format("floe").options(**_options(warehouse))
         .option("where", "region = 'eu'").mode("overwrite").save(ours))
    assert len(table.refresh().snapshots()) == snapshots
    after = files_under(pathlib.Path(table.location.removeprefix("file:")))
    assert after == before
    # A filter that splits a data file fails on the driver, before any task runs.
    with pytest.raises(Exception, match="some, but not all, rows match"):
        (replacement.write.format("floe").options(**_options(warehouse))
         .option("where", "id < 50").mode("overwrite").save(ours))
    with pytest.raises(Exception, match="mode\\('overwrite'\\)"):
        (replacement.write.format("floe").options(**_options(warehouse))
         .option("where", "region = 'eu'").mode("append").save(ours))


METADATA_COLUMNS = ["_file", "_pos", "_spec_id", "_row_id", "_last_updated_sequence_number"]


def test_metadata_columns_read_as_sparks_iceberg_reader_reads_them(spark, catalog, warehouse):
    """`_file`, `_pos`, `_spec_id`, `_row_id` and `_last_updated_sequence_number` as floe's
    scan returns them, against Spark's Iceberg reader on the same format-v3 table: files
    floe appended (lineage inherited from first_row_id), files Spark appended, files
    Spark's copy-on-write UPDATE rewrote (lineage stored in the files: kept rows keep
    their ids, updated rows get a new sequence number) and deletion vectors from a
    merge-on-read DELETE (positions counted before deletes)."""
    catalog.create_namespace_if_not_exists("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        pa.field("region", pa.string()), pa.field("v", pa.int64())])
    # Partitioned by region (names that need escaping in paths, a null, an empty string)
    # so the UPDATE below rewrites one partition's files and leaves the others.
    table = catalog.create_table("db.lineage", schema, partition_by="region",
                                 properties={"format-version": "3"})

    def rows(start, count):
        ids = list(range(start, start + count))
        return pa.table({"id": ids, "region": [REGIONS[i % len(REGIONS)] for i in ids],
                         "v": ids}, schema=schema)

    table.append(rows(0, 300), threads=2)
    table.append(rows(300, 200))
    spark.sql("INSERT INTO floe.db.lineage SELECT id, 'eu', id FROM range(500, 700)")
    spark.sql("UPDATE floe.db.lineage SET v = v + 1 WHERE region = 'us/west' AND id % 5 = 0")
    spark.sql("ALTER TABLE floe.db.lineage SET TBLPROPERTIES "
              "('write.delete.mode' = 'merge-on-read')")
    spark.sql("DELETE FROM floe.db.lineage WHERE id % 7 = 3")
    table.refresh()

    # Not vacuous: some files hold their rows' lineage (the UPDATE's), some inherit it,
    # and some rows are deleted by deletion vectors.
    files = table.scan().plan_files()
    stored = [f for f in files
              if "_row_id" in pq.read_schema(f["file_path"].removeprefix("file:")).names]
    assert stored and len(stored) < len(files)
    assert table.current_snapshot().summary.get("added-dvs") or \
        table.current_snapshot().summary.get("added-delete-files")

    columns = ["id", *METADATA_COLUMNS]
    # Filters on the metadata columns too, as Spark filters on them.
    some_file = table.scan(columns=["_file"], where="id = 650").to_arrow() \
        .column("_file")[0].as_py()
    for where in (None, "id >= 120 AND id < 610", "_row_id < 200 OR _row_id >= 600",
                  "_last_updated_sequence_number > 2", "_pos < 10 AND _spec_id = 0",
                  f"_file = '{some_file}' AND _pos >= 5"):
        ours = table.scan(columns=columns, where=where).to_arrow()
        query = f"SELECT {', '.join(columns)} FROM floe.db.lineage"
        theirs = spark.sql(query + (f" WHERE {where}" if where else "")).toArrow()
        expected = 700 - len([i for i in range(700) if i % 7 == 3]) if where is None else None
        if expected is not None:
            assert ours.num_rows == expected
        assert ours.column_names == columns
        assert _same_rows(theirs, ours) == [], where
    # Every row has lineage on a v3 table, and the UPDATE's rows a newer sequence number
    # than every row floe appended, kept or not.
    read = table.scan(columns=["id", "_row_id", "_last_updated_sequence_number"]).to_arrow()
    assert read.column("_row_id").null_count == 0
    assert len(set(read.column("_row_id").to_pylist())) == read.num_rows
    sequence = dict(zip(read.column("id").to_pylist(),
                        read.column("_last_updated_sequence_number").to_pylist()))
    updated = {i for i in range(0, 500, 5) if REGIONS[i % len(REGIONS)] == "us/west"}
    kept = {i for i in range(500) if i % 7 != 3} - updated
    assert min(sequence[i] for i in updated if i % 7 != 3) > max(sequence[i] for i in kept)


@pytest.mark.parametrize("version", ["1", "2", "3"])
def test_partition_and_deleted_columns_read_as_sparks_iceberg_reader_reads_them(
        spark, catalog, tmp_path, version):
    """`_partition`, `_spec_id` and `_deleted` as floe's scan returns them, against Spark's
    Iceberg reader on a table of four specs: identity(region); + day(ts); + bucket(4,
    id); - region (removed on v2 and v3, void on v1), with files of every spec (Spark's
    and floe's appends) and, on v2 and v3, position deletes or deletion vectors from a
    merge-on-read DELETE (`_deleted` returns the deleted rows, marked)."""
    catalog.create_namespace_if_not_exists("db")
    name = f"db.partition_columns_v{version}"
    mode = "merge-on-read" if version != "1" else "copy-on-write"
    spark.sql(f"CREATE TABLE floe.{name} (id bigint NOT NULL, region string, ts timestamp, "
              f"v double) USING iceberg PARTITIONED BY (region) TBLPROPERTIES "
              f"('format-version' = '{version}', 'write.delete.mode' = '{mode}')")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        pa.field("region", pa.string()),
                        pa.field("ts", pa.timestamp("us", tz="UTC")),
                        pa.field("v", pa.float64())])
    # Pre-1970, far-future and null times; regions that need escaping, empty and null.
    times = [-2208988800123456, -1, 0, 86399999999, 253402300799999999, None,
             1700000000000000]

    def rows(start, count):
        ids = list(range(start, start + count))
        return pa.table({"id": ids, "region": [REGIONS[i % len(REGIONS)] for i in ids],
                         "ts": [times[i % len(times)] for i in ids],
                         "v": [i * 0.5 for i in ids]}, schema=schema)

    def spark_append(start, count):
        _dataframe(spark, tmp_path, rows(start, count), f"v{version}-{start}") \
            .writeTo(f"floe.{name}").append()

    table = catalog.load_table(name)
    spark_append(0, 150)
    table.refresh().append(rows(150, 150), threads=2)
    spark.sql(f"ALTER TABLE floe.{name} ADD PARTITION FIELD days(ts)")
    spark_append(300, 150)
    table.refresh().append(rows(450, 150), threads=2)
    spark.sql(f"ALTER TABLE floe.{name} ADD PARTITION FIELD bucket(4, id)")
    spark.sql(f"ALTER TABLE floe.{name} DROP PARTITION FIELD region")
    spark_append(600, 150)
    table.refresh().append(rows(750, 150), threads=2)
    assert table.refresh().current_snapshot().summary["engine-name"] == "floe"
    # Rows of the spec-1 and spec-3 files; on v1 Spark's copy-on-write rewrites the files
    # holding them with the newest spec.
    spark.sql(f"DELETE FROM floe.{name} WHERE id % 7 = 3 AND id % 2 = 0 AND id >= 450")
    table.refresh()

    # Not vacuous: files of three specs are live (spec 2 lived between two ALTERs), and
    # (v2, v3) delete files.
    specs = {row["_spec_id"] for row in
             table.scan(columns=["_spec_id"]).to_arrow().to_pylist()}
    assert specs == {0, 1, 3}, specs
    deleted = [i for i in range(450, 900) if i % 7 == 3 and i % 2 == 0]
    if version != "1":
        summary = table.current_snapshot().summary
        assert summary.get("added-dvs") or summary.get("added-delete-files"), summary

    for columns, where in (
        (["id", "_partition", "_spec_id", "_deleted"], None),
        (["_deleted", "id", "_partition"], "id >= 100 AND id < 700"),
        (["id", "_partition"], None),
        # Filters on the metadata columns, returned or not: `_deleted` in a filter keeps
        # the deleted rows as candidates, as in Spark.
        (["id", "region"], "_partition.region = 'eu' OR _partition.id_bucket_4 = 2"),
        (["id", "_spec_id"], "_deleted = true"),
        (["id"], "_deleted = false AND _partition.ts_day >= '1970-01-01'"),
        (["id", "_partition"], "_partition.region IS NULL AND _spec_id < 3"),
    ):
        ours = table.scan(columns=columns, where=where).to_arrow()
        query = f"SELECT {', '.join(columns)} FROM floe.{name}"
        theirs = spark.sql(query + (f" WHERE {where}" if where else "")).toArrow()
        assert ours.column_names == columns
        assert _same_rows(theirs, ours) == [], (columns, where)
        if where == "_deleted = true":
            assert sorted(ours.column("id").to_pylist()) == \
                (deleted if version != "1" else [])
        if where is None:
            # _deleted keeps the deleted rows (marked) where delete files delete them;
            # a copy-on-write delete (v1) removed them from the files.
            keeps = "_deleted" in columns and version != "1"
            assert ours.num_rows == 900 - (0 if keeps else len(deleted))
            if keeps:
                marked = {r["id"] for r in ours.to_pylist() if r["_deleted"]}
                assert marked == set(deleted)
    partition = table.scan(columns=["_partition"]).to_arrow().schema.field("_partition")
    assert [f.name for f in partition.type] == ["region", "ts_day", "id_bucket_4"]


def test_rewrites_keep_row_lineage_as_sparks_iceberg_writer_keeps_it(spark, catalog):
    """On format v3, floe's copy-on-write delete and its compaction write each kept row's
    `_row_id` and `_last_updated_sequence_number` into the new files, as Spark's Iceberg
    DELETE and rewrite_data_files do: two sibling tables with the same appends (so the
    same row ids), one rewritten by floe and one by Spark, read by Spark's reader with the
    same lineage for every row; the same lineage columns in the new Parquet files, with the
    same metrics in the manifests; the same row counts, next-row-id and added-rows."""
    catalog.create_namespace_if_not_exists("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        pa.field("region", pa.string()), pa.field("v", pa.float64())])
    names = ("db.cow_floe", "db.cow_spark")
    tables = [catalog.create_table(name, schema, partition_by="region",
                                   properties={"format-version": "3"}) for name in names]
    values = [float("nan"), -0.0, 5e-324, 1.7976931348623157e308, None, -1.5]
    for start in (0, 400, 800):
        ids = list(range(start, start + 400))
        data = pa.table({"id": ids, "region": [REGIONS[i % 4] for i in ids],
                         "v": [values[i % len(values)] for i in ids]}, schema=schema)
        # One task: the files' order in the manifest, which assigns their first row ids,
        # is then the same in both tables.
        for table in tables:
            table.append(data, threads=1)

    def lineage(name):
        return spark.sql(f"SELECT id, region, v, _row_id, _last_updated_sequence_number "
                         f"FROM floe.{name}").toArrow()

    def lineage_metrics(name):
        """The lineage columns' metrics of the current snapshot's data files, by region and
        record count (the files' contents), as Spark reads the manifests."""
        out = {}
        for row in spark.sql(f"SELECT partition.region AS region, record_count, value_counts, "
                             f"null_value_counts, lower_bounds, upper_bounds, column_sizes "
                             f"FROM floe.{name}.files").collect():
            ids = (2147483540, 2147483539)
            out[(row.region, row.record_count)] = (
                {i: row.value_counts.get(i) for i in ids},
                {i: row.null_value_counts.get(i) for i in ids},
                {i: row.lower_bounds.get(i) for i in ids},
                {i: row.upper_bounds.get(i) for i in ids},
                sorted(row.column_sizes),
            )
        return out

    def lineage_state(table):
        table.refresh()
        snapshot = [s for s in table.metadata["snapshots"]
                    if s["snapshot-id"] == table.metadata["current-snapshot-id"]][0]
        summary = snapshot["summary"]
        return (table.metadata["next-row-id"], snapshot.get("first-row-id"),
                snapshot.get("added-rows"), snapshot["sequence-number"],
                {k: summary.get(k) for k in ("operation", "added-records", "deleted-records",
                                             "total-records", "deleted-data-files")})

    def new_file_columns(table):
        """The Parquet schema (names, field ids, types) of the files the last commit added."""
        snapshot = table.current_snapshot().snapshot_id
        out = set()
        for f in table.scan().plan_files():
            path = f["file_path"].removeprefix("file:")
            schema = pq.read_schema(path)
            if "_row_id" in schema.names:
                out.add(tuple((field.name, str(field.type), field.metadata[b"PARQUET:field_id"])
                              for field in schema))
                # The Iceberg schema in the footer names the lineage fields as Spark's does.
                out.add(schema.metadata[b"iceberg.schema"])
        assert out, snapshot
        return out

    before = lineage(names[0])
    assert _same_rows(lineage(names[1]), before) == []
    # A copy-on-write delete keeping some rows of every file it touches.
    ours = tables[0].delete("id >= 100 AND id < 1150 AND region = 'us/west'")
    assert ours.files_rewritten > 0
    spark.sql("DELETE FROM floe.db.cow_spark "
              "WHERE id >= 100 AND id < 1150 AND region = 'us/west'")
    assert _same_rows(lineage(names[1]), lineage(names[0])) == []
    assert lineage_state(tables[0]) == lineage_state(tables[1])
    assert lineage_metrics(names[0]) == lineage_metrics(names[1])
    assert new_file_columns(tables[0]) == new_file_columns(tables[1])
    # The kept rows kept their lineage from before the delete.
    kept = before.filter(pa.compute.invert(pa.compute.and_(
        pa.compute.and_(pa.compute.greater_equal(before["id"], 100),
                        pa.compute.less(before["id"], 1150)),
        pa.compute.equal(before["region"], "us/west"))))
    assert _same_rows(kept, lineage(names[0])) == []

    # Compaction of every partition's files into one.
    result = tables[0].rewrite(min_input_files=2)
    assert result.files_rewritten > 0
    spark.sql("CALL floe.system.rewrite_data_files(table => 'db.cow_spark', "
              "options => map('min-input-files', '2'))")
    assert _same_rows(lineage(names[1]), lineage(names[0])) == []
    assert _same_rows(kept, lineage(names[0])) == []
    assert lineage_state(tables[0]) == lineage_state(tables[1])
    assert lineage_metrics(names[0]) == lineage_metrics(names[1])


@pytest.mark.parametrize("version", [2, 3])
def test_copy_on_write_deletes_apply_delete_files_as_sparks_writer_does(spark, catalog, version):
    """A copy-on-write delete on a table whose files carry delete files (position deletes
    on v2, deletion vectors on v3, both written by Spark's merge-on-read DELETE) rewrites
    the files without the rows already deleted, as Spark's copy-on-write DELETE does on a
    sibling table: the same rows (and on v3 the same lineage), the same delete files left
    live (v2's position delete files stay; on v3 a removed file's DV goes with it) and the
    same snapshot counters."""
    catalog.create_namespace_if_not_exists("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        pa.field("region", pa.string())])
    names = (f"db.dv{version}_floe", f"db.dv{version}_spark")
    tables = [catalog.create_table(name, schema, partition_by="region",
                                   properties={"format-version": str(version)})
              for name in names]
    for start in (0, 300):
        ids = list(range(start, start + 300))
        data = pa.table({"id": ids, "region": [REGIONS[i % 3] for i in ids]}, schema=schema)
        for table in tables:
            table.append(data, threads=1)  # one task: the same file order, so row ids, in both
    for name in names:
        spark.sql(f"ALTER TABLE floe.{name} SET TBLPROPERTIES "
                  "('write.delete.mode' = 'merge-on-read')")
        spark.sql(f"DELETE FROM floe.{name} WHERE id % 10 = 7 AND id < 450")
        spark.sql(f"ALTER TABLE floe.{name} SET TBLPROPERTIES "
                  "('write.delete.mode' = 'copy-on-write')")
    assert all(t.refresh().current_snapshot().summary.get("added-delete-files") for t in tables)

    # Rows of files with deletes: some files keep rows (rewritten), one loses them all.
    where = "(id >= 100 AND id < 200) OR (id >= 300 AND region = 'eu')"
    result = tables[0].delete(where)
    assert result.files_rewritten > 0
    spark.sql(f"DELETE FROM floe.{names[1]} WHERE {where}")

    lineage = ", _row_id, _last_updated_sequence_number" if version == 3 else ""

    def rows(name):
        return spark.sql(f"SELECT id, region{lineage} FROM floe.{name}").toArrow()

    assert _same_rows(rows(names[1]), rows(names[0])) == []
    survivors = [i for i in range(600) if not (i % 10 == 7 and i < 450)
                 and not (100 <= i < 200 or (i >= 300 and REGIONS[i % 3] == "eu"))]
    assert sorted(rows(names[0]).column("id").to_pylist()) == survivors
    assert sorted(tables[0].refresh().to_arrow().column("id").to_pylist()) == survivors

    def live_deletes(name):
        return sorted((r.content, r.file_format, r.record_count, r.region)
                      for r in spark.sql(f"SELECT content, file_format, record_count, "
                                         f"partition.region AS region "
                                         f"FROM floe.{name}.delete_files").collect())

    assert live_deletes(names[0]) == live_deletes(names[1])
    keys = ("deleted-records", "added-records", "deleted-data-files", "added-data-files",
            "removed-delete-files", "removed-dvs", "removed-position-deletes",
            "total-delete-files", "total-position-deletes", "total-records",
            "total-data-files")
    summaries = [{k: t.refresh().current_snapshot().summary.get(k) for k in keys}
                 for t in tables]
    assert summaries[0] == summaries[1]
    if version == 3:
        assert summaries[0]["removed-dvs"]
        # Spark's merge-on-read DELETE put the vectors of several data files in one Puffin
        # file; the delete removed some of them. Expiring every older snapshot deletes
        # only what no snapshot left reaches: the Puffin files still holding a live
        # vector stay, and the table reads as before.
        def puffins(table):
            return {r.file_path.removeprefix("file:") for r in spark.sql(
                f"SELECT file_path FROM floe.{names[0]}.{table}").collect()}

        live = puffins("delete_files")
        assert live and all(p.endswith(".puffin") for p in live)
        # A vector the delete removed whose Puffin file still holds a live one.
        shared = {r.file_path.removeprefix("file:") for r in spark.sql(
            f"SELECT data_file.file_path AS file_path FROM floe.{names[0]}.entries "
            "WHERE status = 2 AND data_file.content = 1").collect()} & live
        assert shared
        expired = tables[0].refresh().expire_snapshots(older_than=0, retain_last=1)
        assert expired.data_files, expired
        assert all(pathlib.Path(p).is_file() for p in live)
        assert not {p.removeprefix("file:") for p in expired.data_files} & live
        assert sorted(rows(names[0]).column("id").to_pylist()) == survivors

    # Compaction: the same files chosen (Spark's rules, a file with a third of its rows
    # deleted among them), rewritten without their deleted rows.
    for name in names:
        spark.sql(f"ALTER TABLE floe.{name} SET TBLPROPERTIES "
                  "('write.delete.mode' = 'merge-on-read')")
        spark.sql(f"DELETE FROM floe.{name} WHERE id >= 200 AND id < 300 AND id % 3 <> 0")
    result = tables[0].refresh().rewrite(min_input_files=2)
    assert result.files_rewritten > 0
    spark.sql(f"CALL floe.system.rewrite_data_files(table => '{names[1]}', "
              "options => map('min-input-files', '2'))")
    assert _same_rows(rows(names[1]), rows(names[0])) == []
    assert live_deletes(names[0]) == live_deletes(names[1]), (live_deletes(names[0]), live_deletes(names[1]))
    summaries = [{k: t.refresh().current_snapshot().summary.get(k) for k in keys}
                 for t in tables]
    assert summaries[0] == summaries[1]

    # The compacted files take the starting snapshot's data sequence number, as Spark's
    # (use-starting-sequence-number); every other file keeps its own.
    def data_sequences(name):
        return sorted((r.sequence_number, r.file_sequence_number, r.region, r.status)
                      for r in spark.sql(
                          f"SELECT sequence_number, file_sequence_number, status, "
                          f"data_file.partition.region AS region FROM floe.{name}.entries "
                          f"WHERE status < 2 AND data_file.content = 0").collect())
    assert data_sequences(names[0]) == data_sequences(names[1])
    starting = tables[0].snapshots()[-2].sequence_number
    assert any(r[0] == starting and r[1] == starting + 1 for r in data_sequences(names[0]))

    # A delete of whole partitions is a metadata delete in Spark: the delete files of
    # those partitions go with the data files, in both modes.
    for name in names:
        spark.sql(f"ALTER TABLE floe.{name} SET TBLPROPERTIES "
                  "('write.delete.mode' = 'copy-on-write')")
    where = "region = 'us/west'"
    if version == 2:  # position delete files in that partition (v3's DVs were compacted)
        assert any(r[3] == "us/west" for r in live_deletes(names[0]))
    result = tables[0].refresh().delete(where)
    assert result.files_rewritten == 0 and result.files_removed > 0
    spark.sql(f"DELETE FROM floe.{names[1]} WHERE {where}")
    assert _same_rows(rows(names[1]), rows(names[0])) == []
    assert live_deletes(names[0]) == live_deletes(names[1])
    summaries = [{k: t.refresh().current_snapshot().summary.get(k) for k in keys}
                 for t in tables]
    assert summaries[0] == summaries[1]


def _append_regions(tables, schema):
    """Two appends of 900 rows (ids 0 to 1799) over REGIONS to each of `tables`."""
    for start in (0, 900):
        ids = list(range(start, start + 900))
        data = pa.table({"id": ids, "region": [REGIONS[i % len(REGIONS)] for i in ids]},
                        schema=schema)
        for table in tables:
            table.append(data, threads=1)  # one task: the same file order, so row ids, in both


def _merge_on_read_siblings(catalog, stem: str, version: int, partitioned=True,
                            properties=None) -> tuple:
    """Empty tables db.<stem>_floe and db.<stem>_spark of (id, region), partitioned by
    region (or not), of `version`, deleting merge-on-read (with more `properties`): their
    names, floe Tables and schema."""
    catalog.create_namespace_if_not_exists("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        pa.field("region", pa.string())])
    names = (f"db.{stem}_floe", f"db.{stem}_spark")
    tables = [catalog.create_table(name, schema,
                                   partition_by="region" if partitioned else None,
                                   properties={"format-version": str(version),
                                               "write.delete.mode": "merge-on-read",
                                               **(properties or {})})
              for name in names]
    return names, tables, schema


# Deletes over transformed partitions, proved (or not) by the strict projection alone:
# the source column has no metrics, so StrictMetricsEvaluator proves nothing.
TRANSFORMED_DELETES = {
    # Rows every 3 hours from 1969-12-24 to 1970-01-05 (days -8 to 4), twice.
    "day(ts)": [
        ("ts = TIMESTAMP '1970-01-04 03:00:00'", False),  # equality: never proved
        # day > 2: the data files and the delete files of days 3 and 4 go by metadata.
        ("ts >= TIMESTAMP '1970-01-04 00:00:00'", True),
        # day > 0 is fixed to day > 1 for files old writers partitioned by truncating
        # pre-1970 values toward zero: 1970-01-02 (day 1) is not proved.
        ("ts >= TIMESTAMP '1970-01-02 00:00:00' AND ts < TIMESTAMP '1970-01-03 00:00:00'",
         False),
        ("ts >= TIMESTAMP '1970-01-03 00:00:00' AND ts < TIMESTAMP '1970-01-04 00:00:00'",
         True),  # day > 1 AND day < 3
        # The scan's inclusive projection, widened alike, also plans 1969-12-28 (day -4),
        # which day < -4 does not prove.
        ("ts < TIMESTAMP '1969-12-28 00:00:00'", False),
        ("ts >= TIMESTAMP '1969-12-30 00:00:00' AND ts < TIMESTAMP '1970-01-01 00:00:00'",
         False),
        ("ts > TIMESTAMP '1970-01-01 12:00:00' AND ts < TIMESTAMP '1970-01-02 00:00:00'",
         False),  # part of day 0
    ],
    # ids 0 to 199: twenty partitions of ten ids.
    "truncate(10, id)": [
        ("id < 40", True),  # id_trunc < 40
        ("id <= 59", True),  # id_trunc < 60
        ("id >= 75", False),  # id_trunc > 70: 70 to 79 only in part
        ("id = 65", False),
        ("id >= 60 AND id < 70", True),  # with partition 60's delete files
    ],
}


def _transformed_siblings(spark, catalog, spec, stem):
    """Sibling v2 tables db.<stem>_floe and db.<stem>_spark partitioned by `spec`, deleting
    merge-on-read, whose source column has no metrics (so only a partition can prove a
    filter), each with the same two appends of rows every 3 hours from 1969-12-24 (ids 0
    to 199): their names, floe Tables, and a check that both hold the same rows and
    current summary (returning Spark's)."""
    column = "ts" if "ts" in spec else "id"
    catalog.create_namespace_if_not_exists("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        pa.field("ts", pa.timestamp("us", tz="UTC"))])
    names = (f"db.{stem}_floe", f"db.{stem}_spark")
    tables = [catalog.create_table(name, schema, partition_by=spec, properties={
        "format-version": "2", "write.delete.mode": "merge-on-read",
        f"write.metadata.metrics.column.{column}": "none"}) for name in names]
    start = datetime.datetime(1969, 12, 24, tzinfo=datetime.timezone.utc)
    for first in (0, 100):  # two appends: two files in most partitions
        ids = list(range(first, first + 100))
        data = pa.table({"id": ids, "ts": [start + datetime.timedelta(hours=3 * (i % 100))
                                           for i in ids]}, schema=schema)
        for table in tables:
            table.append(data, threads=1)  # one task: the same files, in the same order, in both
    keys = ["operation", "added-delete-files", "removed-delete-files",
            "added-position-deletes", "deleted-data-files", "deleted-records",
            "total-delete-files", "total-position-deletes", "total-records",
            "total-data-files", "changed-partition-count"]

    def rows(name):
        return spark.sql(f"SELECT id, ts FROM floe.{name}").toArrow()

    def compare(where):
        assert _same_rows(rows(names[1]), rows(names[0])) == [], where
        ours, theirs = [{k: t.refresh().current_snapshot().summary.get(k) for k in keys}
                        for t in tables]
        assert ours == theirs, where
        return theirs

    return names, tables, compare


@pytest.mark.parametrize("spec", sorted(TRANSFORMED_DELETES))
def test_merge_on_read_deletes_prove_whole_files_by_transformed_partitions_as_spark(
        spark, catalog, spec):
    """Spark deletes by metadata when the filter's strict projection (Projections.strict)
    holds for every planned file's partition, whatever the transform: day and truncate
    keep strict orders, with iceberg-java's fix of pre-1970 day bounds. floe decides alike:
    on sibling v2 tables whose source column has no metrics (so only the partition can
    prove it), each delete either removes the same files by metadata in both, or writes
    delete files in both; the rows and summaries agree. A delete by metadata also removes
    the delete files of the partitions it proves whole, as Spark's DeleteFiles by row
    filter does."""
    names, tables, compare = _transformed_siblings(spark, catalog, spec,
                                                   "strict" + spec.split("(")[0])
    removed_deletes = 0
    for where, by_metadata in TRANSFORMED_DELETES[spec]:
        result = tables[0].refresh().delete(where)
        spark.sql(f"DELETE FROM floe.{names[1]} WHERE {where}")
        assert result.committed, where
        theirs = compare(where)
        removed_deletes += int(theirs["removed-delete-files"] or 0)
        if by_metadata:
            assert result.delete_files == 0 and result.files_removed > 0, where
        else:
            assert result.delete_files > 0 and result.files_removed == 0, where
    assert removed_deletes > 0  # some went with their partitions


def test_copy_on_write_deletes_drop_partition_delete_files_only_by_metadata_as_spark(
        spark, catalog):
    """A copy-on-write DELETE whose every planned file is proved whole goes by metadata in
    Spark (a DeleteFiles by row filter), which also removes the delete files of the
    partitions it proves. One that proves some files but not all rewrites the files
    holding matches instead, and every delete file stays, even in a proved partition.
    floe's copy-on-write delete does the same, on day(ts) partitions with merge-on-read
    delete files in them."""
    names, tables, compare = _transformed_siblings(spark, catalog, "day(ts)", "cowday")
    for where in ("ts = TIMESTAMP '1969-12-27 03:00:00'",    # day -5
                  "ts = TIMESTAMP '1970-01-04 03:00:00'"):   # day 3
        assert tables[0].refresh().delete(where).delete_files == 2
        spark.sql(f"DELETE FROM floe.{names[1]} WHERE {where}")
        compare(where)
    spark.sql(f"ALTER TABLE floe.{names[1]} SET TBLPROPERTIES "
              "('write.delete.mode' = 'copy-on-write')")
    cow = {"write.delete.mode": "copy-on-write"}
    # Days -6 and -5 match whole, but the scan also plans day -4 (the pre-1970 widening)
    # and the fixed projection proves day -5 only: Spark rewrites, and day -5's delete
    # files stay.
    where = "ts >= TIMESTAMP '1969-12-26 00:00:00' AND ts < TIMESTAMP '1969-12-28 00:00:00'"
    result = tables[0].refresh().delete(where, options=cow)
    spark.sql(f"DELETE FROM floe.{names[1]} WHERE {where}")
    theirs = compare(where)
    assert result.files_removed == 4 and theirs["removed-delete-files"] is None
    assert theirs["total-delete-files"] == "4"
    # Days 3 and 4, proved: by metadata, with day 3's delete files.
    where = "ts >= TIMESTAMP '1970-01-04 00:00:00'"
    result = tables[0].refresh().delete(where, options=cow)
    spark.sql(f"DELETE FROM floe.{names[1]} WHERE {where}")
    theirs = compare(where)
    assert result.files_removed == 4 and theirs["removed-delete-files"] == "2"


@pytest.mark.parametrize("version", [2, 3])
def test_remove_dangling_deletes_as_sparks_rewrite_data_files_does(spark, catalog, version):
    """Compaction with remove-dangling-deletes, by floe and by Spark's rewrite_data_files on
    sibling tables of the same files: three regions, two rewritten (three small files each)
    and one left alone (a single file), after a merge-on-read DELETE of every file and a
    later append. The rewrite gives its files the starting snapshot's sequence number;
    then, on v2, the position delete files of the rewritten partitions are older than
    every data file left there and are removed in a second "replace" snapshot, while the
    region left alone keeps its own; on v3 the rewrite already dropped the vectors of the
    files it replaced, and neither makes a second snapshot. The same rows, live delete
    files, snapshots, summaries and data sequence numbers in both tables."""
    names, tables, schema = _merge_on_read_siblings(catalog, f"dangling{version}", version)
    regions = ["eu", "us/west", "Zürich"]
    for start, count in ((0, 300), (300, 300), (600, 300)):
        ids = list(range(start, start + count))
        # Zürich only in the first append: one file there, which the rewrite leaves.
        region_count = 3 if start == 0 else 2
        data = pa.table({"id": ids, "region": [regions[i % region_count] for i in ids]},
                        schema=schema)
        for table in tables:
            table.append(data, threads=1)  # one task: the same files, in the same order, in both
        if start == 300:
            for name in names:
                spark.sql(f"DELETE FROM floe.{name} WHERE id % 10 = 7")
    result = tables[0].refresh().rewrite(min_input_files=2, remove_dangling_deletes=True)
    assert result.files_rewritten == 6
    theirs = spark.sql(f"CALL floe.system.rewrite_data_files(table => '{names[1]}', "
                       "options => map('min-input-files', '2', "
                       "'remove-dangling-deletes', 'true'))").collect()[0]
    assert result.delete_files_removed == theirs.removed_delete_files_count
    assert result.delete_files_removed > 0

    def rows(name):
        return spark.sql(f"SELECT id, region FROM floe.{name}").toArrow()

    def live_deletes(name):
        return sorted((r.content, r.file_format, r.record_count, r.region)
                      for r in spark.sql(f"SELECT content, file_format, record_count, "
                                         f"partition.region AS region "
                                         f"FROM floe.{name}.delete_files").collect())

    def data_sequences(name):
        return sorted((r.sequence_number, r.region) for r in spark.sql(
            f"SELECT sequence_number, data_file.partition.region AS region "
            f"FROM floe.{name}.entries WHERE status < 2 AND data_file.content = 0").collect())

    assert _same_rows(rows(names[1]), rows(names[0])) == []
    assert sorted(rows(names[0]).column("id").to_pylist()) == \
        [i for i in range(900) if not (i % 10 == 7 and i < 600)]
    assert live_deletes(names[0]) == live_deletes(names[1])
    # Only the region the rewrite left keeps delete files.
    assert {r[3] for r in live_deletes(names[0])} == {"Zürich"}
    assert data_sequences(names[0]) == data_sequences(names[1])
    snapshots = [t.refresh().snapshots() for t in tables]
    assert [s.operation for s in snapshots[0]] == [s.operation for s in snapshots[1]]
    # v2: the rewrite, then the removal of the dangling files; v3: the rewrite only.
    expected = ["replace", "replace"] if version == 2 else ["append", "replace"]
    assert [s.operation for s in snapshots[0][-2:]] == expected
    keys = ("removed-delete-files", "removed-position-deletes", "removed-dvs",
            "total-delete-files", "total-position-deletes", "total-data-files",
            "total-records", "deleted-data-files", "added-data-files")
    for back in (1, 2):
        assert {k: snapshots[0][-back].summary.get(k) for k in keys} == \
            {k: snapshots[1][-back].summary.get(k) for k in keys}, back


@pytest.mark.parametrize("upgrade", [False, True])
def test_rewrite_position_deletes_as_sparks_rewrite_position_delete_files_does(
        spark, catalog, upgrade):
    """floe's rewrite_position_deletes and Spark's rewrite_position_delete_files on sibling
    v2 tables of the same files and the same Spark-written deletes: three data files in
    each of "eu" and "us/west", one in "Zürich"; every file gets a position delete file
    from Spark's merge-on-read DELETE, then Spark's rewrite_data_files compacts "eu", whose
    three delete files now delete nothing. With min-input-files 2, both rewrite the delete
    files of "eu" (dropping them: no output) and of "us/west" (one new file per data
    file, with the newest data sequence number of those replaced) and leave "Zürich"'s
    single file. With `upgrade`, the tables go to format v3 first (Spark's ALTER TABLE)
    and a DELETE replaces one "us/west" position delete file with a deletion vector: the
    rewrite turns the partition's files into one deletion vector per data file. The same rows, live delete files (kind, rows, target,
    partition, blob size), delete sequence numbers, result counts and summaries."""
    stem = "rewdel3" if upgrade else "rewdel2"
    names, tables, schema = _merge_on_read_siblings(catalog, stem, 2)
    regions = ["eu", "us/west", "Zürich"]
    for start in (0, 300, 600):
        ids = list(range(start, start + 300))
        region_count = 3 if start == 0 else 2  # Zürich only in the first append
        data = pa.table({"id": ids, "region": [regions[i % region_count] for i in ids]},
                        schema=schema)
        for table in tables:
            table.append(data, threads=1)  # one task: the same files, in the same order, in both
    for name in names:
        spark.sql(f"DELETE FROM floe.{name} WHERE id % 10 = 6 OR id % 10 = 7")
        spark.sql(f"CALL floe.system.rewrite_data_files(table => '{name}', "
                  "where => 'region = \"eu\"', options => map('min-input-files', '2'))")
        if upgrade:
            spark.sql(f"ALTER TABLE floe.{name} SET TBLPROPERTIES ('format-version' = '3')")
            spark.sql(f"DELETE FROM floe.{name} WHERE id IN (1, 4, 10, 13)")

    result = tables[0].refresh().rewrite_position_deletes(min_input_files=2)
    theirs = spark.sql(f"CALL floe.system.rewrite_position_delete_files(table => "
                       f"'{names[1]}', options => map('min-input-files', '2'))").collect()[0]
    assert result.committed
    assert result.delete_files_removed == theirs.rewritten_delete_files_count > 0
    assert result.delete_files == theirs.added_delete_files_count > 0

    def rows(name):
        return spark.sql(f"SELECT id, region FROM floe.{name}").toArrow()

    def data_file_names(name):  # data file path -> what it holds (the paths differ)
        return {r.file_path: (r.record_count, bytes(r.lower_bounds[1]))
                for r in spark.sql(f"SELECT file_path, record_count, lower_bounds "
                                   f"FROM floe.{name}.data_files").collect()}

    def live_deletes(name):
        targets = data_file_names(name)
        described = []
        for r in spark.sql(f"SELECT * FROM floe.{name}.delete_files").collect():
            if r.file_format == "PUFFIN":
                target = r.referenced_data_file
                size = r.content_size_in_bytes
            else:
                target = bytes(r.lower_bounds[2147483546]).decode()
                assert bytes(r.upper_bounds[2147483546]).decode() == target
                size = None
            described.append((r.content, r.file_format, r.record_count,
                              r.partition.region, targets.get(target), size))
        return sorted(described, key=repr)

    def delete_sequences(name):
        return sorted((r.sequence_number, r.region) for r in spark.sql(
            f"SELECT sequence_number, data_file.partition.region AS region "
            f"FROM floe.{name}.entries WHERE status < 2 AND data_file.content = 1"
        ).collect())

    assert _same_rows(rows(names[1]), rows(names[0])) == []
    deleted = {1, 4, 10, 13} if upgrade else set()
    assert sorted(rows(names[0]).column("id").to_pylist()) == \
        [i for i in range(900) if i % 10 not in (6, 7) and i not in deleted]
    assert live_deletes(names[0]) == live_deletes(names[1])
    described = live_deletes(names[0])
    # "eu"'s deletes are gone; "Zürich" keeps its one Parquet file; "us/west" holds one
    # delete file per data file (vectors after the upgrade).
    assert {d[3] for d in described} == {"us/west", "Zürich"}
    west = [d for d in described if d[3] == "us/west"]
    assert len(west) == len({d[4] for d in west}) == 3
    assert {d[1] for d in west} == ({"PUFFIN"} if upgrade else {"PARQUET"})
    assert delete_sequences(names[0]) == delete_sequences(names[1])
    snapshots = [t.refresh().snapshots() for t in tables]
    assert [s.operation for s in snapshots[0]] == [s.operation for s in snapshots[1]]
    keys = ("operation", "added-delete-files", "removed-delete-files",
            "added-position-delete-files", "removed-position-delete-files",
            "added-position-deletes", "removed-position-deletes", "added-dvs",
            "removed-dvs", "total-delete-files", "total-position-deletes",
            "total-records", "total-data-files", "changed-partition-count")
    assert {k: snapshots[0][-1].summary.get(k) for k in keys} == \
        {k: snapshots[1][-1].summary.get(k) for k in keys}
    # Nothing left to rewrite under the defaults (at most two files a partition).
    assert not tables[0].refresh().rewrite_position_deletes().committed


@pytest.mark.parametrize("partitioned", [True, False])
def test_partition_granularity_deletes_as_sparks_writer_writes_them(spark, catalog,
                                                                   partitioned):
    """write.delete.granularity=partition on v2 sibling tables (nine partitions, or none,
    two appends): floe's merge-on-read deletes and Spark's DELETE each write one position
    delete file per partition, holding the deletes of all its data files (no bounds once
    it names several), and leave the earlier files be; then floe's
    rewrite_position_deletes and Spark's rewrite_position_delete_files merge each
    partition's files into one. The same rows, delete files (rows, partition, bounds,
    sizes of columns) and summaries at every step."""
    names, tables, schema = _merge_on_read_siblings(
        catalog, "granularity_p" if partitioned else "granularity_u", 2, partitioned,
        {"write.delete.granularity": "partition"})
    _append_regions(tables, schema)

    def rows(name):
        return spark.sql(f"SELECT id, region FROM floe.{name}").toArrow()

    def delete_files(name):
        return sorted(((r.record_count, r.partition.region if partitioned else None,
                        r.lower_bounds is None or 2147483546 not in r.lower_bounds,
                        r.value_counts)
                       for r in spark.sql(f"SELECT * FROM floe.{name}.delete_files"
                                          ).collect()), key=repr)

    keys = ["operation", "added-delete-files", "removed-delete-files",
            "added-position-delete-files", "removed-position-delete-files",
            "added-position-deletes", "removed-position-deletes", "total-delete-files",
            "total-position-deletes", "total-records", "changed-partition-count"]

    def summaries():
        return [{k: t.refresh().current_snapshot().summary.get(k) for k in keys}
                for t in tables]

    for where in ("id IN (3, 13, 23, 903, 913, 1000)", "id IN (4, 904, 1717)"):
        tables[0].refresh().delete(where)
        spark.sql(f"DELETE FROM floe.{names[1]} WHERE {where}")
        assert _same_rows(rows(names[1]), rows(names[0])) == [], where
        assert delete_files(names[0]) == delete_files(names[1]), where
        ours, theirs = summaries()
        assert ours == theirs, where
    described = delete_files(names[0])
    # Some file names several data files, and so has no bounds.
    assert any(d[0] > 1 and d[2] for d in described), described

    result = tables[0].refresh().rewrite_position_deletes(min_input_files=2)
    theirs = spark.sql(f"CALL floe.system.rewrite_position_delete_files(table => "
                       f"'{names[1]}', options => map('min-input-files', '2'))").collect()[0]
    assert result.delete_files_removed == theirs.rewritten_delete_files_count > 0
    assert result.delete_files == theirs.added_delete_files_count > 0
    assert _same_rows(rows(names[1]), rows(names[0])) == []
    assert delete_files(names[0]) == delete_files(names[1])
    ours, theirs = summaries()
    assert ours == theirs
    survivors = [i for i in range(1800)
                 if i not in (3, 13, 23, 903, 913, 1000, 4, 904, 1717)]
    assert sorted(rows(names[0]).column("id").to_pylist()) == survivors


@pytest.mark.parametrize("version,partitioned", [(2, True), (3, True), (2, False), (3, False)])
def test_merge_on_read_deletes_write_delete_files_as_sparks_writer_does(spark, catalog, version,
                                                                       partitioned):
    """A merge-on-read DELETE, by floe and by Spark on sibling tables of the same files
    (nine partitions or none, two appends: 18 or 2 data files): the same rows (and on v3 lineage) read
    by Spark's Iceberg reader, and one delete file per data file holding a deleted row: on
    v3 a deletion vector of the same cardinality and blob size (the same Roaring
    encoding), on v2 a Parquet position delete file with the same positions, bounds and
    metrics. A second delete over the same files merges into each file's delete file,
    which replaces the old one; a delete by partition removes the files (and on v3 their
    vectors) by metadata in both. Whether a delete goes by metadata is decided as Spark
    decides it, by proof from partitions and metrics, not by the rows: a delete of every
    row of the first append's files by a filter their metrics cannot prove (an IN list
    past 200 values) writes delete files in both; one their metrics prove removes the
    second append's files. The snapshot summaries agree (on v2 but for file sizes:
    Parquet's bytes are parquet-java's against Arrow's)."""
    names, tables, schema = _merge_on_read_siblings(
        catalog, f"mor{version}{'p' if partitioned else 'u'}", version, partitioned)
    _append_regions(tables, schema)
    lineage = ", _row_id, _last_updated_sequence_number" if version == 3 else ""

    def rows(name):
        return spark.sql(f"SELECT id, region{lineage} FROM floe.{name}").toArrow()

    def region_of(r):
        return (r.partition.region or "") if partitioned else ""

    def delete_files(name):
        """What each live delete file says, without its own path, and how many each data
        file has."""
        live = spark.sql(f"SELECT * FROM floe.{name}.delete_files").collect()
        per_file, described = {}, []
        for r in live:
            if version == 3:
                assert r.file_format == "PUFFIN"
                assert r.column_sizes is None and r.value_counts is None
                assert r.lower_bounds is None and r.upper_bounds is None
                target = r.referenced_data_file
                described.append((r.record_count, r.content_size_in_bytes,
                                  region_of(r)))
            else:
                assert r.file_format == "PARQUET" and r.referenced_data_file is None
                assert r.value_counts is None and r.null_value_counts is None
                target = bytes(r.lower_bounds[2147483546]).decode()
                assert bytes(r.upper_bounds[2147483546]).decode() == target
                described.append((r.record_count, region_of(r),
                                  sorted(r.column_sizes), r.split_offsets,
                                  bytes(r.lower_bounds[2147483545]),
                                  bytes(r.upper_bounds[2147483545])))
            per_file[target] = per_file.get(target, 0) + 1
        return sorted(described), set(per_file.values())

    keys = ["operation", "added-dvs", "removed-dvs", "added-delete-files",
            "removed-delete-files", "added-position-delete-files",
            "removed-position-delete-files", "added-position-deletes",
            "removed-position-deletes", "deleted-data-files", "deleted-records",
            "total-delete-files", "total-position-deletes", "total-records",
            "total-data-files", "changed-partition-count"]
    if version == 3:
        keys += ["added-files-size", "removed-files-size"]

    def summaries():
        return [{k: t.refresh().current_snapshot().summary.get(k) for k in keys}
                for t in tables]

    def ending_in(digit, below):  # floe's filters have no modulo
        return f"id IN ({', '.join(str(i) for i in range(digit, below, 10))})"

    deletes = [ending_in(7, 1500),                                # a vector per file
               f"{ending_in(3, 1800)} OR {ending_in(7, 1800)}",   # merged into them
               "region = 'eu' OR region = '東京'",      # by metadata (if partitioned)
               f"id IN ({', '.join(str(i) for i in range(900))})",  # not proved: vectors
               "id >= 900 AND id < 1800"]               # proved by metrics: by metadata
    by_metadata = {deletes[2]: partitioned, deletes[4]: True}
    for where in deletes:
        result = tables[0].refresh().delete(where)
        spark.sql(f"DELETE FROM floe.{names[1]} WHERE {where}")
        assert result.committed
        assert _same_rows(rows(names[1]), rows(names[0])) == [], where
        assert delete_files(names[0]) == delete_files(names[1]), where
        ours, theirs = summaries()
        assert ours == theirs, where
        if by_metadata.get(where):
            assert result.delete_files == 0 and result.files_removed > 0, where
            assert ours["deleted-data-files"] == str(result.files_removed), where
        else:
            assert result.delete_files == int(ours["added-delete-files"]) > 0, where
            assert delete_files(names[0])[1] == {1}  # one per data file
        if where == deletes[3]:  # every row of the first append is gone, by positions
            survivors = [i for i in range(900, 1800) if i % 10 not in (3, 7)
                         and REGIONS[i % len(REGIONS)] not in ("eu", "東京")]
            assert sorted(rows(names[0]).column("id").to_pylist()) == survivors
    assert rows(names[0]).num_rows == 0
    assert tables[0].to_arrow().num_rows == 0


ROW_LEVEL_SUMMARY = ("operation", "added-data-files", "deleted-data-files", "added-records",
                     "deleted-records", "total-records", "total-data-files",
                     "changed-partition-count", "added-delete-files", "removed-delete-files",
                     "added-position-deletes", "added-dvs", "total-delete-files",
                     "total-position-deletes")


def _floe_reads_sparks_table(spark, table, name, version):
    """floe's scan of a table Spark wrote (its data files, delete files and lineage) gives
    the rows Spark's own scan gives."""
    columns = ["id", "region", "amount"]
    if version == 3:
        columns += ["_row_id", "_last_updated_sequence_number"]
    ours = table.refresh().scan(columns=columns).to_arrow()
    theirs = spark.sql(f"SELECT {', '.join(columns)} FROM floe.{name}").toArrow()
    assert _same_rows(theirs, ours) == [], name


def _sibling_row_level_tables(catalog, prefix, version, properties, partitioned=True):
    """Tables db.<prefix>_floe and db.<prefix>_spark of the same two appends (900 rows,
    nine partitions, or none): their names, the floe Tables and the schema."""
    catalog.create_namespace_if_not_exists("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        pa.field("region", pa.string()), pa.field("amount", pa.float64())])
    names = tuple(f"db.{prefix}_{who}" for who in ("floe", "spark"))
    tables = [catalog.create_table(name, schema,
                                   partition_by="region" if partitioned else None,
                                   properties={"format-version": str(version), **properties})
              for name in names]
    for start in (0, 450):
        ids = list(range(start, start + 450))
        data = pa.table({"id": ids, "region": [REGIONS[i % len(REGIONS)] for i in ids],
                         "amount": [i / 4 for i in ids]}, schema=schema)
        for table in tables:
            table.append(data, threads=1)  # one task: the same file order, so row ids, in both
    return names, tables, schema


def test_update_arithmetic_on_decimals_and_integer_division_as_sparks_update_does(
        spark, catalog):
    """Decimal arithmetic and integer division in floe's update against Spark's UPDATE
    (ANSI mode) on sibling tables of the same 400 rows (eight partitions): decimal
    products, quotients (Spark's result scales and half-up rounding, twice), literals of
    more places than the column, int and long columns inside decimal expressions, and
    integer `/` (double, truncated towards zero) give the same values bit for bit; a value
    that overflows the column fails both, and neither table changes."""
    catalog.create_namespace_if_not_exists("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False),
                        pa.field("part", pa.int32()), pa.field("qty", pa.int32()),
                        pa.field("total", pa.int64()),
                        pa.field("price", pa.decimal128(10, 2)),
                        pa.field("rate", pa.decimal128(5, 3))])
    names = ("db.arith_floe", "db.arith_spark")
    tables = [catalog.create_table(name, schema, partition_by="part") for name in names]
    prices = ["1.25", "-0.01", "0.00", "999.99", "12345.67", "-33.33", "0.05", None,
              "0.15", "-2.45", "7.77"]
    rates = ["0.125", "-1.005", "0.001", "99.999", None, "0.335", "-0.004"]
    quantities = [3, -7, None, 2147483647, -2147483648, 1, -1, 9, 100]
    count = 400
    data = pa.table({
        "id": list(range(count)),
        "part": [i % 8 for i in range(count)],
        "qty": [quantities[i % len(quantities)] for i in range(count)],
        # Some longs past 2^53, which become the nearest double in `/`.
        "total": [None if i % 13 == 0 else 2**60 + i if i % 17 == 5 else (i - 200) * 1000003
                  for i in range(count)],
        "price": [None if prices[i % len(prices)] is None else
                  decimal.Decimal(prices[i % len(prices)]) for i in range(count)],
        "rate": [None if rates[i % len(rates)] is None else
                 decimal.Decimal(rates[i % len(rates)]) for i in range(count)],
    }, schema=schema)
    for table in tables:
        table.append(data, threads=2)
    small = "qty BETWEEN -100 AND 100"
    updates = [
        ("price = price * 1.1 + 2", "id < 200"),
        ("price = price / 3 - rate", "id >= 100"),
        ("price = price * qty / 7", small),
        ("price = -price * 0.005 + rate / 3", "true"),
        ("price = price * 1.005", "id >= 50 AND id < 300"),
        ("qty = qty / 2, total = (total + qty) / 4 * 3", "true"),
        ("total = total / 7", "total IS NOT NULL"),
    ]
    for set_text, where in updates:
        result = tables[0].refresh().update(set_text, "id >= 0" if where == "true" else where)
        assert result.committed and result.rows_updated > 0, set_text
        spark.sql(f"UPDATE floe.{names[1]} SET {set_text} WHERE {where}")
        ours, theirs = (spark.table(f"floe.{n}").toArrow() for n in names)
        assert _same_rows(theirs, ours) == [], set_text
    # A value beyond decimal(10, 2) fails both; neither table changes.
    before = [spark.table(f"floe.{n}").toArrow() for n in names]
    with pytest.raises(floe.FloeError, match="does not fit column price"):
        tables[0].refresh().update("price = price * 100000000", "price > 1")
    with pytest.raises(Exception, match="(?i)overflow|out of range|cannot be represented"):
        spark.sql(f"UPDATE floe.{names[1]} SET price = price * 100000000 WHERE price > 1")
    after = [spark.table(f"floe.{n}").toArrow() for n in names]
    assert all(_same_rows(b, a) == [] for b, a in zip(before, after))


ROW_LEVEL_CASES = [(version, mode, partitioned) for partitioned in (True, False)
                   for mode in ("copy-on-write", "merge-on-read") for version in (2, 3)]


@pytest.mark.parametrize("version,mode,partitioned", ROW_LEVEL_CASES)
def test_updates_rewrite_rows_as_sparks_update_does(spark, catalog, version, mode,
                                                    partitioned):
    """floe's update and Spark's UPDATE (copy-on-write or merge-on-read, by
    write.update.mode) on sibling tables of the same files (nine partitions, two
    appends): the same rows after an update that changes values in place and one that
    moves rows to another partition, the same lineage on v3 (updated rows keep their
    _row_id and take the new sequence number), the same snapshot counters, delete files
    included."""
    names, tables, schema = _sibling_row_level_tables(
        catalog, f"upd{version}{mode[0]}{'p' if partitioned else 'u'}", version,
        {"write.update.mode": mode}, partitioned)
    lineage = ", _row_id, _last_updated_sequence_number" if version == 3 else ""
    # Spark SQL reads -0.0 as a decimal literal (so +0.0); the cast keeps the sign.
    updates = [("amount = -0.0", "amount = CAST('-0.0' AS DOUBLE)", "id < 100 AND region = 'eu'"),
               ({"region": "Zürich", "amount": None}, "region = 'Zürich', amount = NULL",
                "id IN (5, 14, 23, 460, 899)"),
               # Arithmetic of the row's columns (long widened to double), each value
               # computed from the row as it was.
               ("amount = amount * -2.5 + id / 3, id = id + 100000",
                "amount = amount * -2.5 + id / 3, id = id + 100000",
                "id BETWEEN 300 AND 450 AND region <> 'eu'")]
    for set_text, spark_set, where in updates:
        result = tables[0].refresh().update(set_text, where)
        assert result.committed and result.rows_updated > 0
        assert (result.delete_files > 0) == (mode == "merge-on-read")
        spark.sql(f"UPDATE floe.{names[1]} SET {spark_set} WHERE {where}")
        ours, theirs = (spark.sql(f"SELECT id, region, amount{lineage} FROM floe.{n}").toArrow()
                        for n in names)
        assert _same_rows(theirs, ours) == [], spark_set
        summaries = [{k: t.refresh().current_snapshot().summary.get(k)
                      for k in ROW_LEVEL_SUMMARY} for t in tables]
        assert summaries[0] == summaries[1], spark_set
        _floe_reads_sparks_table(spark, tables[1], names[1], version)
    moved = spark.sql(f"SELECT id FROM floe.{names[0]} WHERE region = 'Zürich' AND amount IS NULL")
    assert sorted(r.id for r in moved.collect()) == [5, 14, 23, 460, 899]


@pytest.mark.parametrize("version,mode,partitioned", ROW_LEVEL_CASES)
def test_upserts_replace_and_insert_rows_as_sparks_merge_does(spark, catalog, tmp_path,
                                                              version, mode, partitioned):
    """floe's upsert and Spark's MERGE INTO ... WHEN MATCHED THEN UPDATE SET * WHEN NOT
    MATCHED THEN INSERT * (copy-on-write or merge-on-read, by write.merge.mode) on
    sibling tables of the same files (nine partitions, two appends), twice, the second
    upsert replacing rows the first wrote: the same rows (values that break things:
    -0.0, NaN, NULL, unicode and characters partition paths escape), the same lineage on
    v3 for every row that existed before (inserted rows' ids depend on file order), the
    same snapshot counters, delete files included."""
    names, tables, schema = _sibling_row_level_tables(
        catalog, f"ups{version}{mode[0]}{'p' if partitioned else 'u'}", version,
        {"write.merge.mode": mode}, partitioned)
    inputs = [
        # In place, moved, to NULL and unicode partitions, -0.0, NaN, NULL; new keys.
        pa.table({"id": [1, 10, 11, 13, 460, 899, 900, -1, 2**62],
                  "region": ["eu", "東京", None, "Zürich", "a=b&c", "new/part", "eu", None, ""],
                  "amount": [-0.0, float("nan"), None, 1e308, 5e-324, -1.5, 0.0, None, 2.0]},
                 schema=schema),
        # Rows the first upsert wrote (replaced and inserted) and untouched ones.
        pa.table({"id": list(range(0, 40, 3)) + [900, -1, 2**62, 901],
                  "region": ["tab\there"] * 14 + ["us/west", "50%", None, "eu"],
                  "amount": [float(i) for i in range(18)]}, schema=schema),
    ]
    existing = set(range(900))
    lineage = ""  # on v3: the _row_id of the rows the appends wrote, and every row's seq
    for round_number, data in enumerate(inputs):
        inserted = sorted(set(data.column("id").to_pylist()) - existing)
        if version == 3:
            # Rows the upserts inserted (and those replacing them) have file-order ids.
            lineage = (", CASE WHEN id BETWEEN 0 AND 899 THEN _row_id END AS _row_id,"
                       " _last_updated_sequence_number")
        result = tables[0].refresh().upsert(data, "id")
        assert result.committed
        assert result.rows_inserted == len(inserted)
        assert result.rows_updated == data.num_rows - len(inserted)
        assert (result.delete_files > 0) == (mode == "merge-on-read")
        source = tmp_path / f"upsert{round_number}.parquet"
        pq.write_table(data, source)
        spark.read.parquet(str(source)).createOrReplaceTempView("upsert_input")
        spark.sql(f"MERGE INTO floe.{names[1]} t USING upsert_input s ON t.id = s.id "
                  "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
        ours, theirs = (spark.sql(f"SELECT id, region, amount{lineage} FROM floe.{n}").toArrow()
                        for n in names)
        assert ours.num_rows == theirs.num_rows == len(existing | set(inserted))
        assert _same_rows(theirs, ours) == [], round_number
        summaries = [{k: t.refresh().current_snapshot().summary.get(k)
                      for k in ROW_LEVEL_SUMMARY} for t in tables]
        assert summaries[0] == summaries[1], round_number
        _floe_reads_sparks_table(spark, tables[1], names[1], version)
        existing |= set(inserted)
    # The values came through as given: the sign of -0.0, NaN, the extremes.
    final = {r["id"]: r for r in tables[0].to_arrow().to_pylist()}
    assert final[1]["amount"] == 0.0 and math.copysign(1, final[1]["amount"]) == -1
    assert math.isnan(final[10]["amount"]) and final[10]["region"] == "東京"
    assert final[13]["amount"] == 1e308 and final[460]["amount"] == 5e-324
    assert final[2**62]["region"] is None and final[2**62]["amount"] == 16.0
