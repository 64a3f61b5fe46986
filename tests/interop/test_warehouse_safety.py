"""Every write and maintenance command, on every table of a warehouse built to trap them, changes
nothing but that table's own files.

The warehouse holds tables nested in each other's locations (`a.b` and `a.b.t`), a table inside
another's metadata folder (`db.t.metadata`), two tables sharing a location (a renamed table's,
reused), a table at the warehouse root, symbolic links into a victim directory, files planted
in table folders and beside them, and a table that references another's file (pyiceberg's
add_files). Tables floe refuses to create are made by pyiceberg, which does not check. After
each command the whole tree (warehouse and victim, links not followed) is hashed again: every
file that appeared, changed or went must lie in the table's own data or metadata folder and in
no other table's. At the end pyiceberg reads every table."""

import hashlib
import os
import pathlib
import time

import pyarrow as pa
import pyarrow.parquet as pq

TEN_DAYS = 10 * 86400
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("region", pa.string())])


def rows(start, count):
    return pa.table({"id": pa.array(range(start, start + count), pa.int64()),
                     "region": [f"r{i % 4}" for i in range(start, start + count)]}, schema=SCHEMA)


def tree(*roots):
    result = {}
    for root in roots:
        for directory, dirs, files in os.walk(root, followlinks=False):
            for name in dirs + files:
                path = pathlib.Path(directory) / name
                if path.name.startswith("catalog.db"):
                    continue  # the catalog's pointer moves with every commit
                if path.is_symlink():
                    result[str(path)] = "-> " + os.readlink(path)
                elif path.is_file():
                    result[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return result


def age(*roots):
    stamp = time.time() - TEN_DAYS
    for root in roots:
        for directory, dirs, files in os.walk(root, followlinks=False):
            for name in dirs + files:
                os.utime(pathlib.Path(directory) / name, (stamp, stamp), follow_symlinks=False)


def under(path, folder):
    return path == str(folder) or path.startswith(str(folder) + os.sep)


def referenced_by(catalog, name):
    """Every file the table's metadata references, read by pyiceberg: metadata files, manifest
    lists, manifests and their entries (live or not)."""
    table = catalog.load_table(name)
    files = {table.metadata_location} | {entry.metadata_file for entry in table.metadata.metadata_log}
    for snapshot in table.metadata.snapshots:
        files.add(snapshot.manifest_list)
        for manifest in snapshot.manifests(table.io):
            files.add(manifest.manifest_path)
            for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=False):
                files.add(entry.data_file.file_path)
    return {path.removeprefix("file://") for path in files}


def build(floe, pyiceberg_catalog, tmp_path):
    w = floe.warehouse
    tables = {}  # name -> location
    for name in ["a.b.t", "a.b", "db.t", "db.r", "p.q"]:
        floe.run("create", name, "--schema", "id long not null, region string", "--partition-by", "region")
        tables[name] = w / name.replace(".", "/")
    for k, name in enumerate(["a.b.t", "a.b", "db.t", "db.r", "p.q"]):
        path = tmp_path / f"in-{name}.parquet"
        pq.write_table(rows(1000 * k, 40), path)
        floe.run("append", name, path)
        floe.run("append", name, path)
    floe.run("rename", "db.r", "db.old")
    tables["db.old"] = tables.pop("db.r")
    # What floe refuses to create, pyiceberg makes: same location, inside a metadata folder,
    # at the warehouse root.
    for name, location in [("db.r", w / "db/r"), ("db.t.metadata", w / "db/t/metadata"), ("x.root", w)]:
        namespace = name.rsplit(".", 1)[0]
        try:
            pyiceberg_catalog.create_namespace(namespace)
        except Exception:  # noqa: BLE001 - exists
            pass
        table = pyiceberg_catalog.create_table(name, schema=SCHEMA, location=str(location))
        table.append(rows(9000, 5))
        tables[name] = location
    # p.q references a file planted in a.b's data folder that a.b never wrote.
    shared = w / "a/b/data/region=r9/00000-0-shared.parquet"
    shared.parent.mkdir(parents=True)
    pq.write_table(rows(7000, 4).drop(["region"]).append_column("region", pa.array(["r9"] * 4)).cast(SCHEMA), shared)
    pyiceberg_catalog.load_table("p.q").add_files([str(shared)])
    # A victim outside, linked from inside; files planted in and beside table folders.
    victim = tmp_path / "victim"
    for relative in ["00000-0-x.parquet", "deep/00000-1-y.parquet", "m0.avro", "v1.metadata.json"]:
        (victim / relative).parent.mkdir(parents=True, exist_ok=True)
        (victim / relative).write_bytes(b"precious " + relative.encode())
    (w / "a/b/t/data/evil").symlink_to(victim, target_is_directory=True)
    (w / "db/t/data/region=r0/link.parquet").symlink_to(victim / "00000-0-x.parquet")
    (w / "p/q/metadata/linked-m9.avro").symlink_to(victim / "m0.avro")
    for planted in ["a/b/t/data/notes.txt", "a/b/README.md", "db/t/data/_SUCCESS", "db/notes.txt",
                    "p/q/metadata/.hidden.metadata.json", "p/q/data/region=r1/00000-9-stray.parquet"]:
        (w / planted).parent.mkdir(parents=True, exist_ok=True)
        (w / planted).write_bytes(b"planted " + planted.encode())
    return tables, victim


def test_every_command_on_every_table_changes_only_its_own_files(floe, pyiceberg_catalog, tmp_path):
    tables, victim = build(floe, pyiceberg_catalog, tmp_path)
    w = floe.warehouse
    folders = {name: [location / "data", location / "metadata"] for name, location in tables.items()}
    age(w, victim)
    replacement = tmp_path / "replacement.parquet"
    pq.write_table(rows(50_000, 8).cast(SCHEMA).set_column(1, "region", pa.array(["r1"] * 8)), replacement)
    commands = [
        ("remove-orphans", "--older-than", "1d"), ("remove-orphans", "--older-than", "1d", "--any-name"),
        ("append", replacement), ("delete", "--where", "region = 'r2'"), ("delete", "--where", "id % 2 = 0"),
        ("overwrite", replacement, "--where", "region = 'r1'"), ("rewrite", "--min-input-files", "1"),
        ("expire", "--older-than", "0s", "--no-concurrent-writes", "--retain-last", "1"), ("remove-orphans", "--older-than", "0s", "--no-concurrent-writes"),
    ]
    outcomes = []
    for command in commands:
        for name in sorted(tables):
            before = tree(w, victim)
            referenced = referenced_by(pyiceberg_catalog, name)
            verb, *arguments = command
            result = floe.run(verb, name, *arguments, check=False)
            after = tree(w, victim)
            said = f"floe {verb} {name}:\n{result.stdout}{result.stderr}"
            own = folders[name]
            others = [folder for other, fs in folders.items() if other != name for folder in fs]
            added = set(after) - set(before)
            removed = set(before) - set(after)
            changed = {path for path in set(before) & set(after) if before[path] != after[path]}
            assert not changed, f"{said}\nfiles changed in place: {sorted(changed)}"
            for path in added:
                assert any(under(path, folder) for folder in own), f"{said}\nwrote {path} outside its folders"
            for path in removed:
                assert any(under(path, folder) for folder in own), f"{said}\ndeleted {path} outside its folders"
                # In a folder another table shares, only what this table's own metadata
                # referenced may go (what expire deletes); nothing of the other's.
                if any(under(path, folder) for folder in others):
                    assert path in referenced, f"{said}\ndeleted {path}, which another table may own"
            assert not str(result.stdout + result.stderr).count("\x1b")
            outcomes.append((verb, name, result.returncode))
            if verb == "remove-orphans":
                age(w, victim)  # anything just written is old again for the next round
    # The traps were met: the overlapping tables' cleanups were refused, the others ran.
    refused = {(verb, name) for verb, name, code in outcomes if code != 0 and verb == "remove-orphans"}
    assert ("remove-orphans", "db.t") in refused and ("remove-orphans", "db.r") in refused
    assert ("remove-orphans", "x.root") in refused
    assert any(verb == "remove-orphans" and name == "a.b.t" and code == 0 for verb, name, code in outcomes)
    # Everything outside the tables' folders is as it was built, the victim above all.
    assert all((victim / r).read_bytes() == b"precious " + r.encode()
               for r in ["00000-0-x.parquet", "deep/00000-1-y.parquet", "m0.avro", "v1.metadata.json"])
    for planted in ["a/b/README.md", "db/notes.txt"]:
        assert (w / planted).exists()
    # Every table still reads in pyiceberg.
    for name in sorted(tables):
        pyiceberg_catalog.load_table(name).scan().to_arrow()
    assert pyiceberg_catalog.load_table("p.q").scan(row_filter="region == 'r9'").to_arrow().num_rows == 4
