"""`floe expire`: snapshot expiration and the cleanup of files only expired snapshots reached.

Oracle: pyiceberg reads every snapshot's manifest lists and manifests before the expiration, and
the expected deletions are computed from those by iceberg-java's ReachableFileCleanup rule (the
live files of manifests no retained snapshot lists, minus the live files of retained manifests).
After it, pyiceberg must load the table, read the current rows and time travel to every retained
snapshot; storage must have lost exactly the expected files."""

import os
import re
import subprocess
import time

import pyarrow as pa
import pyarrow.parquet as pq

from arrow_compare import differences, sorted_by
from conftest import FLOE, files_under, stderr_until
from test_scan import FLAT, flat_rows

TABLE = "x.t"


def strip(path):
    return path.removeprefix("file://")


def make_history(floe, tmp_path, properties=()):
    """Eight appends over eight partitions, a copy-on-write delete and an overwrite: files are
    added, rewritten and removed across ten snapshots."""
    args = []
    for prop in properties:
        args += ["--property", prop]
    floe.run("create", TABLE, "--schema", FLAT, "--partition-by", "region", *args)
    for k in range(8):
        part = flat_rows(k * 500, 500, [f"r{k}", f"r{(k + 3) % 8}", "ü/é%"])
        pq.write_table(part, tmp_path / f"in{k}.parquet")
        floe.run("append", TABLE, tmp_path / f"in{k}.parquet")
    floe.run("delete", TABLE, "--where", "id < 700 or region = 'r5'")
    pq.write_table(flat_rows(10_000, 300, ["r2"]), tmp_path / "over.parquet")
    floe.run("overwrite", TABLE, tmp_path / "over.parquet", "--where", "region = 'r2' or region is null")


def reachable(table):
    """Per snapshot id: its manifest list, its manifests, and their live file paths."""
    io = table.io
    result = {}
    live = {}
    for snapshot in table.metadata.snapshots:
        manifests = [m.manifest_path for m in snapshot.manifests(io)]
        for manifest in snapshot.manifests(io):
            if manifest.manifest_path not in live:
                live[manifest.manifest_path] = {
                    strip(e.data_file.file_path) for e in manifest.fetch_manifest_entry(io, discard_deleted=True)}
        result[snapshot.snapshot_id] = (strip(snapshot.manifest_list), {strip(m) for m in manifests})
    return result, {strip(k): v for k, v in live.items()}


def expected_deletions(before, live, retained_ids):
    expired = [s for s in before if s not in retained_ids]
    lists = {before[s][0] for s in expired}
    retained_manifests = set().union(*(before[s][1] for s in retained_ids))
    candidates = set().union(*(before[s][1] for s in expired)) - retained_manifests
    data = set().union(*(live[m] for m in candidates)) if candidates else set()
    data -= set().union(*(live[m] for m in retained_manifests))
    return lists, candidates, data


def parse_report(stdout):
    fields = dict(re.findall(r"(\w+)=(\d+)", stdout.splitlines()[-1]))
    listed = {}
    for line in stdout.splitlines():
        match = re.match(r"^(?:deleted|would delete) (data file|manifest list|manifest|statistics file) (.+)$", line)
        if match:
            listed.setdefault(match.group(1), set()).add(strip(match.group(2)))
    expired = {int(x) for x in re.findall(r"^(?:expired|would expire) snapshot (\d+)$", stdout, re.M)}
    return {k: int(v) for k, v in fields.items()}, listed, expired


def test_expire_deletes_exactly_what_only_expired_snapshots_reached(floe, pyiceberg_catalog, tmp_path):
    make_history(floe, tmp_path)
    table = pyiceberg_catalog.load_table(TABLE)
    snapshots = table.metadata.snapshots
    assert len(snapshots) == 10
    rows_before = table.scan().to_arrow()
    before, live = reachable(table)
    retained_ids = {s.snapshot_id for s in snapshots[-2:]}
    lists, manifests, data = expected_deletions(before, live, retained_ids)
    assert data and manifests and lists, "the history must leave files for expiration to remove"
    table_dir = floe.warehouse / "x" / "t"
    files_before = files_under(table_dir)

    # A dry run names the same snapshots and files and changes nothing.
    location = floe.metadata_location(TABLE)
    dry = floe.run("expire", TABLE, "--retain-last", "2", "--older-than", "0s", "--dry-run")
    fields, listed, expired = parse_report(dry.stdout)
    assert expired == set(before) - retained_ids
    assert listed.get("data file", set()) == data
    assert listed.get("manifest", set()) == manifests
    assert listed.get("manifest list", set()) == lists
    assert floe.metadata_location(TABLE) == location and files_under(table_dir) == files_before

    result = floe.run("expire", TABLE, "--retain-last", "2", "--older-than", "0s")
    fields, listed, expired = parse_report(result.stdout)
    assert expired == set(before) - retained_ids
    assert fields["attempts"] == 1 and fields["kept_outside"] == 0 and fields["delete_failures"] == 0
    gone = files_before - files_under(table_dir)
    assert {g for g in gone if not g.endswith(".metadata.json")} == lists | manifests | data
    # Every file a retained snapshot reaches is still there.
    for snapshot_id in retained_ids:
        manifest_list, kept_manifests = before[snapshot_id]
        assert os.path.exists(manifest_list)
        for manifest in kept_manifests:
            assert os.path.exists(manifest)
            assert all(os.path.exists(f) for f in live[manifest])

    # pyiceberg agrees: the retained snapshots only, the same current rows, time travel works.
    table = pyiceberg_catalog.load_table(TABLE)
    assert {s.snapshot_id for s in table.metadata.snapshots} == retained_ids
    assert {e.snapshot_id for e in table.metadata.snapshot_log} <= retained_ids
    assert not differences(sorted_by(rows_before, ["id"]), sorted_by(table.scan().to_arrow(), ["id"]))
    for snapshot_id in retained_ids:
        assert table.scan(snapshot_id=snapshot_id).to_arrow().num_rows == int(
            table.snapshot_by_id(snapshot_id).summary["total-records"])
        floe.run("scan", TABLE, "--snapshot", snapshot_id, "--format", "csv", "--output", tmp_path / "tt.csv")

    # Nothing more to expire: no commit.
    again = floe.run("expire", TABLE, "--retain-last", "2", "--older-than", "0s")
    fields, _, expired = parse_report(again.stdout)
    assert not expired and fields["attempts"] == 0


def test_expire_follows_the_tables_history_properties(floe, pyiceberg_catalog, tmp_path):
    make_history(floe, tmp_path, ["history.expire.min-snapshots-to-keep=4",
                                  "history.expire.max-snapshot-age-ms=1"])
    time.sleep(0.05)
    result = floe.run("expire", TABLE)
    _, _, expired = parse_report(result.stdout)
    table = pyiceberg_catalog.load_table(TABLE)
    assert len(table.metadata.snapshots) == 4 and len(expired) == 6
    # The default age (5 days) keeps everything this young.
    floe.run("create", "x.young", "--schema", FLAT)
    pq.write_table(flat_rows(0, 10, ["a"]), tmp_path / "y.parquet")
    for _ in range(3):
        floe.run("append", "x.young", tmp_path / "y.parquet")
    _, _, expired = parse_report(floe.run("expire", "x.young").stdout)
    assert not expired
    # An explicit snapshot expires whatever its age; the current one cannot.
    young = pyiceberg_catalog.load_table("x.young")
    first, current = young.metadata.snapshots[0].snapshot_id, young.metadata.current_snapshot_id
    _, _, expired = parse_report(floe.run("expire", "x.young", "--snapshot", first).stdout)
    assert expired == {first}
    error = floe.fail("expire", "x.young", "--snapshot", current)
    assert "still referenced by refs: main" in error and "x.young" in error
    error = floe.fail("expire", "x.young", "--snapshot", "12345")
    assert "has no snapshot 12345" in error


def test_expire_refuses_when_gc_is_disabled(floe, tmp_path):
    floe.run("create", TABLE, "--schema", FLAT, "--property", "gc.enabled=false")
    pq.write_table(flat_rows(0, 10, ["a"]), tmp_path / "y.parquet")
    floe.run("append", TABLE, tmp_path / "y.parquet")
    floe.run("append", TABLE, tmp_path / "y.parquet")
    location = floe.metadata_location(TABLE)
    error = floe.fail("expire", TABLE, "--older-than", "0s")
    assert "gc.enabled" in error
    assert floe.metadata_location(TABLE) == location


def test_expire_deletes_only_the_tables_own_folders(floe, pyiceberg_catalog, tmp_path):
    """A data folder outside the table location (write.data.path, which Iceberg allows) is the
    table's own: expiration deletes the files there that only expired snapshots reached, as
    iceberg-java does. A file the table took in from anywhere else (pyiceberg's add_files) is
    kept even though only expired snapshots reached it."""
    outside = tmp_path / "shared-data"
    floe.run("create", TABLE, "--schema", FLAT, "--partition-by", "region",
             "--property", f"write.data.path={outside}")
    for k in range(3):
        pq.write_table(flat_rows(k * 100, 100, [f"r{k}"]), tmp_path / f"in{k}.parquet")
        floe.run("append", TABLE, tmp_path / f"in{k}.parquet")
    elsewhere = tmp_path / "elsewhere" / "added.parquet"
    elsewhere.parent.mkdir()
    added = flat_rows(900, 10, ["r1"])
    required_id = added.schema.set(0, added.schema.field("id").with_nullable(False))
    pq.write_table(added.cast(required_id), elsewhere)  # no field ids, as add_files requires
    pyiceberg_catalog.load_table(TABLE).add_files([str(elsewhere)])
    floe.run("delete", TABLE, "--where", "region = 'r0' or region = 'r1'")
    outside_files = files_under(outside)
    table = pyiceberg_catalog.load_table(TABLE)
    before, live = reachable(table)
    retained = {table.metadata.current_snapshot_id}
    _, manifests, data = expected_deletions(before, live, retained)
    assert str(elsewhere) in data and data - {str(elsewhere)} <= outside_files and len(data) > 1

    result = floe.run("expire", TABLE, "--retain-last", "1", "--older-than", "0s")
    kept = {strip(line.removeprefix("kept (not the table's own) ")) for line in result.stdout.splitlines()
            if line.startswith("kept (not the table's own) ")}
    assert kept == {str(elsewhere)}
    assert elsewhere.exists()
    assert files_under(outside) == outside_files - data  # the table's own data folder
    assert not any(os.path.exists(m) for m in manifests)
    rows = pyiceberg_catalog.load_table(TABLE).scan().to_arrow()
    assert sorted(set(rows.column("region").to_pylist()) - {None}) == ["r2"]
    # remove-orphans lists only the table's folders: the added file stays.
    floe.run("remove-orphans", TABLE, "--older-than", "0s", "--no-concurrent-writes")
    assert elsewhere.exists() and files_under(outside) == outside_files - data


def test_expire_loses_a_race_retries_and_keeps_the_winners_snapshot(floe, pyiceberg_catalog, tmp_path):
    floe.run("create", TABLE, "--schema", FLAT)
    for k in range(4):
        pq.write_table(flat_rows(k * 100, 100, ["a"]), tmp_path / f"in{k}.parquet")
        floe.run("append", TABLE, tmp_path / f"in{k}.parquet")
    env = dict(os.environ, FLOE_TEST_PAUSE_AT="swap", FLOE_TEST_PAUSE_MS="6000")
    expire = subprocess.Popen(
        [FLOE, "expire", TABLE, "--retain-last", "1", "--older-than", "0s",
         "--warehouse", str(floe.warehouse)], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    # Wait until expire has planned and paused before its swap, then commit underneath it.
    stderr_until(expire, "paused at swap")
    pq.write_table(flat_rows(1000, 100, ["b"]), tmp_path / "late.parquet")
    floe.run("append", TABLE, tmp_path / "late.parquet")
    stdout, stderr = expire.communicate(timeout=120)
    assert expire.returncode == 0, stderr
    fields, _, expired = parse_report(stdout)
    assert fields["attempts"] == 2
    table = pyiceberg_catalog.load_table(TABLE)
    # Re-planned on the refreshed table: only the newest snapshot (the late append) is kept.
    assert len(table.metadata.snapshots) == 1 and len(expired) == 4
    rows = table.scan().to_arrow()
    assert rows.num_rows == 500
    assert all(os.path.exists(strip(f)) for f in table.inspect.files().column("file_path").to_pylist())
