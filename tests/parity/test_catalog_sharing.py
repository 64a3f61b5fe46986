"""One catalog, three engines: floe, pyiceberg's SqlCatalog and iceberg-java's JdbcCatalog (through
the harness's `catalog` command) take turns appending to one table through the same SQLite file
and the same PostgreSQL database, and each then reads every row exactly once."""

import subprocess
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FLOE
from postgres_server import running_postgres

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
