"""Deterministic, realistic event data for floe's demo, tests and benchmarks.

Writes Parquet files of web-shop order events: timestamps (pre-1970 and far future included),
strings with unicode and characters that need escaping, decimals, a nested struct and a list.
The same --seed and --rows always give the same bytes of data.
"""

import argparse
import datetime
import pathlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

REGIONS = ["eu-west", "us-east", "ap-south", "sa-east", "af-north", "eu/central", "us east", "ü-nord"]
CITIES = ["Zürich", "São Paulo", "New York", "東京", "Lagos", "Paris 9e", "O'Hare", "a=b&c"]
PRODUCTS = ["widget", "gadget", "gizmo", "doohickey", "thingamajig", "sprocket", "cog", "flange"]


def schema() -> pa.Schema:
    return pa.schema(
        [
            pa.field("order_id", pa.int64(), nullable=False),
            pa.field("ts", pa.timestamp("us", tz="UTC")),
            pa.field("customer", pa.string()),
            pa.field("region", pa.string()),
            pa.field("amount", pa.decimal128(12, 2)),
            pa.field("quantity", pa.int32()),
            pa.field("score", pa.float64()),
            pa.field("address", pa.struct([pa.field("city", pa.string()), pa.field("zip", pa.int32())])),
            pa.field("tags", pa.list_(pa.field("element", pa.string()))),
        ]
    )


# The same columns as floe's schema text (for `floe create --schema`).
SCHEMA_TEXT = (
    "order_id long not null, ts timestamptz, customer string, region string, "
    "amount decimal(12, 2), quantity int, score double, "
    "address struct<city: string, zip int>, tags list<string>"
)


def batch(start: int, rows: int, rng: np.random.Generator) -> pa.RecordBatch:
    ids = np.arange(start, start + rows, dtype=np.int64)
    # Mostly 2024, with pre-1970 and far-future outliers.
    base = int(datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc).timestamp() * 1_000_000)
    ts = base + rng.integers(0, 366 * 86_400_000_000, rows)
    outliers = rng.random(rows)
    ts = np.where(outliers < 0.001, -2_208_988_800_000_000 + ts % 86_400_000_000, ts)  # 1900
    ts = np.where(outliers > 0.999, 32_503_680_000_000_000 + ts % 86_400_000_000, ts)  # 3000
    ts_nulls = rng.random(rows) < 0.01
    customers = np.array([f"customer-{i:06d}" for i in range(5000)], dtype=object)
    customer = customers[rng.integers(0, 5000, rows)]
    region = np.array(REGIONS, dtype=object)[rng.integers(0, len(REGIONS), rows)]
    cents = rng.integers(-10_000, 10_000_000, rows)
    quantity = rng.integers(1, 50, rows).astype(np.int32)
    score = rng.normal(0.0, 1.0, rows)
    score[rng.random(rows) < 0.001] = np.nan
    score[rng.random(rows) < 0.001] = -0.0
    city = np.array(CITIES, dtype=object)[rng.integers(0, len(CITIES), rows)]
    zips = rng.integers(1000, 99999, rows).astype(np.int32)
    tag_counts = rng.integers(0, 4, rows)
    offsets = np.concatenate([[0], np.cumsum(tag_counts)]).astype(np.int32)
    tag_values = np.array(PRODUCTS, dtype=object)[rng.integers(0, len(PRODUCTS), int(offsets[-1]))]
    address_nulls = rng.random(rows) < 0.02
    return pa.record_batch(
        [
            pa.array(ids),
            pa.array(ts, pa.timestamp("us", tz="UTC"), mask=ts_nulls),
            pa.array(customer, pa.string()),
            pa.array(region, pa.string()),
            _decimals(cents, pa.decimal128(12, 2)),
            pa.array(quantity),
            pa.array(score),
            pa.StructArray.from_arrays(
                [pa.array(city, pa.string()), pa.array(zips)],
                fields=list(schema().field("address").type),
                mask=pa.array(address_nulls),
            ),
            pa.ListArray.from_arrays(pa.array(offsets), pa.array(tag_values, pa.string())).cast(
                schema().field("tags").type
            ),
        ],
        schema=schema(),
    )


def _decimals(unscaled: np.ndarray, type_: pa.DataType) -> pa.Array:
    """A decimal128 array from unscaled int64 values (little-endian 128-bit, sign-extended)."""
    words = np.empty((len(unscaled), 2), dtype=np.int64)
    words[:, 0] = unscaled
    words[:, 1] = np.where(unscaled < 0, -1, 0)
    return pa.Array.from_buffers(type_, len(unscaled), [None, pa.py_buffer(words.tobytes())])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    per_file = (args.rows + args.files - 1) // args.files
    start = 0
    for index in range(args.files):
        rows = min(per_file, args.rows - start)
        if rows <= 0:
            break
        path = args.out / f"events-{index:02d}.parquet"
        with pq.ParquetWriter(path, schema()) as writer:
            done = 0
            while done < rows:
                chunk = min(100_000, rows - done)
                writer.write_batch(batch(start + done, chunk, rng))
                done += chunk
        start += rows
        print(path)


if __name__ == "__main__":
    main()
