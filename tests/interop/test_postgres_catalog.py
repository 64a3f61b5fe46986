"""The SQL catalog over PostgreSQL: a real local server (Debian's postgresql package) started by
these tests, shared by floe and pyiceberg's SqlCatalog (SQLAlchemy + psycopg2) through
iceberg-java JdbcCatalog's tables, with concurrent floe writers racing through its
compare-and-swap."""

import os
import pathlib
import subprocess
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arrow_compare import differences, sorted_by
from conftest import FLOE
from postgres_server import free_port, running_postgres
from test_scan import FLAT, flat_rows

TABLE = "pg.events"


@pytest.fixture(scope="module")
def postgres_server():
    with running_postgres() as port:
        yield port


@pytest.fixture
def pg(postgres_server, tmp_path):
    """A fresh database on the server, and a warehouse directory for it."""
    import psycopg2

    name = "t" + uuid.uuid4().hex[:12]
    connection = psycopg2.connect(host="127.0.0.1", port=postgres_server, user="floe", dbname="postgres")
    connection.autocommit = True
    connection.cursor().execute(f"CREATE DATABASE {name}")
    connection.close()
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    return {"uri": f"postgresql://floe@127.0.0.1:{postgres_server}/{name}",
            "jdbc": f"jdbc:postgresql://127.0.0.1:{postgres_server}/{name}",
            "sqlalchemy": f"postgresql+psycopg2://floe@127.0.0.1:{postgres_server}/{name}",
            "warehouse": warehouse}


def floe(pg, *args, uri=None, check=True):
    command = [FLOE, *map(str, args), "--catalog", uri or pg["uri"], "--warehouse", str(pg["warehouse"])]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"floe {' '.join(map(str, args))} failed:\n{result.stderr}")
    # The server's notices (every CREATE TABLE IF NOT EXISTS says "already exists,
    # skipping") are floe's debug log, never lines on a user's terminal.
    assert "NOTICE" not in result.stderr and "already exists, skipping" not in result.stderr, result.stderr
    return result


def pyiceberg_catalog(pg):
    from pyiceberg.catalog.sql import SqlCatalog

    return SqlCatalog("floe", uri=pg["sqlalchemy"], warehouse=f"file://{pg['warehouse']}")


def scan_rows(pg, tmp_path):
    out = tmp_path / f"scan-{uuid.uuid4().hex[:6]}.parquet"
    floe(pg, "scan", TABLE, "--format", "parquet", "--output", out)
    return pq.read_table(out)


def test_floe_and_pyiceberg_share_a_postgres_catalog(pg, tmp_path):
    floe(pg, "namespaces", "--create", "pg")
    floe(pg, "create", TABLE, "--schema", FLAT, "--partition-by", "region")
    first = flat_rows(0, 2000, ["eu", "us", "ü/é"])
    pq.write_table(first, tmp_path / "first.parquet")
    floe(pg, "append", TABLE, tmp_path / "first.parquet", "--threads", "2")

    # pyiceberg reads floe's table through the same PostgreSQL catalog.
    catalog = pyiceberg_catalog(pg)
    assert ("pg",) in catalog.list_namespaces()
    table = catalog.load_table(TABLE)
    assert not differences(sorted_by(first, ["id"]), sorted_by(table.scan().to_arrow(), ["id"]))

    # pyiceberg appends; floe (through iceberg-java's jdbc: URI form, user as a catalog
    # property) reads both appends.
    second = flat_rows(5000, 500, ["ap"])
    table.append(second.cast(table.schema().as_arrow()))
    out = tmp_path / "both.parquet"
    result = subprocess.run(
        [FLOE, "scan", TABLE, "--format", "parquet", "--output", out, "--catalog", pg["jdbc"],
         "--catalog-property", "jdbc.user=floe", "--warehouse", str(pg["warehouse"])],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    expected = pa.concat_tables([first, second.cast(first.schema)])
    assert not differences(sorted_by(expected, ["id"]), sorted_by(pq.read_table(out), ["id"]))
    assert TABLE.split(".")[1] in floe(pg, "tables", "pg").stdout
    snapshots = catalog.load_table(TABLE).metadata.snapshots
    assert len(snapshots) == 2


def test_concurrent_floe_writers_race_through_the_postgres_swap(pg, tmp_path):
    floe(pg, "create", TABLE, "--schema", FLAT, "--property", "commit.retry.num-retries=100",
         "--property", "commit.retry.min-wait-ms=5", "--property", "commit.retry.max-wait-ms=200")
    writers, appends = 6, 4
    for w in range(writers):
        pq.write_table(flat_rows(w * 1000, 100, [f"w{w}"]), tmp_path / f"w{w}.parquet")
    processes = []
    for w in range(writers):
        commands = " && ".join(
            f"'{FLOE}' append {TABLE} '{tmp_path / f'w{w}.parquet'}' --catalog '{pg['uri']}' "
            f"--warehouse '{pg['warehouse']}'" for _ in range(appends))
        processes.append(subprocess.Popen(["bash", "-c", commands], stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
    for process in processes:
        _, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr
    table = pyiceberg_catalog(pg).load_table(TABLE)
    assert len(table.metadata.snapshots) == writers * appends
    ids = table.scan().to_arrow().column("id").to_pylist()
    assert sorted(ids) == sorted(i for w in range(writers) for _ in range(appends)
                                 for i in range(w * 1000, w * 1000 + 100))
    # Every snapshot's parent is the one before it: no lost update, one linear history.
    by_id = {s.snapshot_id: s for s in table.metadata.snapshots}
    current, seen = table.metadata.current_snapshot_id, 0
    while current is not None:
        seen += 1
        current = by_id[current].parent_snapshot_id
    assert seen == writers * appends


def test_bad_credentials_and_unreachable_servers_fail_clearly(pg, postgres_server, tmp_path):
    secret = "hunter2-Secret"
    bad_user = f"postgresql://nobody:{secret}@127.0.0.1:{postgres_server}/postgres"
    result = floe(pg, "tables", "pg", uri=bad_user, check=False)
    assert result.returncode != 0
    assert secret not in result.stderr + result.stdout
    assert "nobody" in result.stderr and "PostgreSQL" in result.stderr
    closed = f"postgresql://floe:{secret}@127.0.0.1:{free_port()}/postgres?connect_timeout=5"
    result = floe(pg, "tables", "pg", uri=closed, check=False)
    assert result.returncode != 0 and secret not in result.stderr
    assert "cannot connect to the PostgreSQL catalog" in result.stderr
    result = floe(pg, "tables", "pg", uri="postgresql://floe@127.0.0.1/x?bogus=1", check=False)
    assert result.returncode != 0 and "bogus" in result.stderr


def test_a_catalog_managed_delta_table_is_coordinated_by_postgres(pg, tmp_path):
    """4 processes x 6 appends to one catalog-managed Delta table, ratified by the coordinator's
    conditional insert under PostgreSQL's READ COMMITTED: contiguous versions, all published,
    every row once (read here from the JSON log and pyarrow, and the rows from psycopg2)."""
    import threading

    import psycopg2
    from test_delta_catalog import published_versions, read_ids, replay, rows

    floe(pg, "create", "pg.delta", "--format", "delta", "--schema", "id long, part string",
         "--partition-by", "part")
    writers, appends, per = 4, 6, 5
    inputs = {}
    for w in range(writers):
        for s in range(appends):
            inputs[(w, s)] = tmp_path / f"d-{w}-{s}.parquet"
            pq.write_table(rows((w * appends + s) * per, per), inputs[(w, s)])
    failures = []

    def writer(w):
        for s in range(appends):
            result = floe(pg, "append", "pg.delta", inputs[(w, s)], check=False)
            if result.returncode != 0:
                failures.append(result.stderr)
                return

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[0]
    connection = psycopg2.connect(pg["uri"])
    cursor = connection.cursor()
    cursor.execute("SELECT table_id, location, latest_published_version FROM floe_delta_tables "
                   "WHERE table_namespace = 'pg' AND table_name = 'delta'")
    (table_id, location, published), = cursor.fetchall()
    cursor.execute("SELECT version FROM floe_delta_commits WHERE table_id = %s ORDER BY version", (table_id,))
    versions = [v for v, in cursor.fetchall()]
    connection.close()
    total = writers * appends
    assert versions == list(range(1, total + 1)) and published == total
    root = pathlib.Path(location)
    assert published_versions(root) == list(range(total + 1))
    live, timestamps = replay(root, [root / "_delta_log" / f"{v:020d}.json" for v in range(total + 1)])
    assert timestamps == sorted(timestamps)
    assert read_ids(root, live) == list(range(total * per))
