"""Speculative execution: a deliberately slow task gets a speculative twin, the twin's
message is the one Spark commits, and the slow attempt's files (on disk, its message
never delivered) do not survive the job.

Spark never launches a speculative copy on a host where the task already runs
(TaskSetManager.dequeueTaskFromList skips `speculative && hasAttemptOnHost`), so in
local mode, where every task runs on one host, speculation never happens. This module
therefore starts a small standalone cluster: a master and two workers of one core, each
worker on its own loopback address (127.0.0.2, 127.0.0.3), so that Spark sees two
hosts. Rows and files are checked with pyiceberg, which reads the same SQLite catalog."""

import os
import pathlib
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import files_under
from spark_cluster import SPECULATION, assert_speculated, standalone_cluster
from pyspark import cloudpickle

import floe
import floe.spark

cloudpickle.register_pickle_by_value(sys.modules[__name__])

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("part", pa.string())])
ROWS = 4000
SLOW_PARTITION = 0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """spark://127.0.0.1:<port> with a worker on 127.0.0.2 and one on 127.0.0.3."""
    with standalone_cluster(tmp_path_factory.mktemp("cluster")) as master:
        yield master


@pytest.fixture(scope="module")
def speculative_spark(cluster):
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable  # the driver's Python workers too
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master(cluster)
        .appName("floe-tests-speculation")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.executor.memory", "512m")
        .config(map=SPECULATION)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


class _SlowWriter(floe.spark.FloeBatchWriter):
    """floe's batch writer, except that the first attempt of one Spark partition hands
    floe its rows (so its files are on disk), records its attempt id, then stalls for
    longer than the test runs: the speculative twin finishes first and Spark kills the
    straggler. Every attempt records itself in `markers`."""

    markers: str = ""

    def write(self, iterator):
        from pyspark import TaskContext

        context = TaskContext.get()
        marker = pathlib.Path(self.markers) / (
            f"{context.partitionId()}-{context.attemptNumber()}-{context.taskAttemptId()}")
        marker.write_text("started")
        if context.partitionId() != SLOW_PARTITION or context.attemptNumber() != 0:
            return super().write(iterator)

        def stalled():
            yield from iterator
            marker.write_text("stalled")
            time.sleep(600)

        return super().write(stalled())


def _slow_source(markers: pathlib.Path):
    class _SlowSource(floe.spark.FloeDataSource):
        @classmethod
        def name(cls):
            return "floe_slow"

        def writer(self, schema, overwrite):
            writer = _SlowWriter(self._parsed, schema, overwrite, None)
            writer.markers = str(markers)
            return writer

    return _SlowSource


def test_a_speculative_twin_wins_and_the_stragglers_files_do_not_survive(
        speculative_spark, catalog, warehouse, tmp_path):
    from pyiceberg.catalog.sql import SqlCatalog

    catalog.create_namespace_if_not_exists("db")
    table = catalog.create_table("db.speculated", SCHEMA, partition_by="part")
    data = pa.table({"id": range(ROWS), "part": [f"p{i % 8}" for i in range(ROWS)]},
                    schema=SCHEMA)
    source = tmp_path / "rows.parquet"
    pq.write_table(data, source)
    markers = tmp_path / "markers"
    markers.mkdir()
    speculative_spark.dataSource.register(_slow_source(markers))
    df = speculative_spark.read.parquet(str(source)).repartition(4, "id")
    started = time.monotonic()
    df.write.format("floe_slow").option("warehouse", str(warehouse)).mode("append").save(
        "db.speculated")
    assert time.monotonic() - started < 300  # the straggler's 600 s were not waited for

    straggler = assert_speculated(markers, SLOW_PARTITION)

    table.refresh()
    summary = table.current_snapshot().summary
    assert summary["engine-name"] == "floe"
    assert len(table.snapshots()) == 1
    pyiceberg = SqlCatalog("floe", uri=f"sqlite:///{warehouse / 'catalog.db'}",
                           warehouse=f"file://{warehouse}").load_table("db.speculated")
    ids = pyiceberg.scan().to_arrow()["id"].to_pylist()
    assert sorted(ids) == list(range(ROWS))  # every row exactly once
    # The straggler was killed, its files deleted by the commit's sweep: what is on disk
    # is exactly what the manifests reference.
    referenced = {task.file.file_path.removeprefix("file://").removeprefix("file:")
                  for task in pyiceberg.scan().plan_files()}
    data_dir = pathlib.Path(table.location.removeprefix("file://").removeprefix("file:"))
    on_disk = set(files_under(data_dir / "data"))
    assert on_disk == referenced
    straggler_id = straggler[2]
    assert not [p for p in on_disk if f"-{straggler_id}-" in pathlib.Path(p).name]
