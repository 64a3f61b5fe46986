"""The Spark benchmark (issue 20): floe's data source against Spark's own Iceberg writer
(iceberg-spark-runtime 1.11.0), in one run, on local[2].

The same DataFrame (lineitem-like rows generated in Spark: 16 columns, ship dates over
--days days, cached and counted before any timer starts) is written into sibling tables
of one SQLite catalog, with the same codec and level on both:
  - Spark's writer: ``df.writeTo("floe.b.<t>").append()`` (its own distribution);
  - floe's data source: ``floe.spark.write(df, "b.<t>")`` (the same distribution,
    computed by floe.spark.distribute).
Layouts: unpartitioned, and fanout by bucket(16, l_orderkey) + day(l_shipdate).
Printed and written to bench/results/spark.{json,md}: wall-clock per arm, the ratio, and
where floe's time goes: the same DataFrame handed to a Python data source that drops every
batch (Spark's Arrow conversion and the Python worker, no floe), and floe's tasks'
share (the rest).

    .venv/bin/python bench/spark/run_spark_benchmark.py --rows 10000000
(needs the Release package: FLOE_PACKAGE_BUILD_TYPE=Release scripts/bootstrap.sh)
"""

import argparse
import json
import pathlib
import shutil
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
JARS = ROOT / "build" / "spark-jars"
LAYOUTS = {"unpartitioned": None, "fanout": "bucket(16, l_orderkey), day(l_shipdate)"}
CODEC = {"write.parquet.compression-codec": "zstd", "write.parquet.compression-level": "3"}


def session_settings(warehouse: pathlib.Path) -> dict:
    """What every Spark benchmark session sets: iceberg-java's JdbcCatalog `floe` over an
    SQLite file in `warehouse`, UTC, a 6 GiB driver, no UI."""
    return {
        "spark.sql.catalog.floe": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.floe.type": "jdbc",
        "spark.sql.catalog.floe.uri": f"jdbc:sqlite:{warehouse / 'catalog.db'}",
        "spark.sql.catalog.floe.warehouse": f"file:{warehouse}",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.memory": "6g",
        "spark.ui.enabled": "false",
    }


def session(warehouse: pathlib.Path):
    import os

    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    jars = ",".join(str(JARS / name) for name in (
        "iceberg-spark-runtime-4.0_2.13-1.11.0.jar", "sqlite-jdbc-3.54.1.0.jar"))
    spark = (
        SparkSession.builder.master("local[2]").appName("floe-spark-benchmark")
        .config("spark.jars", jars)
        .config(map=session_settings(warehouse))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def lineitem(spark, rows: int, days: int):
    """Lineitem-like rows (the columns of bench/write/lineitem.cc), generated in Spark."""
    return spark.range(rows).selectExpr(
        "id DIV 4 AS l_orderkey",
        "(id * 7919) % 200000 AS l_partkey",
        "(id * 104729) % 10000 AS l_suppkey",
        "CAST(id % 7 + 1 AS INT) AS l_linenumber",
        "CAST((id % 50) + 1 AS DECIMAL(15, 2)) AS l_quantity",
        "CAST(((id * 31) % 10000000) / 100.0 AS DECIMAL(15, 2)) AS l_extendedprice",
        "CAST((id % 11) / 100.0 AS DECIMAL(15, 2)) AS l_discount",
        "CAST((id % 9) / 100.0 AS DECIMAL(15, 2)) AS l_tax",
        "element_at(array('A', 'N', 'R'), CAST(id % 3 + 1 AS INT)) AS l_returnflag",
        "element_at(array('F', 'O'), CAST(id % 2 + 1 AS INT)) AS l_linestatus",
        f"date_add(DATE'1995-01-01', CAST(id * {days} DIV {rows} AS INT)) AS l_shipdate",
        f"date_add(DATE'1995-01-01', CAST(id * {days} DIV {rows} AS INT) + 30) AS l_commitdate",
        f"date_add(DATE'1995-01-01', CAST(id * {days} DIV {rows} AS INT) + 35) AS l_receiptdate",
        "element_at(array('DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'),"
        " CAST(id % 4 + 1 AS INT)) AS l_shipinstruct",
        "element_at(array('AIR', 'MAIL', 'SHIP', 'TRUCK', 'RAIL', 'FOB', 'REG AIR'),"
        " CAST(id % 7 + 1 AS INT)) AS l_shipmode",
        "concat('carefully ', CAST(id % 997 AS STRING), ' final deposits') AS l_comment",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=31)
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "bench/results")
    args = parser.parse_args()

    import floe
    import floe.spark
    from pyspark.sql.datasource import DataSource, DataSourceArrowWriter, WriterCommitMessage

    class Drop(DataSource):  # the hand-off alone: Spark -> Arrow -> Python worker
        @classmethod
        def name(cls):
            return "floe_bench_drop"

        def writer(self, schema, overwrite):
            return DropWriter()

    class DropWriter(DataSourceArrowWriter):
        def write(self, iterator):
            for _ in iterator:
                pass
            return WriterCommitMessage()

    warehouse = pathlib.Path(tempfile.mkdtemp(prefix="floe-spark-bench-"))
    try:
        catalog = floe.Catalog(warehouse=str(warehouse))
        catalog.create_namespace("b")
        spark = session(warehouse)
        floe.spark.register(spark)
        spark.dataSource.register(Drop)
        df = lineitem(spark, args.rows, args.days).cache()
        assert df.count() == args.rows
        arrow_schema = df.limit(0).toArrow().schema
        results = {}
        for layout, spec in LAYOUTS.items():
            for arm in ("spark", "floe"):
                name = f"{layout}_{arm}"
                catalog.create_table(f"b.{name}", arrow_schema, partition_by=spec,
                                     properties=CODEC)
                started = time.perf_counter()
                if arm == "spark":
                    df.writeTo(f"floe.b.{name}").append()
                else:
                    floe.spark.write(df, f"b.{name}", warehouse=str(warehouse))
                seconds = time.perf_counter() - started
                table = catalog.load_table(f"b.{name}")
                files = len(table.scan().plan_files())
                rows = int(table.current_snapshot().summary["total-records"])
                assert rows == args.rows, (name, rows)
                results[name] = {"seconds": round(seconds, 2), "files": files}
                print(json.dumps({name: results[name]}), flush=True)
            if spec:
                started = time.perf_counter()
                floe.spark.distribute(df, catalog.load_table(f"b.{layout}_floe")).write.format(
                    "floe_bench_drop").mode("append").save()
            else:
                started = time.perf_counter()
                df.write.format("floe_bench_drop").mode("append").save()
            results[f"{layout}_handoff"] = {"seconds": round(time.perf_counter() - started, 2)}
            print(json.dumps({f"{layout}_handoff": results[f"{layout}_handoff"]}), flush=True)
        spark.stop()
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)

    lines = [
        "# Spark: floe's data source against Spark's Iceberg writer",
        "",
        f"`.venv/bin/python bench/spark/run_spark_benchmark.py --rows {args.rows}` "
        f"(local[2], zstd level 3, {args.days} days)",
        "",
        "| layout | Spark's writer s | floe s | floe speed-up | hand-off alone s "
        "| floe's tasks s | files Spark / floe |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for layout in LAYOUTS:
        spark_s = results[f"{layout}_spark"]["seconds"]
        floe_s = results[f"{layout}_floe"]["seconds"]
        handoff = results[f"{layout}_handoff"]["seconds"]
        lines.append(
            f"| {layout} | {spark_s} | {floe_s} | {spark_s / floe_s:.2f}x | {handoff} | "
            f"{max(floe_s - handoff, 0):.2f} | {results[f'{layout}_spark']['files']} / "
            f"{results[f'{layout}_floe']['files']} |"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "spark.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out / "spark.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
