"""The Spark plugin benchmark (issue 51): Spark's own Iceberg writer against the same write
through floe's plugin (build/spark/floe-spark-4.1_2.13.jar: floe's native tasks, iceberg-java's
commit), in one Spark 4.1 session on local[2], the plugin's flag switched per run.

The same lineitem-like rows (bench/spark/run_spark_benchmark.py's generator: 16 columns) are
written with `INSERT INTO ... SELECT` into sibling tables of one SQLite catalog, zstd level 3 on
every table, from two inputs: a cached DataFrame (counted before any timer starts) and a
Parquet file (written once before). Layouts: unpartitioned, and fanout by bucket(16,
l_orderkey) + days(l_shipdate). Runs alternate between the arms; each arm's median of --runs
is compared, every run's time printed. Each plugin run is checked to have run floe's native
tasks (the executed plan, from the plugin's CapturedPlans) and each Spark run Spark's own.
Written to bench/results/spark-plugin.{json,md}.

    PYTHONPATH=.venv/pyspark-4.1 .venv/bin/python bench/spark/run_plugin_benchmark.py
"""

import argparse
import json
import os
import re
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "spark"))
from run_spark_benchmark import lineitem  # noqa: E402

JARS = ROOT / "build" / "spark-jars"
PLUGIN = ROOT / "build" / "spark" / "floe-spark-4.1_2.13.jar"
LAYOUTS = {"unpartitioned": "", "fanout": "PARTITIONED BY (bucket(16, l_orderkey), days(l_shipdate))"}
FLAG = "spark.floe.iceberg.write.enabled"


def session(warehouse: pathlib.Path):
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    jars = [PLUGIN, JARS / "iceberg-spark-runtime-4.1_2.13-1.11.0.jar",
            JARS / "sqlite-jdbc-3.54.1.0.jar"]
    for jar in jars:
        assert jar.is_file(), f"{jar} is missing: run scripts/bootstrap.sh"
    spark = (
        SparkSession.builder.master("local[2]").appName("floe-plugin-benchmark")
        .config("spark.jars", ",".join(str(j) for j in jars))
        .config("spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog.floe", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.floe.type", "jdbc")
        .config("spark.sql.catalog.floe.uri", f"jdbc:sqlite:{warehouse / 'catalog.db'}")
        .config("spark.sql.catalog.floe.warehouse", f"file:{warehouse}")
        .config("spark.sql.queryExecutionListeners", "org.apache.floe.spark.CapturedPlans")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "6g")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    assert spark.version.startswith("4.1."), spark.version
    return spark


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=31)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "bench/results")
    args = parser.parse_args()

    warehouse = pathlib.Path(tempfile.mkdtemp(prefix="floe-plugin-bench-"))
    try:
        spark = session(warehouse)
        captured = spark._jvm.org.apache.floe.spark.CapturedPlans
        df = lineitem(spark, args.rows, args.days)
        parquet = warehouse / "lineitem.parquet"
        df.write.parquet(str(parquet))
        cached = lineitem(spark, args.rows, args.days).cache()
        assert cached.count() == args.rows
        cached.createOrReplaceTempView("cached_input")
        spark.read.parquet(str(parquet)).createOrReplaceTempView("parquet_input")
        spark.sql("CREATE NAMESPACE IF NOT EXISTS floe.b")
        results: dict = {}
        for source in ("parquet_input", "cached_input"):
            for layout, partitioning in LAYOUTS.items():
                key = f"{source.removesuffix('_input')}_{layout}"
                times = {"spark": [], "plugin": []}
                splits = []
                for run in range(args.runs):
                    for arm in ("spark", "plugin") if run % 2 == 0 else ("plugin", "spark"):
                        table = f"floe.b.{key}_{arm}_{run}"
                        spark.sql(
                            f"CREATE TABLE {table} (l_orderkey bigint, l_partkey bigint, "
                            "l_suppkey bigint, l_linenumber int, l_quantity decimal(15,2), "
                            "l_extendedprice decimal(15,2), l_discount decimal(15,2), "
                            "l_tax decimal(15,2), l_returnflag string, l_linestatus string, "
                            "l_shipdate date, l_commitdate date, l_receiptdate date, "
                            "l_shipinstruct string, l_shipmode string, l_comment string) "
                            f"USING iceberg {partitioning} TBLPROPERTIES ("
                            "'write.parquet.compression-codec'='zstd', "
                            "'write.parquet.compression-level'='3')")
                        captured.drain()
                        spark.conf.set(FLAG, "true" if arm == "plugin" else "false")
                        started = time.perf_counter()
                        spark.sql(f"INSERT INTO {table} SELECT * FROM {source}")
                        seconds = time.perf_counter() - started
                        spark.conf.unset(FLAG)
                        plans = "\n".join(captured.drain())
                        split = {}
                        if arm == "plugin":
                            assert "FloeIcebergNativeWrite" in plans, plans
                            found = re.search(r"input rows to Arrow (\d+) ms, floe writing "
                                              r"(\d+) ms", plans)
                            split = {"input_to_arrow_task_s": int(found[1]) / 1000,
                                     "floe_task_s": int(found[2]) / 1000}
                        else:
                            assert "Floe" not in plans and "AppendData" in plans, plans
                        rows = spark.table(table).count()
                        assert rows == args.rows, (table, rows)
                        files = spark.table(f"{table}.files").count()
                        times[arm].append(round(seconds, 2))
                        if split:
                            splits.append(split)
                        print(json.dumps({"case": key, "arm": arm, "run": run,
                                          "seconds": round(seconds, 2), "files": files,
                                          **split}), flush=True)
                        spark.sql(f"DROP TABLE {table} PURGE")
                results[key] = {arm: {"runs": t, "median": statistics.median(t)}
                                for arm, t in times.items()}
                # Task time summed over the tasks (2 run at once): where the plugin's goes.
                results[key]["plugin_tasks"] = {
                    k: statistics.median(s[k] for s in splits) for k in splits[0]}
        spark.stop()
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)

    lines = [
        "# Spark: floe's plugin against Spark's own Iceberg writer",
        "",
        f"`PYTHONPATH=.venv/pyspark-4.1 .venv/bin/python bench/spark/run_plugin_benchmark.py "
        f"--rows {args.rows} --runs {args.runs}` (Spark 4.1, iceberg-spark-runtime 1.11.0, "
        f"local[2], zstd level 3, {args.days} days; `INSERT INTO ... SELECT`; medians of "
        "alternating runs)",
        "",
        "| input, layout | Spark's writer s (runs) | floe's plugin s (runs) | plugin speed-up "
        "| plugin tasks: input rows to Arrow s | plugin tasks: floe writing s |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, arms in results.items():
        spark_s, plugin_s = arms["spark"]["median"], arms["plugin"]["median"]
        tasks = arms["plugin_tasks"]
        lines.append(f"| {key.replace('_', ', ')} | {spark_s} ({arms['spark']['runs']}) | "
                     f"{plugin_s} ({arms['plugin']['runs']}) | {spark_s / plugin_s:.2f}x | "
                     f"{tasks['input_to_arrow_task_s']} | {tasks['floe_task_s']} |")
    lines += [
        "",
        "The last two columns are task time summed over the tasks (two run at once on "
        "local[2]), medians over the runs: the first is the input (scan or shuffle read, "
        "rows) and Spark's ArrowWriter filling the batches floe pulls, the second floe's "
        "write task itself.",
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "spark-plugin.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out / "spark-plugin.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
