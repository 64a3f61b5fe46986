"""The examples under examples/ run, each in a fresh folder (their ./warehouse)."""

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).parents[2] / "examples").glob("python_*.py"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(example, tmp_path):
    result = subprocess.run([sys.executable, str(example)], capture_output=True, text=True,
                            cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "snapshot" in result.stdout
    assert (tmp_path / "warehouse" / "catalog.db").exists()


def test_there_are_examples():
    assert len(EXAMPLES) >= 2
