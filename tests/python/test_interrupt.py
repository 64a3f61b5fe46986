"""Ctrl-C during an append: the write stops at its next safe point, its files are deleted,
nothing is committed, and Python sees KeyboardInterrupt."""

import os
import signal
import subprocess
import sys
import textwrap
import time

from conftest import files_under

SCRIPT = textwrap.dedent(
    """
    import sys, time
    import pyarrow as pa
    import floe

    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    catalog = floe.Catalog(warehouse=sys.argv[1])
    table = catalog.load_table("db.t")

    def batches():
        for k in range(100_000):
            if k == 20:
                print("writing", flush=True)
            time.sleep(0.002)
            yield pa.record_batch({"id": range(k * 1000, (k + 1) * 1000),
                                   "v": ["x" * 16] * 1000}, schema=schema)

    try:
        table.append(pa.RecordBatchReader.from_batches(schema, batches()), threads=2)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(7)
    print("finished", flush=True)
    """
)


def test_ctrl_c_cancels_an_append_cleanly(catalog, warehouse):
    import pyarrow as pa

    catalog.create_namespace("db")
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    table = catalog.create_table("db.t", schema, partition_by="bucket(4, id)")
    table.append(pa.table({"id": [1], "v": ["kept"]}, schema=schema))
    before = files_under(warehouse)
    metadata = table.metadata_location
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(warehouse)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )
    assert process.stdout.readline().strip() == "writing"
    # Data files of the running write exist now.
    deadline = time.monotonic() + 60
    while len(files_under(warehouse)) <= len(before):
        assert time.monotonic() < deadline, "the write never opened a file"
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 7 and out.strip() == "interrupted", (out, err)
    assert table.refresh().metadata_location == metadata
    assert files_under(warehouse) == before
