"""Comet's native Iceberg writer as the plugin benchmark's peer: one Spark 4.1 session with
Comet 1.2.0 (`org.apache.datafusion:comet-spark-spark4.1_2.13:1.2.0`, fetched by
run_plugin_benchmark.py) at the settings with which its writer engages
(../shared/reference/comet-peer.md), in a process of its own, driven by
run_plugin_benchmark.py: it prints `ready` once its inputs exist, then reads one JSON command a
line on stdin (a table to create and the input to insert from) and answers each on stdout with
one line starting `comet-peer ` (the run's seconds, rows and files). Every run is checked to
have run Comet's native writer (`CometIcebergWrite` in the executed plan).

    python comet_peer.py <warehouse> <parquet input> <rows> <days>
"""

import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "spark"))
from run_spark_benchmark import lineitem, session_settings  # noqa: E402

JARS = ROOT / "build" / "spark-jars"
COMET = JARS / "comet-spark-spark4.1_2.13-1.2.0.jar"

SETTINGS = {
    "spark.plugins": "org.apache.spark.CometPlugin",
    "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
                            "org.apache.comet.CometSparkSessionExtensions",
    "spark.shuffle.manager":
        "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager",
    "spark.memory.offHeap.enabled": "true",
    "spark.memory.offHeap.size": "4g",
    "spark.comet.enabled": "true",
    "spark.comet.exec.enabled": "true",
    "spark.comet.exec.shuffle.enabled": "true",
    "spark.comet.write.iceberg.splitOperator.enabled": "true",
    "spark.comet.write.iceberg.enabled": "true",
    "spark.comet.exec.localTableScan.enabled": "true",
    "spark.comet.exec.inMemoryCache.enabled": "true",
    "spark.comet.explainFallback.enabled": "true",
}


def session(warehouse: pathlib.Path):
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    jars = [COMET, JARS / "iceberg-spark-runtime-4.1_2.13-1.11.0.jar",
            JARS / "sqlite-jdbc-3.54.1.0.jar"]
    builder = (
        SparkSession.builder.master("local[2]").appName("floe-plugin-benchmark-comet")
        .config("spark.jars", ",".join(str(j) for j in jars))
        .config("spark.driver.extraClassPath", ":".join(str(j) for j in jars))
        .config(map=session_settings(warehouse))
    )
    for key, value in SETTINGS.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    assert spark.version.startswith("4.1."), spark.version
    return spark


def executed_plan(df) -> str:
    return df._jdf.queryExecution().executedPlan().toString()


def main() -> None:
    warehouse, parquet = pathlib.Path(sys.argv[1]), sys.argv[2]
    rows, days = int(sys.argv[3]), int(sys.argv[4])
    warehouse.mkdir(parents=True, exist_ok=True)
    spark = session(warehouse)
    cached = lineitem(spark, rows, days).cache()
    assert cached.count() == rows
    cached.createOrReplaceTempView("cached_input")
    spark.read.parquet(parquet).createOrReplaceTempView("parquet_input")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.b")
    print("ready", flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        table = command["table"]
        spark.sql(command["create"])
        started = time.perf_counter()
        result = spark.sql(f"INSERT INTO {table} SELECT * FROM {command['source']}")
        seconds = time.perf_counter() - started
        plan = executed_plan(result)
        assert "CometIcebergWrite" in plan, plan
        written = spark.table(table).count()
        files = spark.table(f"{table}.files").count()
        spark.sql(f"DROP TABLE {table} PURGE")
        print("comet-peer " + json.dumps({"seconds": round(seconds, 2), "rows": written,
                                          "files": files}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
