"""The floe command: catalog selection, time travel, output formats, help and errors."""

import io
import json
import os
import re
import subprocess

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from conftest import FLOE
from arrow_compare import differences, sorted_by

SCHEMA = "id long not null, name string, price decimal(9, 2), ts timestamptz, score double"


def write_input(path, start, count):
    import datetime
    import decimal

    table = pa.table(
        {
            "id": pa.array(range(start, start + count), pa.int64()),
            "name": [f"name {i} ü,\"q\"" for i in range(start, start + count)],
            "price": pa.array([decimal.Decimal(i).scaleb(-2) for i in range(count)], pa.decimal128(9, 2)),
            "ts": pa.array([datetime.datetime(1969, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc)] * count,
                           pa.timestamp("us", tz="UTC")),
            "score": pa.array([float("nan") if i % 5 == 0 else i * 0.5 for i in range(count)]),
        }
    )
    pq.write_table(table, path)
    return table


def test_catalog_flags_before_or_after_and_from_the_environment(tmp_path):
    warehouse = tmp_path / "w"
    run = lambda *args, env=None: subprocess.run([FLOE, *map(str, args)], capture_output=True, text=True,
                                                   env=env, check=True)
    run("--warehouse", warehouse, "create", "a.t", "--schema", SCHEMA)
    assert "a.t" in run("tables", "a", "--warehouse", warehouse).stdout
    env = dict(os.environ, FLOE_WAREHOUSE=str(warehouse))
    assert "a.t" in run("tables", "a", env=env).stdout
    # An explicit catalog URI and catalog name: the table is not visible under another name.
    uri = f"sqlite:///{warehouse}/catalog.db"
    assert "a.t" in run("tables", "a", "--catalog", uri, "--catalog-name", "floe").stdout
    other = subprocess.run([FLOE, "tables", "a", "--catalog", uri, "--catalog-name", "other"],
                           capture_output=True, text=True)
    assert other.returncode != 0 and "namespace 'a' does not exist" in other.stderr
    # The embedded default is ./warehouse in the working directory.
    subprocess.run([FLOE, "namespaces", "--create", "x"], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "warehouse" / "catalog.db").exists()


def test_snapshot_time_travel_and_output_formats(floe, tmp_path):
    floe.run("create", "t.t", "--schema", SCHEMA)
    first = write_input(tmp_path / "a.parquet", 0, 50)
    second = write_input(tmp_path / "b.parquet", 50, 25)
    floe.run("append", "t.t", tmp_path / "a.parquet")
    floe.run("append", "t.t", tmp_path / "b.parquet")
    listing = floe.run("snapshots", "t.t").stdout
    snapshots = re.findall(r"^[* ] (\d+)  \d{4}-\d\d-\d\dT", listing, re.M)
    assert len(snapshots) == 2
    out = tmp_path / "first.parquet"
    floe.run("scan", "t.t", "--snapshot", snapshots[0], "--format", "parquet", "--output", out)
    assert differences(sorted_by(pq.read_table(out), ["id"]), first) == []
    out_all = tmp_path / "all.parquet"
    floe.run("scan", "t.t", "--format", "parquet", "--output", out_all)
    assert differences(sorted_by(pq.read_table(out_all), ["id"]), pa.concat_tables([first, second])) == []

    # CSV: pyarrow parses floe's CSV back to the same values.
    csv = floe.run("scan", "t.t", "--format", "csv", "--columns", "id,name,price").stdout
    parsed = pacsv.read_csv(io.BytesIO(csv.encode()), convert_options=pacsv.ConvertOptions(
        column_types={"id": pa.int64(), "name": pa.string(), "price": pa.decimal128(9, 2)}))
    expected = pa.concat_tables([first, second]).select(["id", "name", "price"])
    assert differences(sorted_by(parsed, ["id"]), sorted_by(expected, ["id"])) == []

    # JSON lines: one object per row; timestamps in ISO form, NaN as text.
    lines = floe.run("scan", "t.t", "--format", "jsonl", "--limit", "3").stdout.splitlines()
    assert len(lines) == 3
    row = json.loads(lines[0])
    assert set(row) == {"id", "name", "price", "ts", "score"}
    assert row["ts"] == "1969-12-31T23:59:59+00:00"

    table = floe.run("scan", "t.t", "--limit", "5").stdout
    assert "(75 rows, showing 5)" in table
    assert "no column 'nope'" in floe.fail("scan", "t.t", "--columns", "nope")
    assert "snapshot 123 is not in the table" in floe.fail("scan", "t.t", "--snapshot", "123")


def test_every_command_has_help():
    for command in ["create", "append", "scan", "describe", "snapshots", "files", "namespaces", "tables",
                    "drop", "rename"]:
        result = subprocess.run([FLOE, command, "--help"], capture_output=True, text=True)
        assert result.returncode == 0 and "--catalog" in result.stdout, command
    usage = subprocess.run([FLOE, "frobnicate"], capture_output=True, text=True)
    assert usage.returncode != 0


def test_create_sort_by_rejects_bad_terms_and_creates_nothing(floe):
    """--sort-by errors name the term at fault; no table is created."""
    for clause, why in [("nope desc", "no column 'nope'"), ("id sideways", "no column 'id sideways'"),
                        ("id first", "expected NULLS FIRST"), ("day(name)", "cannot apply"),
                        ("(id", "unbalanced")]:
        error = floe.fail("create", "db.bad", "--schema", SCHEMA, "--sort-by", clause)
        assert why in error, error
        assert "--sort-by" in error, error
    assert "db.bad" not in floe.run("tables", "db", check=False).stdout
    floe.run("create", "db.good", "--schema", SCHEMA, "--sort-by", "ts DESC NULLS FIRST, id")
    described = floe.run("describe", "db.good").stdout
    assert "ts" in described and "desc" in described.lower(), described


def test_explain_write_describes_the_plan_append_follows(floe, tmp_path):
    """explain-write says how an append would write, and the append does what it said."""
    floe.run("create", "db.parts", "--schema", SCHEMA, "--partition-by", "bucket(4, id)")
    explained = floe.run("explain-write", "db.parts", "--option", "write.target-file-size-bytes=1048576",
                         "--option", "write.parquet.compression-codec=snappy").stdout
    assert explained.startswith("supported: floe writes db.parts as iceberg-java would")
    assert "each partition is written by one task" in explained
    assert "roll at 1048576 bytes" in explained and "snappy" in explained and "level" not in explained
    spread = floe.run("explain-write", "db.parts", "--option", "write.distribution-mode=none").stdout
    assert "every task writes the partitions of the rows it gets" in spread

    # The append keeps each of the 4 buckets in one task's files, as explained.
    paths = []
    for index in range(4):
        path = tmp_path / f"in-{index}.parquet"
        write_input(path, index * 2000, 2000)
        paths.append(path)
    floe.run("append", "db.parts", *paths, "--threads", "2")
    names = list(floe.warehouse.glob("db/parts/data/*/*.parquet"))
    writers = {}
    for name in names:
        writers.setdefault(name.parent.name, set()).add(name.name.split("-")[0])
    assert len(writers) == 4 and all(len(ids) == 1 for ids in writers.values()), writers

    floe.run("create", "db.flat", "--schema", SCHEMA)
    flat = floe.run("explain-write", "db.flat").stdout
    assert "writer: unpartitioned" in flat and "tasks" not in flat
