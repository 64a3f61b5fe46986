"""One Arrow per process, whatever is imported first: floe with pyarrow, polars, DuckDB,
pandas and Python's own OpenSSL users (hashlib, ssl), in both orders, each in a fresh
interpreter."""

import pathlib
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


def test_a_task_works_where_pyarrow_compute_was_never_imported(tmp_path):
    """Arrow's compute functions (casts, validity checks) are registered by
    libarrow_compute's initialisation, which pyarrow runs only on `import pyarrow.compute`.
    A Spark Python worker reads its batches over IPC and never imports it: the extension
    must initialise them itself."""
    sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "data"))
    import pickle

    import pyarrow as pa
    from extremes import EXTREMES_SCHEMA, extremes

    import floe

    catalog = floe.Catalog(warehouse=str(tmp_path / "wh"))
    catalog.create_namespace("db")
    table = catalog.create_table("db.t", EXTREMES_SCHEMA)
    (tmp_path / "plan.pkl").write_bytes(pickle.dumps(table.plan_write()))
    data = extremes(0, 50)
    with pa.ipc.new_stream(str(tmp_path / "in.arrows"), data.schema) as writer:
        writer.write_table(data)
    code = """
import pickle, sys
import floe, pyarrow as pa
plan = pickle.loads(open(sys.argv[1] + "/plan.pkl", "rb").read())
reader = pa.ipc.open_stream(open(sys.argv[1] + "/in.arrows", "rb").read())
assert "pyarrow.compute" not in sys.modules
with floe.WriteTask(plan, 0, 0) as task:
    assert task.write(reader) == 50
    open(sys.argv[1] + "/message", "wb").write(task.finish())
"""
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    committer = table.new_committer(pickle.loads((tmp_path / "plan.pkl").read_bytes()))
    committer.add((tmp_path / "message").read_bytes())
    committer.commit()
    assert table.to_arrow().num_rows == 50
