"""Catalog-managed Delta tables through floe's SQL catalog: 8 processes x 25 appends ratified by
the coordinator, and processes killed between stage and ratify and between ratify and publish.

Every check reads storage and the catalog database independently of floe: Python's sqlite3 for
the coordinator's rows, the JSON of `_delta_log/` replayed here, and pyarrow for the data files.
(deltalake and delta-spark 4.0 do not write or read catalog-managed tables without a catalog of
their own, so neither can check these tables.)"""

import json
import os
import pathlib
import signal
import sqlite3
import subprocess
import threading
import time
import urllib.parse

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FLOE, kill_at

TABLE = "lake.events"
SCHEMA = "id long, part string"


def rows(start, count):
    return pa.table({"id": pa.array(range(start, start + count), pa.int64()),
                     "part": pa.array([f"p{(start + i) % 3}/ü" for i in range(count)])})


def create(floe):
    result = floe.run("create", TABLE, "--format", "delta", "--schema", SCHEMA, "--partition-by", "part")
    assert "created catalog-managed Delta table lake.events" in result.stdout, result.stdout
    db = sqlite3.connect(floe.catalog_db)
    (table_id, location), = db.execute(
        "SELECT table_id, location FROM floe_delta_tables WHERE table_namespace = 'lake' "
        "AND table_name = 'events'").fetchall()
    db.close()
    return table_id, pathlib.Path(location)


def coordinator_rows(floe, table_id):
    db = sqlite3.connect(floe.catalog_db)
    commits = db.execute("SELECT version, file_name FROM floe_delta_commits WHERE table_id = ? "
                         "ORDER BY version", (table_id,)).fetchall()
    (published,), = db.execute("SELECT latest_published_version FROM floe_delta_tables "
                               "WHERE table_id = ?", (table_id,)).fetchall()
    db.close()
    return commits, published


def published_versions(root):
    log = root / "_delta_log"
    return sorted(int(p.name[:20]) for p in log.iterdir() if p.name.endswith(".json") and p.name[:20].isdigit())


def replay(root, commit_files):
    """The live files and the commits' in-commit timestamps, replayed from JSON here."""
    live, timestamps = {}, []
    for path in commit_files:
        for line in pathlib.Path(path).read_text().splitlines():
            action = json.loads(line)
            if "commitInfo" in action:
                timestamps.append(action["commitInfo"].get("inCommitTimestamp"))
            if "add" in action:
                live[action["add"]["path"]] = action["add"]
            if "remove" in action:
                live.pop(action["remove"]["path"], None)
    return live, timestamps


def read_ids(root, live):
    ids = []
    for add in live.values():
        file = root / urllib.parse.unquote(add["path"])
        table = pq.read_table(file)
        assert table.num_rows == json.loads(add["stats"])["numRecords"]
        # The partition value is the log's, and the folder's.
        assert add["partitionValues"]["part"] in {"p0/ü", "p1/ü", "p2/ü"}
        ids += table.column("id").to_pylist()
    return sorted(ids)


def test_eight_processes_append_25_times_each_through_the_coordinator(floe, tmp_path):
    table_id, root = create(floe)
    writers, appends, per = 8, 25, 4
    inputs = {}
    for w in range(writers):
        for s in range(appends):
            path = tmp_path / f"in-{w}-{s}.parquet"
            pq.write_table(rows((w * appends + s) * per, per), path)
            inputs[(w, s)] = path
    failures, attempts = [], []

    def writer(w):
        for s in range(appends):
            result = subprocess.run([FLOE, "append", TABLE, str(inputs[(w, s)]), "--warehouse", str(floe.warehouse)],
                                    capture_output=True, text=True, timeout=600)
            if result.returncode != 0:
                failures.append(result.stderr)
                return
            attempts.append("committed on attempt" in result.stdout)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[0]
    assert len(attempts) == writers * appends
    print(f"appends that lost a race and retried: {sum(attempts)}")
    assert sum(attempts) > 0, "no ratification was lost: the writers never raced"

    # The coordinator: 200 ratified versions, contiguous from 1, every one published.
    commits, published = coordinator_rows(floe, table_id)
    assert [v for v, _ in commits] == list(range(1, writers * appends + 1))
    assert published == writers * appends
    assert published_versions(root) == list(range(0, writers * appends + 1))
    # Each published commit is byte for byte the staged file the coordinator ratified.
    staged = root / "_delta_log" / "_staged_commits"
    for version, name in commits:
        assert (root / "_delta_log" / f"{version:020d}.json").read_bytes() == (staged / name).read_bytes()
    # Losers' staged files were deleted: only the ratified ones remain.
    assert sorted(p.name for p in staged.iterdir()) == sorted(name for _, name in commits)

    live, timestamps = replay(root, [root / "_delta_log" / f"{v:020d}.json" for v in range(0, published + 1)])
    assert all(t is not None for t in timestamps)
    assert timestamps == sorted(timestamps) and len(set(timestamps)) == len(timestamps)
    assert read_ids(root, live) == list(range(writers * appends * per))
    # floe reads the same through the catalog, and refuses the path.
    out = floe.run("scan", TABLE, "--format", "csv").stdout.splitlines()
    assert sorted(int(line.split(",")[0]) for line in out[1:]) == list(range(writers * appends * per))
    assert "catalog-managed" in floe.fail("scan", str(root))


def scanned_ids(floe):
    out = floe.run("scan", TABLE, "--format", "csv").stdout.splitlines()
    return sorted(int(line.split(",")[0]) for line in out[1:])


def test_a_process_killed_between_stage_and_ratify_commits_nothing(floe, tmp_path):
    table_id, root = create(floe)
    pq.write_table(rows(0, 6), tmp_path / "a.parquet")
    floe.run("append", TABLE, tmp_path / "a.parquet")
    pq.write_table(rows(100, 6), tmp_path / "killed.parquet")
    kill_at(floe, "delta-staged", "append", TABLE, tmp_path / "killed.parquet")

    staged = root / "_delta_log" / "_staged_commits"
    commits, published = coordinator_rows(floe, table_id)
    assert [v for v, _ in commits] == [1] and published == 1
    orphans = [p for p in staged.iterdir() if p.name not in {name for _, name in commits}]
    assert len(orphans) == 1 and orphans[0].name.startswith(f"{2:020d}.")
    orphan_bytes = orphans[0].read_bytes()
    assert published_versions(root) == [0, 1]
    assert scanned_ids(floe) == list(range(6))

    # The next writer takes version 2 with its own commit; the killed one's is never published.
    pq.write_table(rows(200, 6), tmp_path / "b.parquet")
    assert "as version 2" in floe.run("append", TABLE, tmp_path / "b.parquet").stdout
    commits, published = coordinator_rows(floe, table_id)
    assert [v for v, _ in commits] == [1, 2] and published == 2 and commits[1][1] != orphans[0].name
    for version in published_versions(root):
        assert (root / "_delta_log" / f"{version:020d}.json").read_bytes() != orphan_bytes
    live, _ = replay(root, [root / "_delta_log" / f"{v:020d}.json" for v in range(3)])
    assert read_ids(root, live) == list(range(6)) + list(range(200, 206))
    assert scanned_ids(floe) == list(range(6)) + list(range(200, 206))


def test_a_process_killed_between_ratify_and_publish_is_committed_and_published_later(floe, tmp_path):
    table_id, root = create(floe)
    pq.write_table(rows(0, 6), tmp_path / "a.parquet")
    floe.run("append", TABLE, tmp_path / "a.parquet")
    pq.write_table(rows(100, 6), tmp_path / "killed.parquet")
    kill_at(floe, "delta-ratified", "append", TABLE, tmp_path / "killed.parquet")

    commits, published = coordinator_rows(floe, table_id)
    assert [v for v, _ in commits] == [1, 2] and published == 1
    assert published_versions(root) == [0, 1]  # version 2 is ratified, not published
    # Readers see exactly the ratified versions: version 2 from its staged file.
    assert scanned_ids(floe) == list(range(6)) + list(range(100, 106))
    assert floe.run("snapshots", TABLE).stdout.splitlines()[-1].startswith("* 2 ")

    # The next writer publishes the backlog (version 2, the killed writer's bytes), then its own.
    pq.write_table(rows(200, 6), tmp_path / "b.parquet")
    assert "as version 3" in floe.run("append", TABLE, tmp_path / "b.parquet").stdout
    commits, published = coordinator_rows(floe, table_id)
    assert [v for v, _ in commits] == [1, 2, 3] and published == 3
    assert published_versions(root) == [0, 1, 2, 3]
    staged = root / "_delta_log" / "_staged_commits"
    for version, name in commits:
        assert (root / "_delta_log" / f"{version:020d}.json").read_bytes() == (staged / name).read_bytes()
    live, timestamps = replay(root, [root / "_delta_log" / f"{v:020d}.json" for v in range(4)])
    assert timestamps == sorted(timestamps)
    assert read_ids(root, live) == list(range(6)) + list(range(100, 106)) + list(range(200, 206))


def test_names_are_shared_with_iceberg_tables_and_namespaces_guard_delta_tables(floe, tmp_path):
    create(floe)
    assert "already exists" in floe.fail("create", TABLE, "--schema", SCHEMA)
    assert "already exists" in floe.fail("create", TABLE, "--format", "delta", "--schema", SCHEMA)
    floe.run("create", "lake.ice", "--schema", SCHEMA)
    assert "already exists" in floe.fail("create", "lake.ice", "--format", "delta", "--schema", SCHEMA)
    tables = floe.run("tables", "lake").stdout.splitlines()
    assert tables == ["lake.ice", "lake.events  (Delta)"]
    floe.run("drop", "lake.ice")
    assert "Delta table events" in floe.fail("namespaces", "--drop", "lake")


def test_rename_and_drop(floe, tmp_path):
    table_id, root = create(floe)
    pq.write_table(rows(0, 6), tmp_path / "a.parquet")
    floe.run("append", TABLE, tmp_path / "a.parquet")
    floe.run("create", "lake.ice", "--schema", SCHEMA)
    assert "already exists" in floe.fail("rename", TABLE, "lake.ice")
    assert "already exists" in floe.fail("rename", "lake.ice", TABLE)
    assert "does not exist" in floe.fail("rename", TABLE, "nowhere.events")
    floe.run("rename", TABLE, "lake.renamed")
    assert scanned_ids_of(floe, "lake.renamed") == list(range(6))
    assert "does not exist" in floe.fail("scan", TABLE)

    # A version ratified but not published when the drop comes: published first, then dropped.
    pq.write_table(rows(100, 6), tmp_path / "killed.parquet")
    kill_at(floe, "delta-ratified", "append", "lake.renamed", tmp_path / "killed.parquet")
    assert published_versions(root) == [0, 1]
    before = sorted(str(p) for p in root.rglob("*") if p.is_file())
    assert "dropped Delta table lake.renamed" in floe.run("drop", "lake.renamed").stdout
    assert published_versions(root) == [0, 1, 2]
    after = sorted(str(p) for p in root.rglob("*") if p.is_file())
    assert set(before) <= set(after) and set(after) - set(before) == {str(root / "_delta_log" / f"{2:020d}.json")}
    db = sqlite3.connect(floe.catalog_db)
    assert db.execute("SELECT COUNT(*) FROM floe_delta_tables").fetchone() == (0,)
    assert db.execute("SELECT COUNT(*) FROM floe_delta_commits").fetchone() == (0,)
    db.close()
    live, _ = replay(root, [root / "_delta_log" / f"{v:020d}.json" for v in range(3)])
    assert read_ids(root, live) == list(range(6)) + list(range(100, 106))
    floe.run("drop", "lake.ice")
    floe.run("namespaces", "--drop", "lake")  # empty now


def scanned_ids_of(floe, name):
    out = floe.run("scan", name, "--format", "csv").stdout.splitlines()
    return sorted(int(line.split(",")[0]) for line in out[1:])


def test_a_compaction_is_ratified_by_the_coordinator_and_refused_by_path(floe, tmp_path):
    table_id, root = create(floe)
    for start in (0, 30, 60):
        pq.write_table(rows(start, 30), tmp_path / f"{start}.parquet")
        floe.run("append", TABLE, tmp_path / f"{start}.parquet")
    assert "catalog" in floe.fail("rewrite", root)  # catalog-managed: not by path
    assert published_versions(root) == [0, 1, 2, 3]
    result = floe.run("rewrite", TABLE, "--threads", 2)
    assert "compacted 9 data files" in result.stdout and "as version 4" in result.stdout, result.stdout
    commits, published = coordinator_rows(floe, table_id)
    assert [v for v, _ in commits] == [1, 2, 3, 4]  # the compaction ratified as version 4
    staged = root / "_delta_log" / "_staged_commits" / commits[-1][1]
    assert staged.read_bytes() == (root / "_delta_log" / f"{4:020d}.json").read_bytes()
    assert published == 4 and published_versions(root) == [0, 1, 2, 3, 4]
    live, _ = replay(root, [root / "_delta_log" / f"{v:020d}.json" for v in range(5)])
    assert len(live) == 3 and all(add["dataChange"] is False for add in live.values())
    assert read_ids(root, live) == list(range(90))
