"""Manifest merging against iceberg-java: the same appends committed by floe (`floe append`, a
merge append as iceberg-java's Spark writer commits) and by iceberg-java's table.newAppend()
(MergeAppend, through the harness's catalog command) leave the same manifests: after every append
the current snapshot lists the same number of manifests, each holding the same appends with the
same entry statuses, and the summaries count created, kept and replaced manifests alike."""

import struct

import pyarrow.parquet as pq
import pytest

from test_catalog_sharing import SCHEMA, rows, run_floe

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
