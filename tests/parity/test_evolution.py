"""A table whose schema and partition spec iceberg-java evolved over time (renamed, added, promoted
and dropped columns; partition fields added and removed), with data files under every spec
written by floe and by iceberg-java's own writers: floe's scans return exactly the rows
iceberg-java's reader returns, column by column, prune files per spec through each spec's
transforms, and time travel reads with the schema of the snapshot."""

import re

import pyarrow as pa
import pyarrow.parquet as pq


def with_ids(table, ids):
    fields = [pa.field(f.name, f.type, nullable=f.nullable, metadata={"PARQUET:field_id": str(ids[f.name])})
              for f in table.schema]
    return table.cast(pa.schema(fields))


def test_evolved_schema_and_specs_read_as_iceberg_java_reads_them(floe, harness, tmp_path):
    floe.run("namespaces", "--create", "db")
    floe.run("create", "db.t", "--schema", "id long not null, name string, qty int, amount double, region string")
    regions = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", None]
    first = pa.table({"id": pa.array(range(0, 100), pa.int64()),
                      "name": [f"n{i} é/?" if i % 7 else None for i in range(100)],
                      "qty": pa.array([i - 50 for i in range(100)], pa.int32()),
                      "amount": [i * 0.5 for i in range(100)],
                      "region": [regions[i % 9] for i in range(100)]})
    pq.write_table(first, tmp_path / "first.parquet")
    floe.run("append", "db.t", tmp_path / "first.parquet")
    base = {"uri": f"jdbc:sqlite:{floe.warehouse / 'catalog.db'}", "warehouse": str(floe.warehouse),
            "name": "floe", "table": "db.t"}

    # iceberg-java evolves the schema and partitions by bucket(4, id) and region.
    harness.run("catalog", {**base, "evolve": {
        "rename": {"name": "label"}, "add_columns": {"note": "string"}, "promote": {"qty": "long"},
        "drop": ["amount"], "partition": ["bucket:4:id", "identity:region"]}})
    ids = {"id": 1, "label": 2, "qty": 3, "region": 5, "note": 6}

    def batch(start, writer):
        rows = range(start, start + 100)
        return pa.table({"id": pa.array(rows, pa.int64()),
                         "label": [f"{writer}{i}" for i in rows],
                         "qty": pa.array([i * 1_000_000_000 for i in rows], pa.int64()),
                         "region": [regions[i % 9] for i in rows],
                         "note": [None if i % 3 else f"note ✓ {i}" for i in rows]})

    pq.write_table(with_ids(batch(100, "java"), ids), tmp_path / "java1.parquet")
    harness.run("catalog", {**base, "write_files": [str(tmp_path / "java1.parquet")]})
    pq.write_table(batch(200, "floe"), tmp_path / "floe2.parquet")
    floe.run("append", "db.t", tmp_path / "floe2.parquet")
    # A third spec: region leaves the spec; iceberg-java writes under it.
    harness.run("catalog", {**base, "evolve": {"partition": ["remove:region"]}})
    pq.write_table(with_ids(batch(300, "java"), ids), tmp_path / "java3.parquet")
    java = harness.run("catalog", {**base, "write_files": [str(tmp_path / "java3.parquet")], "with_rows": True})
    assert java["row_count"] == 400

    def floe_rows(*args):
        out = tmp_path / "scan.parquet"
        result = floe.run("scan", "db.t", "--format", "parquet", "--output", out, "--stats", *args)
        stats = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", result.stderr.split("scan stats:")[1])}
        table = pq.read_table(out)
        rows = sorted(table.to_pylist(), key=lambda r: r["id"])
        return rows, stats

    got, stats = floe_rows()
    assert [list(r) for r in got[:1]] == [["id", "label", "qty", "region", "note"]]
    assert got == java["rows"], "floe and iceberg-java disagree on the evolved table"
    # Files of three specs: a filter on region prunes by each spec's own partition tuple where
    # it has one, and by column metrics in the others.
    got, stats = floe_rows("--where", "region = 'r3'")
    assert got == [r for r in java["rows"] if r["region"] == "r3"]
    assert stats["files_skipped_by_partition"] > 0
    got, _ = floe_rows("--where", "id = 250 or id = 7")
    assert [r["id"] for r in got] == [7, 250]
    got, _ = floe_rows("--where", "qty >= 300000000000", "--columns", "id,note")
    assert got == [{"id": r["id"], "note": r["note"]} for r in java["rows"] if r["qty"] >= 300000000000]

    # Time travel to floe's first snapshot reads its schema: name and amount, qty as int.
    snapshots = floe.run("snapshots", "db.t").stdout
    first_snapshot = re.findall(r"(\d{6,})\s+\S+\s+append", snapshots)[0]
    out = tmp_path / "old.parquet"
    floe.run("scan", "db.t", "--snapshot", first_snapshot, "--format", "parquet", "--output", out)
    old = pq.read_table(out).sort_by("id")
    assert old.column_names == ["id", "name", "qty", "amount", "region"]
    assert old.to_pylist() == first.sort_by("id").to_pylist()


def test_files_without_field_ids_read_as_iceberg_java_reads_them(floe, harness, tmp_path):
    """Files without field ids, added by name (pyiceberg's add_files writes
    schema.name-mapping.default), read by iceberg-java's reader through the mapping and by floe."""
    from pyiceberg.catalog.sql import SqlCatalog

    floe.run("namespaces", "--create", "db")
    floe.run("create", "db.m", "--schema", "id long not null, name string, qty long")
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["a", None],
                             "qty": pa.array([5, -5], pa.int64())}), tmp_path / "own.parquet")
    floe.run("append", "db.m", tmp_path / "own.parquet")
    catalog = SqlCatalog("floe", uri=f"sqlite:///{floe.warehouse / 'catalog.db'}",
                         warehouse=f"file://{floe.warehouse}")
    table = catalog.load_table("db.m")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string()),
                        pa.field("qty", pa.int64())])
    for k in range(3):
        ids = list(range(100 * (k + 1), 100 * (k + 1) + 50))
        pq.write_table(pa.table({"id": ids, "name": [None if i % 4 == 0 else f"m{i} ∂" for i in ids],
                                 "qty": [i * -3 for i in ids]}, schema=schema),
                       tmp_path / f"no-ids-{k}.parquet")
    table.add_files([str(tmp_path / f"no-ids-{k}.parquet") for k in range(3)])
    assert "schema.name-mapping.default" in catalog.load_table("db.m").properties

    java = harness.run("catalog", {"uri": f"jdbc:sqlite:{floe.warehouse / 'catalog.db'}",
                                   "warehouse": str(floe.warehouse), "name": "floe", "table": "db.m",
                                   "with_rows": True})
    assert java["row_count"] == 152
    out = tmp_path / "scan.parquet"
    floe.run("scan", "db.m", "--format", "parquet", "--output", out)
    got = sorted(pq.read_table(out).to_pylist(), key=lambda r: r["id"])
    assert got == java["rows"]
    floe.run("scan", "db.m", "--format", "parquet", "--output", out, "--where", "qty < -600", "--columns", "name")
    assert sorted(pq.read_table(out).column("name").to_pylist(), key=str) == \
        sorted((r["name"] for r in java["rows"] if r["qty"] < -600), key=str)
