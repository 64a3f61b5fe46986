"""The split-write API across processes: a pickled plan, tasks in spawned workers, one
commit (or abort) by the parent; storage listed before and after."""

import multiprocessing
import os
import pathlib
import pickle
import signal
import time

import pytest
from conftest import files_under
from split_workers import SCHEMA, write_and_hang, write_slice

import floe

ROWS = 2000


@pytest.fixture
def table(catalog):
    catalog.create_namespace("db")
    return catalog.create_table("db.split", SCHEMA, partition_by="part")


def data_files(table):
    return {p for p in files_under(pathlib.Path(table.location.removeprefix("file:")) / "data")}


def test_plan_pickles_to_its_serialised_form_and_hides_properties(catalog):
    catalog.create_namespace("db")
    table = catalog.create_table(
        "db.secret", SCHEMA, properties={"s3.secret-access-key": "hunter2-do-not-print"}
    )
    plan = table.plan_write(options={"write.target-file-size-bytes": "1048576"})
    assert "hunter2" not in repr(plan) and plan.operation_id in repr(plan)
    again = pickle.loads(pickle.dumps(plan))
    assert again == plan and again.to_bytes() == plan.to_bytes()
    assert plan.table_location == table.location
    # A derived plan: its own operation id, the same wherever it is derived.
    derived = plan.derive("epoch-3")
    assert derived.operation_id != plan.operation_id
    assert pickle.loads(pickle.dumps(plan)).derive("epoch-3") == derived
    assert plan.derive("epoch-4").operation_id != derived.operation_id
    assert derived.table_location == plan.table_location and derived.operation == plan.operation
    with pytest.raises(TypeError):
        plan.derive(3)


def test_four_spawned_workers_commit_once(table, pyiceberg_catalog):
    plan = table.plan_write(tasks=4)
    context = multiprocessing.get_context("spawn")
    with context.Pool(4) as pool:
        messages = pool.starmap(write_slice, [(plan, worker, ROWS) for worker in range(4)])
    assert all(isinstance(m, bytes) and m for m in messages)
    committer = table.new_committer(plan)
    for message in messages:
        committer.add(message)
    result = committer.commit()
    assert result.rows == 4 * ROWS and result.commit.attempts == 1
    assert len(table.snapshots()) == 1
    ids = pyiceberg_catalog.load_table("db.split").scan().to_arrow()["id"].to_pylist()
    assert sorted(ids) == list(range(4 * ROWS))  # every row exactly once
    # Each worker wrote its own files, one per partition it saw.
    assert result.data_files == len(data_files(table)) == 4 * 8


def test_a_killed_worker_and_an_abort_after_three_messages_leave_nothing(
    table, warehouse, tmp_path
):
    before = files_under(warehouse)
    metadata_before = table.metadata_location
    plan = table.plan_write(tasks=4)
    context = multiprocessing.get_context("spawn")
    ready = tmp_path / "ready"
    hung = context.Process(target=write_and_hang, args=(plan, 3, ROWS, str(ready)))
    hung.start()
    with context.Pool(3) as pool:
        messages = pool.starmap(write_slice, [(plan, worker, ROWS) for worker in range(3)])
    deadline = time.monotonic() + 120
    while not ready.exists():
        assert hung.is_alive() and time.monotonic() < deadline, "the worker never wrote"
        time.sleep(0.05)
    os.kill(hung.pid, signal.SIGKILL)
    hung.join()
    assert hung.exitcode == -signal.SIGKILL
    # The killed worker's files are on disk: nobody deleted them.
    on_disk = data_files(table)
    assert any(f"/00003-0-{plan.operation_id}-" in path for path in on_disk), on_disk
    committer = table.new_committer(plan)
    for message in messages:
        committer.add(message)
    assert committer.files == 3 * 8
    assert committer.abort() == 0
    # Nothing committed; no file of this write left (the killed worker's included); every
    # file that was there before is there, unchanged.
    assert table.refresh().metadata_location == metadata_before
    assert table.snapshots() == []
    after = files_under(warehouse)
    assert not [p for p in after if plan.operation_id in p]
    assert {p: h for p, h in after.items() if p in before} == before
    assert set(after) - set(before) == set()


def test_task_errors_and_ownership(table, warehouse):
    plan = table.plan_write()
    before = files_under(warehouse)
    # Dropped without finish: its files are deleted.
    task = floe.WriteTask(plan, 0, 0)
    task.write(__import__("split_workers").slice_rows(0, 100))
    assert data_files(table)
    del task
    assert files_under(warehouse) == before
    # A batch that does not fit the plan's schema: InvalidInputError, nothing left.
    task = floe.WriteTask(plan, 1, 0)
    import pyarrow as pa

    with pytest.raises(floe.InvalidInputError, match="nope"):
        task.write(pa.table({"id": [1], "nope": ["x"]}))
    assert files_under(warehouse) == before
    with pytest.raises(ValueError):
        floe.WriteTask(plan, -1, 0)
    with pytest.raises(TypeError):
        floe.WriteTask("not a plan", 0, 0)
    with pytest.raises(floe.InvalidInputError, match="write plan"):
        floe.WriteTask(b"{not json", 0, 0)
    # A corrupt message, and one naming files outside the write's data location, are
    # refused by the committer (which then deletes nothing of anyone else's).
    committer = table.new_committer(plan)
    with pytest.raises(floe.InvalidMetadataError):
        committer.add(b"garbage")
    catalog = table.catalog
    other = catalog.create_table("db.other", SCHEMA)
    other_plan = other.plan_write()
    foreign = floe.WriteTask(other_plan, 0, 0)
    foreign.write(__import__("split_workers").slice_rows(0, 10))
    message = foreign.finish()
    other_files = files_under(warehouse)
    with pytest.raises(floe.InvalidMetadataError, match="outside the write's data location"):
        committer.add(message)
    committer.abort()
    assert files_under(warehouse) == other_files
    # And a committer refuses another table's plan outright.
    with pytest.raises(floe.InvalidInputError, match="write plan is for the table at"):
        table.new_committer(other_plan)


def test_one_plan_committed_in_parts_loses_nothing(table, warehouse, pyiceberg_catalog):
    """A plan may serve several committers (a streaming query's micro-batches, a caller
    committing as slices finish). Every part's files carry the plan's operation id; a
    later part's abort deletes its own files only (a failed commit's cleanup is the same
    code: SplitWriteTest.AFailedCommitKeepsWhatAnotherCommitterOfThePlanCommitted)."""
    from split_workers import slice_rows

    plan = table.plan_write(tasks=4)

    def finished(worker):
        with floe.WriteTask(plan, worker, 0) as task:
            task.write(slice_rows(worker, ROWS))
            return task.finish()

    for worker in (0, 1):
        committer = table.new_committer(plan)
        committer.add(finished(worker))
        committer.commit()
    committed = files_under(warehouse)
    # A third part that aborts: its files go, the two committed parts' stay unchanged.
    aborted = table.new_committer(plan)
    aborted.add(finished(2))
    assert aborted.abort() == 0
    after = files_under(warehouse)
    assert {p: h for p, h in after.items() if "/data/" in p} == {
        p: h for p, h in committed.items() if "/data/" in p
    }
    # A fourth part handed in twice: refused, so its rows cannot be committed twice.
    twice = table.new_committer(plan)
    message = finished(3)
    twice.add(message)
    with pytest.raises(floe.InvalidInputError, match="already added"):
        twice.add(message)
    twice.commit()
    ids = pyiceberg_catalog.load_table("db.split").scan().to_arrow()["id"].to_pylist()
    assert sorted(ids) == list(range(2 * ROWS)) + list(range(3 * ROWS, 4 * ROWS))
