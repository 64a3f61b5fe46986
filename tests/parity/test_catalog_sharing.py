"""One catalog, three engines: floe, pyiceberg's SqlCatalog and iceberg-java's JdbcCatalog (through
the harness's `catalog` command) append to one table through the same SQLite file and the same
PostgreSQL database, in turns and at the same time, and each then reads every row exactly once."""

import subprocess
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FLOE
from postgres_server import running_postgres
from races import append_concurrently

TABLE = "shared.events"
SCHEMA = "id long not null, name string, amount double"


def rows(start, count):
    """Rows with the field ids floe assigns to SCHEMA (1, 2, 3), so iceberg-java can add the file."""
    def field(name, typ, fid, nullable=True):
        return pa.field(name, typ, nullable=nullable, metadata={"PARQUET:field_id": str(fid)})
    schema = pa.schema([field("id", pa.int64(), 1, False), field("name", pa.string(), 2),
                        field("amount", pa.float64(), 3)])
    return pa.table({
        "id": list(range(start, start + count)),
        "name": [None if i % 7 == 0 else f"n{i} ü/é" for i in range(start, start + count)],
        "amount": [(-0.0 if i % 5 == 0 else i * 0.5) for i in range(start, start + count)],
    }, schema=schema)


@pytest.fixture(scope="module")
def postgres_port():
    with running_postgres() as port:
        yield port


@pytest.fixture(params=["sqlite", "postgresql"])
def shared(request, tmp_path):
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    if request.param == "sqlite":
        db = warehouse / "catalog.db"
        return {"floe": f"sqlite:///{db}", "java": f"jdbc:sqlite:{db}", "java_properties": {},
                "pyiceberg": f"sqlite:///{db}", "warehouse": warehouse}
    import psycopg2

    port = request.getfixturevalue("postgres_port")
    name = "s" + uuid.uuid4().hex[:12]
    connection = psycopg2.connect(host="127.0.0.1", port=port, user="floe", dbname="postgres")
    connection.autocommit = True
    connection.cursor().execute(f"CREATE DATABASE {name}")
    connection.close()
    return {"floe": f"postgresql://floe@127.0.0.1:{port}/{name}",
            "java": f"jdbc:postgresql://127.0.0.1:{port}/{name}",
            "java_properties": {"jdbc.user": "floe"},
            "pyiceberg": f"postgresql+psycopg2://floe@127.0.0.1:{port}/{name}",
            "warehouse": warehouse}


def run_floe(shared, *args):
    result = subprocess.run([FLOE, *map(str, args), "--catalog", shared["floe"],
                             "--warehouse", str(shared["warehouse"])],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"floe {args} failed:\n{result.stderr}"
    return result


def java(harness, shared, append_files=()):
    return harness.run("catalog", {
        "uri": shared["java"], "warehouse": str(shared["warehouse"]), "name": "floe",
        "table": TABLE, "properties": shared["java_properties"],
        "append_files": [str(p) for p in append_files], "id_column": "id"})


def test_floe_pyiceberg_and_iceberg_java_share_one_catalog(shared, harness, tmp_path):
    from pyiceberg.catalog.sql import SqlCatalog

    run_floe(shared, "create", TABLE, "--schema", SCHEMA)
    pq.write_table(rows(0, 1000), tmp_path / "floe.parquet")
    run_floe(shared, "append", TABLE, tmp_path / "floe.parquet")

    # iceberg-java sees floe's table and commits its own append through the same catalog.
    pq.write_table(rows(1000, 200), tmp_path / "java.parquet")
    seen = java(harness, shared, [tmp_path / "java.parquet"])
    assert TABLE in seen["tables"] and "shared" in seen["namespaces"]
    assert seen["snapshots"] == 2 and seen["operation"] == "append"
    assert seen["ids"] == list(range(1200))

    # pyiceberg appends on top of iceberg-java's commit.
    catalog = SqlCatalog("floe", uri=shared["pyiceberg"], warehouse=f"file://{shared['warehouse']}")
    table = catalog.load_table(TABLE)
    table.append(rows(2000, 100).cast(table.schema().as_arrow()))

    expected = list(range(1200)) + list(range(2000, 2100))
    out = tmp_path / "all.parquet"
    run_floe(shared, "scan", TABLE, "--format", "parquet", "--output", out)
    assert sorted(pq.read_table(out).column("id").to_pylist()) == expected
    assert java(harness, shared)["ids"] == expected
    reloaded = catalog.load_table(TABLE)
    assert sorted(reloaded.scan().to_arrow().column("id").to_pylist()) == expected
    assert len(reloaded.metadata.snapshots) == 3
    # One linear history: each engine's snapshot's parent is the previous engine's.
    history = [s.snapshot_id for s in reloaded.metadata.snapshots]
    parents = [s.parent_snapshot_id for s in reloaded.metadata.snapshots]
    assert parents == [None] + history[:-1]


def test_iceberg_java_and_floe_append_at_the_same_time(shared, harness, tmp_path):
    """floe appends in a loop while three iceberg-java processes (JdbcCatalog) append to the same
    table through the same catalog: every commit lands once, in one linear history."""
    from pyiceberg.catalog.sql import SqlCatalog

    run_floe(shared, "create", TABLE, "--schema", SCHEMA, "--property", "commit.retry.num-retries=50",
             "--property", "commit.retry.min-wait-ms=5", "--property", "commit.retry.max-wait-ms=200")
    floe_appends, java_appends = 8, 3

    def floe_append(path):
        result = subprocess.run([FLOE, "append", TABLE, str(path), "--catalog", shared["floe"],
                                 "--warehouse", str(shared["warehouse"])],
                                capture_output=True, text=True, timeout=600)
        return result.stderr if result.returncode != 0 else None

    expected = append_concurrently(tmp_path, rows, floe_append, lambda path: java(harness, shared, [path]),
                                   floe_appends, java_appends, count=50)
    seen = java(harness, shared)
    assert seen["ids"] == expected and seen["snapshots"] == floe_appends + java_appends
    catalog = SqlCatalog("floe", uri=shared["pyiceberg"], warehouse=f"file://{shared['warehouse']}")
    table = catalog.load_table(TABLE)
    snapshots = table.metadata.snapshots
    assert len(snapshots) == floe_appends + java_appends
    history = [s.snapshot_id for s in snapshots]
    assert [s.parent_snapshot_id for s in snapshots] == [None] + history[:-1]
    assert int(table.current_snapshot().summary["total-records"]) == len(expected)
    assert sorted(table.scan().to_arrow().column("id").to_pylist()) == expected
    out = tmp_path / "all.parquet"
    run_floe(shared, "scan", TABLE, "--format", "parquet", "--output", out)
    assert sorted(pq.read_table(out).column("id").to_pylist()) == expected


def test_filesystem_catalog_reads_and_is_read_by_iceberg_java(harness, tmp_path):
    """floe's v<N>.metadata.json files read by iceberg-java, and a table iceberg-java wrote in the
    same layout (no version hint) read by floe's filesystem catalog."""
    warehouse = tmp_path / "warehouse"

    def hadoop(*args):
        result = subprocess.run([FLOE, *map(str, args), "--catalog", "hadoop", "--warehouse", str(warehouse)],
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        return result

    hadoop("create", "lake.by_floe", "--schema", SCHEMA)
    pq.write_table(rows(0, 300), tmp_path / "a.parquet")
    hadoop("append", "lake.by_floe", tmp_path / "a.parquet")
    seen = harness.run("dump", {"metadata_location": str(warehouse / "lake" / "by_floe" / "metadata" / "v2.metadata.json"),
                                "rows": True})
    assert sorted(row["id"] for row in seen["rows"]) == list(range(300))

    schema_json = {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"},
        {"id": 3, "name": "amount", "required": False, "type": "double"}]}
    pq.write_table(rows(1000, 200), tmp_path / "j.parquet")
    harness.run("write", {
        "table_location": str(warehouse / "lake" / "by_java"), "format_version": 2,
        "schema": schema_json, "partition_spec": {"spec-id": 0, "fields": []},
        "sort_order": {"order-id": 0, "fields": []}, "properties": {}, "mode": "unpartitioned",
        "input_files": [str(tmp_path / "j.parquet")], "partition_id": 0, "task_id": 0,
        "operation_id": "java"})
    assert "by_java" in hadoop("tables", "lake").stdout
    out = tmp_path / "j-out.parquet"
    hadoop("scan", "lake.by_java", "--format", "parquet", "--output", out)
    assert sorted(pq.read_table(out).column("id").to_pylist()) == list(range(1000, 1200))
    # floe commits on top of iceberg-java's versions, as the next version.
    pq.write_table(rows(5000, 10), tmp_path / "more.parquet")
    hadoop("append", "lake.by_java", tmp_path / "more.parquet")
    metadata_dir = warehouse / "lake" / "by_java" / "metadata"
    newest = max(int(p.name[1:].split(".")[0]) for p in metadata_dir.glob("v*.metadata.json"))
    seen = harness.run("dump", {"metadata_location": str(metadata_dir / f"v{newest}.metadata.json"), "rows": True})
    assert sorted(row["id"] for row in seen["rows"]) == list(range(1000, 1200)) + list(range(5000, 5010))
    assert (metadata_dir / "version-hint.text").read_text() == str(newest)
