"""floe reads Delta tables by path (`floe scan /path/to/table`) exactly as delta-rs (deltalake)
reads them: tables deltalake writes here (every type, pre-1970 and far-future values, NaN,
-0.0, unicode and escaped partition values, appends, overwrites, deletes, schema evolution,
checkpoints, time travel), and the tables real engines wrote under
../shared/data/delta-kernel-rs (Spark, delta-rs, kernel), each compared with deltalake where
it opens them; floe declines the rest by name (a reader feature it does not apply yet)."""

import datetime
import decimal
import math
import os
import pathlib
import subprocess
import tarfile

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

deltalake = pytest.importorskip("deltalake")
from deltalake import DeltaTable, write_deltalake  # noqa: E402

from arrow_compare import differences  # noqa: E402
from conftest import FLOE  # noqa: E402

def _shared_tables() -> pathlib.Path:
    """../shared/data/delta-kernel-rs beside the project (its README's place), or
    FLOE_SHARED_DATA, or /work/shared's copy when the project is a clone elsewhere."""
    candidates = [pathlib.Path(os.environ["FLOE_SHARED_DATA"])] if "FLOE_SHARED_DATA" in os.environ else []
    candidates += [pathlib.Path(__file__).resolve().parents[2].parent / "shared" / "data",
                   pathlib.Path("/work/shared/data")]
    for data in candidates:
        if (data / "delta-kernel-rs").is_dir():
            return data / "delta-kernel-rs"
    return candidates[0] / "delta-kernel-rs"


SHARED = _shared_tables()


def floe_scan(table: pathlib.Path, out: pathlib.Path, *args, check=True):
    """floe scan of the Delta table at `table` into a Parquet file; the rows, or the error."""
    result = subprocess.run(
        [FLOE, "scan", str(table), "--format", "parquet", "--output", str(out), *map(str, args)],
        capture_output=True, text=True, timeout=600,
    )
    if result.returncode != 0:
        if check:
            raise AssertionError(f"floe scan {table} {args} failed:\n{result.stderr}")
        return None, result.stderr
    return pq.read_table(out), result.stderr


def row_key(row: dict) -> str:
    def canonical(value):
        if isinstance(value, float):
            return "nan" if math.isnan(value) else repr(value)
        if isinstance(value, dict):
            return {k: canonical(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [canonical(v) for v in value]
        return value
    return repr(sorted((k, repr(canonical(v))) for k, v in row.items()))


def in_row_order(table: pa.Table) -> pa.Table:
    """`table` sorted by every value of each row, so two engines' file orders do not matter.
    Timestamps become integers first: far-future ones do not fit Python's datetime."""
    keyed = table
    for i, field in enumerate(table.schema):
        if pa.types.is_timestamp(field.type):
            keyed = keyed.set_column(i, field.name, table.column(i).cast(pa.int64()))
    keys = [row_key(row) for row in keyed.to_pylist()]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return table.take(pa.array(order, pa.int64()))


def assert_same_rows(floe_rows: pa.Table, delta_rows: pa.Table, what: str):
    delta_rows = delta_rows.select(floe_rows.column_names) if set(
        delta_rows.column_names) == set(floe_rows.column_names) else delta_rows
    problems = differences(in_row_order(floe_rows), in_row_order(delta_rows))
    assert not problems, f"{what}: {problems}"


def every_version_matches(table: pathlib.Path, out: pathlib.Path):
    latest = DeltaTable(str(table)).version()
    for version in range(latest + 1):
        expected = DeltaTable(str(table), version=version).to_pyarrow_table()
        rows, _ = floe_scan(table, out, "--snapshot", version)
        assert_same_rows(rows, expected, f"{table} at version {version}")
    return latest


UTC = datetime.timezone.utc


def typed_batch(start: int, count: int) -> pa.Table:
    ids = list(range(start, start + count))
    floats = [float("nan"), -0.0, 0.0, 5e-324, float("inf"), -float("inf"), 1.5, None]
    strings = ["plain", "ünïcödé ☃", "", None, "quote\"back\\slash", "tab\tnew\nline", "a/b=c%d", "𝄞"]
    dates = [datetime.date(1900, 1, 1), datetime.date(1969, 12, 31), datetime.date(1970, 1, 1),
             datetime.date(2024, 2, 29), datetime.date(9999, 12, 31), None,
             datetime.date(1, 1, 1), datetime.date(2038, 1, 19)]
    stamps = [datetime.datetime(1900, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
              datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
              datetime.datetime(2024, 6, 15, 19, 30, 45, 123456, tzinfo=UTC),
              datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), None,
              datetime.datetime(1970, 1, 1, tzinfo=UTC),
              datetime.datetime(2262, 4, 12, tzinfo=UTC), datetime.datetime(1677, 9, 21, tzinfo=UTC)]
    pick = lambda values, i: values[i % len(values)]  # noqa: E731
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "i8": pa.array([(-128, 127, 0, None)[i % 4] for i in ids], pa.int8()),
        "i16": pa.array([(-32768, 32767, 1, None)[i % 4] for i in ids], pa.int16()),
        "i32": pa.array([(-2**31, 2**31 - 1, -1, None)[i % 4] for i in ids], pa.int32()),
        "f32": pa.array([pick(floats, i) for i in ids], pa.float32()),
        "f64": pa.array([pick(floats, i + 3) for i in ids], pa.float64()),
        "dec": pa.array([None if i % 5 == 0 else (decimal.Decimal(i) / 7 * (-1) ** i).quantize(decimal.Decimal(10) ** -18) for i in ids],
                        pa.decimal128(38, 18)),
        "small_dec": pa.array([decimal.Decimal("-9999999.99") if i % 3 == 0 else decimal.Decimal(i % 100) / 4
                               for i in ids], pa.decimal128(9, 2)),
        "flag": pa.array([(True, False, None)[i % 3] for i in ids], pa.bool_()),
        "s": pa.array([pick(strings, i) for i in ids], pa.string()),
        "raw": pa.array([None if i % 4 == 0 else bytes([i % 256, 0, 255]) for i in ids], pa.binary()),
        "d": pa.array([pick(dates, i) for i in ids], pa.date32()),
        "ts": pa.array([pick(stamps, i) for i in ids], pa.timestamp("us", tz="UTC")),
        "nested": pa.array([None if i % 6 == 0 else {"x": i, "y": pick(strings, i)} for i in ids],
                           pa.struct([("x", pa.int64()), ("y", pa.string())])),
        "items": pa.array([None if i % 7 == 0 else list(range(i % 4)) for i in ids], pa.list_(pa.int32())),
        "attrs": pa.array([None if i % 5 == 1 else [("k" + str(i % 3), i)] for i in ids],
                          pa.map_(pa.string(), pa.int64())),
    })


def test_every_type_through_appends_deletes_checkpoints_and_time_travel(tmp_path):
    table = tmp_path / "typed"
    for part in range(8):
        write_deltalake(str(table), typed_batch(part * 50, 50), mode="append")
    dt = DeltaTable(str(table))
    dt.delete("id % 9 = 0")  # copy-on-write: remove + add
    write_deltalake(str(table), typed_batch(1000, 40), mode="append")
    DeltaTable(str(table)).create_checkpoint()
    write_deltalake(str(table), typed_batch(2000, 30), mode="append")
    assert (table / "_delta_log" / "_last_checkpoint").exists()
    latest = every_version_matches(table, tmp_path / "out.parquet")
    assert latest == 10
    rows, stats = floe_scan(table, tmp_path / "out.parquet", "--stats")
    expected = DeltaTable(str(table)).to_pyarrow_table()
    assert rows.num_rows == expected.num_rows > 400
    # The last version came from the checkpoint at 9 and one commit after it.
    assert "version=10 checkpoint=9 commits_read=1" in stats, stats
    # A projection, in the order asked.
    rows, _ = floe_scan(table, tmp_path / "out.parquet", "--columns", "ts,id,nested")
    assert rows.column_names == ["ts", "id", "nested"]
    assert_same_rows(rows, expected.select(["ts", "id", "nested"]), "projection")


def test_partition_values_escaped_null_and_unicode(tmp_path):
    table = tmp_path / "partitioned"
    regions = ["US/East", "a b", "x=y", "ünï", "100%", None, "", "quote'\"", "co:lon", "[br]{ce}"]
    for part in range(10):
        batch = pa.table({
            "id": pa.array(range(part * 20, part * 20 + 20), pa.int64()),
            "region": pa.array([regions[(part + i) % len(regions)] for i in range(20)], pa.string()),
            "day": pa.array([datetime.date(1950 + (i % 3) * 40, 1 + i % 12, 1) if i % 5 else None
                             for i in range(20)], pa.date32()),
            "bucket": pa.array([i % 4 if i % 7 else None for i in range(20)], pa.int32()),
            "value": pa.array([float(i) if i % 3 else float("nan") for i in range(20)], pa.float64()),
        })
        write_deltalake(str(table), batch, mode="append", partition_by=["region", "day", "bucket"])
    out = tmp_path / "out.parquet"
    every_version_matches(table, out)
    rows, _ = floe_scan(table, out)
    # The empty string is null in a Delta partition value, as deltalake reads it too.
    assert set(rows.column("region").to_pylist()) == {r for r in regions if r} | {None}
    # An overwrite of the whole table replaces every file.
    write_deltalake(str(table), pa.table({
        "id": pa.array([1], pa.int64()), "region": pa.array(["only"]),
        "day": pa.array([datetime.date(1969, 7, 20)]), "bucket": pa.array([0], pa.int32()),
        "value": pa.array([-0.0])}), mode="overwrite", partition_by=["region", "day", "bucket"])
    rows, _ = floe_scan(table, out)
    assert rows.to_pylist() == [{"id": 1, "region": "only", "day": datetime.date(1969, 7, 20),
                                 "bucket": 0, "value": -0.0}]
    assert math.copysign(1.0, rows.column("value")[0].as_py()) == -1.0
    every_version_matches(table, out)


def test_schema_evolution_reads_missing_columns_as_nulls(tmp_path):
    table = tmp_path / "evolving"
    write_deltalake(str(table), pa.table({"id": pa.array([1, 2], pa.int64())}), mode="append")
    write_deltalake(str(table), pa.table({"id": pa.array([3], pa.int64()),
                                          "note": pa.array(["new"])}),
                    mode="append", schema_mode="merge")
    rows, _ = floe_scan(table, tmp_path / "out.parquet")
    assert sorted(rows.to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "note": None}, {"id": 2, "note": None}, {"id": 3, "note": "new"}]
    every_version_matches(table, tmp_path / "out.parquet")


def test_bad_logs_fail_with_the_file_named_and_no_output(tmp_path):
    table = tmp_path / "broken"
    write_deltalake(str(table), pa.table({"id": pa.array([1], pa.int64())}), mode="append")
    write_deltalake(str(table), pa.table({"id": pa.array([2], pa.int64())}), mode="append")
    out = tmp_path / "out.parquet"
    out.write_bytes(b"keep me")
    commit = table / "_delta_log" / "00000000000000000001.json"
    text = commit.read_text()
    commit.write_text(text[: len(text) // 2])  # truncated mid-line
    rows, error = floe_scan(table, out, check=False)
    assert rows is None and str(commit) in error and "line" in error, error
    assert out.read_bytes() == b"keep me"  # a failed scan leaves --output as it was
    commit.unlink()  # a gap: version 1 missing while 2 exists
    (table / "_delta_log" / "00000000000000000002.json").write_text(text)
    rows, error = floe_scan(table, out, check=False)
    assert rows is None and "00000000000000000001.json" in error, error
    # A data file gone from storage is named.
    gone = tmp_path / "gone"
    write_deltalake(str(gone), pa.table({"id": pa.array([1], pa.int64())}), mode="append")
    data = next(p for p in gone.iterdir() if p.suffix == ".parquet")
    data.unlink()
    rows, error = floe_scan(gone, out, check=False)
    assert rows is None and data.name in error, error
    # No table at all.
    rows, error = floe_scan(tmp_path / "nothing", out, check=False)
    assert rows is None and "no Delta table at" in error, error


# The tables of ../shared/data/delta-kernel-rs, by name (a directory, or a .tar.zst extracted
# once), and what floe does with each: the ones deltalake cannot open are compared with nothing
# and listed here too, so a change in what either reads fails the test.
# Column-mapped tables (name and id modes): deltalake 1.6.6 opens them but reads every column as
# null (observed: table-with-columnmapping-mode-name, 6 rows, all null), so it cannot judge them;
# tests/interop/test_delta_spark.py compares floe's reading of each with delta-spark's.
READ_WRONG_BY_DELTALAKE = {
    "cdf-column-mapping-id-mode/cdf-column-mapping-id-mode",
    "cdf-column-mapping-name-mode/cdf-column-mapping-name-mode",
    "data-skipping-basic-stats-all-types-columnmapping-id/data-skipping-basic-stats-all-types-columnmapping-id/delta",
    "data-skipping-basic-stats-all-types-columnmapping-name/data-skipping-basic-stats-all-types-columnmapping-name/delta",
    "table-with-columnmapping-mode-id/table-with-columnmapping-mode-id/delta",
    "table-with-columnmapping-mode-name/table-with-columnmapping-mode-name/delta",
}

DECLINED_BY_FLOE = {
    # the variant type (reader feature variantType-preview) and Spark's void type
    "unshredded-variant/unshredded-variant",
    "void-column",
}


def shared_tables(root: pathlib.Path):
    tables = {}
    for folder in ("kernel/tests/data", "kernel/tests/golden_data"):
        base = SHARED / folder
        if not base.is_dir():
            continue
        for entry in sorted(base.iterdir()):
            name = entry.name.removesuffix(".tar.zst")
            if name.startswith("300k-add-files"):
                continue  # 300,000 files: a benchmark, not a reader test
            if entry.is_dir():
                location = entry
            elif entry.name.endswith(".tar.zst"):
                location = root / folder / name
                location.mkdir(parents=True, exist_ok=True)
                subprocess.run(["tar", "--zstd", "-xf", str(entry), "-C", str(location)], check=True)
            else:
                continue
            for log in sorted(location.rglob("_delta_log")):
                table = log.parent
                key = f"{name}/{table.relative_to(location)}".rstrip("/.")
                tables[key] = table
    return tables


@pytest.fixture(scope="module")
def kernel_tables(tmp_path_factory):
    if not SHARED.is_dir():
        pytest.fail(f"the shared Delta test tables are missing: {SHARED}")
    return shared_tables(tmp_path_factory.mktemp("kernel"))


def test_tables_real_engines_wrote(kernel_tables, tmp_path):
    out = tmp_path / "out.parquet"
    matched, declined, unopened, mismatched = [], {}, [], {}
    for name, table in sorted(kernel_tables.items()):
        try:
            expected = DeltaTable(str(table)).to_pyarrow_table()
        except Exception as error:  # deltalake cannot open it: nothing to compare with
            unopened.append(name)
            continue
        rows, error = floe_scan(table, out, check=False)
        if rows is None:
            declined[name] = error.strip().splitlines()[-1]
            continue
        if name in READ_WRONG_BY_DELTALAKE:
            # deltalake's rows are all null here; floe's are real (delta-spark checks them).
            assert expected.num_rows == rows.num_rows and rows.num_rows > 0, name
            assert all(expected.column(c).null_count == expected.num_rows for c in expected.column_names), name
            assert any(rows.column(c).null_count < rows.num_rows for c in rows.column_names), name
            continue
        try:
            assert_same_rows(rows, expected, name)
            matched.append(name)
        except AssertionError as problem:
            mismatched[name] = str(problem)[:300]
    report = (f"matched {len(matched)}, declined {len(declined)}, not opened by deltalake "
              f"{len(unopened)}\nmismatched: {mismatched}\ndeclined: {declined}\nunopened: {unopened}")
    print(report)
    assert not mismatched, report
    # Every decline names what floe does not read yet.
    for name, error in declined.items():
        assert "floe does not" in error or "catalog-managed" in error, f"{name}: {error}"
    assert set(declined) == DECLINED_BY_FLOE, report
    assert len(matched) >= 91, report


# Golden tables whose expected rows floe reads differently, by column, and why.
EXPECTED_DIFFERS = {
    # Timestamp partition values without a zone ("2021-09-08 11:11:11"): delta-spark read
    # them in the session time zone of the machine that made the expected rows (US
    # Pacific); floe reads them as UTC, as deltalake and delta-kernel-rs do (the
    # comparison with deltalake above matches).
    "data-reader-partition-values/data-reader-partition-values/delta": {"as_timestamp"},
}


def test_golden_tables_read_as_their_expected_rows(kernel_tables, tmp_path):
    """Delta's golden tables carry the rows delta-spark read from them (`expected/`, next to
    `delta/`): floe's scan of each gives those rows. Among them are tables deltalake cannot
    open (V2 checkpoints in JSON and Parquet, multi-part checkpoints, only checkpoint
    files, deletion vectors with column mapping), so this is their independent oracle."""
    out = tmp_path / "out.parquet"
    compared, mismatched = [], {}
    for name, table in sorted(kernel_tables.items()):
        expected_folder = table.parent / "expected"
        if table.name != "delta" or not list(expected_folder.glob("*.parquet")):
            continue
        expected = pq.read_table(expected_folder)
        rows, error = floe_scan(table, out, check=False)
        assert rows is not None, f"{name}: {error}"
        skipped = EXPECTED_DIFFERS.get(name, set())
        keep = [c for c in rows.column_names if c not in skipped]
        try:
            assert_same_rows(rows.select(keep), expected.select(keep), name)
            compared.append(name)
        except AssertionError as problem:
            mismatched[name] = str(problem)[:300]
    assert not mismatched, mismatched
    # Not vacuous: the tables deltalake cannot open are among them.
    assert len(compared) >= 70, compared
    for name in ("v2-checkpoint-json", "v2-checkpoint-parquet", "multi-part-checkpoint",
                 "only-checkpoint-files", "dv-with-columnmapping"):
        assert f"{name}/{name}/delta" in compared, name


# Golden tables a reader must refuse, and what floe's error names.
REFUSED_GOLDEN_TABLES = {
    # A checkpoint without the table's metadata, or whose metaData has no schema: the
    # log as the checkpoint gives it is not a table.
    "deltalog-state-reconstruction-from-checkpoint-missing-metadata": "no metaData action at version 10",
    "deltalog-state-reconstruction-from-checkpoint-missing-protocol": "00000000000000000010.checkpoint.parquet",
    "update-deleted-directory": "00000000000000000000.checkpoint.parquet",
    "deltalog-state-reconstruction-without-metadata": "no metaData action at version 0",
    "deltalog-state-reconstruction-without-protocol": "no protocol action at version 0",
    "deltalog-invalid-protocol-version": "needs reader version 99",
    "versions-not-contiguous": "has no commit",
}


def test_golden_tables_a_reader_must_refuse_fail_clearly(kernel_tables, tmp_path):
    """Delta's golden tables of broken logs (a checkpoint that lacks the metadata or
    protocol the log had, a missing commit, an unknown reader version): floe's scan
    fails with an error naming the version or file at fault, writes no output and never
    crashes."""
    out = tmp_path / "out.parquet"
    seen = set()
    for name, table in sorted(kernel_tables.items()):
        short = name.split("/")[0]
        if short not in REFUSED_GOLDEN_TABLES:
            continue
        seen.add(short)
        rows, error = floe_scan(table, out, check=False)
        assert rows is None, name
        last = error.strip().splitlines()[-1]
        assert last.startswith("floe: error:") and REFUSED_GOLDEN_TABLES[short] in last, (name, last)
        assert not out.exists(), name
    assert seen == set(REFUSED_GOLDEN_TABLES), seen


def test_describe_versions_files_and_time_travel_by_time(tmp_path):
    table = tmp_path / "history"
    for part in range(3):
        write_deltalake(str(table), pa.table({"id": pa.array(range(part * 10, part * 10 + 10), pa.int64()),
                                              "p": pa.array([f"p{part}"] * 10)}),
                        mode="append", partition_by=["p"])
    base = 1_700_000_000
    for version in range(3):  # distinct commit times, as far apart as real commits
        os.utime(table / "_delta_log" / f"{version:020d}.json", (base + 100 * version,) * 2)
    out = tmp_path / "out.parquet"
    as_of = datetime.datetime.fromtimestamp(base + 150, tz=UTC)
    expected = DeltaTable(str(table))
    expected.load_as_version(as_of)
    assert expected.version() == 1
    rows, _ = floe_scan(table, out, "--as-of", (base + 150) * 1000)
    assert_same_rows(rows, expected.to_pyarrow_table(), "as of version 1's time")
    _, error = floe_scan(table, out, "--as-of", (base - 1) * 1000, check=False)
    assert "no version committed at or before" in error, error

    def floe(*args):
        result = subprocess.run([FLOE, *map(str, args)], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return result.stdout

    described = floe("describe", table)
    assert "protocol        reader 1, writer 2" in described, described
    assert "partitioned by  p" in described and "  id: long" in described, described
    assert "version         2 " in described, described
    versions = floe("snapshots", table)
    assert [line.lstrip("* ").split()[0] for line in versions.splitlines()] == ["0", "1", "2"], versions
    assert versions.splitlines()[-1].startswith("* 2 "), versions
    listed = floe("files", table, "--snapshot", 1)
    assert f"(2 files," in listed and "p=p1" in listed and "p=p2" not in listed, listed
    assert len(DeltaTable(str(table), version=1).file_uris()) == 2
