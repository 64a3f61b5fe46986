"""Worker functions for the split-write tests (importable by spawned processes)."""

import os
import pathlib
import time

import pyarrow as pa

import floe

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("part", pa.string())])


def slice_rows(worker: int, rows: int) -> pa.Table:
    ids = list(range(worker * rows, (worker + 1) * rows))
    return pa.table({"id": ids, "part": [f"p{i % 8}" for i in ids]}, schema=SCHEMA)


def write_slice(plan: floe.WritePlan, worker: int, rows: int) -> bytes:
    """One executor: a task for its slice, its message back to the driver."""
    assert isinstance(plan, floe.WritePlan)
    with floe.WriteTask(plan, partition_id=worker, attempt_id=0) as task:
        table = slice_rows(worker, rows)
        for batch in table.to_batches(max_chunksize=rows // 4):
            task.write(batch)
        return task.finish()


def write_and_hang(plan: floe.WritePlan, worker: int, rows: int, ready: str) -> None:
    """Writes part of its slice (files on disk), says so, then waits to be killed."""
    task = floe.WriteTask(plan, partition_id=worker, attempt_id=0)
    task.write(slice_rows(worker, rows))
    # Flush the open files' row groups to disk by writing more in another partition
    # layout is not needed: the task's files exist once opened.
    pathlib.Path(ready).write_text(str(os.getpid()))
    while True:
        time.sleep(1)
