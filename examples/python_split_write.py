"""The split write: a driver plans and commits once, worker processes write the files.

The same shape as an engine's executors running floe's write tasks:
    .venv/bin/python examples/python_split_write.py
"""

import multiprocessing

import pyarrow as pa

import floe

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("kind", pa.string())])
WORKERS = 4
ROWS = 25_000


def worker(plan: floe.WritePlan, index: int) -> bytes:
    """An executor: no catalog, only the plan and the storage it names."""
    ids = range(index * ROWS, (index + 1) * ROWS)
    rows = pa.table({"id": ids, "kind": [f"k{i % 5}" for i in ids]}, schema=SCHEMA)
    with floe.WriteTask(plan, partition_id=index, attempt_id=0) as task:
        task.write(rows)
        return task.finish()  # the commit message, back to the driver


def main() -> None:
    catalog = floe.Catalog()
    catalog.create_namespace_if_not_exists("shop")
    if catalog.table_exists("shop.events"):
        catalog.drop_table("shop.events")
    table = catalog.create_table("shop.events", SCHEMA, partition_by="kind")

    plan = table.plan_write(tasks=WORKERS)  # the gate runs here; the plan pickles
    committer = table.new_committer(plan)
    try:
        with multiprocessing.get_context("spawn").Pool(WORKERS) as pool:
            for message in pool.starmap(worker, [(plan, i) for i in range(WORKERS)]):
                committer.add(message)
        result = committer.commit()
    except BaseException:
        committer.abort()  # deletes every file of this write, reported or not
        raise
    print(f"committed {result.rows} rows in {result.data_files} files "
          f"as snapshot {result.snapshot_id}")
    assert table.to_arrow().num_rows == WORKERS * ROWS


if __name__ == "__main__":
    main()
