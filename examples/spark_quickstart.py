"""floe inside Spark: Spark's executors write with floe's tasks, the driver commits once.

Run from any folder (needs pyspark 4.0 and Java 17+; the table lives in ./warehouse, the
embedded default catalog that the floe command and floe.Catalog() use):
    .venv/bin/python examples/spark_quickstart.py
"""

import os
import sys

import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import floe
import floe.spark

# The executors' Python workers import floe too: use this interpreter for them.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
spark = (
    SparkSession.builder.master("local[2]")
    .appName("floe-spark-quickstart")
    .config("spark.sql.session.timeZone", "UTC")
    .config("spark.sql.shuffle.partitions", "8")  # a small local job
    .config("spark.ui.enabled", "false")
    .getOrCreate()
)
floe.spark.register(spark)  # format "floe"

catalog = floe.Catalog()  # ./warehouse
catalog.create_namespace_if_not_exists("shop")
if catalog.table_exists("shop.orders"):
    catalog.drop_table("shop.orders")
schema = pa.schema(
    [
        pa.field("order_id", pa.int64(), nullable=False),
        pa.field("ts", pa.timestamp("us", tz="UTC")),
        pa.field("region", pa.string()),
        pa.field("amount", pa.float64()),
    ]
)
catalog.create_table("shop.orders", schema, partition_by="region, day(ts)")
warehouse = os.path.abspath("warehouse")

orders = (
    spark.range(0, 100_000, numPartitions=8)
    .select(
        F.col("id").alias("order_id"),
        F.timestamp_seconds(F.lit(1_704_067_200) + F.col("id") * 60).alias("ts"),
        F.element_at(F.array(F.lit("eu"), F.lit("us"), F.lit("ap")), (F.col("id") % 3 + 1).cast("int"))
        .alias("region"),
        (F.col("id") % 1000 / 4).alias("amount"),
    )
)

# Repartitioned by the table's partition values first, as Spark's Iceberg writer does:
# one task (and one file) per table partition.
floe.spark.write(orders, "shop.orders", warehouse=warehouse)

# A dynamic partition overwrite: the partitions of these rows are replaced, the rest kept.
fixed = orders.where("region = 'ap'").withColumn("amount", F.col("amount") * 2)
fixed.write.format("floe").mode("overwrite").option("warehouse", warehouse).save("shop.orders")

# Read back through floe's scan, one Spark partition per data file.
read = spark.read.format("floe").option("warehouse", warehouse).load("shop.orders")
by_region = read.groupBy("region").agg(F.count("*").alias("rows"), F.sum("amount").alias("total"))
totals = {r["region"]: (r["rows"], r["total"]) for r in by_region.collect()}
print(f"(rows, total amount) by region: {dict(sorted(totals.items()))}")
assert sum(rows for rows, _ in totals.values()) == 100_000

table = catalog.load_table("shop.orders")
for snapshot in table.snapshots():
    print(f"snapshot {snapshot.snapshot_id}: {snapshot.operation}, "
          f"{snapshot.summary.get('total-records')} rows, "
          f"{snapshot.summary.get('total-data-files')} files, "
          f"spark.app.id={snapshot.summary.get('spark.app.id')}")
spark.stop()
