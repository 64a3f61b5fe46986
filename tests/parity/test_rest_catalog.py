"""floe's REST catalog client against iceberg-java's REST catalog test server (RESTCatalogServer),
with pyiceberg's RestCatalog and iceberg-java's RESTCatalog (through the harness) on the same
server: namespaces and tables, commits as updates plus requirements, concurrent writers from two
floe processes and from iceberg-java, an unknown commit state, and credentials kept out of
output."""

import collections
import contextlib
import datetime
import http.client
import http.server
import math
import os
import re
import subprocess
import threading
import urllib.parse

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.rest import RestCatalog

from conftest import FLOE
from races import append_concurrently
from rest_server import running_rest_server


@pytest.fixture(scope="module")
def rest(tmp_path_factory):
    with running_rest_server(tmp_path_factory.mktemp("rest")) as (uri, warehouse):
        yield uri, warehouse


def floe(uri, *args, check=True, env=None, properties=()):
    command = [FLOE, *map(str, args), "--catalog", uri]
    for prop in properties:
        command += ["--catalog-property", prop]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    if check and result.returncode != 0:
        raise AssertionError(f"floe {' '.join(map(str, args))} failed:\n{result.stderr}")
    return result


def pyiceberg(uri):
    return RestCatalog("rest", uri=uri)


def linear_chain(table):
    by_id = {s.snapshot_id: s for s in table.snapshots()}
    chain, current = [], table.current_snapshot()
    while current is not None:
        chain.append(current)
        current = by_id.get(current.parent_snapshot_id) if current.parent_snapshot_id else None
    return chain


def event_rows(start, count):
    """Rows that hit 10 day partitions, pre-1970 and far-future dates, NaN, -0.0, NULLs, unicode."""
    days = [datetime.date(1901, 1, 1), datetime.date(1969, 12, 31), datetime.date(1970, 1, 1),
            datetime.date(2000, 2, 29), datetime.date(2024, 7, 1), datetime.date(2024, 7, 2),
            datetime.date(2262, 4, 11), datetime.date(9999, 12, 31), datetime.date(1, 1, 1), None]
    ids = list(range(start, start + count))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": [None if i % 7 == 0 else f"n{i} ü/é %2F ? #" for i in ids],
        "amount": [math.nan if i % 11 == 0 else (-0.0 if i % 5 == 0 else i * 0.5) for i in ids],
        "d": [days[i % len(days)] for i in ids],
    })


def test_floe_pyiceberg_and_iceberg_java_share_one_rest_catalog(rest, tmp_path, harness):
    uri, warehouse = rest
    floe(uri, "namespaces", "--create", "shared", "--property", "owner=floe tests")
    assert "shared" in floe(uri, "namespaces").stdout.split()
    props = floe(uri, "namespaces", "--properties", "shared").stdout
    assert "owner" in props and str(warehouse / "shared") in props
    created = floe(uri, "create", "shared.events", "--schema",
                   "id long not null, name string, amount double, d date",
                   "--partition-by", "day(d)").stdout
    assert str(warehouse / "shared" / "events") in created

    batches = [event_rows(0, 40), event_rows(40, 40)]
    for k, batch in enumerate(batches):
        path = tmp_path / f"in-{k}.parquet"
        pq.write_table(batch, path)
        out = floe(uri, "append", "shared.events", path).stdout
        assert re.search(r"appended 40 rows in \d+ data files", out), out
    expected = pa.concat_tables(batches).sort_by("id")

    # pyiceberg's REST client: the same rows, two append snapshots in a line, exact totals.
    table = pyiceberg(uri).load_table("shared.events")
    chain = linear_chain(table)
    assert [s.summary.operation.value for s in chain] == ["append", "append"]
    summary = table.current_snapshot().summary
    assert int(summary["total-records"]) == 80
    assert int(summary["total-data-files"]) == 20  # 10 days per append
    got = table.scan().to_arrow().sort_by("id")
    assert got.column("id").to_pylist() == expected.column("id").to_pylist()
    assert got.column("name").to_pylist() == expected.column("name").to_pylist()
    assert got.column("d").to_pylist() == expected.column("d").to_pylist()
    for a, b in zip(got.column("amount").to_pylist(), expected.column("amount").to_pylist()):
        assert (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))

    # iceberg-java's RESTCatalog client on the same server reads every row.
    java = harness.run("catalog", {"type": "rest", "uri": uri, "table": "shared.events",
                                   "warehouse": str(warehouse)})
    assert java["row_count"] == 80 and java["ids"] == list(range(80))
    assert java["snapshots"] == 2 and java["operation"] == "append"
    assert "shared" in java["namespaces"] and "shared.events" in java["tables"]

    # floe reads it back through the server too.
    out = tmp_path / "scan.parquet"
    floe(uri, "scan", "shared.events", "--format", "parquet", "--output", out)
    assert pq.read_table(out).sort_by("id").column("id").to_pylist() == list(range(80))

    # A copy-on-write delete and an expiry travel as add-snapshot and remove-snapshots updates.
    floe(uri, "delete", "shared.events", "--where", "id < 10")
    floe(uri, "expire", "shared.events", "--retain-last", "1", "--older-than", "0s")
    table = pyiceberg(uri).load_table("shared.events")
    # Rows 0-9 share files with other rows, so those files are rewritten: an overwrite.
    assert [s.summary.operation.value for s in table.snapshots()] == ["overwrite"]
    assert sorted(table.scan().to_arrow().column("id").to_pylist()) == list(range(10, 80))
    java = harness.run("catalog", {"type": "rest", "uri": uri, "table": "shared.events",
                                   "warehouse": str(warehouse)})
    assert java["ids"] == list(range(10, 80)) and java["snapshots"] == 1

    # Rename and drop go through the server; the other clients see them.
    floe(uri, "rename", "shared.events", "shared.renamed")
    assert floe(uri, "tables", "shared").stdout.split() == ["shared.renamed"]
    assert [t for t in pyiceberg(uri).list_tables("shared")] == [("shared", "renamed")]
    floe(uri, "drop", "shared.renamed")
    assert floe(uri, "tables", "shared").stdout.split() == []
    missing = floe(uri, "describe", "shared.renamed", check=False)
    assert missing.returncode != 0 and "NoSuchTable" in missing.stderr


def test_nested_namespaces_use_the_servers_separator(rest):
    uri, _ = rest
    floe(uri, "namespaces", "--create", "a1")
    floe(uri, "namespaces", "--create", "a1.b2")
    assert floe(uri, "namespaces", "a1").stdout.split() == ["a1.b2"]
    floe(uri, "create", "a1.b2.t", "--schema", "id long")
    assert floe(uri, "tables", "a1.b2").stdout.split() == ["a1.b2.t"]
    busy = floe(uri, "namespaces", "--drop", "a1.b2", check=False)
    assert busy.returncode != 0 and "NamespaceNotEmpty" in busy.stderr
    floe(uri, "drop", "a1.b2.t")
    floe(uri, "namespaces", "--drop", "a1.b2")
    assert floe(uri, "namespaces", "a1").stdout.split() == []
    exists = floe(uri, "namespaces", "--create", "a1", check=False)
    assert exists.returncode != 0 and "AlreadyExists" in exists.stderr


def test_two_floe_processes_commit_concurrently_without_losing_an_update(rest, tmp_path):
    uri, warehouse = rest
    writers, appends, rows = 2, 15, 20
    floe(uri, "namespaces", "--create", "race")
    floe(uri, "create", "race.t", "--schema", "id long not null, writer int", "--partition-by",
         "bucket(8, id)", "--property", "commit.retry.num-retries=100",
         "--property", "commit.retry.min-wait-ms=5", "--property", "commit.retry.max-wait-ms=100")
    inputs = {}
    for w in range(writers):
        for s in range(appends):
            path = tmp_path / f"in-{w}-{s}.parquet"
            ids = [w * 100000 + s * 100 + j for j in range(rows)]
            pq.write_table(pa.table({"id": pa.array(ids, pa.int64()),
                                     "writer": pa.array([w] * rows, pa.int32())}), path)
            inputs[(w, s)] = path
    # A pause between building the update and sending it widens the race window.
    env = dict(os.environ, FLOE_TEST_PAUSE_AT="swap", FLOE_TEST_PAUSE_MS="150", FLOE_LOG="info")
    attempts, failures = collections.Counter(), []

    def writer(w):
        for s in range(appends):
            result = floe(uri, "append", "race.t", inputs[(w, s)], check=False, env=env)
            if result.returncode != 0:
                failures.append(result.stderr)
                return
            match = re.search(r"committed on attempt (\d+)", result.stdout)
            attempts[int(match.group(1)) if match else 1] += 1

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[0]
    print(f"REST commit attempts (attempt: appends): {sorted(attempts.items())}")
    assert sum(attempts.values()) == writers * appends
    assert sum(n for a, n in attempts.items() if a > 1) > 0, f"no lost race was retried: {attempts}"

    table = pyiceberg(uri).load_table("race.t")
    chain = linear_chain(table)
    assert len(chain) == len(table.snapshots()) == writers * appends
    summary = table.current_snapshot().summary
    assert int(summary["total-records"]) == writers * appends * rows
    ids = table.scan().to_arrow().column("id").to_pylist()
    assert sorted(ids) == sorted(w * 100000 + s * 100 + j for w in range(writers)
                                 for s in range(appends) for j in range(rows))
    files = table.inspect.files().column("file_path").to_pylist()
    assert len(files) == len(set(files)) == int(summary["total-data-files"])
    data_dir = warehouse / "race" / "t" / "data"
    on_disk = {str(p) for p in data_dir.rglob("*.parquet")}
    assert on_disk == {f.removeprefix("file://") for f in files}, "a retry left or rewrote data files"


def field_id_rows(start, count):
    def field(name, typ, fid, nullable=True):
        return pa.field(name, typ, nullable=nullable, metadata={"PARQUET:field_id": str(fid)})
    schema = pa.schema([field("id", pa.int64(), 1, False), field("name", pa.string(), 2)])
    ids = list(range(start, start + count))
    return pa.table({"id": ids, "name": [f"r{i} ✓" for i in ids]}, schema=schema)


def test_iceberg_java_and_floe_append_concurrently_through_rest(rest, tmp_path, harness):
    uri, warehouse = rest
    floe(uri, "namespaces", "--create", "mixed")
    floe(uri, "create", "mixed.t", "--schema", "id long not null, name string",
         "--property", "commit.retry.num-retries=50", "--property", "commit.retry.min-wait-ms=5")
    floe_appends, java_appends = 8, 3

    def floe_append(path):
        result = floe(uri, "append", "mixed.t", path, check=False)
        return result.stderr if result.returncode != 0 else None

    def java_append(path):
        harness.run("catalog", {"type": "rest", "uri": uri, "table": "mixed.t",
                                "warehouse": str(warehouse), "append_files": [str(path)]})

    expected = append_concurrently(tmp_path, field_id_rows, floe_append, java_append,
                                   floe_appends, java_appends, count=10)
    java = harness.run("catalog", {"type": "rest", "uri": uri, "table": "mixed.t",
                                   "warehouse": str(warehouse)})
    assert java["ids"] == expected and java["snapshots"] == floe_appends + java_appends
    table = pyiceberg(uri).load_table("mixed.t")
    assert len(linear_chain(table)) == floe_appends + java_appends
    assert sorted(table.scan().to_arrow().column("id").to_pylist()) == expected
    out = tmp_path / "scan.parquet"
    floe(uri, "scan", "mixed.t", "--format", "parquet", "--output", out)
    assert sorted(pq.read_table(out).column("id").to_pylist()) == expected


class _Proxy(http.server.ThreadingHTTPServer):
    """Forwards to the real server, but answers a table commit with 504: after forwarding it
    (the commit happened) or without forwarding it (it did not)."""

    def __init__(self, upstream, forward_commits, busy_reads=0):
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.upstream = urllib.parse.urlparse(upstream)
        self.forward_commits = forward_commits
        self.commits = 0
        self.busy_reads = busy_reads  # answer this many GETs with 503 first
        self.busy_answered = 0


class _ProxyHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _relay(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        if self.command == "GET" and self.server.busy_answered < self.server.busy_reads:
            self.server.busy_answered += 1
            payload = b'{"error":{"message":"slow down","type":"ServiceUnavailable","code":503}}'
            self.send_response(503)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        is_commit = self.command == "POST" and re.fullmatch(r"/v1/namespaces/[^/]+/tables/[^/]+", self.path)
        if is_commit:
            self.server.commits += 1
        if not is_commit or self.server.forward_commits:
            connection = http.client.HTTPConnection(self.server.upstream.hostname, self.server.upstream.port)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "accept-encoding")}
            connection.request(self.command, self.path, body=body, headers=headers)
            response = connection.getresponse()
            payload = response.read()
            status = response.status
            content_type = response.getheader("Content-Type", "application/json")
            connection.close()
        if is_commit:
            status, payload, content_type = 504, b'{"error":{"message":"gateway timeout","type":"GatewayTimeout","code":504}}', "application/json"
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    do_GET = do_POST = do_DELETE = do_HEAD = _relay


@contextlib.contextmanager
def proxy(upstream, forward_commits, busy_reads=0):
    server = _Proxy(upstream, forward_commits, busy_reads)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_unknown_commit_state_is_resolved_by_reloading_and_otherwise_reported(rest, tmp_path):
    uri, warehouse = rest
    floe(uri, "namespaces", "--create", "unknown")
    floe(uri, "create", "unknown.t", "--schema", "id long not null")
    path = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": pa.array(range(5), pa.int64())}), path)
    data_dir = warehouse / "unknown" / "t" / "data"

    # The commit reached the server but the answer was lost: floe reloads, finds its snapshot
    # and reports success.
    with proxy(uri, forward_commits=True) as (server, proxied):
        result = floe(proxied, "append", "unknown.t", path)
        assert server.commits == 1
    assert "appended 5 rows" in result.stdout
    table = pyiceberg(uri).load_table("unknown.t")
    assert len(table.snapshots()) == 1
    assert sorted(table.scan().to_arrow().column("id").to_pylist()) == list(range(5))
    committed_files = set(data_dir.rglob("*.parquet"))

    # The commit never reached the server: floe cannot know that, so it reports the state as
    # unknown, exits non-zero, and deletes nothing it wrote.
    with proxy(uri, forward_commits=False) as (server, proxied):
        result = floe(proxied, "append", "unknown.t", path, check=False)
        assert server.commits == 1, "an unknown commit state must not be retried"
    assert result.returncode != 0
    assert "CommitStateUnknown" in result.stderr and "504" in result.stderr, result.stderr
    assert len(pyiceberg(uri).load_table("unknown.t").snapshots()) == 1
    left = set(data_dir.rglob("*.parquet")) - committed_files
    assert len(left) == 1, "the data file of an unknown commit must be kept"
    metadata_dir = warehouse / "unknown" / "t" / "metadata"
    assert any(p.name.startswith("snap-") for p in metadata_dir.iterdir())


def test_credentials_are_exchanged_and_never_printed(rest, tmp_path):
    uri, _ = rest
    secret = "s3cr3t-Value-42"
    # The client-credentials grant against the server's token endpoint, then normal use.
    result = floe(uri, "namespaces", properties=[f"credential=client-a:{secret}"])
    assert secret not in result.stdout + result.stderr
    # A token endpoint that refuses connections: a clear error without the secret.
    refused = floe(uri, "namespaces", check=False,
                   properties=[f"credential=client-a:{secret}", "oauth2-server-uri=http://127.0.0.1:9/token"])
    assert refused.returncode != 0 and "token" in refused.stderr.lower()
    assert secret not in refused.stdout + refused.stderr
    # A static token sent to a server that is not there: the error names the server only.
    gone = floe("http://127.0.0.1:9/", "namespaces", check=False, properties=[f"token={secret}"])
    assert gone.returncode != 0 and "http://127.0.0.1:9" in gone.stderr
    assert secret not in gone.stdout + gone.stderr
    bad = floe("http://user:pw-s3cr3t@127.0.0.1:9/", "namespaces", check=False)
    assert bad.returncode != 0 and "pw-s3cr3t" not in bad.stderr


def test_busy_server_reads_are_retried_and_writes_are_not(rest, tmp_path):
    uri, _ = rest
    floe(uri, "namespaces", "--create", "busy")
    floe(uri, "create", "busy.t", "--schema", "id long not null")
    # Three 503 answers to reads: floe backs off and retries them, and the scan succeeds.
    with proxy(uri, forward_commits=True, busy_reads=3) as (server, proxied):
        result = floe(proxied, "scan", "busy.t")
        assert server.busy_answered == 3
    assert "(0 rows)" in result.stdout
    # Past five retries the error names the server's answer.
    with proxy(uri, forward_commits=True, busy_reads=100) as (server, proxied):
        result = floe(proxied, "describe", "busy.t", check=False)
        assert server.busy_answered == 6
    assert result.returncode != 0 and "HTTP 503" in result.stderr
