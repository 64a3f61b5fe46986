"""floe and iceberg-java appending to one table at the same time, for the catalog tests."""

import threading

import pyarrow.parquet as pq


def append_concurrently(tmp_path, make_rows, floe_append, java_append, floe_appends, java_appends, count):
    """floe appends `floe_appends` files one after another while `java_appends` iceberg-java
    processes each append one file, all at once. `make_rows(start, count)` makes a file's rows
    (ids from `start`); `floe_append(path)` returns floe's stderr on failure, else None;
    `java_append(path)` raises AssertionError on failure. Returns the sorted ids the table must
    then hold."""
    failures = []

    def floe_writer():
        for s in range(floe_appends):
            path = tmp_path / f"floe-{s}.parquet"
            pq.write_table(make_rows(s * count, count), path)
            error = floe_append(path)
            if error:
                failures.append(error)

    def java_writer(k):
        path = tmp_path / f"java-{k}.parquet"
        pq.write_table(make_rows(10000 + k * count, count), path)
        try:
            java_append(path)
        except AssertionError as error:
            failures.append(str(error))

    threads = [threading.Thread(target=floe_writer)]
    threads += [threading.Thread(target=java_writer, args=(k,)) for k in range(java_appends)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures[0]
    return sorted(list(range(floe_appends * count)) +
                  [10000 + k * count + j for k in range(java_appends) for j in range(count)])
