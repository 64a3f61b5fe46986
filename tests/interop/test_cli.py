"""The floe command: catalog selection, time travel, output formats, help and errors."""

import io
import json
import os
import re
import stat
import subprocess
import time

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
    assert "writer: unpartitioned" in flat and "tasks (--threads)" not in flat
    cores = os.cpu_count()
    assert f"tasks: {cores} by default (one per core" in flat
    assert "each after the first starting once the input has 131072 rows" in flat
    assert "each after the first" not in explained  # partitions dealt: every task at once


def test_append_and_scan_hold_one_row_group_at_a_time(floe, tmp_path):
    """floe append reads a Parquet input, and floe scan a data file, one row group at a time:
    with 128 MB of values in 63 row groups, each peaks within 50 MiB of doing the same with
    25 MB. Arrow's pre-buffering (on by default for inputs, and for threaded scans) read
    every selected row group's bytes before the first batch, so memory grew with the file."""
    import numpy as np

    width = 256

    def write_blobs(path, rows):
        # Random bytes: nothing compresses, so the files are as large as their values.
        data = pa.py_buffer(np.random.default_rng(7).bytes(rows * width))
        offsets = pa.py_buffer((np.arange(rows + 1, dtype=np.int32) * width).tobytes())
        payload = pa.Array.from_buffers(pa.binary(), rows, [None, offsets, data])
        pq.write_table(pa.table({"id": pa.array(range(rows), pa.int64()), "payload": payload}), path,
                       row_group_size=8000, compression="none")

    def peak_mb(*args):
        """Runs floe; its peak RSS in MiB (VmHWM, polled while it runs: ru_maxrss would carry
        this process's own peak across the fork and exec) and its stdout and stderr."""
        command = [FLOE, *map(str, args), "--warehouse", str(floe.warehouse)]
        peak_kb = 0
        with open(tmp_path / "out.txt", "w") as out, open(tmp_path / "err.txt", "w") as err:
            # The system allocator gives freed memory back, so the peak is what was in use.
            process = subprocess.Popen(command, stdout=out, stderr=err,
                                       env={**os.environ, "ARROW_DEFAULT_MEMORY_POOL": "system"})
            while process.poll() is None:
                try:
                    with open(f"/proc/{process.pid}/status") as status:
                        for line in status:
                            if line.startswith("VmHWM:"):
                                peak_kb = max(peak_kb, int(line.split()[1]))
                except OSError:
                    pass  # gone between the poll and the read
                time.sleep(0.01)
        stderr = (tmp_path / "err.txt").read_text()
        assert process.returncode == 0, stderr
        assert peak_kb > 0
        return peak_kb / 1024, (tmp_path / "out.txt").read_text(), stderr

    peaks = {}
    for name, rows in [("small", 100_000), ("large", 500_000)]:
        path = tmp_path / f"{name}.parquet"
        write_blobs(path, rows)
        floe.run("create", f"db.{name}", "--schema", "id long not null, payload binary")
        # Row groups of 4 MiB, so the data file has many, as the input does; one task (the
        # default runs one per core past 128 Ki rows, each buffering its own row group).
        peak, printed, _ = peak_mb("append", f"db.{name}", path, "--threads", "1",
                                   "--option", "write.parquet.row-group-size-bytes=4194304")
        assert printed.startswith(f"appended {rows:,} rows in 1 data file"), printed
        peaks[("append", name)] = peak
        peak, _, stderr = peak_mb("scan", f"db.{name}", "--format", "csv", "--output", os.devnull, "--stats")
        assert stat.S_ISCHR(os.stat(os.devnull).st_mode), "--output must write a device in place"
        assert f" rows={rows} " in stderr, stderr
        assert int(re.search(r"row_groups_read=(\d+)", stderr).group(1)) > rows // 16_000, stderr
        peaks[("scan", name)] = peak
    assert pq.ParquetFile(tmp_path / "large.parquet").metadata.num_row_groups == 63
    assert (tmp_path / "large.parquet").stat().st_size > 128_000_000
    # Pre-buffering would add the 100 MB the files differ by. Some growth remains: the heap
    # fragments a little more over more row groups (pyarrow's own iter_batches grows alike).
    for command in ["append", "scan"]:
        assert peaks[(command, "large")] - peaks[(command, "small")] < 50, (command, peaks)


def test_csv_output_spells_binary_fixed_and_uuid_as_the_table_output_does(floe, tmp_path):
    """Binary and fixed values (not UTF-8: bytes 0x00 and 0xff) come out base64 in CSV, uuids in
    their hyphenated form, nulls empty; Arrow's CSV writer refused such binary values before."""
    import base64
    import uuid

    floe.run("create", "db.bytes", "--schema", "id int not null, b binary, f fixed[4], u uuid")
    blobs = [b"\x00\xff\x10", None, b"", "ü,\"q\"\n".encode()]
    fixed = [b"\xff\x00\x01\x02", b"abcd", None, b"\x80\x80\x80\x80"]
    uuids = [uuid.UUID("00000000-0000-0000-0000-000000000000"), uuid.uuid4(), uuid.uuid4(), None]
    path = tmp_path / "bytes.parquet"
    pq.write_table(pa.table({
        "id": pa.array(range(4), pa.int32()),
        "b": pa.array(blobs, pa.binary()),
        "f": pa.array(fixed, pa.binary(4)),
        "u": pa.array([u.bytes if u is not None else None for u in uuids], pa.uuid()),
    }), path)
    floe.run("append", "db.bytes", path)
    printed = floe.run("scan", "db.bytes", "--format", "csv").stdout
    read = pacsv.read_csv(io.BytesIO(printed.encode()),
                          convert_options=pacsv.ConvertOptions(column_types={c: pa.string() for c in "bfu"},
                                                               strings_can_be_null=True,
                                                               quoted_strings_can_be_null=False)).sort_by("id")
    encode = lambda values: [base64.b64encode(v).decode() if v is not None else None for v in values]  # noqa: E731
    assert read.column("b").to_pylist() == encode(blobs)
    assert read.column("f").to_pylist() == encode(fixed)
    assert read.column("u").to_pylist() == [str(u) if u is not None else None for u in uuids]
