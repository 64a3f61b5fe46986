"""The Spark examples under examples/ run, each in a fresh folder (their ./warehouse),
and leave the table they say they leave, as pyiceberg reads it."""

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).parents[2] / "examples").glob("spark_*.py"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(example, tmp_path):
    from pyiceberg.catalog.sql import SqlCatalog

    result = subprocess.run([sys.executable, str(example)], capture_output=True, text=True,
                            cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr[-5000:]
    assert "snapshot" in result.stdout
    warehouse = tmp_path / "warehouse"
    table = SqlCatalog("floe", uri=f"sqlite:///{warehouse / 'catalog.db'}",
                       warehouse=f"file://{warehouse}").load_table("shop.orders")
    assert table.scan().to_arrow().num_rows == 100_000
    snapshots = table.snapshots()
    assert [s.summary.operation.value for s in snapshots] == ["append", "overwrite"]
    assert all(s.summary["engine-name"] == "floe" for s in snapshots)


def test_there_is_an_example():
    assert EXAMPLES
