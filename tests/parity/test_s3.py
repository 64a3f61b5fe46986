"""iceberg-java's S3FileIO (iceberg-aws, with the AWS SDK's S3 client) on floe's tables in an
s3:// warehouse, on a real S3-compatible server (s3s-fs on loopback, tests/interop/s3_server.py):
iceberg-java reads what floe wrote and appends to it with its own writers, and floe and pyiceberg
read that. Then iceberg-java's REST catalog server keeps its warehouse on s3:// and vends the
storage credentials in each load-table answer: floe, given none of its own, writes and reads
with them."""

import datetime
import math
import os
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FLOE
from rest_server import running_rest_server
from s3_server import start_s3_server

ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", AWS_EC2_METADATA_DISABLED="true")
for _name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
    ENV.pop(_name, None)


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    server = start_s3_server(tmp_path_factory.mktemp("s3"))
    yield server
    server.stop()


def java_s3_properties(server):
    """iceberg-java's S3FileIO reaching the server: the same keys floe reads."""
    return dict(server.properties(), **{"io-impl": "org.apache.iceberg.aws.s3.S3FileIO"})


def floe(*args, catalog, warehouse, properties, check=True):
    command = [FLOE, *map(str, args), "--catalog", catalog, "--warehouse", warehouse]
    for key, value in properties.items():
        command += ["--catalog-property", f"{key}={value}"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=ENV)
    if check and result.returncode != 0:
        raise AssertionError(f"floe {' '.join(map(str, args))} failed:\n{result.stderr}")
    return result


def event_rows(start, count):
    """Rows over 8 partitions with values that need escaping, pre-1970 and far-future dates,
    NaN, -0.0, NULLs and unicode."""
    regions = ["north", "south", "ost/west", "zürich", "a b&c", "日本", "%2F", "x=y"]
    days = [datetime.date(1901, 1, 1), datetime.date(1969, 12, 31), datetime.date(2024, 2, 29),
            datetime.date(9999, 12, 31), None]
    ids = list(range(start, start + count))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "region": [regions[i % len(regions)] for i in ids],
        "amount": [math.nan if i % 11 == 0 else (-0.0 if i % 5 == 0 else i * 0.25) for i in ids],
        "d": pa.array([days[i % len(days)] for i in ids], pa.date32()),
        "note": [None if i % 7 == 0 else f"n{i} ü" for i in ids],
    })


def assert_rows(java_rows, expected):
    """iceberg-java's rows (the harness's `with_rows`, by id) against the expected table."""
    expected = expected.sort_by("id").to_pylist()
    assert len(java_rows) == len(expected)
    for got, want in zip(java_rows, expected):
        assert got["id"] == want["id"] and got["region"] == want["region"]
        assert got["note"] == want["note"]
        assert got["d"] == (None if want["d"] is None else want["d"].isoformat())
        # The harness writes NaN as the string "NaN" (JSON has no NaN).
        a, b = float(got["amount"]), want["amount"]
        assert (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))


def test_iceberg_javas_s3fileio_reads_floes_table_and_appends_to_it(s3, harness, tmp_path):
    bucket = s3.bucket("javaread")
    warehouse = f"s3://{bucket}/wh"
    catalog = f"sqlite:///{tmp_path / 'catalog.db'}"
    first = event_rows(0, 4000)
    path = tmp_path / "first.parquet"
    pq.write_table(first, path)
    floe("create", "db.events", "--schema", "id long not null, region string, amount double, "
         "d date, note string", "--partition-by", "region", catalog=catalog, warehouse=warehouse,
         properties=s3.properties())
    out = floe("append", "db.events", path, "--threads", "8", catalog=catalog, warehouse=warehouse,
               properties=s3.properties()).stdout
    assert "8 data files" in out, out

    # iceberg-java's JdbcCatalog on the same SQLite file, its S3FileIO reading floe's files.
    request = {"uri": f"jdbc:sqlite:{tmp_path / 'catalog.db'}", "warehouse": warehouse,
               "table": "db.events", "properties": java_s3_properties(s3), "with_rows": True}
    java = harness.run("catalog", request)
    assert java["row_count"] == 4000
    assert_rows(java["rows"], first)

    # iceberg-java appends with its own writers (input read and data written through
    # S3FileIO), then floe and pyiceberg read both.
    second = event_rows(4000, 800)
    s3fs = s3.filesystem()
    with s3fs.open_output_stream(f"{bucket}/inputs/second.parquet") as stream:
        pq.write_table(second, stream)
    java = harness.run("catalog", dict(request, write_files=[f"s3://{bucket}/inputs/second.parquet"]))
    assert java["row_count"] == 4800 and java["snapshots"] == 2
    expected = pa.concat_tables([first, second])
    assert_rows(java["rows"], expected)
    assert any("/data/region=ost%2Fwest/" in path for path in java["data_files"]), java["data_files"]

    scanned = tmp_path / "scan.parquet"
    floe("scan", "db.events", "--format", "parquet", "--output", scanned, catalog=catalog,
         warehouse=warehouse, properties=s3.properties())
    got = pq.read_table(scanned).sort_by("id")
    assert got["id"].to_pylist() == list(range(4800))
    assert got["region"].to_pylist() == expected.sort_by("id")["region"].to_pylist()

    # floe appends again on top of iceberg-java's snapshot; iceberg-java reads all three.
    third = event_rows(4800, 200)
    path = tmp_path / "third.parquet"
    pq.write_table(third, path)
    floe("append", "db.events", path, catalog=catalog, warehouse=warehouse, properties=s3.properties())
    java = harness.run("catalog", request)
    assert java["row_count"] == 5000 and java["snapshots"] == 3
    assert_rows(java["rows"], pa.concat_tables([first, second, third]))


def test_floe_writes_through_a_rest_catalog_on_s3_with_the_credentials_it_vends(s3, harness,
                                                                               tmp_path):
    bucket = s3.bucket("restvend")
    warehouse = f"s3://{bucket}/rest"
    server_properties = dict(java_s3_properties(s3), **{"include-credentials": "true"})
    with running_rest_server(tmp_path / "rest", warehouse=warehouse,
                             properties=server_properties) as (uri, _):
        # floe knows where the server is and how to address it, and holds no key: the
        # catalog's load-table answers vend s3.access-key-id and s3.secret-access-key.
        addressing = {key: value for key, value in s3.properties().items()
                      if key not in ("s3.access-key-id", "s3.secret-access-key")}
        run = lambda *args, **kw: floe(*args, catalog=uri, warehouse=warehouse,  # noqa: E731
                                       properties=addressing, **kw)
        run("namespaces", "--create", "lake")
        created = run("create", "lake.events", "--schema", "id long not null, region string, "
                      "amount double, d date, note string", "--partition-by", "region")
        assert f"{warehouse}/lake/events" in created.stdout, created.stdout
        rows = event_rows(0, 2000)
        path = tmp_path / "in.parquet"
        pq.write_table(rows, path)
        out = run("append", "lake.events", path, "--threads", "4")
        assert "8 data files" in out.stdout, out.stdout
        for result in (created, out):
            assert s3.secret_key not in result.stdout + result.stderr

        stored = s3.objects(f"{bucket}/rest/lake/events/data")
        assert len(stored) == 8, stored
        scanned = tmp_path / "scan.parquet"
        run("scan", "lake.events", "--format", "parquet", "--output", scanned)
        assert pq.read_table(scanned).sort_by("id")["id"].to_pylist() == list(range(2000))

        # iceberg-java's REST client (with the vended keys, through its S3FileIO) reads it.
        java = harness.run("catalog", {"type": "rest", "uri": uri, "table": "lake.events",
                                       "warehouse": warehouse, "with_rows": True,
                                       "properties": {"io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
                                                      **addressing}})
        assert java["row_count"] == 2000
        assert_rows(java["rows"], rows)

        # A new table's folder that already holds files is refused (they would pass for its
        # own): the catalog's FileIO has no keys to list it with before the create, so the
        # table's is used right after it, and the table is dropped again. The files stay.
        s3fs = s3.filesystem()
        foreign = f"{bucket}/rest/lake/taken/data/00000-0-x-00001.parquet"
        with s3fs.open_output_stream(foreign) as stream:
            stream.write(b"PAR1 someone else's")
        refused = run("create", "lake.taken", "--schema", "id long", check=False)
        assert refused.returncode != 0
        assert "already holds 1 file" in refused.stderr and "lake/taken/data" in refused.stderr, \
            refused.stderr
        assert "lake.taken" not in run("tables", "lake").stdout
        assert foreign in s3.objects(f"{bucket}/rest/lake/taken")

        # The vended keys win over the catalog's own, as in iceberg-java's REST client: with
        # wrong keys of its own, floe still reads through the table's.
        overridden = floe("scan", "lake.events", "--format", "csv", "--limit", "1",
                          catalog=uri, warehouse=warehouse, check=False,
                          properties=dict(addressing, **{"s3.access-key-id": "AKIAWRONG",
                                                         "s3.secret-access-key": "wrong-secret"}))
        assert overridden.returncode == 0, overridden.stderr
