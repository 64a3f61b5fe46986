"""One Arrow per process, whatever is imported first: floe with pyarrow, polars, DuckDB,
pandas and Python's own OpenSSL users (hashlib, ssl), in both orders, each in a fresh
interpreter."""

import subprocess
import sys

import pytest

WORK = """
import pyarrow as pa
t = pa.table({"id": pa.array([1, 2, 3], pa.int64())})
c = floe.Catalog(warehouse=sys.argv[1])
c.create_namespace("db")
table = c.create_table("db.t", t.schema)
table.append(t)
assert table.to_arrow().num_rows == 3
import hashlib, ssl, hmac
assert hashlib.sha256(b"x").hexdigest()
ssl.create_default_context()
print("ok")
"""


@pytest.mark.parametrize(
    "first",
    [
        "import floe",
        "import pyarrow, pyarrow.parquet, floe",
        "import polars, floe",
        "import duckdb, floe",
        "import pandas, floe",
        "import hashlib, ssl, floe",
        "import floe, pyarrow.parquet, polars, duckdb, pandas",
    ],
)
def test_import_orders(first, tmp_path):
    code = f"import sys\n{first}\nimport floe\n{WORK}"
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "wh")], capture_output=True, text=True,
        timeout=120,
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_the_extension_shares_pyarrows_libraries():
    import pathlib

    import pyarrow

    import floe._floe as ext

    linked = subprocess.run(["ldd", ext.__file__], capture_output=True, text=True).stdout
    wheel = pathlib.Path(pyarrow.__file__).parent
    for library in ("libarrow.so", "libparquet.so"):
        lines = [line for line in linked.splitlines() if library in line]
        assert lines and all(str(wheel) in line for line in lines), linked
