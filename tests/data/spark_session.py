"""The local Spark session every Spark test module starts (tests/spark on pyspark 4.0,
tests/spark41 on pyspark 4.1): the settings they share, and floe's data source registered
once the session exists."""

import os
import sys


def iceberg_catalog(warehouse) -> dict:
    """Spark's own Iceberg catalog `floe` (iceberg-java's JdbcCatalog) over the SQLite file
    floe's Catalog opens in `warehouse`, with iceberg-java's SQL extensions. Every read
    loads the table's current metadata: floe commits behind Spark's back."""
    return {
        "spark.sql.extensions":
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.floe": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.floe.type": "jdbc",
        "spark.sql.catalog.floe.uri": f"jdbc:sqlite:{warehouse / 'catalog.db'}",
        "spark.sql.catalog.floe.warehouse": f"file:{warehouse}",
        "spark.sql.catalog.floe.cache-enabled": "false",
    }


def start(builder, shuffle_partitions: int, driver_memory: str):
    """`builder` (its master, name and own settings given) with the shared settings, started,
    with floe's data source registered. Workers run this interpreter, which imports the
    installed floe."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        builder.config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", driver_memory)
        .config("spark.python.worker.reuse", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    import floe.spark

    floe.spark.register(session)
    return session
