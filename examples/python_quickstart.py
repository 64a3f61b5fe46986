"""floe from Python: create a table, append Arrow data, scan it, delete, and inspect.

Run from any folder: the embedded default catalog lives in ./warehouse (SQLite).
    .venv/bin/python examples/python_quickstart.py
"""

import datetime

import pyarrow as pa

import floe

catalog = floe.Catalog()  # ./warehouse, as the floe command's default
catalog.create_namespace_if_not_exists("shop")
if catalog.table_exists("shop.orders"):
    catalog.drop_table("shop.orders")

schema = pa.schema(
    [
        pa.field("order_id", pa.int64(), nullable=False),
        pa.field("ts", pa.timestamp("us", tz="UTC")),
        pa.field("region", pa.string()),
        pa.field("amount", pa.decimal128(12, 2)),
    ]
)
table = catalog.create_table(
    "shop.orders", schema, partition_by="region, day(ts)", sort_by="ts, order_id"
)

start = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
rows = pa.table(
    {
        "order_id": range(10_000),
        "ts": [start + datetime.timedelta(minutes=7 * i) for i in range(10_000)],
        "region": [("eu", "us", "ap")[i % 3] for i in range(10_000)],
        "amount": pa.array([i * 0.25 for i in range(10_000)]).cast(pa.decimal128(12, 2)),
    },
    schema=schema,
)
result = table.append(rows, threads=2)
print(f"appended {result.rows} rows in {result.data_files} files as snapshot {result.snapshot_id}")

eu = table.scan(columns=["order_id", "amount"], where="region = 'eu' AND amount > 2000").to_arrow()
print(f"eu orders over 2000: {eu.num_rows}")

deleted = table.delete("region = 'ap' AND ts < '2024-01-15T00:00:00Z'")
print(f"deleted {deleted.rows_removed} rows ({deleted.files_removed} files removed)")

for snapshot in table.snapshots():
    print(f"snapshot {snapshot.snapshot_id}: {snapshot.operation}, "
          f"{snapshot.summary.get('total-records')} rows")
assert table.to_arrow().num_rows == 10_000 - deleted.rows_removed
