"""Rows that break things, shared by the Python package's and the Spark data source's
tests: NaN, -0.0, subnormals, infinities, type extremes, pre-1970 and far-future times,
unicode and characters that need escaping, nulls and empties, nested types."""

import datetime
import decimal
import math

import pyarrow as pa

EXTREMES_SCHEMA = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("i32", pa.int32()),
        pa.field("i64", pa.int64()),
        pa.field("f32", pa.float32()),
        pa.field("f64", pa.float64()),
        pa.field("d", pa.date32()),
        pa.field("ts", pa.timestamp("us")),
        pa.field("tstz", pa.timestamp("us", tz="UTC")),
        pa.field("s", pa.string()),
        pa.field("b", pa.binary()),
        pa.field("dec", pa.decimal128(38, 10)),
        pa.field("flag", pa.bool_()),
        pa.field(
            "address",
            pa.struct([pa.field("city", pa.string()), pa.field("zip", pa.int32())]),
        ),
        pa.field("tags", pa.list_(pa.field("element", pa.string()))),
        pa.field("attrs", pa.map_(pa.string(), pa.float64())),
    ]
)


def extremes(start: int = 0, rows: int = 64) -> pa.Table:
    """Rows that break things: NaN, -0.0, subnormals, infinities, type extremes, pre-1970
    and far-future dates, unicode and characters that need escaping, nulls and empties."""
    floats = [math.nan, -0.0, 0.0, 5e-324, -math.inf, math.inf, 1.7976931348623157e308, None]
    floats32 = [math.nan, -0.0, 1e-45, 3.4028234663852886e38, None]
    strings = ["Zürich", "東京", "a=b&c", "O'Hare", "", "tab\tnew\nline", "%2F/..\\", None, "🐟"]
    dates = [
        datetime.date(1, 1, 1),
        datetime.date(1900, 2, 28),
        datetime.date(1969, 12, 31),
        datetime.date(1970, 1, 1),
        datetime.date(9999, 12, 31),
        None,
    ]
    stamps = [
        datetime.datetime(1, 1, 1),
        datetime.datetime(1969, 12, 31, 23, 59, 59, 999999),
        datetime.datetime(2262, 4, 11),
        datetime.datetime(9999, 12, 31, 23, 59, 59, 999999),
        None,
    ]
    ids = list(range(start, start + rows))
    pick = lambda values, i: values[i % len(values)]  # noqa: E731
    columns = {
        "id": ids,
        "i32": [pick([-(2**31), 2**31 - 1, 0, None], i) for i in ids],
        "i64": [pick([-(2**63), 2**63 - 1, -1, None], i) for i in ids],
        "f32": [pick(floats32, i) for i in ids],
        "f64": [pick(floats, i) for i in ids],
        "d": [pick(dates, i) for i in ids],
        "ts": [pick(stamps, i) for i in ids],
        "tstz": [
            None if pick(stamps, i + 1) is None
            else pick(stamps, i + 1).replace(tzinfo=datetime.timezone.utc)
            for i in ids
        ],
        "s": [pick(strings, i) for i in ids],
        "b": [pick([b"\x00\xff", b"", None, "é".encode()], i) for i in ids],
        "dec": [
            pick([decimal.Decimal("-9999999999999999999999999999.9999999999"),
                  decimal.Decimal("0.0000000001"), None], i)
            for i in ids
        ],
        "flag": [pick([True, False, None], i) for i in ids],
        "address": [
            None if i % 7 == 0 else {"city": pick(strings, i + 3), "zip": i % 5 or None}
            for i in ids
        ],
        "tags": [None if i % 5 == 0 else [pick(strings, i + k) for k in range(i % 3)] for i in ids],
        "attrs": [None if i % 6 == 0 else [("k" + str(i % 4), pick(floats, i))] for i in ids],
    }
    return pa.table(columns, schema=EXTREMES_SCHEMA)
