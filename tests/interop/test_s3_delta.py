"""Delta tables on S3-compatible object storage (s3s-fs on loopback, conftest.S3Server):
floe commits each version with a conditional PUT of `_delta_log/<v>.json` (If-None-Match: *,
signed by floe itself), and deltalake (delta-rs, its own S3 client) reads every version and
writes to the same table. What is stored is listed by pyarrow's S3 client, not by floe.

s3s-fs makes a conditional PUT's check and write two steps, so the race test runs through
FaultProxy(atomic_conditional_puts=True), which lets one conditional PUT per key through at a
time, as AWS S3 does in one step (s3_fault_proxy.py)."""

import json
import os
import subprocess
import threading
import urllib.parse

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

deltalake = pytest.importorskip("deltalake")
from deltalake import DeltaTable, write_deltalake  # noqa: E402

from arrow_compare import differences, sorted_by  # noqa: E402
from conftest import FLOE  # noqa: E402
from s3_fault_proxy import FaultProxy  # noqa: E402
from s3_server import run_floe  # noqa: E402
from test_s3 import rows  # noqa: E402

ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", AWS_EC2_METADATA_DISABLED="true")


class DeltaOnS3:
    """floe and deltalake on one Delta table at s3://<bucket>/<name>."""

    def __init__(self, server, bucket, endpoint=None):
        self.server = server
        self.bucket = bucket
        self.root = f"s3://{bucket}/events"
        self.properties = dict(server.properties(), **({"s3.endpoint": endpoint} if endpoint else {}))
        self.outputs = []

    def floe(self, *args, check=True):
        return run_floe(FLOE, args, self.properties, self.outputs, check)

    def storage_options(self):
        """deltalake's (object_store's) names for the same server and keys."""
        return {"AWS_ENDPOINT_URL": self.server.endpoint, "AWS_ACCESS_KEY_ID": self.server.access_key,
                "AWS_SECRET_ACCESS_KEY": self.server.secret_key, "AWS_REGION": "us-east-1",
                "AWS_ALLOW_HTTP": "true", "AWS_S3_ALLOW_UNSAFE_RENAME": "true",
                "AWS_EC2_METADATA_DISABLED": "true"}

    def deltalake(self, version=None):
        return DeltaTable(self.root, storage_options=self.storage_options(), version=version)

    def objects(self):
        return self.server.objects(f"{self.bucket}/events")

    def log_versions(self):
        return sorted(int(key.rsplit("/", 1)[1][:20]) for key in self.objects()
                      if "/_delta_log/" in key and key.endswith(".json") and "_staged" not in key
                      and key.rsplit("/", 1)[1][:20].isdigit())

    def assert_no_secret_printed(self):
        for output in self.outputs:
            assert self.server.secret_key not in output


def same_rows(actual, expected):
    assert actual.num_rows == expected.num_rows
    actual = sorted_by(actual.select(expected.column_names), ["id"])
    assert differences(actual, sorted_by(expected, ["id"])) == []


@pytest.fixture
def delta_s3(s3_server, request):
    name = "d" + str(abs(hash(request.node.name)) % 10**8)
    return DeltaOnS3(s3_server, s3_server.bucket(name))


def test_floe_writes_a_delta_table_on_s3_that_deltalake_reads_at_every_version(delta_s3, tmp_path):
    first, second, third = rows(0, 3000, 21), rows(3000, 3000, 22), rows(6000, 2000, 23)
    paths = []
    for i, part in enumerate([first, second, third]):
        paths.append(tmp_path / f"in-{i}.parquet")
        pq.write_table(part, paths[-1])
    delta_s3.floe("create", delta_s3.root, "--schema-from", paths[0], "--partition-by", "region",
                  "--property", "delta.checkpointInterval=2")
    appended = delta_s3.floe("append", delta_s3.root, paths[0], "--threads", "4")
    assert "version 1" in appended.stdout, appended.stdout
    delta_s3.floe("append", delta_s3.root, paths[1], "--threads", "8")
    delta_s3.floe("overwrite", delta_s3.root, paths[2])

    # Each version as deltalake reads it.
    same_rows(delta_s3.deltalake(1).to_pyarrow_table(), first)
    same_rows(delta_s3.deltalake(2).to_pyarrow_table(), pa.concat_tables([first, second]))
    latest = delta_s3.deltalake()
    assert latest.version() == 3
    same_rows(latest.to_pyarrow_table(), third)
    assert sorted(latest.metadata().partition_columns) == ["region"]

    stored = delta_s3.objects()
    names = [key.rsplit("/", 1)[1] for key in stored]
    # A checkpoint at version 2 (interval 2), written in place; no temporary object anywhere.
    assert f"{delta_s3.bucket}/events/_delta_log/00000000000000000002.checkpoint.parquet" in stored
    assert f"{delta_s3.bucket}/events/_delta_log/_last_checkpoint" in stored
    assert not [n for n in names if n.endswith(".tmp") or n.startswith(".")], names
    assert delta_s3.log_versions() == [0, 1, 2, 3]
    # Hive-style folders escaped as Spark does, for the value with a '/'.
    assert any("/region=ost%2Fwest/" in key for key in stored), sorted(stored)

    # floe reads its own table back the same, from the checkpoint and the log after it.
    out = tmp_path / "scan.parquet"
    delta_s3.floe("scan", delta_s3.root, "--format", "parquet", "--output", out)
    same_rows(pq.read_table(out), third)
    delta_s3.assert_no_secret_printed()


def test_deltalake_and_floe_append_to_one_table_on_s3_in_turn(delta_s3, tmp_path):
    first, second, third = rows(0, 500, 24), rows(500, 500, 25), rows(1000, 500, 26)
    path = tmp_path / "first.parquet"
    pq.write_table(first, path)
    delta_s3.floe("create", delta_s3.root, "--schema-from", path)
    delta_s3.floe("append", delta_s3.root, path)
    write_deltalake(delta_s3.root, second, mode="append", storage_options=delta_s3.storage_options())
    path = tmp_path / "third.parquet"
    pq.write_table(third, path)
    result = delta_s3.floe("append", delta_s3.root, path)
    assert "version 3" in result.stdout, result.stdout
    expected = pa.concat_tables([first, second, third])
    same_rows(delta_s3.deltalake().to_pyarrow_table(), expected)
    out = tmp_path / "scan.parquet"
    delta_s3.floe("scan", delta_s3.root, "--format", "parquet", "--output", out)
    same_rows(pq.read_table(out), expected)


def test_racing_appends_on_s3_commit_each_version_once(s3_server, tmp_path):
    proxy = FaultProxy(s3_server.port, atomic_conditional_puts=True)
    try:
        delta_s3 = DeltaOnS3(s3_server, s3_server.bucket("race"), endpoint=proxy.endpoint)
        writers, appends, per_append = 6, 4, 50
        inputs = {}
        for w in range(writers):
            for a in range(appends):
                start = (w * appends + a) * per_append
                inputs[w, a] = tmp_path / f"in-{w}-{a}.parquet"
                pq.write_table(rows(start, per_append, start), inputs[w, a])
        delta_s3.floe("create", delta_s3.root, "--schema-from", inputs[0, 0])
        outputs, errors = [], []

        def writer(w):
            for a in range(appends):
                result = delta_s3.floe("append", delta_s3.root, inputs[w, a], check=False)
                (outputs if result.returncode == 0 else errors).append(result.stdout + result.stderr)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        # Every append one version, contiguous, no version written twice.
        assert delta_s3.log_versions() == list(range(writers * appends + 1))
        table = delta_s3.deltalake()
        assert table.version() == writers * appends
        scanned = table.to_pyarrow_table()
        assert sorted(scanned["id"].to_pylist()) == list(range(writers * appends * per_append))
        # Races were really lost (412 from the server) and retried.
        refused = [p for m, p, outcome in proxy.requests if m == "PUT" and outcome == "412"]
        assert refused, "no conditional PUT lost a race"
        assert any("committed on attempt" in out for out in outputs)
    finally:
        proxy.stop()


def test_a_lost_answer_to_a_commits_put_is_resolved_without_a_second_version(s3_server, tmp_path):
    proxy = FaultProxy(s3_server.port, atomic_conditional_puts=True)
    try:
        delta_s3 = DeltaOnS3(s3_server, s3_server.bucket("lost"), endpoint=proxy.endpoint)
        first, second = rows(0, 400, 27), rows(400, 400, 28)
        path = tmp_path / "first.parquet"
        pq.write_table(first, path)
        delta_s3.floe("create", delta_s3.root, "--schema-from", path)
        delta_s3.floe("append", delta_s3.root, path)
        path = tmp_path / "second.parquet"
        pq.write_table(second, path)
        # The PUT of version 2 lands, and its answer is lost: the retry finds the name taken
        # (412), reads the object back, and finds its own bytes.
        proxy.fail("PUT", "/_delta_log/00000000000000000002.json", "lose-response", times=1)
        result = delta_s3.floe("append", delta_s3.root, path)
        outcomes = [outcome for _, _, outcome in proxy.seen("PUT", "/_delta_log/00000000000000000002.json")]
        assert outcomes == ["lost", "412"], outcomes
        assert "version 2" in result.stdout, result.stdout
        assert delta_s3.log_versions() == [0, 1, 2]
        same_rows(delta_s3.deltalake().to_pyarrow_table(), pa.concat_tables([first, second]))
    finally:
        proxy.stop()


def test_vacuum_on_s3_deletes_in_batches_only_what_the_table_no_longer_needs(s3_server, tmp_path):
    proxy = FaultProxy(s3_server.port)
    try:
        delta_s3 = DeltaOnS3(s3_server, s3_server.bucket("vacuum"), endpoint=proxy.endpoint)
        old, new = rows(0, 2000, 29), rows(2000, 500, 30)
        pq.write_table(old, tmp_path / "old.parquet")
        pq.write_table(new, tmp_path / "new.parquet")
        delta_s3.floe("create", delta_s3.root, "--schema-from", tmp_path / "old.parquet",
                      "--partition-by", "region")
        delta_s3.floe("append", delta_s3.root, tmp_path / "old.parquet", "--threads", "8")
        delta_s3.floe("overwrite", delta_s3.root, tmp_path / "new.parquet")
        s3 = s3_server.filesystem()
        foreign = [f"{delta_s3.bucket}/events/notes.txt", f"{delta_s3.bucket}/elsewhere/part-0.parquet"]
        for key in foreign:
            with s3.open_output_stream(key) as stream:
                stream.write(b"not the table's")
        before = delta_s3.server.objects(delta_s3.bucket)
        # add.path is the key below the table's root, URI-encoded once (the protocol).
        live = {f"{delta_s3.bucket}/events/" + urllib.parse.unquote(path) for path in
                delta_s3.deltalake().get_add_actions(flatten=True).column("path").to_pylist()}
        assert live and live <= set(before)
        proxy.clear()
        delta_s3.floe("vacuum", delta_s3.root, "--retain", "0h", "--no-retention-check")
        after = delta_s3.server.objects(delta_s3.bucket)
        removed = set(before) - set(after)
        assert len(removed) == 8, sorted(removed)  # the 8 overwritten partition files
        assert all("/region=" in key and key.endswith(".parquet") for key in removed)
        assert not removed & live
        assert all(key in after for key in foreign)
        # One DeleteObjects request, no single deletes.
        assert len(proxy.seen("POST", "?delete")) == 1, proxy.requests
        assert proxy.seen("DELETE", "/") == []
        same_rows(delta_s3.deltalake().to_pyarrow_table(), new)
    finally:
        proxy.stop()


def without_keys(properties):
    return {key: value for key, value in properties.items()
            if key not in ("s3.access-key-id", "s3.secret-access-key")}


def chain_env(credentials_file):
    """The environment with no AWS keys, instance metadata off, and `credentials_file` as
    the shared credentials file the AWS credential chain reads."""
    env = {key: value for key, value in ENV.items()
           if key not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                          "AWS_PROFILE")}
    return dict(env, AWS_SHARED_CREDENTIALS_FILE=str(credentials_file),
                AWS_CONFIG_FILE=str(credentials_file) + ".config-absent")


def floe_with_env(args, properties, env, timeout=300):
    command = [FLOE, *map(str, args)]
    for key, value in properties.items():
        command += ["--catalog-property", f"{key}={value}"]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


def test_keys_from_the_aws_credential_chain_sign_floes_own_requests(delta_s3, tmp_path):
    # No keys among the properties nor in the environment: the shared credentials file
    # has them. Arrow's client and floe's conditional PUTs and DeleteObjects all sign
    # with what the chain finds.
    credentials = tmp_path / "credentials"
    credentials.write_text(f"[default]\naws_access_key_id = {delta_s3.server.access_key}\n"
                           f"aws_secret_access_key = {delta_s3.server.secret_key}\n")
    env = chain_env(credentials)
    properties = without_keys(delta_s3.properties)
    first, second = rows(0, 400, 35), rows(400, 400, 36)
    for i, part in enumerate([first, second]):
        pq.write_table(part, tmp_path / f"in-{i}.parquet")
    for args in (["create", delta_s3.root, "--schema-from", tmp_path / "in-0.parquet"],
                 ["append", delta_s3.root, tmp_path / "in-0.parquet"],
                 ["overwrite", delta_s3.root, tmp_path / "in-1.parquet"],
                 ["vacuum", delta_s3.root, "--retain", "0h", "--no-retention-check"]):
        result = floe_with_env(args, properties, env)
        assert result.returncode == 0, result.stderr
        assert delta_s3.server.secret_key not in result.stdout + result.stderr
    assert delta_s3.log_versions() == [0, 1, 2]
    same_rows(delta_s3.deltalake().to_pyarrow_table(), second)
    data = [key for key in delta_s3.objects() if key.endswith(".parquet") and "_delta_log" not in key]
    assert len(data) == 1, data  # the overwritten file vacuumed


def test_without_any_credentials_a_delta_write_on_s3_is_refused_before_any_object(
        delta_s3, tmp_path):
    path = tmp_path / "in.parquet"
    pq.write_table(rows(0, 10, 31), path)
    result = floe_with_env(["create", delta_s3.root, "--schema-from", path],
                           without_keys(delta_s3.properties), chain_env(tmp_path / "absent"))
    assert result.returncode != 0
    assert "no AWS credentials" in result.stderr and delta_s3.root in result.stderr, result.stderr
    assert delta_s3.objects() == {}


def test_a_catalog_managed_delta_table_on_s3_stages_ratifies_and_publishes(delta_s3, tmp_path):
    catalog = ["--catalog", f"sqlite:///{tmp_path / 'catalog.db'}", "--warehouse", str(tmp_path)]
    first, second = rows(0, 600, 32), rows(600, 600, 33)
    paths = []
    for i, part in enumerate([first, second]):
        paths.append(tmp_path / f"in-{i}.parquet")
        pq.write_table(part, paths[-1])
    delta_s3.floe("create", "lake.events", "--format", "delta", "--schema-from", paths[0],
                  "--partition-by", "region", "--location", delta_s3.root, *catalog)
    delta_s3.floe("append", "lake.events", paths[0], "--threads", "4", *catalog)
    delta_s3.floe("append", "lake.events", paths[1], *catalog)
    out = tmp_path / "scan.parquet"
    delta_s3.floe("scan", "lake.events", "--format", "parquet", "--output", out, *catalog)
    same_rows(pq.read_table(out), pa.concat_tables([first, second]))
    # Version 0 is published directly; 1 and 2 were staged, ratified by the catalog, and
    # published byte for byte (the staged files stay, as the protocol allows).
    assert delta_s3.log_versions() == [0, 1, 2]
    s3 = delta_s3.server.filesystem()
    staged = sorted(key for key in delta_s3.objects() if "/_staged_commits/" in key)
    assert [key.rsplit("/", 1)[1][:20] for key in staged] == [f"{v:020d}" for v in (1, 2)]
    for version, key in zip((1, 2), staged):
        published = f"{delta_s3.bucket}/events/_delta_log/{version:020d}.json"
        with s3.open_input_stream(key) as a, s3.open_input_stream(published) as b:
            text = a.read()
            assert text == b.read()
        assert any("add" in json.loads(line) for line in text.decode().splitlines())
    delta_s3.assert_no_secret_printed()


@pytest.mark.parametrize("shift", [-100, 100])
def test_a_size_the_log_gets_wrong_fails_the_read_naming_the_file(delta_s3, tmp_path, shift):
    # floe takes each data file's size from the log (no HEAD request); a wrong one must fail
    # the read, never give other rows.
    path = tmp_path / "in.parquet"
    pq.write_table(rows(0, 300, 34), path)
    delta_s3.floe("create", delta_s3.root, "--schema-from", path)
    delta_s3.floe("append", delta_s3.root, path)
    s3 = delta_s3.server.filesystem()
    key = f"{delta_s3.bucket}/events/_delta_log/00000000000000000001.json"
    with s3.open_input_stream(key) as stream:
        lines = stream.read().decode().splitlines()
    actions = [json.loads(line) for line in lines]
    add = next(action["add"] for action in actions if "add" in action)
    add["size"] += shift
    with s3.open_output_stream(key) as stream:
        stream.write("\n".join(json.dumps(action) for action in actions).encode() + b"\n")
    result = delta_s3.floe("scan", delta_s3.root, "--format", "csv", check=False)
    assert result.returncode != 0, result.stdout[:500]
    assert urllib.parse.unquote(add["path"]) in urllib.parse.unquote(result.stderr), result.stderr
