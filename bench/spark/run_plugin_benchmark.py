"""The Spark plugin benchmark (issue 51): Spark's own Iceberg writer against the same write
through floe's plugin (build/spark/floe-spark-4.1_2.13.jar: floe's native tasks, iceberg-java's
commit), in one Spark 4.1 session on local[2], the plugin's flag switched per run; and, as the
peer, the seeds' accelerator (Comet 1.2.0's native Iceberg writer) in a Spark 4.1 session of
its own (bench/spark/comet_peer.py, a second process: the peer's reference asks each arm its
own session), on the same rows and the same Parquet file.

The same lineitem-like rows (bench/spark/run_spark_benchmark.py's generator: 16 columns) are
written with `INSERT INTO ... SELECT` into sibling tables of one SQLite catalog, zstd level 3 on
every table, from two inputs: a cached DataFrame (counted before any timer starts) and a
Parquet file (written once before). Layouts: unpartitioned, and fanout by bucket(16,
l_orderkey) + days(l_shipdate). Runs alternate between the arms; each arm's median of --runs
is compared, every run's time printed. Each plugin run is checked to have run floe's native
tasks (the executed plan, from the plugin's CapturedPlans), each Spark run Spark's own, and
each Comet run Comet's native writer. `--no-comet` leaves the peer out. The Comet jar
(org.apache.datafusion:comet-spark-spark4.1_2.13:1.2.0, Maven) is fetched into
build/spark-jars on first use.
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
from run_spark_benchmark import lineitem, session_settings  # noqa: E402

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
        .config(map=session_settings(warehouse))
        .config("spark.sql.queryExecutionListeners", "org.apache.floe.spark.CapturedPlans")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    assert spark.version.startswith("4.1."), spark.version
    return spark


class CometPeer:
    """The peer's session in its own process (bench/spark/comet_peer.py)."""

    def __init__(self, warehouse: pathlib.Path, parquet: pathlib.Path, rows: int, days: int):
        import subprocess

        jar = JARS / "comet-spark-spark4.1_2.13-1.2.0.jar"
        if not jar.is_file():
            subprocess.run(["mvn", "-q", "-B", "dependency:copy",
                            "-Dartifact=org.apache.datafusion:comet-spark-spark4.1_2.13:1.2.0",
                            f"-DoutputDirectory={JARS}"], check=True)
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "spark" / "comet_peer.py"), str(warehouse),
             str(parquet), str(rows), str(days)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._expect("ready")

    def _expect(self, prefix: str) -> str:
        for line in self.process.stdout:
            if line.startswith(prefix):
                return line[len(prefix):].strip()
        raise RuntimeError(f"the Comet peer ended (exit {self.process.wait()})")

    def write(self, table: str, create: str, source: str) -> dict:
        self.process.stdin.write(json.dumps({"table": table, "create": create,
                                             "source": source}) + "\n")
        self.process.stdin.flush()
        return json.loads(self._expect("comet-peer "))

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=120)


def create_statement(table: str, partitioning: str) -> str:
    return (f"CREATE TABLE {table} (l_orderkey bigint, l_partkey bigint, "
            "l_suppkey bigint, l_linenumber int, l_quantity decimal(15,2), "
            "l_extendedprice decimal(15,2), l_discount decimal(15,2), "
            "l_tax decimal(15,2), l_returnflag string, l_linestatus string, "
            "l_shipdate date, l_commitdate date, l_receiptdate date, "
            "l_shipinstruct string, l_shipmode string, l_comment string) "
            f"USING iceberg {partitioning} TBLPROPERTIES ("
            "'write.parquet.compression-codec'='zstd', "
            "'write.parquet.compression-level'='3')")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=31)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "bench/results")
    parser.add_argument("--no-comet", dest="comet", action="store_false",
                        help="leave out the Comet peer")
    args = parser.parse_args()
    arms = ("spark", "plugin", "comet") if args.comet else ("spark", "plugin")

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
                times = {arm: [] for arm in arms}
                splits = []
                # A fresh peer session per case: Comet's driver grows over a session's writes
                # (one 12-write session here stalled the machine at 24 GiB).
                peer = CometPeer(warehouse / f"comet_{key}", parquet, args.rows, args.days) \
                    if args.comet else None
                for run in range(args.runs):
                    for arm in arms if run % 2 == 0 else arms[::-1]:
                        table = f"floe.b.{key}_{arm}_{run}"
                        if arm == "comet":
                            done = peer.write(table, create_statement(table, partitioning),
                                              source)
                            assert done["rows"] == args.rows, (table, done)
                            times[arm].append(done["seconds"])
                            print(json.dumps({"case": key, "arm": arm, "run": run, **done}),
                                  flush=True)
                            continue
                        spark.sql(create_statement(table, partitioning))
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
                            found = re.search(r"input to Arrow (\d+) ms, floe writing "
                                              r"(\d+) ms", plans)
                            kind = re.search(r"native tasks: input as (\w+)", plans)[1]
                            split = {"input_to_arrow_task_s": int(found[1]) / 1000,
                                     "floe_task_s": int(found[2]) / 1000, "input_as": kind}
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
                if peer is not None:
                    peer.close()
                results[key] = {arm: {"runs": t, "median": statistics.median(t)}
                                for arm, t in times.items()}
                # Task time summed over the tasks (2 run at once): where the plugin's goes.
                results[key]["plugin_tasks"] = {
                    k: statistics.median(s[k] for s in splits) for k in splits[0]
                    if k != "input_as"}
                results[key]["plugin_tasks"]["input_as"] = sorted({s["input_as"] for s in splits})
        spark.stop()
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)

    comet = "| Comet 1.2.0 s (runs) | plugin vs Comet " if args.comet else ""
    lines = [
        "# Spark: floe's plugin against Spark's own Iceberg writer"
        + (" and Comet's native writer" if args.comet else ""),
        "",
        f"`PYTHONPATH=.venv/pyspark-4.1 .venv/bin/python bench/spark/run_plugin_benchmark.py "
        f"--rows {args.rows} --runs {args.runs}{'' if args.comet else ' --no-comet'}` "
        f"(Spark 4.1, iceberg-spark-runtime 1.11.0, local[2], zstd level 3, {args.days} days; "
        "`INSERT INTO ... SELECT`; medians of alternating runs)",
        "",
        "| input, layout | Spark's writer s (runs) | floe's plugin s (runs) | plugin speed-up "
        f"{comet}| plugin tasks: input to Arrow s | plugin tasks: floe writing s "
        "| plugin tasks' input |",
        "| --- | ---: | ---: | ---: " + ("| ---: | ---: " if args.comet else "")
        + "| ---: | ---: | --- |",
    ]
    for key, entry in results.items():
        spark_s, plugin_s = entry["spark"]["median"], entry["plugin"]["median"]
        tasks = entry["plugin_tasks"]
        peer_cells = ""
        if args.comet:
            comet_s = entry["comet"]["median"]
            peer_cells = f"{comet_s} ({entry['comet']['runs']}) | {comet_s / plugin_s:.2f}x | "
        lines.append(f"| {key.replace('_', ', ')} | {spark_s} ({entry['spark']['runs']}) | "
                     f"{plugin_s} ({entry['plugin']['runs']}) | {spark_s / plugin_s:.2f}x | "
                     f"{peer_cells}{tasks['input_to_arrow_task_s']} | {tasks['floe_task_s']} | "
                     f"{', '.join(tasks['input_as'])} |")
    lines += [
        "",
        "The two task-time columns are summed over the tasks (two run at once on "
        "local[2]), medians over the runs: the first is the input (scan or shuffle read) and "
        "its conversion to the Arrow batches floe pulls (column by column from a columnar "
        "scan, through Spark's ArrowWriter from rows: the last column says which), the "
        "second floe's write task itself.",
    ]
    if args.comet:
        lines += [
            "",
            "Comet runs in a Spark 4.1 session of its own (bench/spark/comet_peer.py, the "
            "settings of ../shared/reference/comet-peer.md), each run checked to have run "
            "`CometIcebergWrite`; \"plugin vs Comet\" is Comet's time over the plugin's "
            "(above 1: the plugin is faster). Its cached input is Comet's own Arrow cache of "
            "the same rows, not Spark's.",
        ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "spark-plugin.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out / "spark-plugin.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
