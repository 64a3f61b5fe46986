"""floe on S3-compatible object storage: a SQLite catalog whose warehouse is an s3:// bucket
on a real S3 server (s3s-fs on loopback, conftest.S3Server).

Every table floe writes there is read back by pyiceberg (its own PyArrow S3 FileIO, configured
by the same iceberg-java property keys), and what is stored is listed by pyarrow's S3 client,
not by floe. The test credentials must never appear in anything floe prints."""

import datetime
import math
import os
import subprocess
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from arrow_compare import differences, sorted_by
from conftest import FLOE
from s3_server import run_floe


class S3Floe:
    """Runs floe against one SQLite catalog whose warehouse is s3://<bucket>/wh."""

    def __init__(self, server, bucket, tmp_path, extra_properties=None):
        self.server = server
        self.bucket = bucket
        self.warehouse = f"s3://{bucket}/wh"
        self.catalog_db = tmp_path / "catalog.db"
        self.properties = dict(server.properties(), **(extra_properties or {}))
        self.outputs = []

    def run(self, *args, check=True):
        return run_floe(FLOE, [*args, "--catalog", f"sqlite:///{self.catalog_db}",
                               "--warehouse", self.warehouse],
                        self.properties, self.outputs, check)

    def pyiceberg(self):
        from pyiceberg.catalog.sql import SqlCatalog

        properties = dict(self.server.properties())
        properties.pop("client.region")
        properties["s3.region"] = "us-east-1"
        return SqlCatalog("floe", uri=f"sqlite:///{self.catalog_db}", warehouse=self.warehouse, **properties)

    def objects(self, under=""):
        return self.server.objects(f"{self.bucket}/wh{under}")

    def assert_no_secret_printed(self):
        for output in self.outputs:
            assert self.server.secret_key not in output


def rows(start, count, seed):
    rng = np.random.default_rng(seed)
    ids = np.arange(start, start + count, dtype=np.int64)
    regions = ["north", "south", "ost/west", "zürich", "a b&c", "日本", "%2F", "x=y"]
    values = rng.normal(size=count)
    values[::97] = np.nan
    values[1::97] = -0.0
    values[2::97] = 5e-324
    days = rng.integers(-40000, 80000, size=count)
    return pa.table({
        "id": pa.array(ids),
        "region": pa.array([regions[i % len(regions)] for i in range(count)]),
        "value": pa.array(values),
        "day": pa.array([datetime.date(1970, 1, 1) + datetime.timedelta(days=int(d)) for d in days],
                        pa.date32()),
        "note": pa.array([None if i % 11 == 0 else f"n{i}" for i in range(count)]),
    })


def write(path, table):
    pq.write_table(table, path)
    return path


def read_pyiceberg(catalog, name):
    return catalog.load_table(name).scan().to_arrow()


def same_rows(actual, expected):
    assert actual.num_rows == expected.num_rows
    actual = sorted_by(actual.select(expected.column_names), ["id"])
    expected = sorted_by(expected, ["id"])
    assert differences(actual, expected) == []


@pytest.fixture
def s3_floe(s3_server, tmp_path, request):
    name = "t" + str(abs(hash(request.node.name)) % 10**8)
    return S3Floe(s3_server, s3_server.bucket(name), tmp_path)


def test_partitioned_appends_on_s3_read_identically_by_pyiceberg(s3_floe, tmp_path):
    first = rows(0, 4000, 1)
    second = rows(4000, 4000, 2)
    inputs = [write(tmp_path / f"in-{i}.parquet", part)
              for i, part in enumerate([first.slice(0, 2000), first.slice(2000), second])]
    s3_floe.run("create", "db.events", "--schema-from", inputs[0], "--partition-by", "region")
    s3_floe.run("append", "db.events", inputs[0], inputs[1], "--threads", "4")
    result = s3_floe.run("append", "db.events", inputs[2], "--threads", "8")
    assert "8 data files" in result.stdout, result.stdout  # one per region, no gate decline

    catalog = s3_floe.pyiceberg()
    expected = pa.concat_tables([first, second])
    same_rows(read_pyiceberg(catalog, "db.events"), expected)
    table = catalog.load_table("db.events")
    assert table.metadata.location == f"{s3_floe.warehouse}/db/events"
    # NaN and -0.0 survive as bits, and pre-1970 dates as dates.
    scanned = read_pyiceberg(catalog, "db.events")
    assert sum(1 for v in scanned["value"].to_pylist() if v is not None and math.isnan(v)) == \
        sum(1 for v in expected["value"].to_pylist() if math.isnan(v))
    assert pc.min(scanned["day"]).as_py() == pc.min(expected["day"]).as_py()

    # floe's own scan of the s3 table agrees with the inputs.
    out = tmp_path / "scan.parquet"
    s3_floe.run("scan", "db.events", "--format", "parquet", "--output", out)
    same_rows(pq.read_table(out), expected)

    # What is stored (listed by pyarrow) is what the table references, plus its metadata.
    data = {path[len("s3://"):] for path in table.inspect.files()["file_path"].to_pylist()}
    stored = s3_floe.objects("/db/events")
    assert data <= set(stored)
    assert {key for key in stored if "/data/" in key} == data
    # Partition folders are escaped as iceberg-java's do: the value with '/' is one folder.
    assert any("/data/region=ost%2Fwest/" in key for key in data), sorted(data)
    s3_floe.assert_no_secret_printed()


def test_a_multipart_sized_data_file_uploads_whole(s3_floe, tmp_path):
    # ~24 MiB of incompressible strings in one data file: Arrow uploads it in parts.
    count = 200_000
    rng = np.random.default_rng(3)
    payload = [bytes(rng.integers(65, 91, size=120, dtype=np.uint8)).decode() for _ in range(count)]
    table = pa.table({"id": pa.array(np.arange(count, dtype=np.int64)), "payload": pa.array(payload)})
    path = write(tmp_path / "big.parquet", table)
    s3_floe.run("create", "db.big", "--schema-from", path,
                "--property", "write.parquet.compression-codec=uncompressed")
    # One task (the default runs one per core past 128 Ki rows): one file past 16 MiB.
    s3_floe.run("append", "db.big", path, "--threads", "1")
    stored = {key: size for key, size in s3_floe.objects("/db/big/data").items()}
    assert len(stored) == 1 and max(stored.values()) > 16 << 20, stored
    same_rows(read_pyiceberg(s3_floe.pyiceberg(), "db.big"), table)


def test_delete_expire_and_remove_orphans_on_s3_touch_only_the_tables_files(s3_floe, tmp_path):
    data = rows(0, 2000, 4)
    path = write(tmp_path / "in.parquet", data)
    s3_floe.run("create", "db.t", "--schema-from", path, "--partition-by", "region")
    s3_floe.run("append", "db.t", path, "--threads", "8")
    s3_floe.run("delete", "db.t", "--where", "id < 500")
    expected = data.filter(pc.greater_equal(data["id"], 500))
    same_rows(read_pyiceberg(s3_floe.pyiceberg(), "db.t"), expected)

    # An orphan inside the table, and objects outside it that look like the table's own.
    s3 = s3_floe.server.filesystem()
    bucket = s3_floe.bucket
    orphan = f"{bucket}/wh/db/t/data/region=north/00000-0-orphan-00001.parquet"
    neighbour = f"{bucket}/wh/db/t2/data/00000-0-x-00001.parquet"
    outside = f"{bucket}/elsewhere/00000-0-x-00001.parquet"
    for key in (orphan, neighbour, outside):
        with s3.open_output_stream(key) as stream:
            stream.write(b"PAR1 not really")
    before = s3_floe.server.objects(bucket)

    s3_floe.run("expire", "db.t", "--older-than", "0s", "--retain-last", "1")
    after_expire = s3_floe.server.objects(bucket)
    removed = set(before) - set(after_expire)
    assert removed, "expire deleted nothing"
    assert all(key.startswith(f"{bucket}/wh/db/t/") for key in removed)
    # Expiring writes one new metadata file and nothing else.
    added = set(after_expire) - set(before)
    assert len(added) == 1 and next(iter(added)).endswith(".metadata.json"), added
    same_rows(read_pyiceberg(s3_floe.pyiceberg(), "db.t"), expected)

    s3_floe.run("remove-orphans", "db.t", "--older-than", "0s", "--no-concurrent-writes")
    after = s3_floe.server.objects(bucket)
    assert set(after_expire) - set(after) == {orphan}
    assert neighbour in after and outside in after
    same_rows(read_pyiceberg(s3_floe.pyiceberg(), "db.t"), expected)
    s3_floe.assert_no_secret_printed()


def test_an_unhonoured_storage_property_declines_before_any_object_exists(s3_floe, tmp_path):
    path = write(tmp_path / "in.parquet", rows(0, 100, 5))
    s3_floe.run("create", "db.t", "--schema-from", path, "--property", "s3.sse.type=kms")
    before = s3_floe.objects()
    result = s3_floe.run("append", "db.t", path, check=False)
    assert result.returncode != 0
    assert "s3.sse.type" in result.stderr and "kms" not in result.stderr, result.stderr
    assert s3_floe.objects() == before

    # The same key among the catalog's properties is refused when the FileIO is made.
    other = S3Floe(s3_floe.server, s3_floe.server.bucket(s3_floe.bucket + "b"), tmp_path / "b",
                   {"s3.acl": "public-read"})
    (tmp_path / "b").mkdir()
    result = other.run("create", "db.t", "--schema-from", path, check=False)
    assert result.returncode != 0
    assert "s3.acl" in result.stderr and "public-read" not in result.stderr, result.stderr
    assert other.objects() == {}


def test_wrong_credentials_fail_naming_the_location_and_never_the_secret(s3_floe, tmp_path):
    path = write(tmp_path / "in.parquet", rows(0, 10, 6))
    s3_floe.properties["s3.secret-access-key"] = "wrong-" + s3_floe.server.secret_key
    result = s3_floe.run("create", "db.t", "--schema-from", path, check=False)
    assert result.returncode != 0
    assert f"s3://{s3_floe.bucket}/wh/db/t" in result.stderr, result.stderr
    assert "wrong-" not in result.stderr and s3_floe.server.secret_key not in result.stderr
    assert s3_floe.objects() == {}


def test_rename_based_commits_are_refused_on_object_storage(s3_floe, tmp_path):
    path = write(tmp_path / "in.parquet", rows(0, 10, 7))
    hadoop = s3_floe.run("create", "db.t", "--schema-from", path, check=False)
    assert hadoop.returncode == 0  # the SQL catalog is the supported way
    command = [FLOE, "create", "db.h", "--schema-from", str(path), "--catalog", "hadoop",
               "--warehouse", s3_floe.warehouse]
    result = subprocess.run(command, capture_output=True, text=True,
                            env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
    assert result.returncode != 0
    assert "atomic rename" in result.stderr, result.stderr


# Faults: the same server behind a proxy that fails chosen requests (s3_fault_proxy.py).

@pytest.fixture(scope="module")
def fault_proxy(s3_server):
    from s3_fault_proxy import FaultProxy

    proxy = FaultProxy(s3_server.port)
    yield proxy
    proxy.stop()


@pytest.fixture
def faulty_floe(s3_floe, fault_proxy):
    fault_proxy.clear()
    s3_floe.properties["s3.endpoint"] = fault_proxy.endpoint
    s3_floe.properties["s3.retry.num-retries"] = "3"
    return s3_floe


def test_reads_that_fail_with_500_or_503_are_retried(faulty_floe, fault_proxy, tmp_path):
    data = rows(0, 1000, 8)
    path = write(tmp_path / "in.parquet", data)
    faulty_floe.run("create", "db.t", "--schema-from", path, "--partition-by", "region")
    faulty_floe.run("append", "db.t", path, "--threads", "8")
    fault_proxy.clear()
    # The first two reads of data files are refused: one 503 (SlowDown), one 500.
    fault_proxy.fail("GET", "/data/", "503", times=1)
    fault_proxy.fail("GET", "/data/", "500", times=1)
    out = tmp_path / "scan.parquet"
    faulty_floe.run("scan", "db.t", "--format", "parquet", "--output", out)
    same_rows(pq.read_table(out), data)
    outcomes = [outcome for _, _, outcome in fault_proxy.seen("GET", "/data/")]
    assert outcomes.count("503") == 1 and outcomes.count("500") == 1, outcomes
    assert outcomes.count("200") + outcomes.count("206") >= 8, outcomes


def test_a_read_that_stalls_times_out_and_is_retried(faulty_floe, fault_proxy, tmp_path):
    data = rows(0, 1000, 12)
    path = write(tmp_path / "in.parquet", data)
    faulty_floe.run("create", "db.t", "--schema-from", path)
    faulty_floe.run("append", "db.t", path)
    fault_proxy.clear()
    # The server holds the first read of the data file for 60 s. The AWS SDK's request
    # timeout (its default, 3 s without progress, on Linux) gives up on it, and the retry
    # is answered: the scan returns every row long before the stalled request would have.
    fault_proxy.fail("GET", "/data/", "stall:60", times=1)
    out = tmp_path / "scan.parquet"
    started = time.monotonic()
    faulty_floe.run("scan", "db.t", "--format", "parquet", "--output", out)
    assert time.monotonic() - started < 45
    same_rows(pq.read_table(out), data)
    outcomes = [outcome for _, _, outcome in fault_proxy.seen("GET", "/data/")]
    assert outcomes[0] == "stalled" and "206" in outcomes[1:], outcomes


def test_an_upload_that_keeps_failing_fails_the_write_and_leaves_nothing(faulty_floe, fault_proxy,
                                                                         tmp_path):
    path = write(tmp_path / "in.parquet", rows(0, 1000, 9))
    faulty_floe.run("create", "db.t", "--schema-from", path, "--partition-by", "region")
    before = faulty_floe.objects()
    fault_proxy.fail("PUT", "/data/", "500")
    result = faulty_floe.run("append", "db.t", path, "--threads", "8", check=False)
    fault_proxy.clear()
    assert result.returncode != 0
    assert "/data/" in result.stderr, result.stderr  # the error names the file
    assert faulty_floe.objects() == before
    assert read_pyiceberg(faulty_floe.pyiceberg(), "db.t").num_rows == 0
    faulty_floe.assert_no_secret_printed()


def open_uploads(server):
    """The multipart uploads s3s-fs holds open: it keeps one `.upload-<id>.json` in its root
    per upload neither completed nor aborted (s3s-fs 0.14 has no ListMultipartUploads)."""
    return sorted(path.name for path in server.root.glob(".upload-*.json"))


def test_a_failed_tasks_multipart_uploads_are_aborted_not_completed(faulty_floe, fault_proxy,
                                                                   tmp_path):
    # Every part upload of a data file fails, so every task fails with its upload open.
    path = write(tmp_path / "in.parquet", rows(0, 1000, 11))
    faulty_floe.run("create", "db.t", "--schema-from", path, "--partition-by", "region")
    before, uploads_before = faulty_floe.objects(), open_uploads(faulty_floe.server)
    fault_proxy.fail("PUT", ("/data/", "partNumber="), "500")
    result = faulty_floe.run("append", "db.t", path, "--threads", "8", check=False)
    completed = fault_proxy.seen("POST", ("/data/", "uploadId="))
    aborted = fault_proxy.seen("DELETE", ("/data/", "uploadId="))
    requests = list(fault_proxy.requests)
    fault_proxy.clear()
    assert result.returncode != 0
    # Abandoned files are aborted on the server (AbortMultipartUpload), never completed into
    # an object that cleanup must then delete, and no upload is left open.
    assert aborted, "\n".join(map(str, requests))
    assert completed == [], completed
    assert open_uploads(faulty_floe.server) == uploads_before
    assert faulty_floe.objects() == before
    assert "unfinished multipart upload" not in result.stderr, result.stderr
    faulty_floe.assert_no_secret_printed()


def test_an_upload_whose_abort_fails_is_named_in_a_warning(faulty_floe, fault_proxy, tmp_path):
    # The server goes away mid-write: parts fail, and so does every abort of their uploads.
    path = write(tmp_path / "in.parquet", rows(0, 1000, 12))
    faulty_floe.run("create", "db.t", "--schema-from", path)
    before, uploads_before = faulty_floe.objects(), open_uploads(faulty_floe.server)
    fault_proxy.fail("PUT", ("/data/", "partNumber="), "500")
    fault_proxy.fail("DELETE", ("/data/", "uploadId="), "503")
    result = faulty_floe.run("append", "db.t", path, check=False)
    fault_proxy.clear()
    assert result.returncode != 0
    left = [name for name in open_uploads(faulty_floe.server) if name not in uploads_before]
    assert left, "the failed abort left no upload open: the test no longer tests anything"
    warnings = [line for line in result.stderr.splitlines() if "unfinished multipart upload" in line]
    # One warning per upload left open, naming the object (never a secret).
    assert len(warnings) == len(left), result.stderr
    for line in warnings:
        assert f"s3://{faulty_floe.bucket}/wh/db/t/data/" in line, line
        assert "AbortIncompleteMultipartUpload" in line, line
    assert faulty_floe.objects() == before
    assert read_pyiceberg(faulty_floe.pyiceberg(), "db.t").num_rows == 0
    faulty_floe.assert_no_secret_printed()


def test_a_lost_response_to_a_data_files_upload_fails_its_task_and_the_object_is_deleted(
        faulty_floe, fault_proxy, tmp_path):
    path = write(tmp_path / "in.parquet", rows(0, 1000, 10))
    faulty_floe.run("create", "db.t", "--schema-from", path)
    before = faulty_floe.objects()
    # Arrow uploads every file as a multipart upload (seen here: initiate, parts, complete).
    # The request that completes a data file's upload reaches the server, so the object
    # exists, and its answer never comes back (nor that of any retry).
    fault_proxy.fail("POST", ("/data/", "uploadId="), "lose-response")
    result = faulty_floe.run("append", "db.t", path, check=False)
    lost = [path for _, path, outcome in fault_proxy.requests if outcome == "lost"]
    deleted = fault_proxy.seen("DELETE", "/data/")
    fault_proxy.clear()
    assert lost, "no upload's answer was lost"
    assert deleted, "the object that landed was never deleted"
    assert result.returncode != 0, result.stdout
    assert "/data/" in result.stderr, result.stderr
    # The object the server stored for the failed task was deleted by the task's cleanup.
    assert faulty_floe.objects() == before
    assert read_pyiceberg(faulty_floe.pyiceberg(), "db.t").num_rows == 0


def test_expire_and_remove_orphans_delete_in_batches_and_a_refused_batch_loses_nothing(
        faulty_floe, fault_proxy, tmp_path):
    data = rows(0, 2000, 11)
    path = write(tmp_path / "in.parquet", data)
    faulty_floe.run("create", "db.t", "--schema-from", path, "--partition-by", "region")
    for _ in range(3):
        faulty_floe.run("append", "db.t", path, "--threads", "8")
    faulty_floe.run("delete", "db.t", "--where", "id < 1000")
    expected = data.filter(pc.greater_equal(data["id"], 1000))
    before = faulty_floe.objects()
    fault_proxy.clear()
    faulty_floe.run("expire", "db.t", "--older-than", "0s", "--retain-last", "1")
    removed = set(before) - set(faulty_floe.objects())
    # 24 data files, the manifests and manifest lists of four snapshots: one DeleteObjects
    # request for the data folder and one for the metadata folder, no single deletes.
    assert len([key for key in removed if "/data/" in key]) == 24, sorted(removed)
    assert len(fault_proxy.seen("POST", "?delete")) == 2, fault_proxy.requests
    assert fault_proxy.seen("DELETE", "/") == []
    same_rows(read_pyiceberg(faulty_floe.pyiceberg(), "db.t"), pa.concat_tables([expected] * 3))

    # A refused DeleteObjects request deletes nothing and is reported; the orphan stays,
    # and the next run takes it.
    s3 = faulty_floe.server.filesystem()
    orphan = f"{faulty_floe.bucket}/wh/db/t/data/region=north/00000-0-orphan-00001.parquet"
    with s3.open_output_stream(orphan) as stream:
        stream.write(b"PAR1 not really")
    fault_proxy.fail("POST", "?delete", "500")
    refused = faulty_floe.run("remove-orphans", "db.t", "--older-than", "0s", "--no-concurrent-writes")
    fault_proxy.clear()
    assert "1 could not be deleted" in refused.stdout, refused.stdout
    assert orphan in faulty_floe.server.objects(faulty_floe.bucket)
    faulty_floe.run("remove-orphans", "db.t", "--older-than", "0s", "--no-concurrent-writes")
    assert orphan not in faulty_floe.server.objects(faulty_floe.bucket)
    same_rows(read_pyiceberg(faulty_floe.pyiceberg(), "db.t"), pa.concat_tables([expected] * 3))
    faulty_floe.assert_no_secret_printed()
