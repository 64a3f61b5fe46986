"""Fixtures for floe's Spark plugin (build/spark/floe-spark-<line>_2.13.jar): one local Spark
session per test module, on the Spark line of the pyspark it runs under (`make spark-test`
runs the module on pyspark 4.0 and again on 4.1), with iceberg-spark-runtime 1.11.0 for that
line, Spark's own Iceberg catalog over an SQLite file (iceberg-java's JdbcCatalog; floe's
Catalog opens the same file), and the plugin found by Spark through its service file: only
the jar is on the classpath, no extension is named. Each executed plan is recorded by the
plugin's CapturedPlans listener, so a test can tell which plan ran."""

import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parents[0] / "data"))  # extremes, spark_session
sys.path.insert(0, str(HERE.parents[0] / "interop"))  # arrow_compare

import floe  # noqa: E402  (the package installed in .venv)
import spark_session  # noqa: E402
from disk_listing import files_under  # noqa: E402,F401  (tests/data)

JARS = ROOT / "build" / "spark-jars"

# A made-up credential in the catalog's FileIO properties: no plan string, explain output
# or captured plan may contain it.
SECRET = "floe-test-secret-4f1c9e"


def spark_line() -> str:
    import pyspark

    return ".".join(pyspark.__version__.split(".")[:2])


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    path = tmp_path_factory.mktemp("warehouse")
    floe.Catalog(warehouse=str(path)).list_namespaces()  # the catalog's tables exist
    return path


@pytest.fixture(scope="module")
def spark(warehouse):
    from pyspark.sql import SparkSession

    line = spark_line()
    jars = [ROOT / "build" / "spark" / f"floe-spark-{line}_2.13.jar",
            JARS / f"iceberg-spark-runtime-{line}_2.13-1.11.0.jar",
            JARS / "sqlite-jdbc-3.54.1.0.jar"]
    for jar in jars:
        assert jar.is_file(), f"{jar} is missing: run scripts/bootstrap.sh"
    builder = (
        SparkSession.builder.master("local[2,4]")  # a failed task is retried
        .appName(f"floe-plugin-tests-{line}")
        .config("spark.jars", ",".join(str(j) for j in jars))
        .config(map=spark_session.iceberg_catalog(warehouse))
        .config("spark.sql.catalog.floe.s3.secret-access-key", SECRET)
        .config("spark.sql.queryExecutionListeners", "org.apache.floe.spark.CapturedPlans")
        .config("spark.sql.extendedExplainProviders", "org.apache.floe.spark.FloeExplainInfo")
    )
    session = spark_session.start(builder, shuffle_partitions=8, driver_memory="2g")
    assert session.version.startswith(line + "."), session.version
    yield session
    session.stop()


@pytest.fixture(scope="module")
def catalog(warehouse):
    return floe.Catalog(warehouse=str(warehouse))
