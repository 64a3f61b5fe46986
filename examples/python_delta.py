"""Delta Lake tables from Python with floe: by path (./lake/events) and catalog-managed (in
floe's embedded catalog, ./warehouse): write, delete, compact, read, time travel.

Run from any folder:
    .venv/bin/python examples/python_delta.py
Any Delta reader (deltalake, delta-spark, DuckDB's delta extension) reads ./lake/events.
"""

import datetime
import pathlib
import shutil

import pyarrow as pa

import floe
import floe.delta

schema = pa.schema(
    [
        pa.field("event_id", pa.int64(), nullable=False),
        pa.field("ts", pa.timestamp("us", tz="UTC")),
        pa.field("region", pa.string()),
        pa.field("amount", pa.float64()),
    ]
)
start = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)


def events(first: int, count: int) -> pa.Table:
    return pa.table(
        {
            "event_id": pa.array(range(first, first + count), pa.int64()),
            "ts": [start + datetime.timedelta(minutes=i) for i in range(first, first + count)],
            "region": [("eu", "us", "apac")[i % 3] for i in range(first, first + count)],
            "amount": [round(i * 1.25, 2) for i in range(first, first + count)],
        },
        schema=schema,
    )


# By path: every write is one commit, `_delta_log/<version>.json`, created only if absent.
path = pathlib.Path("lake/events")
if path.exists():
    shutil.rmtree(path)
floe.delta.create_table(str(path), schema, partition_by=["region"])
for batch in range(6):  # six small appends: six files per region
    floe.delta.write(str(path), events(batch * 100, 100), threads=2)

deleted = floe.delta.delete(str(path), "region = 'eu' AND amount < 100")
print(f"deleted {deleted.rows_deleted} rows as version {deleted.version}")

compacted = floe.delta.compact(str(path))  # delta-spark's OPTIMIZE: one file per region
print(
    f"compacted {compacted.files_removed} files into {compacted.files_added} "
    f"as version {compacted.version}"
)

snapshot = floe.delta.snapshot(str(path))
print(f"snapshot version {snapshot.version}: {snapshot.add_actions.num_rows} files")
eu_now = floe.delta.read(str(path), where="region = 'eu'")  # skips other regions' files
eu_before = floe.delta.read(str(path), where="region = 'eu'", version=6)  # time travel
print(f"eu rows: {eu_now.num_rows} now, {eu_before.num_rows} at version 6")

# Catalog-managed: floe's catalog ratifies every commit (its coordinator), then publishes it.
catalog = floe.Catalog()  # ./warehouse, as the floe command's default
catalog.create_namespace_if_not_exists("lake")
if catalog.table_exists("lake.events"):
    catalog.drop_table("lake.events")
floe.delta.create_table("lake.events", schema, partition_by=["region"], catalog=catalog)
written = floe.delta.write("lake.events", events(0, 300), catalog=catalog)
rows = floe.delta.read("lake.events", catalog=catalog)
print(f"catalog-managed lake.events: snapshot version {written.version}, {rows.num_rows} rows")
