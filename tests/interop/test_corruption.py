"""Corrupt bytes are caught, never read as data or laundered into new files.

floe writes a CRC-32 for every Parquet page (as parquet-java does). Eight bytes flipped in the
middle of a data file must fail every read of it (scan, rewrite, copy-on-write delete,
overwrite) with an error naming the file and the column, and change nothing on disk: pyarrow,
with page checksum verification on, is the independent judge that the file is corrupt."""

import hashlib
import os
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

TABLE = "db.t"


def tree(root: pathlib.Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def flip_middle(path: pathlib.Path, count=8):
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + count] = bytes(b ^ 0xFF for b in data[middle:middle + count])
    path.write_bytes(bytes(data))


@pytest.fixture
def corrupt_table(floe, tmp_path):
    """Two appends of 1M ids each in zstd files (two data files, so rewrite has work); the
    first file is then corrupted in its middle."""
    floe.run("create", TABLE, "--schema", "id long not null",
             "--property", "write.parquet.compression-codec=zstd")
    for k in range(2):
        ids = pa.array(range(k * 1_000_000, (k + 1) * 1_000_000), pa.int64())
        pq.write_table(pa.table({"id": ids}), tmp_path / f"in{k}.parquet")
        floe.run("append", TABLE, tmp_path / f"in{k}.parquet")
    data_files = sorted((floe.warehouse / "db/t/data").glob("*.parquet"), key=os.path.getmtime)
    victim = data_files[0]
    flip_middle(victim)
    with pytest.raises(OSError, match="CRC checksum verification failed"):
        pq.read_table(victim, page_checksum_verification=True)
    return victim


def assert_refused(floe, victim, *args):
    before = tree(floe.warehouse)
    pointer = floe.metadata_location(TABLE)
    error = floe.fail(*args)
    assert str(victim) in error and "is corrupt" in error and "checksum" in error, error
    assert "column id (row group 0)" in error, error
    assert floe.metadata_location(TABLE) == pointer
    assert tree(floe.warehouse) == before  # nothing written, nothing left behind
    return error


def test_a_scan_fails_naming_the_file_and_column(floe, corrupt_table, tmp_path):
    assert_refused(floe, corrupt_table, "scan", TABLE, "--format", "csv")
    assert_refused(floe, corrupt_table, "scan", TABLE, "--where", "id > 10")
    out = tmp_path / "out.parquet"
    assert_refused(floe, corrupt_table, "scan", TABLE, "--format", "parquet", "--output", out)
    assert not out.exists()


def test_a_rewrite_does_not_launder_the_corruption(floe, corrupt_table):
    assert_refused(floe, corrupt_table, "rewrite", TABLE, "--min-input-files", "2")


def test_copy_on_write_delete_and_overwrite_refuse_it(floe, corrupt_table, tmp_path):
    assert_refused(floe, corrupt_table, "delete", TABLE, "--where", "id < 500000")
    replacement = tmp_path / "replacement.parquet"
    pq.write_table(pa.table({"id": pa.array([5], pa.int64())}), replacement)
    assert_refused(floe, corrupt_table, "overwrite", TABLE, replacement, "--where", "id >= 0")


def test_a_corrupt_input_file_is_refused(floe, tmp_path):
    """The same check on the way in: an append of a corrupted Parquet input (written by pyarrow
    with page checksums) fails naming the input and commits nothing."""
    floe.run("create", TABLE, "--schema", "id long not null")
    path = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": pa.array(range(1_000_000), pa.int64())}), path,
                   write_page_checksum=True, compression="zstd")
    flip_middle(path)
    before = tree(floe.warehouse)
    error = floe.fail("append", TABLE, path)
    assert str(path) in error and "checksum" in error, error
    assert tree(floe.warehouse) == before
