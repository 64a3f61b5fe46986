"""A writer killed at any moment leaves the table consistent and readable by floe and pyiceberg,
remove-orphans removes exactly what it left behind, and credentials never reach any output.

The independent checks: pyiceberg reads the table after each kill; the set of files on disk is
compared with the set that existed after the last successful commit (which pyiceberg also reads),
not with anything floe computes."""

import os
import signal
import subprocess
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FLOE, files_under, kill_at
from arrow_compare import differences, sorted_by

TABLE = "ops.events"
SCHEMA = "id long not null, region string, amount double"


def write_input(path, start, count, batch_rows=1000):
    regions = [f"r{i % 10}/ü" for i in range(start, start + count)]  # 10 partitions, escaped
    table = pa.table({
        "id": pa.array(range(start, start + count), pa.int64()),
        "region": regions,
        "amount": pa.array([float(i) * 0.25 if i % 7 else float("nan") for i in range(start, start + count)]),
    })
    pq.write_table(table, path, row_group_size=batch_rows)
    return table


def pyiceberg_rows(catalog):
    return catalog.load_table(TABLE).scan().to_arrow()


def floe_rows(floe, tmp_path):
    out = tmp_path / f"scan-{time.monotonic_ns()}.parquet"
    floe.run("scan", TABLE, "--format", "parquet", "--output", out)
    return pq.read_table(out)


def age(paths, seconds):
    stamp = time.time() - seconds
    for path in paths:
        os.utime(path, (stamp, stamp))


@pytest.mark.parametrize("point,threads", [("write", 1), ("commit", 4), ("swap", 4)])
def test_writer_killed_mid_write_or_mid_commit(floe, pyiceberg_catalog, tmp_path, point, threads):
    floe.run("create", TABLE, "--schema", SCHEMA, "--partition-by", "region")
    first = write_input(tmp_path / "first.parquet", 0, 3000)
    floe.run("append", TABLE, tmp_path / "first.parquet", "--threads", 4)
    table_dir = floe.warehouse / "ops" / "events"
    committed_files = files_under(table_dir)
    committed_pointer = floe.metadata_location(TABLE)

    write_input(tmp_path / "second.parquet", 3000, 20000)
    kill_at(floe, point, "append", TABLE, tmp_path / "second.parquet", "--threads", threads)

    # The pointer did not move; both engines read exactly the first append.
    assert floe.metadata_location(TABLE) == committed_pointer
    assert not differences(sorted_by(first, ["id"]), sorted_by(pyiceberg_rows(pyiceberg_catalog), ["id"]))
    assert not differences(sorted_by(first, ["id"]), sorted_by(floe_rows(floe, tmp_path), ["id"]))

    leftovers = files_under(table_dir) - committed_files
    assert leftovers, "the kill should have left files behind"
    # Before the commit starts only data files exist (manifests travel in memory); at the swap
    # the manifests, manifest list and metadata file are written too.
    kinds = {p.rsplit(".", 1)[1] for p in leftovers}
    assert kinds == ({"parquet", "avro", "json"} if point == "swap" else {"parquet"})

    # Fresh leftovers are protected by the age threshold (a commit could be in flight) ...
    result = floe.run("remove-orphans", TABLE, "--dry-run")
    assert f"0 orphan files" in result.stdout and f"{len(leftovers)} unreferenced but newer" in result.stdout
    assert files_under(table_dir) == committed_files | leftovers
    # ... and once old, exactly the leftovers are listed, then deleted.
    age(leftovers | committed_files, 4 * 86400)
    result = floe.run("remove-orphans", TABLE, "--dry-run")
    listed = {line.split()[1] for line in result.stdout.splitlines() if line.startswith("orphan ")}
    assert listed == leftovers
    assert files_under(table_dir) == committed_files | leftovers
    result = floe.run("remove-orphans", TABLE, "--older-than", "1h", "--no-concurrent-writes")
    deleted = {line.split()[1] for line in result.stdout.splitlines() if line.startswith("deleted ")}
    assert deleted == leftovers
    assert files_under(table_dir) == committed_files

    # The table still works: the same input appended again, and pyiceberg reads every row once.
    floe.run("append", TABLE, tmp_path / "second.parquet", "--threads", threads)
    expected = pa.concat_tables([first, pq.read_table(tmp_path / "second.parquet")])
    assert not differences(sorted_by(expected, ["id"]), sorted_by(pyiceberg_rows(pyiceberg_catalog), ["id"]))


def test_remove_orphans_never_touches_files_outside_the_table(floe, tmp_path):
    floe.run("create", TABLE, "--schema", SCHEMA)
    write_input(tmp_path / "in.parquet", 0, 100)
    floe.run("append", TABLE, tmp_path / "in.parquet")
    table_dir = floe.warehouse / "ops" / "events"
    # A sibling whose name extends the table's, another table's files, and a real orphan.
    sibling = floe.warehouse / "ops" / "events_backup" / "data" / "x.parquet"
    sibling.parent.mkdir(parents=True)
    sibling.write_bytes(b"keep me")
    orphan = table_dir / "data" / "stray file ü.parquet"
    orphan.write_bytes(b"orphan")
    age([sibling, orphan], 10 * 86400)
    referenced = files_under(table_dir) - {str(orphan)}

    result = floe.run("remove-orphans", TABLE, "--older-than", "7d", "--dry-run")
    assert [line.split("  ")[0] for line in result.stdout.splitlines() if line.startswith("orphan ")] == \
        [f"orphan {orphan}"]
    assert orphan.exists()
    floe.run("remove-orphans", TABLE, "--older-than", "7d")
    assert not orphan.exists() and sibling.exists()
    assert files_under(table_dir) == referenced
    # Younger than the threshold: kept.
    orphan.write_bytes(b"new")
    age([orphan], 86400)
    floe.run("remove-orphans", TABLE, "--older-than", "2d")
    assert orphan.exists()
    # A threshold that is not a duration is an error naming the flag's value format.
    error = floe.fail("remove-orphans", TABLE, "--older-than", "soon")
    assert "duration" in error


def test_memory_limit_fails_with_advice_and_leaves_nothing(floe, tmp_path):
    floe.run("create", TABLE, "--schema", SCHEMA, "--partition-by", "bucket(64, id)")
    before = files_under(floe.warehouse / "ops" / "events")
    pointer = floe.metadata_location(TABLE)
    write_input(tmp_path / "in.parquet", 0, 200000, batch_rows=50000)
    error = floe.fail("append", TABLE, tmp_path / "in.parquet", "--memory-limit", "2MiB")
    assert "memory" in error and "--memory-limit" in error
    assert floe.metadata_location(TABLE) == pointer
    assert files_under(floe.warehouse / "ops" / "events") == before
    # With room, the same write succeeds.
    floe.run("append", TABLE, tmp_path / "in.parquet", "--memory-limit", "512MiB")


@pytest.mark.parametrize("threads", [1, 3])
def test_sorted_write_with_an_unusable_tmpdir_fails_naming_it_and_leaves_nothing(floe, tmp_path, threads):
    """A sorted write that must spill, with TMPDIR a file rather than a directory, fails at its
    first spill with one error naming TMPDIR (it used to spill to /tmp unasked), commits nothing
    and leaves no data file; with a real TMPDIR the same write spills there, succeeds and leaves
    the directory empty. With 3 tasks the rows are split by key across them (range
    distribution), and a failing task must not leave the others waiting for its rows."""
    floe.run("create", TABLE, "--schema", SCHEMA, "--sort-by", "amount desc, id")
    before = files_under(floe.warehouse / "ops" / "events")
    pointer = floe.metadata_location(TABLE)
    table = write_input(tmp_path / "in.parquet", 0, 200000, batch_rows=20000)
    not_a_directory = tmp_path / "tmpdir-file"
    not_a_directory.write_text("")
    # Small row groups keep the writer's buffers within the limit beside the sort's.
    args = ["append", TABLE, tmp_path / "in.parquet", "--memory-limit", "8MiB", "--threads", str(threads),
            "--option", "write.parquet.row-group-size-bytes=1048576"]
    failed = floe.run(*args, check=False, env={**os.environ, "TMPDIR": str(not_a_directory)})
    assert failed.returncode != 0
    errors = [line for line in failed.stderr.splitlines() if line.startswith("floe: error:")]
    assert len(errors) == 1 and f"TMPDIR '{not_a_directory}' is not a directory" in errors[0], failed.stderr
    assert floe.metadata_location(TABLE) == pointer
    assert files_under(floe.warehouse / "ops" / "events") == before

    spill_root = tmp_path / "spill"
    spill_root.mkdir()
    done = floe.run(*args, env={**os.environ, "TMPDIR": str(spill_root), "FLOE_LOG": "info"})
    assert "spilled sorted run 2 " in done.stderr, done.stderr
    assert list(spill_root.iterdir()) == []
    assert differences(sorted_by(floe_rows(floe, tmp_path), ["id"]), sorted_by(table, ["id"])) == []


SECRETS = ["Sup3rSecretPassw0rd", "AKIAFLOETESTSECRET", "tok-9d8f7e6c5b4a"]


def test_credentials_never_reach_output_errors_or_logs(floe, tmp_path):
    env = dict(os.environ, FLOE_LOG="debug")
    outputs = []

    def run(*args, check=True):
        result = floe.run(*args, check=check, env=env)
        outputs.append(result.stdout + result.stderr)
        return result

    run("create", TABLE, "--schema", SCHEMA,
        "--property", f"s3.secret-access-key={SECRETS[1]}",
        "--property", f"rest.auth.token={SECRETS[2]}",
        "--property", "write.parquet.bloom-filter-enabled.column.id=true")
    write_input(tmp_path / "in.parquet", 0, 10)
    catalog_secret = ["--catalog-property", f"jdbc.password={SECRETS[0]}"]
    run("describe", TABLE, *catalog_secret)
    run("explain-write", TABLE, "--option", f"s3.session-token={SECRETS[2]}", *catalog_secret)
    # The gate declines (bloom filters): the error lists property names only.
    failed = run("append", TABLE, tmp_path / "in.parquet", "--option", f"gcs.oauth2.token={SECRETS[2]}",
                 *catalog_secret, check=False)
    assert failed.returncode != 0 and "write.parquet.bloom-filter-enabled.column.id" in failed.stderr
    # Catalog URIs with a password, in the authority and in the query.
    for uri in [f"postgresql://floe:{SECRETS[0]}@localhost:5432/catalog",
                f"sqlite:////nonexistent-dir/x/catalog.db?password={SECRETS[0]}",
                f"jdbc:postgresql://localhost/db?user=floe&password={SECRETS[0]}"]:
        failed = subprocess.run([FLOE, "tables", "ops", "--catalog", uri], capture_output=True, text=True,
                                env=env)
        assert failed.returncode != 0
        outputs.append(failed.stdout + failed.stderr)
    assert "***" in outputs[1]  # describe shows that the secret properties exist
    for text in outputs:
        for secret in SECRETS:
            assert secret not in text, text
