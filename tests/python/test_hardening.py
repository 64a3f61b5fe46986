"""Hardening round 3 through the Python package: what a careless or hostile caller found
(issue 49), each checked against pyiceberg's reading of the table and the files on disk."""

import math
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
import time

import pyarrow as pa
import pytest
from conftest import files_under
from split_workers import SCHEMA, write_slice

import floe
import floe.delta


def test_a_second_committer_of_a_plan_never_commits_its_files_again(
    catalog, warehouse, pyiceberg_catalog
):
    """A driver that retries after a crash or a CommitStateUnknown hands the same task
    message to a second committer: the table read 20 rows of 10 written."""
    catalog.create_namespace("db")
    table = catalog.create_table("db.twice", SCHEMA, partition_by="part")
    plan = table.plan_write(tasks=1)
    message = write_slice(plan, 0, 10)
    first = table.new_committer(plan)
    first.add(message)
    first.commit()
    files = files_under(warehouse / "db" / "twice" / "data")
    second = table.new_committer(plan)
    second.add(message)
    with pytest.raises(floe.ValidationException, match="already committed"):
        second.commit()
    ids = pyiceberg_catalog.load_table("db.twice").scan().to_arrow()["id"].to_pylist()
    assert sorted(ids) == list(range(10))
    # The refused committer deleted none of the files: they are the table's.
    assert files_under(warehouse / "db" / "twice" / "data") == files


def _slow_batches(schema, count, started=None, wait_for=None, pause=0.02):
    for k in range(count):
        if k == 1 and started is not None:
            started.set()
        if k == 1 and wait_for is not None:
            assert wait_for.wait(60)
        time.sleep(pause)
        yield pa.record_batch(
            {"id": list(range(k * 100, (k + 1) * 100)), "part": [f"p{k % 8}"] * 100},
            schema=schema,
        )


def test_a_raising_progress_callback_cancels_its_own_write_and_no_other(
    catalog, warehouse, pyiceberg_catalog
):
    """Cancellation was process-wide: one thread's interrupted write cancelled another
    thread's unrelated write with CancelledError."""
    catalog.create_namespace("db")
    mine = catalog.create_table("db.mine", SCHEMA, partition_by="part")
    theirs = catalog.create_table("db.theirs", SCHEMA, partition_by="part")
    mine_files = files_under(warehouse / "db" / "mine")
    theirs_started = threading.Event()
    mine_cancelled = threading.Event()
    outcome = {}

    def their_write():
        try:
            reader = pa.RecordBatchReader.from_batches(
                SCHEMA, _slow_batches(SCHEMA, 40, started=theirs_started, pause=0.05)
            )
            outcome["theirs"] = theirs.append(reader, threads=2)
        except BaseException as error:  # noqa: BLE001 (reported below)
            outcome["theirs"] = error

    class Stop(Exception):
        pass

    def stop(progress):
        mine_cancelled.set()
        raise Stop("stop my write")

    worker = threading.Thread(target=their_write)
    worker.start()
    assert theirs_started.wait(60)
    reader = pa.RecordBatchReader.from_batches(SCHEMA, _slow_batches(SCHEMA, 400))
    with pytest.raises(Stop):
        mine.append(reader, threads=2, progress=stop)
    worker.join(120)
    assert mine_cancelled.is_set()
    assert not isinstance(outcome["theirs"], BaseException), outcome["theirs"]
    assert outcome["theirs"].rows == 4000
    ids = pyiceberg_catalog.load_table("db.theirs").scan().to_arrow()["id"].to_pylist()
    assert sorted(ids) == list(range(4000))
    assert mine.refresh().snapshots() == []
    assert files_under(warehouse / "db" / "mine") == mine_files


def test_an_exception_inside_the_engine_is_a_floe_error_and_leaves_no_file(
    catalog, warehouse
):
    """No exception crosses a public function: one thrown inside a write (as std::stoi
    once threw on a stray file name) is an InternalError, after the write's files went."""
    catalog.create_namespace("db")
    table = catalog.create_table("db.thrown", SCHEMA)
    before = files_under(warehouse)
    script = textwrap.dedent(
        """
        import sys
        import pyarrow as pa
        import floe
        from split_workers import SCHEMA, slice_rows
        table = floe.Catalog(warehouse=sys.argv[1]).load_table("db.thrown")
        try:
            table.append(slice_rows(0, 1000))
        except floe.InternalError as error:
            print(type(error).__name__, isinstance(error, floe.FloeError), error)
        """
    )
    environment = dict(os.environ, FLOE_TEST_THROW_AT="commit",
                       PYTHONPATH=str(pathlib.Path(__file__).parent))
    result = subprocess.run([sys.executable, "-c", script, str(warehouse)],
                            capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("InternalError True internal error in"), result.stdout
    assert "thrown at commit" in result.stdout
    assert files_under(warehouse) == before
    assert table.refresh().snapshots() == []


@pytest.fixture
def typed(catalog):
    catalog.create_namespace("db")
    schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False), pa.field("price", pa.float64()),
        pa.field("ratio", pa.float32()), pa.field("s", pa.string()), pa.field("b", pa.binary()),
    ])
    table = catalog.create_table("db.typed", schema)
    table.append(pa.table({"id": [1, 2], "price": [1.5, 2.5], "ratio": [0.5, 0.25],
                           "s": ["a", "b"], "b": [b"x", b"y"]}, schema=schema))
    return table


def test_update_sets_bytes_special_floats_and_refuses_unsafe_casts(typed, pyiceberg_catalog):
    typed.update({"b": b"hello\x00\xff", "price": float("nan"), "ratio": float("-inf")},
                 "id = 1")
    typed.update({"price": float("inf")}, "id = 2")
    rows = pyiceberg_catalog.load_table("db.typed").scan().to_arrow().sort_by("id").to_pylist()
    assert rows[0]["b"] == b"hello\x00\xff" and math.isnan(rows[0]["price"])
    assert rows[0]["ratio"] == -math.inf and rows[1]["price"] == math.inf
    snapshots = len(typed.snapshots())
    # Bytes are no text, a string is no number (Spark's store assignment), and the
    # refusal commits nothing.
    with pytest.raises(floe.InvalidInputError):
        typed.update({"s": b"hello"}, "id = 1")
    with pytest.raises(floe.InvalidInputError, match="no value of long column"):
        typed.update({"id": "5"}, "id = 1")
    with pytest.raises(floe.InvalidInputError, match="no value of double column"):
        typed.update({"price": "1.5"}, "id = 1")
    with pytest.raises(floe.InvalidInputError, match="outside the range of a double"):
        typed.update("price = -1e400", "id = 1")
    assert len(typed.refresh().snapshots()) == snapshots


def test_arguments_of_the_wrong_shape_get_clear_errors(typed, catalog, tmp_path):
    with pytest.raises(TypeError, match="join_cols must be a column name"):
        typed.upsert(pa.table({"id": [1]}), join_cols=5)
    with pytest.raises(floe.InvalidInputError, match="selects no column"):
        typed.scan(columns=[])
    with pytest.raises(floe.InvalidInputError, match="repeats column name"):
        catalog.create_table("db.dup", pa.schema([("a", pa.int32()), ("a", pa.int64())]))
    with pytest.raises(floe.InvalidInputError, match="cannot be negative"):
        typed.remove_orphans(older_than=-5)
    with pytest.raises(floe.InvalidInputError, match="under 24 hours"):
        typed.remove_orphans(older_than="1h")
    assert typed.remove_orphans(older_than="1h", no_concurrent_writes=True).orphans == []
    path = str(tmp_path / "delta")
    floe.delta.create_table(path, pa.schema([("id", pa.int64())]))
    floe.delta.write(path, pa.table({"id": [1, 2]}))
    for txn in [("app", -1), ("app", True), ("", 1), "app", "app:x", "app:-1"]:
        with pytest.raises((floe.InvalidInputError, TypeError)):
            floe.delta.write(path, pa.table({"id": [3]}), txn=txn)
    # The command's spelling works too.
    assert floe.delta.write(path, pa.table({"id": [3]}), txn="app:1").version == 2
    assert floe.delta.write(path, pa.table({"id": [4]}), txn="app:1").skipped


def test_an_empty_overwrite_predicate_is_refused_not_read_as_every_row(tmp_path):
    path = tmp_path / "delta"
    floe.delta.create_table(str(path), pa.schema([("id", pa.int64())]))
    floe.delta.write(str(path), pa.table({"id": list(range(30))}))
    before = files_under(path)
    for predicate in ["", "   "]:
        with pytest.raises(floe.InvalidInputError, match="empty predicate"):
            floe.delta.write(str(path), pa.table({"id": [99]}), mode="overwrite",
                             predicate=predicate)
    assert files_under(path) == before
    import deltalake

    assert deltalake.DeltaTable(str(path)).to_pyarrow_table().num_rows == 30


def test_a_catalog_at_a_missing_directory_is_not_created(tmp_path):
    missing = tmp_path / "nonexistent" / "dir"
    with pytest.raises(floe.NotFoundError, match="does not exist"):
        floe.Catalog(uri=f"sqlite:///{missing}/x.db").list_namespaces()
    assert not (tmp_path / "nonexistent").exists()


def test_a_task_names_its_table_once_in_an_error(catalog):
    """Spark's executors said "table the table at /path": the conformer's prefix twice."""
    catalog.create_namespace("db")
    table = catalog.create_table("db.named", SCHEMA)
    plan = table.plan_write(tasks=1)
    with floe.WriteTask(plan, partition_id=0, attempt_id=0) as task:
        with pytest.raises(floe.InvalidInputError) as raised:
            task.write(pa.record_batch({"id": ["not a number"], "part": ["p"]}))
        task.abort()
    message = str(raised.value)
    assert f"table at {table.location}" in message and "table the table" not in message, message
