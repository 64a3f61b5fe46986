"""Concurrent writers never lose an update: 8 processes x 25 appends to one table, through the
SQLite catalog and through a real local PostgreSQL server.

Checked with pyiceberg (snapshot history, summaries, data files) and pyarrow (the rows)."""

import collections
import os
import re
import subprocess
import threading

import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FLOE, files_under
from postgres_server import running_postgres

WRITERS = 8
APPENDS = 25
ROWS = 10


@pytest.fixture(scope="module")
def postgres_port():
    with running_postgres() as port:
        yield port


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_catalog(request, floe, pyiceberg_catalog):
    """(extra floe arguments, pyiceberg catalog) for the catalog under test."""
    if request.param == "sqlite":
        return [], pyiceberg_catalog
    import psycopg2
    from pyiceberg.catalog.sql import SqlCatalog

    port = request.getfixturevalue("postgres_port")
    name = "c" + uuid.uuid4().hex[:12]
    connection = psycopg2.connect(host="127.0.0.1", port=port, user="floe", dbname="postgres")
    connection.autocommit = True
    connection.cursor().execute(f"CREATE DATABASE {name}")
    connection.close()
    catalog = SqlCatalog("floe", uri=f"postgresql+psycopg2://floe@127.0.0.1:{port}/{name}",
                         warehouse=f"file://{floe.warehouse}")
    return ["--catalog", f"postgresql://floe@127.0.0.1:{port}/{name}"], catalog


def test_eight_processes_append_twenty_five_times_each(floe, shared_catalog, tmp_path):
    catalog_args, pyiceberg_catalog = shared_catalog
    # Eight writers hammering one table: more retries with a shorter, capped backoff than
    # iceberg-java's defaults (4 retries from 100 ms), as one would configure for it.
    floe.run("create", "c.t", *catalog_args, "--schema", "id long not null, writer int, seq int",
             "--partition-by", "bucket(4, id)", "--property", "commit.retry.num-retries=100",
             "--property", "commit.retry.min-wait-ms=5", "--property", "commit.retry.max-wait-ms=200")
    inputs = {}
    for w in range(WRITERS):
        for s in range(APPENDS):
            ids = [w * 100000 + s * 100 + j for j in range(ROWS)]
            path = tmp_path / f"in-{w}-{s}.parquet"
            pq.write_table(pa.table({"id": pa.array(ids, pa.int64()), "writer": pa.array([w] * ROWS, pa.int32()),
                                     "seq": pa.array([s] * ROWS, pa.int32())}), path)
            inputs[(w, s)] = path

    # A short pause between writing the new metadata file and the swap widens the race window,
    # so lost races (and their retries) certainly happen.
    env = dict(os.environ, FLOE_TEST_PAUSE_AT="swap", FLOE_TEST_PAUSE_MS="30", FLOE_LOG="info")
    attempts = collections.Counter()
    failures = []

    def writer(w):
        for s in range(APPENDS):
            result = subprocess.run([FLOE, "append", "c.t", str(inputs[(w, s)]), *catalog_args,
                                     "--warehouse", str(floe.warehouse)],
                                    capture_output=True, text=True, env=env, timeout=600)
            if result.returncode != 0:
                failures.append(result.stderr)
                return
            match = re.search(r"committed on attempt (\d+)", result.stdout)
            attempts[int(match.group(1)) if match else 1] += 1

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[0]
    print(f"commit attempts (attempt: appends): {sorted(attempts.items())}")
    assert sum(attempts.values()) == WRITERS * APPENDS
    assert sum(n for a, n in attempts.items() if a > 1) > 0, f"no lost race was retried: {attempts}"

    table = pyiceberg_catalog.load_table("c.t")
    snapshots = table.snapshots()
    assert len(snapshots) == WRITERS * APPENDS
    assert all(s.summary.operation.value == "append" for s in snapshots)
    # A linear history: each snapshot's parent is the one before it.
    by_id = {s.snapshot_id: s for s in snapshots}
    chain = []
    current = table.current_snapshot()
    while current is not None:
        chain.append(current)
        current = by_id.get(current.parent_snapshot_id) if current.parent_snapshot_id else None
    assert len(chain) == WRITERS * APPENDS
    summary = table.current_snapshot().summary
    assert int(summary["total-records"]) == WRITERS * APPENDS * ROWS

    rows = table.scan().to_arrow()
    ids = rows.column("id").to_pylist()
    assert len(ids) == len(set(ids)) == WRITERS * APPENDS * ROWS
    expected = {w * 100000 + s * 100 + j for w in range(WRITERS) for s in range(APPENDS) for j in range(ROWS)}
    assert set(ids) == expected

    # Every data file was written once and is referenced; none is left over from a retry.
    files = table.inspect.files().column("file_path").to_pylist()
    assert len(files) == len(set(files)) == int(summary["total-data-files"])
    on_disk = {p for p in files_under(floe.warehouse / "c" / "t" / "data")}
    assert on_disk == {f.removeprefix("file://") for f in files}
    # floe reads the same table.
    out = tmp_path / "scan.parquet"
    floe.run("scan", "c.t", *catalog_args, "--format", "parquet", "--output", out)
    assert sorted(pq.read_table(out).column("id").to_pylist()) == sorted(ids)
