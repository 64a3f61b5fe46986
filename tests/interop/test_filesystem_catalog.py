"""The filesystem catalog (iceberg-java's HadoopCatalog layout): tables are directories with
metadata/v<N>.metadata.json and version-hint.text, commits rename a finished file to v<N+1> and
fail if it exists. pyiceberg reads every version floe commits (StaticTable over the file), and
concurrent writers racing for the same version lose cleanly and retry."""

import os
import re
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq

from arrow_compare import differences, sorted_by
from conftest import FLOE
from test_scan import FLAT, flat_rows

TABLE = "lake.events"


def floe(warehouse, *args, check=True):
    result = subprocess.run([FLOE, *map(str, args), "--catalog", "hadoop", "--warehouse", str(warehouse)],
                            capture_output=True, text=True, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"floe {' '.join(map(str, args))} failed:\n{result.stderr}")
    return result


def versions(table_dir):
    names = os.listdir(table_dir / "metadata")
    return sorted(int(m.group(1)) for n in names if (m := re.fullmatch(r"v(\d+)\.metadata\.json", n)))


def static_rows(path):
    from pyiceberg.table import StaticTable

    return StaticTable.from_metadata(f"file://{path}").scan().to_arrow()


def test_hadoop_layout_read_by_pyiceberg_version_by_version(tmp_path):
    warehouse = tmp_path / "warehouse"
    floe(warehouse, "create", TABLE, "--schema", FLAT, "--partition-by", "region")
    table_dir = warehouse / "lake" / "events"
    assert versions(table_dir) == [1]
    parts = []
    for k in range(3):
        part = flat_rows(k * 1000, 700, [f"r{k}", "ü/é %"])
        pq.write_table(part, tmp_path / f"in{k}.parquet")
        floe(warehouse, "append", TABLE, tmp_path / f"in{k}.parquet")
        parts.append(part)
        assert versions(table_dir) == list(range(1, k + 3))
        assert (table_dir / "metadata" / "version-hint.text").read_text() == str(k + 2)
        # pyiceberg reads exactly the rows committed so far from the version file itself.
        got = static_rows(table_dir / "metadata" / f"v{k + 2}.metadata.json")
        assert not differences(sorted_by(pa.concat_tables(parts), ["id"]), sorted_by(got, ["id"]))
    assert "lake" in floe(warehouse, "namespaces").stdout
    assert "events" in floe(warehouse, "tables", "lake").stdout
    # No temporary file is left behind, and remove-orphans finds nothing to remove.
    assert not [n for n in os.listdir(table_dir / "metadata") if "temp" in n]
    orphans = floe(warehouse, "remove-orphans", TABLE, "--older-than", "0s", "--no-concurrent-writes", "--dry-run")
    assert "(0 orphan files" in orphans.stdout

    # A missing or stale hint: readers find the newest version anyway.
    (table_dir / "metadata" / "version-hint.text").unlink()
    out = tmp_path / "a.parquet"
    floe(warehouse, "scan", TABLE, "--format", "parquet", "--output", out)
    assert pq.read_table(out).num_rows == 2100
    (table_dir / "metadata" / "version-hint.text").write_text("2")
    pq.write_table(flat_rows(9000, 10, ["z"]), tmp_path / "late.parquet")
    floe(warehouse, "append", TABLE, tmp_path / "late.parquet")
    assert versions(table_dir) == [1, 2, 3, 4, 5]
    assert (table_dir / "metadata" / "version-hint.text").read_text() == "5"


def test_writers_racing_for_a_version_lose_cleanly_and_retry(tmp_path):
    warehouse = tmp_path / "warehouse"
    floe(warehouse, "create", TABLE, "--schema", FLAT, "--property", "commit.retry.num-retries=100",
         "--property", "commit.retry.min-wait-ms=5", "--property", "commit.retry.max-wait-ms=200")
    writers, appends = 6, 4
    processes = []
    for w in range(writers):
        pq.write_table(flat_rows(w * 1000, 50, [f"w{w}"]), tmp_path / f"w{w}.parquet")
        commands = " && ".join(
            f"'{FLOE}' append {TABLE} '{tmp_path / f'w{w}.parquet'}' --catalog hadoop "
            f"--warehouse '{warehouse}'" for _ in range(appends))
        processes.append(subprocess.Popen(["bash", "-c", commands], stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
    for process in processes:
        _, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr
    table_dir = warehouse / "lake" / "events"
    total = writers * appends
    assert versions(table_dir) == list(range(1, total + 2))  # contiguous, none lost
    newest = table_dir / "metadata" / f"v{total + 1}.metadata.json"
    from pyiceberg.table import StaticTable

    table = StaticTable.from_metadata(f"file://{newest}")
    assert len(table.metadata.snapshots) == total
    by_id = {s.snapshot_id: s for s in table.metadata.snapshots}
    current, seen = table.metadata.current_snapshot_id, 0
    while current is not None:
        seen += 1
        current = by_id[current].parent_snapshot_id
    assert seen == total
    ids = sorted(table.scan().to_arrow().column("id").to_pylist())
    assert ids == sorted(i for w in range(writers) for _ in range(appends) for i in range(w * 1000, w * 1000 + 50))
    assert not [n for n in os.listdir(table_dir / "metadata") if "temp" in n or n.count("-") >= 4 and n.endswith(".metadata.json")]


def test_refusals_are_clear(tmp_path):
    warehouse = tmp_path / "warehouse"
    error = floe(warehouse, "tables", "x", check=False)
    assert error.returncode != 0 and "does not exist" in error.stderr
    result = subprocess.run([FLOE, "namespaces", "--catalog", "hadoop", "--warehouse", "s3://bucket/w"],
                            capture_output=True, text=True)
    assert result.returncode != 0 and "atomic rename" in result.stderr
    floe(warehouse, "create", TABLE, "--schema", FLAT)
    error = floe(warehouse, "rename", TABLE, "lake.other", check=False)
    assert error.returncode != 0 and "cannot rename" in error.stderr
    error = floe(warehouse, "namespaces", "--drop", "lake", check=False)
    assert error.returncode != 0 and "not empty" in error.stderr
    error = floe(warehouse, "namespaces", "--create", "props", "--property", "a=b", check=False)
    assert error.returncode != 0 and "no namespace properties" in error.stderr
    floe(warehouse, "drop", TABLE)
    assert not (warehouse / "lake" / "events").exists()
    floe(warehouse, "namespaces", "--drop", "lake")
    assert not (warehouse / "lake").exists()


def test_racing_creates_leave_one_table_and_say_already_exists(tmp_path):
    """Four processes create the same table at once (each paused between writing its v1 and the
    rename): exactly one wins, the others report AlreadyExists (or, when they look before the
    winner's rename, that the table's folder already holds another create's file), and no
    temporary file is left."""
    warehouse = tmp_path / "warehouse"
    floe(warehouse, "namespaces", "--create", "lake")
    env = dict(os.environ, FLOE_TEST_PAUSE_AT="swap", FLOE_TEST_PAUSE_MS="300")
    processes = [subprocess.Popen([FLOE, "create", TABLE, "--schema", FLAT, "--catalog", "hadoop",
                                   "--warehouse", str(warehouse)], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(4)]
    results = [(p.wait(timeout=120), p.stderr.read()) for p in processes]
    winners = [r for r in results if r[0] == 0]
    losers = [r for r in results if r[0] != 0]
    assert len(winners) == 1, results
    assert all(("AlreadyExists" in err and "already exists" in err) or
               ("already holds" in err and "another create of this table in flight" in err)
               for _, err in losers), losers
    table_dir = warehouse / "lake" / "events"
    assert versions(table_dir) == [1]
    assert sorted(os.listdir(table_dir / "metadata")) == ["v1.metadata.json", "version-hint.text"]
