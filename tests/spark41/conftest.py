"""Fixtures for the pushed-filter tests: pyspark 4.1 (installed apart by
scripts/bootstrap.sh into .venv/pyspark-4.1 and put first on PYTHONPATH by `make
spark-test`), whose Python data sources receive Spark's pushed filters; one local Spark
session for the module. No Iceberg runtime: these tests read with floe's data source and
compare with Spark's own evaluation of the same filters over the same rows in memory."""

import pathlib
import sys

import pytest

import floe  # noqa: E402  (the package installed in .venv)

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parents[0] / "data"))  # spark_session
sys.path.insert(0, str(HERE.parents[0] / "interop"))  # arrow_compare

import spark_session  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _pyspark_4_1():
    import pyspark

    assert pyspark.__version__.startswith("4.1."), (
        f"pyspark {pyspark.__version__} from {pyspark.__file__}: run `make spark-test`, which "
        "puts .venv/pyspark-4.1 first on PYTHONPATH")
    assert "site-packages" in floe.__file__, floe.__file__


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    return tmp_path_factory.mktemp("warehouse")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("floe-tests-pushed-filters")
        .config("spark.sql.python.filterPushdown.enabled", "true")
    )
    session = spark_session.start(builder, shuffle_partitions=4, driver_memory="1g")
    yield session
    session.stop()
