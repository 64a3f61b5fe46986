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
import signal
import socket
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import files_under
from pyspark import cloudpickle

import floe
import floe.spark

cloudpickle.register_pickle_by_value(sys.modules[__name__])

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("part", pa.string())])
ROWS = 4000
SLOW_PARTITION = 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(log: pathlib.Path, text: str, process: subprocess.Popen, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while text not in (log.read_text(errors="replace") if log.exists() else ""):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{log.name} did not say {text!r}:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """spark://127.0.0.1:<port> with a worker on 127.0.0.2 and one on 127.0.0.3."""
    import pyspark

    home = pathlib.Path(pyspark.__file__).parent
    spark_class = str(home / "bin" / "spark-class")
    logs = tmp_path_factory.mktemp("cluster")
    env = dict(os.environ, SPARK_HOME=str(home), PYSPARK_PYTHON=sys.executable,
               SPARK_NO_DAEMONIZE="1")
    port = _free_port()
    processes = []

    def start(name: str, *args: str) -> tuple[subprocess.Popen, pathlib.Path]:
        log = logs / name
        process = subprocess.Popen(
            [spark_class, *args], env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
            start_new_session=True)
        processes.append(process)
        return process, log

    try:
        master, log = start("master", "org.apache.spark.deploy.master.Master",
                            "--host", "127.0.0.1", "--port", str(port), "--webui-port", "0")
        _wait_for(log, "I have been elected leader", master, 120)
        workers = [
            start(f"worker-{host}", "org.apache.spark.deploy.worker.Worker",
                  "--host", host, "--cores", "1", "--memory", "1g", "--webui-port", "0",
                  "--work-dir", str(logs / f"work-{host}"), f"spark://127.0.0.1:{port}")
            for host in ("127.0.0.2", "127.0.0.3")
        ]
        for worker, log in workers:
            _wait_for(log, "Successfully registered with master", worker, 120)
        yield f"spark://127.0.0.1:{port}"
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


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
        .config("spark.speculation", "true")
        .config("spark.speculation.interval", "100ms")
        .config("spark.speculation.multiplier", "1.5")
        .config("spark.speculation.quantile", "0.5")
        .config("spark.speculation.minTaskRuntime", "200ms")
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

    attempts = {tuple(int(x) for x in p.name.split("-")): p.read_text()
                for p in markers.iterdir()}
    straggler = [key for key in attempts if key[0] == SLOW_PARTITION and key[1] == 0]
    twins = [key for key in attempts if key[0] == SLOW_PARTITION and key[1] > 0]
    assert straggler and attempts[straggler[0]] == "stalled", attempts
    assert twins, f"Spark launched no speculative attempt: {attempts}"

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
    straggler_id = straggler[0][2]
    assert not [p for p in on_disk if f"-{straggler_id}-" in pathlib.Path(p).name]
