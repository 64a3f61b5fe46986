"""Bad input gives one clear error line naming what is at fault, and leaves the table exactly as
it was: the same metadata location in the catalog, no new snapshot, no stray data files."""

import json
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import files_under

TABLE = "bad.t"
SCHEMA = "id int not null, amount decimal(5, 2), ts timestamp, name string"


def make_table(floe, tmp_path, rows=10):
    floe.run("create", TABLE, "--schema", SCHEMA, "--partition-by", "name")
    path = tmp_path / "good.csv"
    path.write_text("id,amount,ts,name\n" + "".join(
        f"{i},{i}.25,2024-01-0{1 + i % 9}T00:00:00,n{i % 3}\n" for i in range(rows)))
    floe.run("append", TABLE, path)
    return floe.metadata_location(TABLE)


def assert_unchanged(floe, location, files_before):
    assert floe.metadata_location(TABLE) == location
    assert files_under(floe.warehouse / "bad" / "t") == files_before


def test_malformed_metadata_json(floe, tmp_path):
    location = make_table(floe, tmp_path)
    pathlib.Path(location).write_text('{"format-version": 2, "table-uuid": ')
    before = files_under(floe.warehouse / "bad" / "t")
    error = floe.fail("scan", TABLE)
    assert location in error and "not valid JSON" in error and "bad.t" in error
    error = floe.fail("append", TABLE, tmp_path / "good.csv")
    assert location in error
    assert_unchanged(floe, location, before)
    # Well-formed JSON that breaks the spec names the field.
    pathlib.Path(location).write_text(json.dumps({"format-version": 2, "location": "/x"}))
    assert "table-uuid" in floe.fail("describe", TABLE)


def test_missing_data_file(floe, tmp_path):
    location = make_table(floe, tmp_path)
    data_file = sorted((floe.warehouse / "bad" / "t" / "data").rglob("*.parquet"))[0]
    data_file.unlink()
    before = files_under(floe.warehouse / "bad" / "t")
    error = floe.fail("scan", TABLE)
    assert str(data_file) in error and "not found" in error
    assert_unchanged(floe, location, before)


@pytest.mark.parametrize(
    "row, column",
    [
        ("3000000000,1.00,2024-01-01T00:00:00,x", "id"),          # int overflow
        ("1,1234.5,2024-01-01T00:00:00,x", "amount"),             # decimal(5,2) overflow
        ("1,1.005,2024-01-01T00:00:00,x", "amount"),              # decimal scale too fine
        ("1,1.00,not-a-time,x", "ts"),                            # timestamp
        (",1.00,2024-01-01T00:00:00,x", "id"),                    # null in a required column
    ],
)
def test_csv_values_that_do_not_fit(floe, tmp_path, row, column):
    location = make_table(floe, tmp_path)
    before = files_under(floe.warehouse / "bad" / "t")
    # Many good rows first, so data files are already open when the bad value arrives.
    path = tmp_path / "bad.csv"
    good = "".join(f"{i},1.00,2024-02-01T00:00:00,p{i % 11}\n" for i in range(200_000))
    path.write_text("id,amount,ts,name\n" + good + row + "\n")
    error = floe.fail("append", TABLE, path)
    assert str(path) in error
    assert column in error or "CSV" in error
    assert_unchanged(floe, location, before)


def test_unknown_table_or_namespace(floe, tmp_path):
    make_table(floe, tmp_path)
    assert "table 'bad.nope' does not exist" in floe.fail("scan", "bad.nope")
    assert "NoSuchTable" in floe.fail("describe", "bad.nope")
    assert "namespace 'nope' does not exist" in floe.fail("tables", "nope")
    assert "needs a namespace" in floe.fail("scan", "justatable")


def test_schema_that_does_not_match_the_table(floe, tmp_path):
    location = make_table(floe, tmp_path)
    before = files_under(floe.warehouse / "bad" / "t")
    extra = tmp_path / "extra.parquet"
    pq.write_table(pa.table({"id": pa.array([1], pa.int32()), "surprise": ["x"]}), extra)
    error = floe.fail("append", TABLE, extra)
    assert "surprise" in error and "not in the table schema" in error and str(extra) in error
    wrong_type = tmp_path / "wrong.parquet"
    pq.write_table(pa.table({"id": pa.array([1], pa.int32()), "ts": pa.array([[1]])}), wrong_type)
    assert "ts" in floe.fail("append", TABLE, wrong_type)
    missing_required = tmp_path / "missing.parquet"
    pq.write_table(pa.table({"name": ["x"]}), missing_required)
    assert "id" in floe.fail("append", TABLE, missing_required)
    assert_unchanged(floe, location, before)


def test_gate_declines_before_any_file_exists(floe, tmp_path):
    floe.run("create", TABLE, "--schema", SCHEMA, "--property", "write.format.default=orc",
             "--property", "write.parquet.bloom-filter-enabled.column.id=true")
    location = floe.metadata_location(TABLE)
    path = tmp_path / "good.csv"
    path.write_text("id,amount,ts,name\n1,1.00,2024-01-01T00:00:00,x\n")
    before = files_under(floe.warehouse / "bad" / "t")
    error = floe.fail("append", TABLE, path)
    assert "declines" in error
    assert "write.format.default" in error and "write.parquet.bloom-filter-enabled.column.id" in error
    assert "orc" not in error.split("declines", 1)[1].replace("write.format.default", "")
    assert_unchanged(floe, location, before)
