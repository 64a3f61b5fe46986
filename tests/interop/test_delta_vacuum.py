"""floe vacuum on path-based Delta tables: the same files deltalake's vacuum would delete, and
never a file that is not the table's own (every file inside and outside the table hashed before
and after)."""

import hashlib
import os
import pathlib
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

deltalake = pytest.importorskip("deltalake")


def rows(start, count):
    return pa.table({"id": pa.array(range(start, start + count), pa.int64()),
                     "part": pa.array([("a", "b/ü", "c d")[i % 3] for i in range(count)])})


def snapshot_of(folder):
    """Every file and link below `folder`: its content's hash, or where a link points."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            out[os.path.relpath(path, folder)] = ("link:" + os.readlink(path) if os.path.islink(path)
                                                  else hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest())
    return out


def build(floe, tmp_path, name):
    """A partitioned table floe wrote: three appends, then an overwrite and one more append."""
    root = tmp_path / name
    floe.run("create", root, "--schema", "id long, part string", "--partition-by", "part")
    for k in range(3):
        pq.write_table(rows(k * 10, 10), tmp_path / f"{name}-{k}.parquet")
        floe.run("append", root, tmp_path / f"{name}-{k}.parquet")
    pq.write_table(rows(100, 9), tmp_path / f"{name}-o.parquet")
    floe.run("overwrite", root, tmp_path / f"{name}-o.parquet")
    floe.run("append", root, tmp_path / f"{name}-0.parquet")
    return root


def vacuum_lines(result, prefix):
    return sorted(line[len(prefix):].rsplit("  ", 1)[0] for line in result.stdout.splitlines()
                  if line.startswith(prefix))


def test_vacuum_deletes_what_deltalake_would(floe, tmp_path):
    root = build(floe, tmp_path, "t")
    expected = sorted(str(root / p) for p in deltalake.DeltaTable(str(root)).vacuum(
        retention_hours=0, dry_run=True, enforce_retention_duration=False))
    assert len(expected) == 9  # three appends' files in three partitions, overwritten
    planned = floe.run("vacuum", root, "--retain", "0s", "--no-retention-check", "--dry-run")
    assert vacuum_lines(planned, "would delete ") == expected
    before = snapshot_of(root)
    done = floe.run("vacuum", root, "--retain", "0s", "--no-retention-check")
    assert vacuum_lines(done, "deleted ") == expected
    after = snapshot_of(root)
    assert set(before) - set(after) == {os.path.relpath(p, root) for p in expected}
    assert all(after[k] == before[k] for k in after)
    table = deltalake.DeltaTable(str(root))
    assert sorted(table.to_pyarrow_table().column("id").to_pylist()) == sorted(list(range(100, 109)) + list(range(10)))
    # deltalake's list (expired tombstones, whether or not the files remain) names only gone files.
    assert not any((root / p).exists() for p in deltalake.DeltaTable(str(root)).vacuum(
        retention_hours=0, dry_run=True, enforce_retention_duration=False))


def test_vacuum_never_deletes_what_is_not_the_tables(floe, tmp_path):
    root = build(floe, tmp_path, "t")
    to_delete = {os.path.relpath(str(root / p), root) for p in deltalake.DeltaTable(str(root)).vacuum(
        retention_hours=0, dry_run=True, enforce_retention_duration=False)}
    outside = tmp_path / "outside"
    outside.mkdir()
    pq.write_table(rows(0, 3), outside / "theirs.parquet")
    (root / "part=a" / "link.parquet").symlink_to(outside / "theirs.parquet")
    (root / "linked").symlink_to(outside)
    deltalake.write_deltalake(str(root / "nested"), rows(0, 5))           # a Delta table inside
    (root / "ice" / "metadata").mkdir(parents=True)                       # an Iceberg table inside
    (root / "ice" / "metadata" / "v1.metadata.json").write_text("{}")
    pq.write_table(rows(0, 2), root / "ice" / "x.parquet")
    (root / "NOTES.md").write_text("not a data file")
    (root / "_tmp").mkdir()
    pq.write_table(rows(0, 2), root / "_tmp" / "staging.parquet")
    before_table, before_outside = snapshot_of(root), snapshot_of(outside)

    floe.run("vacuum", root, "--retain", "0s", "--no-retention-check")
    after_table = snapshot_of(root)
    assert set(before_table) - set(after_table) == to_delete
    assert all(after_table[k] == before_table[k] for k in after_table)
    assert snapshot_of(outside) == before_outside
    assert deltalake.DeltaTable(str(root / "nested")).to_pyarrow_table().num_rows == 5
    assert deltalake.DeltaTable(str(root)).to_pyarrow_table().num_rows == 19


def test_vacuum_refuses_unsafe_requests(floe, tmp_path):
    root = build(floe, tmp_path, "t")
    before = snapshot_of(root)
    assert "delta.deletedFileRetentionDuration" in floe.fail("vacuum", root, "--retain", "1h")
    live = [line.split("  ")[0] for line in floe.run("files", root).stdout.splitlines() if "  " in line]
    moved = tmp_path / "moved.parquet"
    shutil.move(live[0], moved)
    assert "missing" in floe.fail("vacuum", root, "--retain", "0s", "--no-retention-check")
    shutil.move(moved, live[0])
    assert snapshot_of(root) == before
    floe.run("create", "lake.cm", "--format", "delta", "--schema", "id long")
    assert "catalog-managed" in floe.fail("vacuum", "lake.cm")
    location = next(line.split()[-1] for line in floe.run("describe", "lake.cm").stdout.splitlines()
                    if line.startswith("location"))
    assert "catalog-managed" in floe.fail("vacuum", location)
