"""floe writes Delta tables by path (`floe create PATH`, `floe append PATH`, `floe overwrite
PATH`) that deltalake (delta-rs) reads with the same rows, partition values, record counts and
statistics; deltalake and floe append to one table alternately and concurrently; a table
floe cannot write exactly is declined before any file exists; a failed write leaves no file."""

import datetime
import decimal
import hashlib
import json
import math
import os
import pathlib
import subprocess
import urllib.parse

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

deltalake = pytest.importorskip("deltalake")
from deltalake import DeltaTable, write_deltalake  # noqa: E402

from conftest import FLOE  # noqa: E402
from test_delta_read import assert_same_rows, floe_scan, typed_batch  # noqa: E402

UTC = datetime.timezone.utc
SCHEMA = ("id long not null, i32 int, f64 double, dec decimal(38, 18), small_dec decimal(9, 2), "
          "flag boolean, s string, raw binary, d date, ts timestamptz, "
          "nested struct<x: long, y: string>, items list<int>, attrs map<string, long>")


def floe(*args, check=True):
    result = subprocess.run([FLOE, *map(str, args)], capture_output=True, text=True, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"floe {' '.join(map(str, args))} failed:\n{result.stderr}")
    return result


def storage(root: pathlib.Path) -> dict:
    """Every file below `root` with its SHA-256."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def input_batch(start: int, count: int) -> pa.Table:
    """typed_batch without the byte, short and float columns floe's --schema text cannot name
    (Iceberg types), plus a partition column with values that need escaping."""
    table = typed_batch(start, count).drop_columns(["i8", "i16", "f32"])
    regions = ["US/East", "a b", "x=y", "ünï", "100%", None, "", "co:lon", "[br]{ce}", "plain"]
    return table.append_column("region", pa.array([regions[i % len(regions)] for i in range(count)]))


def adds(table: pathlib.Path, version: int) -> list:
    lines = (table / "_delta_log" / f"{version:020d}.json").read_text().splitlines()
    return [json.loads(line)["add"] for line in lines if "add" in json.loads(line)]


def expected_bounds(column: pa.ChunkedArray):
    """Spark's bounds of a column: strings cut at 32 characters (the max with a tie-breaker),
    timestamps truncated to milliseconds."""
    values = column.drop_null()
    if len(values) == 0:
        return None
    low, high = pc.min(values).as_py(), pc.max(values).as_py()
    if isinstance(low, str):
        cut_high = high[:32]
        if len(high) > 32:
            cut_high += "\x7f" if all(ord(c) < 0x7F for c in high) else "\U0010ffff"
        return low[:32], cut_high
    if isinstance(low, datetime.datetime):
        trunc = lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000)  # noqa: E731
        return trunc(low), trunc(high)
    return low, high


def parse_bound(text, example):
    if isinstance(example, datetime.datetime):
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if isinstance(example, datetime.date):
        return datetime.date.fromisoformat(text)
    if isinstance(example, decimal.Decimal):
        return decimal.Decimal(str(text))
    return text


def check_stats(table: pathlib.Path, add: dict, schema: pa.Schema):
    """add.stats against the file's own rows, computed by pyarrow."""
    stats = json.loads(add["stats"], parse_float=decimal.Decimal)
    rows = pq.read_table(table / urllib.parse.unquote(add["path"]))
    assert stats["numRecords"] == rows.num_rows
    for name in rows.column_names:
        column = rows.column(name)
        kind = column.type
        if pa.types.is_struct(kind):
            for i in range(kind.num_fields):
                child = pc.struct_field(column, i)
                assert stats["nullCount"][name][kind.field(i).name] == child.null_count, (name, add["path"])
            continue
        if pa.types.is_list(kind) or pa.types.is_map(kind):
            # The column's own nulls (as delta-spark counts them), no bounds.
            assert stats["nullCount"][name] == column.null_count, (name, add["path"])
            assert name not in stats["minValues"]
            continue
        assert stats["nullCount"][name] == column.null_count, (name, add["path"])
        if pa.types.is_floating(kind):
            # delta-spark's bounds (test_delta_spark checks the spelling): NaN above every
            # number, so the max is NaN when the file has one.
            values = [v for v in column.to_pylist() if v is not None]
            numbers = [v for v in values if not math.isnan(v)]
            if not values:
                assert name not in stats["minValues"], name
                continue
            low = float(stats["minValues"][name])
            high = float(stats["maxValues"][name])
            assert (math.isnan(low) and not numbers) or low == min(numbers), (name, low)
            if len(numbers) < len(values):
                assert math.isnan(high), (name, high)
            else:
                assert high == max(numbers), (name, high)
            continue
        bounds = expected_bounds(column)
        boundable = (pa.types.is_integer(kind) or pa.types.is_decimal(kind) or pa.types.is_date(kind)
                     or pa.types.is_timestamp(kind) or pa.types.is_string(kind))
        if not boundable or bounds is None:
            assert name not in stats["minValues"] and name not in stats["maxValues"], name
            continue
        got = (parse_bound(stats["minValues"][name], bounds[0]), parse_bound(stats["maxValues"][name], bounds[1]))
        assert got == bounds, (name, add["path"], got, bounds)


def test_floe_writes_what_deltalake_reads(tmp_path):
    table = tmp_path / "events"
    floe("create", table, "--schema", SCHEMA + ", region string", "--partition-by", "region")
    written = []
    for part in range(8):
        batch = input_batch(part * 37, 37)
        pq.write_table(batch, tmp_path / f"in{part}.parquet")
        # 1 to 4 parallel tasks: each partition's rows still go to one file per task.
        result = floe("append", table, tmp_path / f"in{part}.parquet", "--threads", 1 + part % 4)
        assert f"as version {part + 1}" in result.stdout, result.stdout
        written.append(batch)
    expected = pa.concat_tables(written)
    # A partition value of "" is null in Delta (the protocol), as deltalake writes it too.
    region = expected.column_names.index("region")
    expected = expected.set_column(region, "region", pc.if_else(
        pc.equal(expected.column("region"), ""), pa.scalar(None, pa.string()), expected.column("region")))
    dt = DeltaTable(str(table))
    assert dt.version() == 8
    got = dt.to_pyarrow_table()
    assert_same_rows(got.select(expected.column_names), expected.cast(got.select(expected.column_names).schema),
                     "deltalake reading floe's table")
    # floe reads it back the same way.
    out = tmp_path / "out.parquet"
    floe("scan", table, "--format", "parquet", "--output", out)
    assert_same_rows(pq.read_table(out).select(expected.column_names),
                     got.select(expected.column_names), "floe reading its own table")
    # Every add: partition values as the rows hold them, the file in the folder Spark
    # would use, statistics as the file's rows give them.
    schema = got.schema
    for version in range(1, 9):
        for add in adds(table, version):
            folder = urllib.parse.unquote(add["path"]).split("/")[0]
            value = add["partitionValues"]["region"]
            rows = pq.read_table(table / urllib.parse.unquote(add["path"]))
            assert "region" not in rows.column_names  # partition columns stay out of files
            if value is None:
                assert folder == "region=__HIVE_DEFAULT_PARTITION__"
            else:
                assert urllib.parse.unquote(folder.removeprefix("region=")) == value
            check_stats(table, add, schema)
    # deltalake's own view of the files agrees on partition values and record counts.
    actions = pa.table(dt.get_add_actions(flatten=True)).to_pylist()
    assert sum(a["num_records"] for a in actions) == expected.num_rows
    history = dt.history()
    assert history[0]["operation"] == "WRITE" and history[0]["engineInfo"].startswith("floe/")
    assert history[-1]["operation"] == "CREATE TABLE"


def test_alternating_and_concurrent_appends_lose_nothing(tmp_path):
    table = tmp_path / "shared"
    first = pa.table({"id": pa.array(range(10), pa.int64()), "p": pa.array(["a"] * 10)})
    write_deltalake(str(table), first, mode="append", partition_by=["p"])
    for round_ in range(3):
        batch = pa.table({"id": pa.array(range(100 + round_ * 10, 110 + round_ * 10), pa.int64()),
                          "p": pa.array([f"p{round_}"] * 10)})
        pq.write_table(batch, tmp_path / f"f{round_}.parquet")
        floe("append", table, tmp_path / f"f{round_}.parquet")
        write_deltalake(str(table), pa.table({"id": pa.array([1000 + round_], pa.int64()),
                                              "p": pa.array(["d"])}), mode="append")
    # Eight floe processes at once: each commit lands at its own version.
    processes = []
    for writer in range(8):
        batch = pa.table({"id": pa.array(range(10000 + writer * 100, 10000 + writer * 100 + 25), pa.int64()),
                          "p": pa.array([f"w{writer % 3}"] * 25)})
        pq.write_table(batch, tmp_path / f"w{writer}.parquet")
        processes.append(subprocess.Popen([FLOE, "append", str(table), str(tmp_path / f"w{writer}.parquet")],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
    dt = DeltaTable(str(table))
    assert dt.version() == 1 + 6 + 8 - 1
    versions = sorted(int(p.name[:20]) for p in (table / "_delta_log").glob("*.json"))
    assert versions == list(range(dt.version() + 1))
    ids = dt.to_pyarrow_table().column("id").to_pylist()
    assert len(ids) == len(set(ids)) == 10 + 30 + 3 + 8 * 25
    # No temporary commit file is left behind.
    assert not [p for p in (table / "_delta_log").iterdir() if p.name.startswith(".")]


def test_overwrite_replaces_every_file(tmp_path):
    table = tmp_path / "over"
    floe("create", table, "--schema", "id long, p string", "--partition-by", "p")
    pq.write_table(pa.table({"id": pa.array(range(20), pa.int64()), "p": [str(i % 4) for i in range(20)]}),
                   tmp_path / "a.parquet")
    floe("append", table, tmp_path / "a.parquet")
    pq.write_table(pa.table({"id": pa.array([7], pa.int64()), "p": ["z"]}), tmp_path / "b.parquet")
    result = floe("overwrite", table, tmp_path / "b.parquet")
    assert "(4 removed)" in result.stdout, result.stdout
    assert DeltaTable(str(table)).to_pyarrow_table().to_pylist() == [{"id": 7, "p": "z"}]
    assert len(DeltaTable(str(table), version=1).to_pyarrow_table()) == 20
    assert DeltaTable(str(table)).history()[0]["operationParameters"]["mode"] == "Overwrite"


def test_the_gate_declines_before_any_file_exists(tmp_path):
    table = tmp_path / "cdf"
    write_deltalake(str(table), pa.table({"id": pa.array([1], pa.int64())}), mode="append",
                    configuration={"delta.enableChangeDataFeed": "true"})
    pq.write_table(pa.table({"id": pa.array([2], pa.int64())}), tmp_path / "in.parquet")
    before = storage(table)
    result = floe("append", table, tmp_path / "in.parquet", check=False)
    assert result.returncode != 0
    assert "delta.enableChangeDataFeed" in result.stderr and "true" not in result.stderr.split(
        "delta.enableChangeDataFeed")[1][:10], result.stderr
    assert storage(table) == before
    # A property floe does not write is refused at create, named.
    result = floe("create", tmp_path / "new", "--schema", "id long", "--property",
                  "delta.enableDeletionVectors=true", check=False)
    assert result.returncode != 0 and "delta.enableDeletionVectors" in result.stderr
    assert not (tmp_path / "new").exists() or not any((tmp_path / "new").rglob("*.json"))
    # Creating over an existing table is refused.
    result = floe("create", table, "--schema", "id long", check=False)
    assert result.returncode != 0 and "already exists" in result.stderr


def test_bad_input_leaves_no_file(tmp_path):
    table = tmp_path / "strict"
    floe("create", table, "--schema", "id long not null, s string", "--partition-by", "s")
    before = storage(table)
    # A null in a NOT NULL column, after some rows of other partitions were written.
    rows = pa.table({"id": pa.array([1, 2, None], pa.int64()), "s": ["a", "b", "c"]})
    pq.write_table(rows, tmp_path / "nulls.parquet", row_group_size=1)
    result = floe("append", table, tmp_path / "nulls.parquet", check=False)
    assert result.returncode != 0 and "id" in result.stderr, result.stderr
    assert storage(table) == before
    # A value that does not fit the column's type.
    pq.write_table(pa.table({"id": pa.array(["x"]), "s": ["a"]}), tmp_path / "text.parquet")
    result = floe("append", table, tmp_path / "text.parquet", check=False)
    assert result.returncode != 0
    assert storage(table) == before


def test_the_memory_limit_bounds_a_write_and_unhonoured_flags_are_refused(tmp_path):
    """--memory-limit is honoured on a Delta append as on an Iceberg one: too little fails,
    saying so, with storage unchanged; a limit below the rows makes the tasks write their
    row groups early, and deltalake reads every row. --option and --input-clustered, which a
    Delta write would not honour, are refused before anything is written."""
    table = tmp_path / "limited"
    floe("create", table, "--schema", "id long not null, s string, part long",
         "--partition-by", "part")
    count = 240_000
    rows = pa.table({"id": pa.array(range(count), pa.int64()),
                     "s": [f"row {i} " + "x" * (i % 50) for i in range(count)],
                     "part": pa.array([i % 16 for i in range(count)], pa.int64())})
    pq.write_table(rows, tmp_path / "in.parquet", row_group_size=20_000)
    before = storage(table)
    failed = floe("append", table, tmp_path / "in.parquet", "--memory-limit", "256KiB",
                  "--threads", 2, check=False)
    assert failed.returncode != 0 and "--memory-limit" in failed.stderr, failed.stderr
    assert "--input-clustered" not in failed.stderr  # advice a Delta write can take
    assert storage(table) == before
    for flags in (["--option", "write.parquet.compression-codec=zstd"], ["--input-clustered"]):
        refused = floe("append", table, tmp_path / "in.parquet", *flags, check=False)
        assert refused.returncode != 0 and "do not apply to a Delta table" in refused.stderr
        assert storage(table) == before
    refused = floe("overwrite", table, tmp_path / "in.parquet", "--option", "a=b", check=False)
    assert refused.returncode != 0 and "does not apply to a Delta table" in refused.stderr
    floe("append", table, tmp_path / "in.parquet", "--memory-limit", "12MiB", "--threads", 2)
    got = DeltaTable(str(table)).to_pyarrow_table().sort_by("id").select(["id", "s", "part"])
    assert got.equals(rows.select(["id", "s", "part"]).cast(got.schema))
    # Each task's share (3 MiB for its 8 open files of ~600 KB each) made files of
    # several row groups.
    groups = [pq.ParquetFile(urllib.parse.unquote(uri.removeprefix("file://"))).num_row_groups
              for uri in DeltaTable(str(table)).file_uris()]
    assert len(groups) == 16 and max(groups) > 1, groups


def test_floe_checkpoints_what_deltalake_reads_without_the_commits(tmp_path):
    """Every 10th version floe writes a V1 checkpoint (delta-spark's columns, typed partition
    values) and `_last_checkpoint`; with the commits before it deleted, deltalake and floe still
    read every row, and deltalake sees floe's idempotent-write marker (txn) from it."""
    table = tmp_path / "ckpt"
    floe("create", table, "--schema", "id long not null, s string, d date", "--partition-by", "d")
    days = [datetime.date(1900, 1, 1), datetime.date(1969, 12, 31), datetime.date(9999, 12, 31),
            datetime.date(2024, 2, 29), None, datetime.date(1970, 1, 1), datetime.date(1, 1, 1),
            datetime.date(2000, 6, 15)]
    batches = []
    for version in range(1, 13):
        batch = pa.table({"id": pa.array(range(version * 100, version * 100 + 16), pa.int64()),
                          "s": [f"ü{version}-{i}" if i % 5 else None for i in range(16)],
                          "d": pa.array([days[i % len(days)] for i in range(16)], pa.date32())})
        pq.write_table(batch, tmp_path / f"in{version}.parquet")
        if version == 4:
            result = floe("overwrite", table, tmp_path / f"in{version}.parquet")
            batches = [batch]
        else:
            result = floe("append", table, tmp_path / f"in{version}.parquet", "--txn", f"job-ü:{version}")
            batches.append(batch)
        assert f"as version {version}" in result.stdout, result.stdout
        assert ("checkpoint written at version 10" in result.stdout) == (version == 10), result.stdout
    # A replayed batch is skipped: no file, no version.
    before = storage(table)
    result = floe("append", table, tmp_path / "in7.parquet", "--txn", "job-ü:7")
    assert "skipped" in result.stdout, result.stdout
    assert storage(table) == before
    log = table / "_delta_log"
    assert json.loads((log / "_last_checkpoint").read_text())["version"] == 10
    checkpoint = pq.read_table(log / f"{10:020d}.checkpoint.parquet")
    assert checkpoint.column_names == ["txn", "add", "remove", "metaData", "protocol", "domainMetadata"]
    add_type = checkpoint.schema.field("add").type
    assert add_type.field("partitionValues_parsed").type == pa.struct([("d", pa.date32())])
    rows = checkpoint.to_pylist()
    live = [r["add"] for r in rows if r["add"]]
    assert all(a["dataChange"] is False for a in live)
    assert {a["partitionValues_parsed"]["d"] for a in live} == set(days)
    tombstones = [r["remove"] for r in rows if r["remove"]]
    assert len(tombstones) == 3 * len(days)  # the overwrite removed versions 1-3's files
    expected = pa.concat_tables(batches)
    for version in range(0, 11):
        (log / f"{version:020d}.json").unlink()
    dt = DeltaTable(str(table))
    assert dt.version() == 12
    assert dt.transaction_version("job-ü") == 12
    assert_same_rows(dt.to_pyarrow_table().select(expected.column_names), expected,
                     "deltalake reading floe's checkpoint")
    at_checkpoint = DeltaTable(str(table), version=10)
    assert at_checkpoint.transaction_version("job-ü") == 10  # from the checkpoint's txn column
    assert len(at_checkpoint.to_pyarrow_table()) == 16 * 7
    rows, _ = floe_scan(table, tmp_path / "out.parquet")
    assert_same_rows(rows.select(expected.column_names), expected, "floe reading its checkpoint")
