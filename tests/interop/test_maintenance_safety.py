"""Maintenance never destroys what is not the table's own: nested and overlapping table
locations, metadata that lies about its location, symbolic links, corrupt manifests and planted
files. Every test lists and hashes the whole directory tree it exposes before and after, and
pyiceberg (not floe) reads every table afterwards.

Tables that floe refuses to create (overlapping or non-empty locations) are made with pyiceberg,
which does not check, so remove-orphans and expire meet them as they would in a shared catalog."""

import hashlib
import json
import os
import pathlib
import time
import zlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from arrow_compare import differences, sorted_by

SCHEMA = "id long not null, region string"
TEN_DAYS = 10 * 86400


def tree(root: pathlib.Path) -> dict:
    """Every file and link below `root` (links not followed): relative path -> content hash or
    link target."""
    result = {}
    for directory, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            path = pathlib.Path(directory) / name
            relative = str(path.relative_to(root))
            if path.is_symlink():
                result[relative] = "-> " + os.readlink(path)
            elif path.is_file():
                result[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return result


def age_everything(root: pathlib.Path, seconds=TEN_DAYS):
    stamp = time.time() - seconds
    for directory, dirs, files in os.walk(root, followlinks=False):
        for name in files + dirs:
            os.utime(pathlib.Path(directory) / name, (stamp, stamp), follow_symlinks=False)


def rows(start, count):
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("region", pa.string())])
    return pa.table({"id": pa.array(range(start, start + count), pa.int64()),
                     "region": [f"r{i % 3}" for i in range(start, start + count)]}, schema=schema)


def read_varint(data, at):
    shift = result = 0
    while True:
        byte = data[at]
        at += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return (result >> 1) ^ -(result & 1), at


def write_varint(value):
    value = (value << 1) ^ (value >> 63)
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def garble_avro(path: pathlib.Path, old: bytes, new: bytes):
    """Replaces `old` with `new` (same length) inside the deflate-compressed blocks of an Avro
    container file, keeping the file well formed: what a flipped bit in a path looks like once
    decoded."""
    assert len(old) == len(new)
    data = path.read_bytes()
    # Header: magic, metadata map (blocks of key/value strings), 16-byte sync marker.
    at = 4
    while True:
        count, at = read_varint(data, at)
        if count == 0:
            break
        if count < 0:
            _, at = read_varint(data, at)
            count = -count
        for _ in range(2 * count):
            length, at = read_varint(data, at)
            at += length
    sync = data[at:at + 16]
    at += 16
    out = bytearray(data[:at])
    replaced = False
    while at < len(data):
        count, at = read_varint(data, at)
        size, at = read_varint(data, at)
        block = zlib.decompress(data[at:at + size], -15)
        at += size + 16
        if old in block:
            block = block.replace(old, new)
            replaced = True
        compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
        packed = compressor.compress(block) + compressor.flush()
        out += write_varint(count) + write_varint(len(packed)) + packed + sync
    assert replaced, f"{old!r} is not in {path}"
    path.write_bytes(bytes(out))


def append(floe, table, tmp_path, start, count):
    path = tmp_path / f"in-{table}-{start}.parquet"
    pq.write_table(rows(start, count), path)
    floe.run("append", table, path)


def read(pyiceberg_catalog, table):
    return sorted_by(pyiceberg_catalog.load_table(table).scan().to_arrow().select(["id", "region"]), ["id"])


def assert_reads(pyiceberg_catalog, table, expected):
    assert not differences(read(pyiceberg_catalog, table), sorted_by(expected, ["id"])), table


def orphans(result):
    return sorted(line.split("  ")[0].split(" ", 1)[1] for line in result.stdout.splitlines()
                  if line.startswith(("orphan ", "deleted ")))


def pyiceberg_table(pyiceberg_catalog, name, location):
    """A table pyiceberg creates where floe would refuse to, with one append."""
    namespace = name.rsplit(".", 1)[0]
    if (namespace,) not in pyiceberg_catalog.list_namespaces() and \
            tuple(namespace.split(".")) not in pyiceberg_catalog.list_namespaces():
        try:
            pyiceberg_catalog.create_namespace(namespace)
        except Exception:  # noqa: BLE001 - it exists as a parent of another namespace
            pass
    table = pyiceberg_catalog.create_table(name, schema=rows(0, 1).schema, location=str(location))
    table.append(rows(1000, 7))
    return table


def test_nested_table_locations_keep_each_others_files(floe, pyiceberg_catalog, tmp_path):
    """a.b.t lives inside a.b's location (the SQL catalog's default layout): removing orphans
    and expiring snapshots of either leaves the other whole."""
    floe.run("create", "a.b.t", "--schema", SCHEMA)
    floe.run("create", "a.b", "--schema", SCHEMA)
    for k in range(3):
        append(floe, "a.b.t", tmp_path, k * 10, 10)
        append(floe, "a.b", tmp_path, 100 + k * 10, 10)
    # A real orphan of each, so the command has work to do.
    (floe.warehouse / "a/b/data/00000-9-orphan.parquet").write_bytes(b"orphan of a.b")
    (floe.warehouse / "a/b/t/data/00000-9-orphan.parquet").write_bytes(b"orphan of a.b.t")
    age_everything(floe.warehouse)
    before = tree(floe.warehouse)

    result = floe.run("remove-orphans", "a.b", "--older-than", "0s", "--no-concurrent-writes")
    assert orphans(result) == [str(floe.warehouse / "a/b/data/00000-9-orphan.parquet")]
    result = floe.run("remove-orphans", "a.b.t", "--older-than", "0s", "--no-concurrent-writes")
    assert orphans(result) == [str(floe.warehouse / "a/b/t/data/00000-9-orphan.parquet")]
    floe.run("expire", "a.b", "--older-than", "0s", "--retain-last", "1")
    after = tree(floe.warehouse)
    gone = set(before) - set(after)
    assert all(path.startswith("a/b/") and not path.startswith("a/b/t/") or
               path == "a/b/t/data/00000-9-orphan.parquet" for path in gone), gone
    assert {path: before[path] for path in before if path.startswith("a/b/t/")
            and "orphan" not in path} == {path: after[path] for path in after if path.startswith("a/b/t/")}
    assert_reads(pyiceberg_catalog, "a.b.t", rows(0, 30))
    assert_reads(pyiceberg_catalog, "a.b", pa.concat_tables([rows(100 + k * 10, 10) for k in range(3)]))


def test_a_table_inside_another_tables_metadata_folder(floe, pyiceberg_catalog, tmp_path):
    """db.t.metadata's default location is db.t's metadata folder. floe refuses to create it;
    made by pyiceberg, remove-orphans of either refuses (their folders overlap), and expiring
    snapshots of either deletes nothing of the other's."""
    floe.run("create", "db.t", "--schema", SCHEMA)
    append(floe, "db.t", tmp_path, 0, 10)
    error = floe.fail("create", "db.t.metadata", "--schema", SCHEMA)
    assert "db.t.metadata" in error and "overlaps" in error and str(floe.warehouse / "db/t/metadata") in error
    assert floe.fail("tables", "db.t").endswith("[NoSuchNamespace]")  # no namespace left behind
    pyiceberg_table(pyiceberg_catalog, "db.t.metadata", floe.warehouse / "db/t/metadata")
    age_everything(floe.warehouse)
    before = tree(floe.warehouse)

    error = floe.fail("remove-orphans", "db.t", "--older-than", "0s", "--no-concurrent-writes")
    assert "holds the location of table db.t.metadata" in error and "nothing was deleted" in error
    error = floe.fail("remove-orphans", "db.t.metadata", "--older-than", "0s", "--no-concurrent-writes")
    assert "overlaps the folder" in error and "of table db.t;" in error
    floe.run("expire", "db.t", "--older-than", "0s")
    assert tree(floe.warehouse) == before
    assert_reads(pyiceberg_catalog, "db.t", rows(0, 10))
    assert_reads(pyiceberg_catalog, "db.t.metadata", rows(1000, 7))


def test_a_renamed_tables_location_reused(floe, pyiceberg_catalog, tmp_path):
    floe.run("create", "db.t", "--schema", SCHEMA)
    append(floe, "db.t", tmp_path, 0, 10)
    floe.run("rename", "db.t", "db.old")
    error = floe.fail("create", "db.t", "--schema", SCHEMA)
    assert "table db.old has the same location" in error
    pyiceberg_table(pyiceberg_catalog, "db.t", floe.warehouse / "db/t")
    age_everything(floe.warehouse)
    before = tree(floe.warehouse)
    for name in ["db.t", "db.old"]:
        error = floe.fail("remove-orphans", name, "--older-than", "0s", "--no-concurrent-writes")
        assert "has the same location" in error, error
    assert tree(floe.warehouse) == before
    assert_reads(pyiceberg_catalog, "db.old", rows(0, 10))
    assert_reads(pyiceberg_catalog, "db.t", rows(1000, 7))


def test_a_table_at_the_warehouse_root(floe, pyiceberg_catalog, tmp_path):
    floe.run("create", "db.t", "--schema", SCHEMA)
    append(floe, "db.t", tmp_path, 0, 10)
    error = floe.fail("create", "x.root", "--schema", SCHEMA, "--location", floe.warehouse)
    assert "is the warehouse root" in error
    pyiceberg_table(pyiceberg_catalog, "x.root", floe.warehouse)
    age_everything(floe.warehouse)
    before = tree(floe.warehouse)
    error = floe.fail("remove-orphans", "x.root", "--older-than", "0s", "--no-concurrent-writes", "--dry-run")
    assert "is the warehouse root" in error and "catalog.db" not in error.split("root")[0]
    assert tree(floe.warehouse) == before
    assert_reads(pyiceberg_catalog, "db.t", rows(0, 10))


def test_metadata_whose_location_lies(floe, pyiceberg_catalog, tmp_path):
    """The current metadata file's `location` is edited to name an unrelated directory with old
    files in it: remove-orphans (default threshold) refuses, and the victim is untouched."""
    floe.run("create", "db.t", "--schema", SCHEMA)
    append(floe, "db.t", tmp_path, 0, 10)
    victim = tmp_path / "victim"
    for relative in ["data/00000-0-old.parquet", "metadata/00000-old.metadata.json", "notes.txt"]:
        (victim / relative).parent.mkdir(parents=True, exist_ok=True)
        (victim / relative).write_bytes(b"precious " + relative.encode())
    age_everything(victim)
    pointer = pathlib.Path(floe.metadata_location("db.t").removeprefix("file://"))
    metadata = json.loads(pointer.read_text())
    metadata["location"] = str(victim)
    pointer.write_text(json.dumps(metadata))
    before = tree(victim)
    error = floe.fail("remove-orphans", "db.t")
    assert "is not in its metadata folder" in error and str(victim) in error
    assert tree(victim) == before


def test_create_refuses_a_location_that_holds_files(floe, tmp_path):
    location = tmp_path / "used"
    (location / "data").mkdir(parents=True)
    (location / "data" / "someone-elses.parquet").write_bytes(b"not yours")
    before = tree(location)
    error = floe.fail("create", "db.t", "--schema", SCHEMA, "--location", location)
    assert "already holds 1 file" in error and "someone-elses.parquet" in error
    assert tree(location) == before
    assert floe.fail("tables", "db").endswith("[NoSuchNamespace]")
    # Files beside the folders Iceberg writers use are not in the way.
    (location / "data" / "someone-elses.parquet").unlink()
    (location / "README").write_text("a directory with other things in it")
    floe.run("create", "db.t", "--schema", SCHEMA, "--location", location)


def test_symbolic_links_are_never_followed(floe, pyiceberg_catalog, tmp_path):
    floe.run("create", "db.t", "--schema", SCHEMA)
    append(floe, "db.t", tmp_path, 0, 10)
    victim = tmp_path / "victim"
    (victim / "deep").mkdir(parents=True)
    for name in ["a.parquet", "deep/b.parquet", "c.avro"]:
        (victim / name).write_bytes(b"precious")
    data = floe.warehouse / "db/t/data"
    (data / "evil").symlink_to(victim, target_is_directory=True)
    (data / "link.parquet").symlink_to(victim / "a.parquet")
    (floe.warehouse / "db/t/metadata/evil-m0.avro").symlink_to(victim / "c.avro")
    age_everything(floe.warehouse)
    age_everything(victim)
    before = tree(tmp_path)
    result = floe.run("remove-orphans", "db.t", "--older-than", "1s", "--no-concurrent-writes")
    assert orphans(result) == [] and "3 symbolic links not followed" in result.stdout
    assert tree(tmp_path) == before
    # A folder that is itself a link is refused outright.
    moved = tmp_path / "real-data"
    data.rename(moved)
    data.symlink_to(moved, target_is_directory=True)
    before = tree(tmp_path)
    error = floe.fail("remove-orphans", "db.t", "--older-than", "1s", "--no-concurrent-writes")
    assert f"{data} is a symbolic link" in error
    assert tree(tmp_path) == before


@pytest.mark.parametrize("damage", ["garbled path", "truncated"])
def test_a_corrupt_manifest_stops_remove_orphans(floe, tmp_path, damage):
    """A manifest whose bytes changed: decoded, it names a file that is not there (the live
    file it meant would look like an orphan), or it does not decode at all. Either way
    remove-orphans deletes nothing."""
    floe.run("create", "db.t", "--schema", SCHEMA)
    append(floe, "db.t", tmp_path, 0, 10)
    manifest = next((floe.warehouse / "db/t/metadata").glob("*-m0.avro"))
    data_file = next((floe.warehouse / "db/t/data").glob("*.parquet"))
    if damage == "garbled path":
        garble_avro(manifest, data_file.name[:8].encode(), b"garbage!")
    else:
        manifest.write_bytes(manifest.read_bytes()[:-40])
    (floe.warehouse / "db/t/data/00000-7-orphan.parquet").write_bytes(b"a real orphan")
    age_everything(floe.warehouse)
    before = tree(floe.warehouse)
    error = floe.fail("remove-orphans", "db.t", "--older-than", "0s", "--no-concurrent-writes")
    assert "nothing was deleted" in error, error
    if damage == "garbled path":
        assert "does not exist" in error and "garbage!" in error, error
    assert tree(floe.warehouse) == before and data_file.exists()


def test_planted_files_and_names_iceberg_never_writes(floe, tmp_path):
    floe.run("create", "db.t", "--schema", SCHEMA)
    append(floe, "db.t", tmp_path, 0, 10)
    planted = {
        "data/notes.txt": False, "data/_SUCCESS": False, "data/.hidden.parquet": False,
        "data/r=1/.00000-0-x.parquet.crc": False, "metadata/README.md": False,
        "metadata/sub/00000-x.metadata.json": False,
        "data/00000-3-stray.parquet": True, "metadata/stray-m0.avro": True,
    }
    table_dir = floe.warehouse / "db/t"
    for relative in planted:
        (table_dir / relative).parent.mkdir(parents=True, exist_ok=True)
        (table_dir / relative).write_bytes(b"planted")
    age_everything(floe.warehouse)
    result = floe.run("remove-orphans", "db.t", "--older-than", "1d")
    assert orphans(result) == sorted(str(table_dir / r) for r, orphan in planted.items() if orphan)
    assert "3 kept whose names Iceberg writers never give" in result.stdout
    assert "hidden kept" in result.stdout
    for relative, orphan in planted.items():
        assert (table_dir / relative).exists() != orphan, relative
    # Widened by hand, the unrecognised names go too; hidden files never do.
    result = floe.run("remove-orphans", "db.t", "--older-than", "1d", "--any-name")
    assert orphans(result) == sorted(str(table_dir / r) for r in
                                     ["data/notes.txt", "metadata/README.md", "metadata/sub/00000-x.metadata.json"])
    assert (table_dir / "data/_SUCCESS").exists() and (table_dir / "data/.hidden.parquet").exists()


def test_files_another_table_references_are_kept(floe, pyiceberg_catalog, tmp_path):
    """pyiceberg's add_files makes table x reference a file in table y's data folder that y
    never wrote: y's remove-orphans keeps it, and expiring x's snapshots never deletes files
    in another table's folders."""
    floe.run("create", "db.y", "--schema", SCHEMA)
    append(floe, "db.y", tmp_path, 0, 10)
    floe.run("create", "db.x", "--schema", SCHEMA)
    shared = floe.warehouse / "db/y/data/00000-0-shared.parquet"
    pq.write_table(rows(500, 5), shared)  # no field ids, as add_files requires
    pyiceberg_catalog.load_table("db.x").add_files([str(shared)])
    assert_reads(pyiceberg_catalog, "db.x", rows(500, 5))
    age_everything(floe.warehouse)
    before = tree(floe.warehouse)
    result = floe.run("remove-orphans", "db.y", "--older-than", "1d")
    assert orphans(result) == [] and "1 kept that other tables or the catalog own" in result.stdout
    assert tree(floe.warehouse) == before
    # Drop the file from x's current snapshot, then expire the snapshot that had it.
    floe.run("delete", "db.x", "--where", "id >= 0")
    result = floe.run("expire", "db.x", "--older-than", "0s", "--retain-last", "1")
    assert f"kept (not the table's own) {shared}" in result.stdout, result.stdout
    assert shared.exists()
    assert_reads(pyiceberg_catalog, "db.y", rows(0, 10))
