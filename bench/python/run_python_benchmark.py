"""The Python benchmark (issue 19): floe's Python package against pyiceberg 0.12, in one run.

The same pyarrow.Table (the lineitem-like data set of bench/write/lineitem.cc, 16 columns,
ship dates rising through the rows over --days days, written to Parquet by
floe_write_benchmark, converted once to an Arrow IPC file and mapped into memory by each arm
before any timer starts) is appended by
`floe.Table.append` and by pyiceberg's `Table.append` to sibling tables with the same codec
and level (write.parquet.compression-codec / -level set on both tables):
  unpartitioned; clustered by day(l_shipdate) (the input is grouped by day: floe is told so
  with input_clustered=True); fanout by bucket(16, l_orderkey) + day(l_shipdate).
floe appends at its defaults (no threads=: one task per core), with threads=1 and threads=2. Then each reads its own unpartitioned table whole,
both read pyiceberg's unpartitioned table whole (the same files: floe through pyiceberg's
SQLite catalog), and each reads its clustered table with a projected, filtered scan
(3 columns, the last quarter of the days). Each append runs three times and each scan five,
the engines alternating, and the median run is kept (every run's wall time is printed
beside it).
Every arm runs in a process of its own, so its peak memory is its own. Printed and written to
bench/results/python.{json,md}: wall-clock rows/s, rows per CPU-second (all threads' CPU;
the machine has 2 cores), the CPU split into user and system time (system time here is
mostly the kernel zeroing pages it hands out), peak RSS, the peak anonymous memory above
what it was once the input was mapped ("extra": what the writer itself allocated; the mapped
input's pages are the file's, not anonymous), the peak of Arrow's memory pool (live Arrow
allocations, floe's and pyarrow's alike), and the ratios.

    .venv/bin/python bench/python/run_python_benchmark.py --rows 10000000
(needs build/release, for the generator: make build-release)
"""

import argparse
import datetime
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "build/release/bench/floe_write_benchmark"
LAYOUTS = {
    "unpartitioned": "",
    "clustered": "day(l_shipdate)",
    "fanout": "bucket(16, l_orderkey), day(l_shipdate)",
}
CODEC = {"write.parquet.compression-codec": "zstd", "write.parquet.compression-level": "3"}

PRELUDE = """
import json, resource, sys, threading, time
import pyarrow as pa
def cpu_split():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime
def rss_kb(field):
    return int([l for l in open("/proc/self/status") if l.startswith(field)][0].split()[1])
# The input is an Arrow IPC file mapped into memory: its pages are the file's (RssFile), so
# the anonymous memory an append allocates is measured apart from the input, and from what
# decoding the input left in the allocator.
data = pa.ipc.open_file(pa.memory_map(sys.argv[1])).read_all()
loaded_kb = rss_kb("RssAnon:")
peak_anon_kb = [loaded_kb]
def sample():
    while True:
        peak_anon_kb[0] = max(peak_anon_kb[0], rss_kb("RssAnon:"))
        time.sleep(0.005)
threading.Thread(target=sample, daemon=True).start()
# Arrow's pool (floe's allocations and pyarrow's go through the same one) counts what is
# allocated and live; extra RSS above it is the allocator's own keeping and memory that
# is not Arrow's (zstd's contexts, Python objects).
pool = pa.default_memory_pool()
pool_bytes = pool.bytes_allocated()
def report(seconds, cpu_seconds, cpu_before, **extra):
    peak_anon_kb[0] = max(peak_anon_kb[0], rss_kb("RssAnon:"))
    user, system = (after - before for after, before in zip(cpu_split(), cpu_before))
    print(json.dumps(dict(seconds=seconds, cpu_seconds=cpu_seconds, user_seconds=user,
                          system_seconds=system, peak_rss_mb=rss_kb("VmHWM:") / 1024,
                          extra_rss_mb=(peak_anon_kb[0] - loaded_kb) / 1024,
                          arrow_peak_mb=(pool.max_memory() - pool_bytes) / 2**20, **extra)))
"""

FLOE_WRITE = PRELUDE + """
import floe
catalog = floe.Catalog(warehouse=sys.argv[2])
catalog.create_namespace_if_not_exists("b")
table = catalog.create_table("b." + sys.argv[3], data.schema, partition_by=sys.argv[4] or None,
                             properties=json.loads(sys.argv[5]))
started, cpu, split = time.perf_counter(), time.process_time(), cpu_split()
# threads 0 is floe's default (None: one task per core).
result = table.append(data, threads=int(sys.argv[6]) or None, input_clustered=sys.argv[7] == "1")
report(time.perf_counter() - started, time.process_time() - cpu, split, files=result.data_files)
"""

PYICEBERG_WRITE = PRELUDE + """
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.transforms import BucketTransform, DayTransform
catalog = SqlCatalog("py", uri=f"sqlite:///{sys.argv[2]}/py.db", warehouse=f"file://{sys.argv[2]}")
catalog.create_namespace_if_not_exists("b")
table = catalog.create_table("b." + sys.argv[3], schema=data.schema, properties=json.loads(sys.argv[5]))
layout = sys.argv[4]
if layout:
    with table.update_spec() as update:
        if "bucket" in layout:
            update.add_field("l_orderkey", BucketTransform(16), "l_orderkey_bucket")
        update.add_field("l_shipdate", DayTransform(), "l_shipdate_day")
started, cpu, split = time.perf_counter(), time.process_time(), cpu_split()
table.append(data)
seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
report(seconds, cpu_seconds, split, files=len(table.inspect.files()))
"""

TO_IPC = """
import sys
import pyarrow as pa, pyarrow.parquet as pq
table = pq.read_table(sys.argv[1])
with pa.OSFile(sys.argv[2], "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
    writer.write_table(table)
"""

SCAN = """
import json, resource, sys, time
def cpu_split():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime
def rss_kb(field):
    return int([l for l in open("/proc/self/status") if l.startswith(field)][0].split()[1])
engine, warehouse, name, columns, where = sys.argv[1:6]
columns = json.loads(columns)
if engine.startswith("floe"):
    import floe
    if engine == "floe":
        catalog = floe.Catalog(warehouse=warehouse)
    else:  # pyiceberg's table, through pyiceberg's SQLite catalog
        catalog = floe.Catalog(uri=f"sqlite:///{warehouse}/py.db", name="py", warehouse=warehouse)
    table = catalog.load_table("b." + name)
    started, cpu, split = time.perf_counter(), time.process_time(), cpu_split()
    rows = table.scan(columns=columns or None, where=where or None).to_arrow().num_rows
else:
    from pyiceberg.catalog.sql import SqlCatalog
    catalog = SqlCatalog("py", uri=f"sqlite:///{warehouse}/py.db", warehouse=f"file://{warehouse}")
    table = catalog.load_table("b." + name)
    started, cpu, split = time.perf_counter(), time.process_time(), cpu_split()
    scan = table.scan(row_filter=where or "true", selected_fields=tuple(columns) or ("*",))
    rows = scan.to_arrow().num_rows
seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
user, system = (after - before for after, before in zip(cpu_split(), split))
print(json.dumps(dict(seconds=seconds, cpu_seconds=cpu_seconds, user_seconds=user,
                      system_seconds=system, rows=rows, peak_rss_mb=rss_kb("VmHWM:") / 1024)))
"""


# The machine's noise is the kernel's: on this virtual machine a fault on a fresh 2 MiB
# huge page costs 0.1 to 4 ms, so runs with the same number of faults differ by seconds of
# system time (bench/results/python.md). Medians of several alternating runs.
SCAN_REPEATS = 5
WRITE_REPEATS = 3


def median_run(runs):
    """The run of median wall time, with every run's wall time beside it."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    ordered = sorted(runs, key=lambda r: r["seconds"])
    chosen = dict(ordered[len(ordered) // 2])
    chosen["all_seconds"] = [round(r["seconds"], 2) for r in runs]
    return chosen


def run(code, *args):
    # The last arm's files go to disk first: a scan or write that runs while the kernel
    # writes back the previous arm's gigabyte of dirty pages measured that, not itself
    # (the first full scan took 2.5x the second in the same run).
    subprocess.run(["sync"], check=True)
    result = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                            text=True)
    if result.returncode != 0:
        # The error, not what nanobind says at exit of the objects the sampling thread
        # (a daemon) still holds.
        lines = [line for line in result.stderr.strip().splitlines()
                 if not line.startswith(("nanobind:", " - ", "See https://nanobind"))]
        return {"error": " | ".join(lines[-3:] or ["failed"])}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=31)
    parser.add_argument("--results", type=pathlib.Path, default=ROOT / "bench/results")
    parser.add_argument("--skip", nargs="*", default=[], help="layouts to skip")
    args = parser.parse_args()
    import pyiceberg

    import floe

    work = pathlib.Path(tempfile.mkdtemp(prefix="floe-python-bench-"))
    results = []
    try:
        subprocess.run([str(GENERATOR), "--arm", "write-input", "--rows", str(args.rows),
                        "--days", str(args.days), "--out", str(work / "input")],
                       check=True, capture_output=True)
        # The arms map the input from an Arrow IPC file (see PRELUDE).
        source = work / "input" / "lineitem.arrow"
        subprocess.run([sys.executable, "-c", TO_IPC, str(work / "input" / "lineitem.parquet"),
                        str(source)], check=True)
        (work / "floe").mkdir()
        (work / "py").mkdir()
        props = json.dumps(CODEC)
        for layout, spec in LAYOUTS.items():
            if layout in args.skip:
                continue
            # Each arm runs WRITE_REPEATS times, the arms alternating, and the median run is
            # kept (see SCAN_REPEATS). Every run writes a table of its own; the scans read
            # the first run's.
            # floe at its defaults (threads 0: one task per core), and at 1 and 2 threads.
            arms = (("floe", 0), ("floe", 1), ("floe", 2), ("pyiceberg", 1))
            runs = {arm: [] for arm in arms}
            for repeat in range(WRITE_REPEATS):
                for engine, threads in arms:
                    name = f"{layout}_{engine}_{threads}" + (f"_{repeat}" if repeat else "")
                    warehouse = work / ("floe" if engine == "floe" else "py")
                    if engine == "floe":
                        measured = run(FLOE_WRITE, source, warehouse, name, spec, props,
                                       threads, "1" if layout == "clustered" else "0")
                    else:
                        measured = run(PYICEBERG_WRITE, source, warehouse, name, spec, props)
                    print(json.dumps(dict(measured, run=repeat, engine=engine,
                                          threads=threads, layout=layout)), flush=True)
                    runs[(engine, threads)].append(measured)
            for (engine, threads), arm_runs in runs.items():
                measured = median_run(arm_runs)
                measured.update(op="append", layout=layout, engine=engine, threads=threads)
                results.append(measured)
        last_day = datetime.date(1995, 1, 1) + datetime.timedelta(days=args.days * 3 // 4)
        # The full scan runs twice: each engine reading its own table (floe's two files,
        # pyiceberg's four), then both reading pyiceberg's files, which sets the readers
        # side by side on the same bytes.
        scans = [
            ("full scan", "unpartitioned", [], ""),
            ("full scan, pyiceberg's files", "unpartitioned", [], ""),
            ("projected, filtered scan", "clustered",
             ["l_orderkey", "l_extendedprice", "l_shipdate"],
             f"l_shipdate >= '{last_day.isoformat()}'"),
        ]
        for label, layout, columns, where in scans:
            if layout in args.skip:
                continue
            # A scan is short, and the machine's noise (the kernel zeroing huge pages, see
            # bench/results/python.md) can triple one run: each engine's scan runs
            # SCAN_REPEATS times, the engines alternating, and the median run is kept.
            same_files = "pyiceberg's files" in label
            runs = {"floe": [], "pyiceberg": []}
            for _ in range(SCAN_REPEATS):
                for engine, engine_runs in runs.items():
                    own = engine == "floe" and not same_files
                    warehouse = work / ("floe" if own else "py")
                    name = f"{layout}_floe_2" if own else f"{layout}_pyiceberg_1"
                    reader = "floe@py" if engine == "floe" and same_files else engine
                    engine_runs.append(run(SCAN, reader, warehouse, name, json.dumps(columns),
                                           where))
            for engine, engine_runs in runs.items():
                measured = median_run(engine_runs)
                measured.update(op=label, layout=layout, engine=engine,
                                threads=2 if engine == "floe" else 1)
                results.append(measured)
                print(json.dumps(measured), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_report(args, results, floe.__version__, pyiceberg.__version__)


def write_report(args, results, floe_version, pyiceberg_version):
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "python.json").write_text(json.dumps(results, indent=2) + "\n")

    def find(op, layout, engine, threads):
        for r in results:
            if (r["op"], r["layout"], r["engine"], r["threads"]) == (op, layout, engine, threads):
                return r
        return None

    lines = [
        "# Python: floe vs pyiceberg",
        "",
        f"`.venv/bin/python bench/python/run_python_benchmark.py --rows {args.rows}` "
        f"(floe {floe_version} Release, pyiceberg {pyiceberg_version}; 2 cores; one run: "
        f"each append the median of {WRITE_REPEATS} runs, each scan of {SCAN_REPEATS}; "
        f"{datetime.date.today().isoformat()}). Same pyarrow.Table (memory-mapped) for every append, "
        "zstd level 3 on both; rows/CPU-s counts every thread's CPU; the input is an Arrow IPC "
        "file mapped into memory, and extra RSS is the peak anonymous memory (RssAnon, "
        "sampled every 5 ms) above what it was once the input was mapped: what the writer "
        "itself allocated.",
        "",
        "| op | layout | engine | threads | s | rows/s | rows/CPU-s | user s | sys s "
        "| peak RSS MiB | extra RSS MiB | Arrow peak MiB | files |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    def cell(r, key):
        return f"{r[key]:,.0f}" if key in r else ""

    def threads_label(r):
        return f"default ({os.cpu_count()})" if r["threads"] == 0 else str(r["threads"])

    for r in results:
        if "error" in r:
            lines.append(f"| {r['op']} | {r['layout']} | {r['engine']} | {threads_label(r)} | "
                         f"error: {r['error']} | | | | | | | | |")
            continue
        rows = r.get("rows", args.rows)
        lines.append(
            f"| {r['op']} | {r['layout']} | {r['engine']} | {threads_label(r)} | {r['seconds']:.2f} | "
            f"{rows / r['seconds']:,.0f} | {rows / max(r['cpu_seconds'], 1e-9):,.0f} | "
            f"{r['user_seconds']:.2f} | {r['system_seconds']:.2f} | "
            f"{r['peak_rss_mb']:,.0f} | {cell(r, 'extra_rss_mb')} | {cell(r, 'arrow_peak_mb')} | "
            f"{r.get('files', '')} |"
        )
    lines += ["", "Ratios (wall clock; > 1 means floe is faster or smaller):", ""]
    for layout in LAYOUTS:
        py = find("append", layout, "pyiceberg", 1)
        one = find("append", layout, "floe", 1)
        two = find("append", layout, "floe", 2)
        default = find("append", layout, "floe", 0)
        if not (py and one and two) or any("error" in r for r in (py, one, two)):
            continue
        if default and "error" not in default:
            lines.append(
                f"- append {layout}, floe at its defaults ({os.cpu_count()} tasks, no threads=): "
                f"{py['seconds'] / default['seconds']:.2f}x pyiceberg (runs: floe "
                f"{default.get('all_seconds')} s, pyiceberg {py.get('all_seconds')} s; "
                f"{default.get('files')} files)")
        lines.append(
            f"- append {layout}: floe 1 thread {py['seconds'] / one['seconds']:.2f}x pyiceberg, "
            f"2 threads {py['seconds'] / two['seconds']:.2f}x; floe 2 threads vs 1: "
            f"{one['seconds'] / two['seconds']:.2f}x; peak RSS pyiceberg/floe(2t) "
            f"{py['peak_rss_mb'] / two['peak_rss_mb']:.2f}x, extra RSS "
            f"{py['extra_rss_mb'] / max(two['extra_rss_mb'], 1):.2f}x (runs: floe 1 thread "
            f"{one.get('all_seconds')} s, 2 threads {two.get('all_seconds')} s, pyiceberg "
            f"{py.get('all_seconds')} s)"
        )
    for op in ("full scan", "full scan, pyiceberg's files", "projected, filtered scan"):
        mine = next((r for r in results if r["op"] == op and r["engine"] == "floe"), None)
        theirs = next((r for r in results if r["op"] == op and r["engine"] == "pyiceberg"), None)
        if mine and theirs and "error" not in mine and "error" not in theirs:
            lines.append(f"- {op}: floe {theirs['seconds'] / mine['seconds']:.2f}x pyiceberg "
                         f"(median of {mine['all_seconds']} s against {theirs['all_seconds']} s; "
                         f"user CPU {theirs['user_seconds'] / mine['user_seconds']:.2f}x; "
                         f"{mine['rows']:,} rows each: {mine['rows'] == theirs['rows']})")
    (args.results / "python.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
