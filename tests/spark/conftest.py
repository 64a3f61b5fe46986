"""Fixtures for the Spark data source's tests: one local Spark session per test module
(local[2], tasks retried up to 4 times) with Spark's own Iceberg catalog over floe's
SQLite catalog (iceberg-java's JdbcCatalog on the same file), so every table floe's data
source writes is read back by Spark's Iceberg reader, and Spark's Iceberg writer writes
the sibling tables floe is compared with."""

import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parents[0] / "data"))  # extremes
sys.path.insert(0, str(HERE.parents[0] / "interop"))  # arrow_compare

import floe  # noqa: E402  (the package installed in .venv)
import spark_session  # noqa: E402  (tests/data)

JARS = ROOT / "build" / "spark-jars"
ICEBERG_RUNTIME = JARS / "iceberg-spark-runtime-4.0_2.13-1.11.0.jar"
SQLITE_JDBC = JARS / "sqlite-jdbc-3.54.1.0.jar"


@pytest.fixture(autouse=True, scope="session")
def _installed_package():
    assert "site-packages" in floe.__file__, floe.__file__


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    path = tmp_path_factory.mktemp("warehouse")
    floe.Catalog(warehouse=str(path)).list_namespaces()  # the catalog's tables exist
    return path


@pytest.fixture(scope="module")
def spark(warehouse):
    """The module's Spark session. Its Iceberg catalog is named "floe", as floe's rows
    in the shared SQLite catalog are keyed."""
    from pyspark.sql import SparkSession

    for jar in (ICEBERG_RUNTIME, SQLITE_JDBC):
        assert jar.is_file(), f"{jar} is missing: run scripts/bootstrap.sh"
    builder = (
        SparkSession.builder.master("local[2,4]")
        .appName(f"floe-tests-{pathlib.Path(os.environ.get('PYTEST_CURRENT_TEST', 'x')).stem}")
        .config("spark.jars", f"{ICEBERG_RUNTIME},{SQLITE_JDBC}")
        .config(map=spark_session.iceberg_catalog(warehouse))
        .config("spark.sql.sources.partitionOverwriteMode", "dynamic")
    )
    session = spark_session.start(builder, shuffle_partitions=8, driver_memory="2g")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def catalog(warehouse):
    return floe.Catalog(warehouse=str(warehouse))


from disk_listing import files_under  # noqa: E402,F401  (tests/data; the modules import it from here)
