"""A speculative second attempt of a native write task (floe's plugin on a standalone cluster
of two one-core workers, tests/data/spark_cluster.py): the first attempt of one partition hands
floe every row, then stalls; Spark launches a twin on the other worker, commits the twin's
message, and kills the straggler, whose floe task deletes the files it wrote. Checked on disk:
every data file left is one the table references, none is the straggler's."""

import os
import pathlib
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT, files_under, spark_line
from pyspark import cloudpickle
from spark_cluster import SPECULATION, assert_speculated, standalone_cluster
from spark_session import iceberg_catalog

cloudpickle.register_pickle_by_value(sys.modules[__name__])

ROWS = 4000
SLOW_PARTITION = 0


@pytest.fixture(scope="module")
def speculative_spark(tmp_path_factory, warehouse):
    from pyspark.sql import SparkSession

    line = spark_line()
    jars = [ROOT / "build" / "spark" / f"floe-spark-{line}_2.13.jar",
            ROOT / "build" / "spark-jars" / f"iceberg-spark-runtime-{line}_2.13-1.11.0.jar",
            ROOT / "build" / "spark-jars" / "sqlite-jdbc-3.54.1.0.jar"]
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    with standalone_cluster(tmp_path_factory.mktemp("cluster")) as master:
        session = (
            SparkSession.builder.master(master)
            .appName(f"floe-plugin-tests-speculation-{line}")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.pyspark.python", sys.executable)
            .config("spark.executor.memory", "512m")
            .config("spark.jars", ",".join(str(j) for j in jars))
            .config(map=iceberg_catalog(warehouse))
            .config("spark.sql.queryExecutionListeners", "org.apache.floe.spark.CapturedPlans")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.ui.enabled", "false")
            .config(map=SPECULATION)
            .getOrCreate()
        )
        session.sparkContext.setLogLevel("ERROR")
        yield session
        session.stop()


def _stall_first_attempt(markers: str):
    """mapInArrow: every attempt records itself; the first attempt of SLOW_PARTITION passes
    its rows on, then stalls for longer than the test runs."""

    def passthrough(batches):
        from pyspark import TaskContext

        context = TaskContext.get()
        marker = pathlib.Path(markers) / (
            f"{context.partitionId()}-{context.attemptNumber()}-{context.taskAttemptId()}")
        marker.write_text("started")
        yield from batches
        if context.partitionId() == SLOW_PARTITION and context.attemptNumber() == 0:
            marker.write_text("stalled")
            time.sleep(600)

    return passthrough


def test_a_speculative_twin_wins_and_the_stragglers_files_do_not_survive(
        speculative_spark, warehouse, tmp_path):
    spark = speculative_spark
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.db")
    spark.sql("CREATE TABLE floe.db.speculated (id bigint, part string) USING iceberg "
              "PARTITIONED BY (part)")
    source = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"id": range(ROWS), "part": [f"p{i % 8}" for i in range(ROWS)]}),
                   source)
    markers = tmp_path / "markers"
    markers.mkdir()
    df = spark.read.parquet(str(source)).repartition(4, "id")
    df = df.mapInArrow(_stall_first_attempt(str(markers)), df.schema)
    spark._jvm.org.apache.floe.spark.CapturedPlans.drain()
    spark.conf.set("spark.floe.iceberg.write.enabled", "true")
    started = time.monotonic()
    df.writeTo("floe.db.speculated").option("distribution-mode", "none").append()
    assert time.monotonic() - started < 300  # the straggler's 600 s were not waited for
    plans = "\n".join(spark._jvm.org.apache.floe.spark.CapturedPlans.drain())
    assert "FloeIcebergNativeWrite" in plans and "declined" not in plans, plans

    straggler = assert_speculated(markers, SLOW_PARTITION)

    ids = [r.id for r in spark.table("floe.db.speculated").collect()]
    assert sorted(ids) == list(range(ROWS))  # every row exactly once
    assert spark.table("floe.db.speculated.snapshots").count() == 1
    referenced = {r.file_path.removeprefix("file:") for r in
                  spark.sql("SELECT file_path FROM floe.db.speculated.files").collect()}
    data = warehouse / "db" / "speculated" / "data"
    # The killed straggler's floe task deletes its files as it unwinds.
    deadline = time.monotonic() + 60
    while True:
        on_disk = {p for p in files_under(data) if not p.endswith(".crc")}
        if on_disk == referenced or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert on_disk == referenced
    straggler_id = straggler[2]
    assert not [p for p in on_disk if f"-{straggler_id}-" in pathlib.Path(p).name]
