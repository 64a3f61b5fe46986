"""The Python package on S3-compatible storage (s3s-fs on loopback, tests/interop/s3_server.py):
an Iceberg table in an s3:// warehouse through floe.Catalog, and a Delta table by path through
floe.delta with `storage=`, read back by pyiceberg and deltalake with their own S3 clients."""

import pyarrow as pa
import pytest

import floe
import floe.delta
from s3_server import start_s3_server

deltalake = pytest.importorskip("deltalake")


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    server = start_s3_server(tmp_path_factory.mktemp("s3"))
    yield server
    server.stop()


def rows(start, count):
    regions = ["eu", "us/west", "ünï", "a b"]
    return pa.table({
        "id": pa.array(range(start, start + count), pa.int64()),
        "region": pa.array([regions[i % 4] for i in range(count)]),
        "value": pa.array([float("nan") if i % 9 == 0 else i / 7 for i in range(count)]),
    })


def test_an_iceberg_table_in_an_s3_warehouse(s3, tmp_path):
    from pyiceberg.catalog.sql import SqlCatalog

    bucket = s3.bucket("pyiceberg")
    catalog = floe.Catalog(uri=f"sqlite:///{tmp_path / 'catalog.db'}", warehouse=f"s3://{bucket}/wh",
                           **s3.properties())
    catalog.create_namespace("db")
    table = catalog.create_table("db.events", rows(0, 1).schema, partition_by="region")
    result = table.append(pa.concat_tables([rows(0, 800), rows(800, 800)]), threads=2)
    assert result.rows == 1600
    assert sorted(table.scan().to_arrow()["id"].to_pylist()) == list(range(1600))
    properties = {k: v for k, v in s3.properties().items() if k != "client.region"}
    theirs = SqlCatalog("floe", uri=f"sqlite:///{tmp_path / 'catalog.db'}",
                        warehouse=f"s3://{bucket}/wh", **properties, **{"s3.region": "us-east-1"})
    read = theirs.load_table("db.events").scan().to_arrow()
    assert sorted(read["id"].to_pylist()) == list(range(1600))
    assert all(key.startswith(f"{bucket}/wh/db/events/") for key in s3.objects(bucket))


def test_a_delta_table_by_path_on_s3_with_storage_options(s3):
    bucket = s3.bucket("pydelta")
    root = f"s3://{bucket}/events"
    storage = s3.properties()
    floe.delta.create_table(root, rows(0, 1).schema, partition_by=["region"], storage=storage)
    first = floe.delta.write(root, rows(0, 500), threads=2, storage=storage)
    second = floe.delta.write(root, rows(500, 500), storage=storage)
    assert (first.version, second.version) == (1, 2)
    assert sorted(floe.delta.read(root, storage=storage)["id"].to_pylist()) == list(range(1000))
    assert floe.delta.snapshot(root, storage=storage).version == 2
    options = {"AWS_ENDPOINT_URL": s3.endpoint, "AWS_ACCESS_KEY_ID": s3.access_key,
               "AWS_SECRET_ACCESS_KEY": s3.secret_key, "AWS_REGION": "us-east-1",
               "AWS_ALLOW_HTTP": "true"}
    theirs = deltalake.DeltaTable(root, storage_options=options)
    assert theirs.version() == 2
    assert sorted(theirs.to_pyarrow_table()["id"].to_pylist()) == list(range(1000))
    # A storage key floe does not honour is refused by name, never its value.
    with pytest.raises(floe.FloeError) as refused:
        floe.delta.write(root, rows(1000, 10), storage=dict(storage, **{"s3.sse.type": "kms"}))
    assert "s3.sse.type" in str(refused.value) and "kms" not in str(refused.value)
    # storage= is for tables by path; a catalog-managed table uses its catalog's.
    with pytest.raises(floe.FloeError):
        floe.delta.read("db.t", catalog=floe.Catalog(uri="memory"), storage=storage)
