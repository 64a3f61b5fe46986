"""Python threads: no lost update, and the GIL released while floe works."""

import threading
import time

import pyarrow as pa

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])


def rows(start, count):
    return pa.table({"id": range(start, start + count), "v": [str(i) for i in range(count)]},
                    schema=SCHEMA)


def test_eight_threads_append_to_one_table_through_one_catalog(catalog, pyiceberg_catalog):
    catalog.create_namespace("db")
    shared = catalog.create_table("db.t", SCHEMA)
    errors = []

    def append(worker):
        try:
            # Half share one Table object, half load their own: both must be safe.
            table = shared if worker % 2 else catalog.load_table("db.t")
            for k in range(3):
                table.append(rows(worker * 1000 + k * 100, 100))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=append, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    ids = pyiceberg_catalog.load_table("db.t").scan().to_arrow()["id"].to_pylist()
    expected = sorted(w * 1000 + k * 100 + i for w in range(8) for k in range(3) for i in range(100))
    assert sorted(ids) == expected  # no lost update
    assert len(shared.refresh().snapshots()) == 24


def test_a_python_thread_runs_while_an_append_runs(catalog):
    catalog.create_namespace("db")
    table = catalog.create_table("db.big", SCHEMA, partition_by="bucket(16, id)")
    data = pa.table({"id": range(2_000_000), "v": ["x" * 20] * 2_000_000}, schema=SCHEMA)
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    started = time.monotonic()
    ticker.start()
    try:
        table.append(data, threads=2)
    finally:
        ended = time.monotonic()
        stop.set()
        ticker.join()
    during = [t for t in ticks if started < t < ended]
    # With the GIL held through the append the ticker could not run at all; released, it
    # ticks about every millisecond. Half of that rate is a bound noise cannot break.
    assert len(during) >= 0.5 * (ended - started) * 1000 * 0.5, (len(during), ended - started)
    assert ended - started > 0.05
