"""Manifest merging against iceberg-java: the same appends committed by floe (`floe append`, a
merge append as iceberg-java's Spark writer commits) and by iceberg-java's table.newAppend()
(MergeAppend, through the harness's catalog command) leave the same manifests: after every append
the current snapshot lists the same number of manifests, each holding the same appends with the
same entry statuses, and the summaries count created, kept and replaced manifests alike."""

import json
import pathlib
import struct

import pyarrow.parquet as pq
import pytest

from test_catalog_sharing import SCHEMA, rows, run_floe
from test_row_lineage import write_commits

APPENDS = 8


def manifest_shape(table):
    """Per manifest of the current snapshot, in list order: sorted (append number, status)."""
    shape = []
    for manifest in table.current_snapshot().manifests(table.io):
        entries = []
        for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=False):
            first_id = struct.unpack("<q", entry.data_file.lower_bounds[1])[0]
            entries.append((first_id // 1000, entry.status.name))
        shape.append(sorted(entries))
    return shape


def summary_counts(table):
    summary = table.current_snapshot().summary
    return {k: summary[k] for k in ("manifests-created", "manifests-kept", "manifests-replaced",
                                    "total-data-files", "total-records")}


@pytest.mark.parametrize("properties, merges", [
    ({"commit.manifest.min-count-to-merge": "3"}, True),
    # Every manifest outweighs the target: each is its own bin, and nothing merges.
    ({"commit.manifest.min-count-to-merge": "2", "commit.manifest.target-size-bytes": "1"}, False),
    ({"commit.manifest-merge.enabled": "false"}, False),
], ids=["min-count-3", "tiny-target", "disabled"])
def test_merge_append_matches_iceberg_java(properties, merges, harness, tmp_path):
    from pyiceberg.catalog.sql import SqlCatalog

    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    shared = {"floe": f"sqlite:///{warehouse}/catalog.db", "warehouse": warehouse}
    props = [arg for key, value in properties.items() for arg in ("--property", f"{key}={value}")]
    run_floe(shared, "create", "m.by_floe", "--schema", SCHEMA, *props)
    run_floe(shared, "create", "m.by_java", "--schema", SCHEMA, *props)
    catalog = SqlCatalog("floe", uri=shared["floe"], warehouse=f"file://{warehouse}")
    for k in range(APPENDS):
        path = tmp_path / f"in{k}.parquet"
        pq.write_table(rows(k * 1000, 50 + k), path)
        run_floe(shared, "append", "m.by_floe", path)
        harness.run("catalog", {
            "uri": f"jdbc:sqlite:{warehouse}/catalog.db", "warehouse": str(warehouse),
            "name": "floe", "table": "m.by_java", "properties": {},
            "append_files": [str(path)], "id_column": "id"})
        by_floe, by_java = catalog.load_table("m.by_floe"), catalog.load_table("m.by_java")
        assert manifest_shape(by_floe) == manifest_shape(by_java), f"after append {k + 1}"
        assert summary_counts(by_floe) == summary_counts(by_java), f"after append {k + 1}"
    assert sorted(by_floe.scan().to_arrow().column("id").to_pylist()) == \
        sorted(by_java.scan().to_arrow().column("id").to_pylist())
    merged = any(status == "EXISTING" for m in manifest_shape(by_floe) for _, status in m)
    assert merged == merges


def avro_codec(path):
    data = pathlib.Path(path).read_bytes()
    at = data.index(b"avro.codec") + len(b"avro.codec")
    length = data[at] >> 1  # a short string's zig-zag length byte
    return data[at + 1:at + 1 + length].decode()


def test_manifests_use_the_tables_manifest_codec_as_iceberg_java_1_11(floe, harness, tmp_path):
    """iceberg-java 1.11 writes manifests with write.manifest.compression-codec (and -level);
    manifest lists stay deflate. iceberg-java reads floe's manifests in every codec."""
    inputs = write_commits(tmp_path, commits=1)
    expected = {"gzip": "deflate", "ZSTD": "zstandard", "snappy": "snappy", "uncompressed": "null"}
    for k, (codec, avro_name) in enumerate(expected.items()):
        name = f"codecs.t{k}"
        floe.run("create", name, "--schema", "id long not null",
                 "--property", f"write.manifest.compression-codec={codec}",
                 "--property", "write.manifest.compression-level=3" if codec in ("gzip", "ZSTD") else
                 "write.summary.partition-limit=0")
        floe.run("append", name, inputs[0])
        dump = harness.run("dump", {"metadata_location": floe.metadata_location(name), "rows": True})
        assert len(dump["rows"]) == 10
        metadata = json.loads(pathlib.Path(floe.metadata_location(name)).read_text())
        snapshot = metadata["snapshots"][-1]
        manifests = list((floe.warehouse / "codecs" / f"t{k}" / "metadata").glob("*-m*.avro"))
        assert manifests and all(avro_codec(m) == avro_name for m in manifests), codec
        assert avro_codec(snapshot["manifest-list"]) == "deflate"


def current_summary(floe, name):
    metadata = json.loads(pathlib.Path(floe.metadata_location(name)).read_text())
    current = next(s for s in metadata["snapshots"]
                   if s["snapshot-id"] == metadata["current-snapshot-id"])
    # File sizes differ: iceberg-java appends the input file itself, floe writes its own.
    return {k: v for k, v in current["summary"].items()
            if "size" not in k and k not in ("engine-name", "engine-version", "iceberg-version")}


def test_aged_delete_files_stay_until_a_commit_removes_files_as_in_iceberg_java(
        floe, harness, tmp_path):
    """A delete of a whole file by metadata keeps its position deletes: they sit at the
    table's last sequence number, and iceberg-java's merging producers drop only delete files
    older than that (dropDeleteFilesOlderThan). Later, older than every data file, they still
    stay until a commit that removes files reads the delete manifests: iceberg-java's
    ManifestFilterManager reads none for a commit that removes nothing, so neither a merge
    append (table.newAppend()) nor a merge-on-read delete (a RowDelta) drops them. floe's
    append and merge-on-read delete, and iceberg-java's, each on one of two tables brought to
    that state alike, leave the same summaries and rows."""
    floe.run("namespaces", "--create", "m")
    first, second = tmp_path / "first.parquet", tmp_path / "second.parquet"
    pq.write_table(rows(0, 50), first)
    pq.write_table(rows(1000, 20), second)
    names = ("m.by_floe", "m.by_java")
    base = {"uri": f"jdbc:sqlite:{floe.warehouse}/catalog.db", "warehouse": str(floe.warehouse),
            "name": "floe", "id_column": "id"}
    for name in names:
        floe.run("create", name, "--schema", SCHEMA, "--property", "format-version=2")
        floe.run("append", name, first)
        floe.run("delete", name, "--where", "id IN (3, 4)",
                 "--option", "write.delete.mode=merge-on-read")
        floe.run("delete", name, "--where", "id < 100")  # every row of the first file
        aged = current_summary(floe, name)
        assert (aged["total-data-files"], aged["total-delete-files"]) == ("0", "1"), aged

    floe.run("append", names[0], second)
    java = harness.run("catalog", {**base, "table": names[1], "append_files": [str(second)]})
    by_floe, by_java = current_summary(floe, names[0]), current_summary(floe, names[1])
    assert by_java["total-delete-files"] == "1", by_java
    assert by_floe == by_java

    floe.run("delete", names[0], "--where", "id = 1005",
             "--option", "write.delete.mode=merge-on-read")
    java = harness.run("catalog", {**base, "table": names[1], "row_delta": {
        "position_deletes": [{"file": java["data_files"][0], "positions": [5]}]}})
    by_floe, by_java = current_summary(floe, names[0]), current_summary(floe, names[1])
    assert by_java["operation"] == "delete" and by_java["total-delete-files"] == "2", by_java
    assert by_floe == by_java
    expected = [i for i in range(1000, 1020) if i != 1005]
    assert java["ids"] == expected
    assert harness.run("catalog", {**base, "table": names[0]})["ids"] == expected
