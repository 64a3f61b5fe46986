"""Durability on local disk, seen from the system calls (the power-cut sweeps themselves are
unit tests over a simulated page cache: src/floe/iceberg/table/power_cut_test.cc).

Under strace, an append must fsync every file its new snapshot names for the first time (data
files, manifests, manifest list, metadata file) and every folder they are in, up to the
warehouse, all before SQLite commits the catalog's pointer; with `floe.io.fsync=false` it fsyncs
none of them. pyiceberg reads what was written.
"""

import os
import pathlib
import re
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
from conftest import FLOE

# strace comes from scripts/bootstrap.sh; without it these tests fail rather than skip.

SYNC = re.compile(r"^\d+\s+f(?:data)?sync\(\d+<(?P<path>[^>]*)>\)\s+=\s+0")
# With several threads syncing at once (a write's tasks), strace splits a call in two lines:
# "PID fsync(FD<path> <unfinished ...>" and later "PID <... fsync resumed>) = 0".
UNFINISHED = re.compile(r"^(?P<pid>\d+)\s+f(?:data)?sync\(\d+<(?P<path>[^>]*)>\s+<unfinished \.\.\.>")
RESUMED = re.compile(r"^(?P<pid>\d+)\s+<\.\.\. f(?:data)?sync resumed>\s*\)\s+=\s+0")


def input_file(tmp_path: pathlib.Path) -> pathlib.Path:
    rows = 4000
    table = pa.table({
        "id": pa.array(range(rows), pa.int64()),
        "region": pa.array([f"r{i % 8}/é" for i in range(rows)]),  # escaped partition names
    })
    path = tmp_path / "input.parquet"
    pq.write_table(table, path)
    return path


def traced_append(floe, tmp_path, *extra):
    trace = tmp_path / "trace.txt"
    command = ["strace", "-f", "-y", "-qq", "-e", "trace=fsync,fdatasync", "-o", str(trace),
               FLOE, "append", "db.t", str(input_file(tmp_path)), "--warehouse", str(floe.warehouse), *extra]
    # LeakSanitizer (in the debug build) cannot run under ptrace.
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr
    synced = []  # in the order the calls returned
    pending = {}  # pid -> the path of its unfinished call
    for line in trace.read_text().splitlines():
        if match := SYNC.match(line):
            synced.append(match["path"])
        elif match := UNFINISHED.match(line):
            pending[match["pid"]] = match["path"]
        elif (match := RESUMED.match(line)) and match["pid"] in pending:
            synced.append(pending.pop(match["pid"]))
    return synced


def new_files(pyiceberg_catalog):
    table = pyiceberg_catalog.load_table("db.t")
    snapshot = table.current_snapshot()
    files = [entry.data_file.file_path for manifest in snapshot.manifests(table.io)
             for entry in manifest.fetch_manifest_entry(table.io) if entry.snapshot_id == snapshot.snapshot_id]
    manifests = [m.manifest_path for m in snapshot.manifests(table.io) if m.added_snapshot_id == snapshot.snapshot_id]
    local = lambda uri: uri.removeprefix("file://")
    return ([local(f) for f in files], [local(m) for m in manifests], local(snapshot.manifest_list),
            local(table.metadata_location), table)


def test_an_append_fsyncs_every_new_file_and_folder_before_the_catalog_commits(floe, pyiceberg_catalog, tmp_path):
    floe.run("create", "db.t", "--schema", "id long not null, region string", "--partition-by", "region")
    synced = traced_append(floe, tmp_path)
    data, manifests, manifest_list, metadata, table = new_files(pyiceberg_catalog)
    assert len(data) == 8
    assert table.scan().to_arrow().num_rows == 4000
    wanted = set(data) | set(manifests) | {manifest_list, metadata}
    missing = wanted - set(synced)
    assert not missing, f"written but never fsynced: {sorted(missing)}"
    folders = set()
    for path in wanted:
        folder = pathlib.Path(path).parent
        while folder != floe.warehouse.parent:
            folders.add(str(folder))
            folder = folder.parent
    missing = folders - set(synced)
    assert not missing, f"folders that gained files but were never synced: {sorted(missing)}"
    # SQLite's own fsyncs (journal, the warehouse folder holding it, database) commit the
    # pointer: every fsync of the table's files and folders comes before them.
    catalog = [i for i, path in enumerate(synced) if path.startswith(str(floe.catalog_db))]
    table_syncs = [i for i, path in enumerate(synced)
                   if path in wanted or (path in folders and path != str(floe.warehouse))]
    assert catalog, "the catalog commit was not synced"
    assert max(table_syncs) < min(catalog), "the catalog committed before the table's files were durable"


def test_fsync_off_syncs_no_table_file_and_a_bad_value_is_refused(floe, pyiceberg_catalog, tmp_path):
    floe.run("create", "db.t", "--schema", "id long not null, region string", "--partition-by", "region")
    synced = traced_append(floe, tmp_path, "--catalog-property", "floe.io.fsync=false")
    warehouse = str(floe.warehouse)
    # SQLite still syncs its journal, its database and their folder, the warehouse.
    table_syncs = [path for path in synced if path.startswith(warehouse + "/") and not path.startswith(str(floe.catalog_db))]
    assert table_syncs == []
    assert pyiceberg_catalog.load_table("db.t").scan().to_arrow().num_rows == 4000
    error = floe.fail("append", "db.t", str(tmp_path / "input.parquet"), "--catalog-property", "floe.io.fsync=sometimes")
    assert "floe.io.fsync" in error and "true or false" in error
    assert pyiceberg_catalog.load_table("db.t").scan().to_arrow().num_rows == 4000
