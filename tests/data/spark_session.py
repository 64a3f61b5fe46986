"""The local Spark session every Spark test module starts (tests/spark on pyspark 4.0,
tests/spark41 on pyspark 4.1): the settings they share, and floe's data source registered
once the session exists."""

import os
import sys


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
