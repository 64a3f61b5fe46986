"""Shared fixtures for the Python package's tests: a fresh warehouse with floe's embedded
SQLite catalog, and pyiceberg's SqlCatalog on the same catalog file (the independent
reader and writer every test checks floe against)."""

import pathlib
import sys

import pyarrow as pa
import pytest

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[0] / "interop"))  # arrow_compare
sys.path.insert(0, str(HERE.parents[0] / "data"))  # generate_events

import floe  # noqa: E402  (the package installed in .venv)


@pytest.fixture(autouse=True, scope="session")
def _installed_package():
    # The package under test is the installed one, never a source tree on sys.path.
    assert "site-packages" in floe.__file__, floe.__file__


@pytest.fixture
def warehouse(tmp_path):
    path = tmp_path / "warehouse"
    path.mkdir()
    return path


@pytest.fixture
def catalog(warehouse):
    return floe.Catalog(warehouse=str(warehouse))


@pytest.fixture
def pyiceberg_catalog(catalog, warehouse):
    from pyiceberg.catalog.sql import SqlCatalog

    catalog.list_namespaces()  # floe made the catalog tables, as the embedded default does
    return SqlCatalog(
        "floe", uri=f"sqlite:///{warehouse / 'catalog.db'}", warehouse=f"file://{warehouse}"
    )


from disk_listing import files_under  # noqa: E402,F401  (tests/data; the modules import it from here)


from extremes import EXTREMES_SCHEMA, extremes  # noqa: E402,F401  (tests/data)
