"""The write benchmark (issue: the native writer): floe against the floor and other writers.

A deterministic lineitem-like data set (bench/write/lineitem.cc; 16 columns, ship dates over
--days days, rising through the rows) is written three ways:
  unpartitioned; clustered by day(l_shipdate) (input arrives grouped by day, clustered writer);
  fanout by bucket(16, l_orderkey) + day(l_shipdate) (fanout writer).
Arms, all in this one run, each in its own process so peak memory is its own:
  floor         Arrow's Parquet writer alone: same batches, same settings, one file, no Iceberg
  floor (files) for the partitioned layouts, Arrow's Parquet writer alone writing one file per
                partition in a directory of its own, as floe lays them out (partitions found by
                plain arithmetic, no Iceberg work): what writing that many files costs by itself
  floe 1t, 2t   an append through floe's write path (gate, tasks, files, manifests, commit)
  floe (small), floe (large)
                floe with 1 thread on --small-rows and --large-rows rows: peak memory against
                the input's length
  floe append (CLI)
                unpartitioned only: the floe command appending the generated input written
                to a Parquet file, at --small-rows and --rows rows (reads the file as it
                goes, so its time has no ratio to the floor): peak memory against the file
  pyiceberg     Table.append of the same rows, loaded into memory first (load not timed)
  iceberg-java  the parity harness writing the rows with iceberg-java 1.11's writers (its time
                includes JVM start and reading the input file)
The C++ arms generate their batches as they go; a generate-only run measures that cost, which
is subtracted from their times (the net figures are the writers' own). pyiceberg's rows are in
memory before its timer starts. Prints rows/s, rows per CPU-second (throughput per core: the
machine has 2 cores and pyarrow, under pyiceberg, encodes columns on both), peak memory and
each arm's time ratio to the floor and to the per-partition-files floor, and writes
bench/results/write.{json,md}. The C++ arms' generation is subtracted from their CPU time, and
from their wall time when they run one thread (with two, generation overlaps the writing and
their wall times are gross).

    make bench          # or: .venv/bin/python bench/write/run_write_benchmark.py --rows 10000000
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
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH = ROOT / "build/release/bench/floe_write_benchmark"
LAYOUTS = {"unpartitioned": "", "clustered": "day(l_shipdate)", "fanout": "bucket(16, l_orderkey), day(l_shipdate)"}
FLOE_CLI = ROOT / "build/release/src/floe/cli/floe"
LINEITEM_SCHEMA = ("l_orderkey long not null, l_partkey long not null, l_suppkey long not null, "
                   "l_linenumber int not null, l_quantity decimal(15, 2), l_extendedprice decimal(15, 2), "
                   "l_discount decimal(15, 2), l_tax decimal(15, 2), l_returnflag string, l_linestatus string, "
                   "l_shipdate date, l_commitdate date, l_receiptdate date, l_shipinstruct string, "
                   "l_shipmode string, l_comment string")


def run_arm(args, arm, layout, threads, rows, work, distribution=None):
    out = work / f"{arm}-{layout}-{threads}-{rows}"
    extra = ["--distribution", distribution] if distribution else []
    result = subprocess.run([str(BENCH), "--arm", arm, "--layout", layout, "--threads", str(threads),
                             "--rows", str(rows), "--days", str(args.days), "--out", str(out), *extra],
                            capture_output=True, text=True, check=True)
    shutil.rmtree(out, ignore_errors=True)
    return json.loads(result.stdout)


def write_report(directory: pathlib.Path, stem: str, report: dict, lines: list):
    """bench/results/<stem>.json (every figure) and <stem>.md (the table people read)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    (directory / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {directory / stem}.json and {stem}.md")


def cli_arm(input_path, rows, work):
    """`floe append` of the input Parquet file into a new unpartitioned table: the path users
    take, reading and decoding the input as it goes (so its time is not comparable to the
    floor's); its peak memory must not grow with the file either."""
    warehouse = work / f"cli-{rows}"
    subprocess.run([str(FLOE_CLI), "create", "b.t", "--schema", LINEITEM_SCHEMA, "--warehouse", str(warehouse)],
                   check=True, capture_output=True)
    started = time.perf_counter()
    process = subprocess.Popen([str(FLOE_CLI), "append", "b.t", str(input_path), "--warehouse", str(warehouse)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Its peak is its VmHWM, polled while it runs: ru_maxrss would carry this process's own
    # peak (the input loaded for pyiceberg) across the fork and exec.
    peak_kb = 0
    while True:
        try:
            with open(f"/proc/{process.pid}/status") as status:
                peak_kb = max([peak_kb] + [int(line.split()[1]) for line in status if line.startswith("VmHWM:")])
        except OSError:
            pass
        waited, status, usage = os.wait4(process.pid, os.WNOHANG)
        if waited:
            break
        time.sleep(0.01)
    seconds = time.perf_counter() - started
    shutil.rmtree(warehouse, ignore_errors=True)
    if os.waitstatus_to_exitcode(status) != 0:
        return {"arm": "floe append (CLI)", "error": f"exit status {os.waitstatus_to_exitcode(status)}"}
    return {"arm": "floe append (CLI)", "layout": "unpartitioned", "threads": 1, "rows": rows, "seconds": seconds,
            "cpu_seconds": usage.ru_utime + usage.ru_stime, "rows_per_s": rows / seconds,
            "peak_rss_mb": peak_kb / 1024, "reads_input": True}


def pyiceberg_arm(input_path, layout, rows, work):
    code = f"""
import json, time
import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionSpec, PartitionField
from pyiceberg.transforms import DayTransform, BucketTransform
data = pq.read_table({str(input_path)!r})
catalog = SqlCatalog("bench", uri="sqlite:///{work}/py-{layout}.db", warehouse="file://{work}/py-{layout}")
catalog.create_namespace("b")
table = catalog.create_table("b.t", schema=data.schema)
layout = {layout!r}
if layout != "unpartitioned":
    with table.update_spec() as update:
        if layout == "fanout":
            update.add_field("l_orderkey", BucketTransform(16), "l_orderkey_bucket")
        update.add_field("l_shipdate", DayTransform(), "l_shipdate_day")
started, cpu_started = time.perf_counter(), time.process_time()
table.append(data)
seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
peak = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
print(json.dumps({{"seconds": seconds, "cpu_seconds": cpu_seconds, "peak_rss_mb": int(peak) / 1024}}))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if result.returncode != 0:
        return {"error": result.stderr.strip().splitlines()[-1] if result.stderr else "failed"}
    measured = json.loads(result.stdout)
    return {"arm": "pyiceberg", "layout": layout, "threads": 1, "rows": rows, "seconds": measured["seconds"],
            "cpu_seconds": measured["cpu_seconds"], "rows_per_s": rows / measured["seconds"],
            "peak_rss_mb": measured["peak_rss_mb"]}


def java_arm(input_path, layout, rows, work, schema_json, spec_json):
    request = {"table_location": str(work / f"java-{layout}"), "format_version": 2, "schema": schema_json,
               "partition_spec": spec_json, "properties": {"write.parquet.compression-codec": "zstd"},
               "mode": {"unpartitioned": "unpartitioned", "clustered": "clustered", "fanout": "fanout"}[layout],
               "input_files": [str(input_path)], "partition_id": 0, "task_id": 0, "operation_id": "bench"}
    path = work / f"java-{layout}.json"
    path.write_text(json.dumps(request))
    env = dict(os.environ, HARNESS_XMX="8g")
    started = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", str(ROOT / "tests/parity/run-harness.sh"), "write", str(path)],
                            capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    shutil.rmtree(work / f"java-{layout}", ignore_errors=True)
    if result.returncode != 0:
        return {"error": result.stdout[-300:] + result.stderr[-300:]}
    peak_kb, user, system = result.stderr.strip().splitlines()[-1].split()
    return {"arm": "iceberg-java", "layout": layout, "threads": 1, "rows": rows, "seconds": seconds,
            "cpu_seconds": float(user) + float(system), "rows_per_s": rows / seconds,
            "peak_rss_mb": int(peak_kb) / 1024}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--small-rows", type=int, default=1_000_000, help="second size, for floe's peak memory")
    parser.add_argument("--large-rows", type=int, default=30_000_000, help="third size, for floe's peak memory")
    parser.add_argument("--days", type=int, default=31)
    parser.add_argument("--skip", nargs="*", default=[], help="arms to skip: pyiceberg iceberg-java")
    parser.add_argument("--results", type=pathlib.Path, default=ROOT / "bench/results")
    args = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="floe-write-bench-"))
    rows_out = []
    try:
        input_dir = work / "input"
        subprocess.run([str(BENCH), "--arm", "write-input", "--rows", str(args.rows), "--days", str(args.days),
                        "--out", str(input_dir)], check=True, capture_output=True)
        input_path = input_dir / "lineitem.parquet"
        subprocess.run([str(BENCH), "--arm", "write-input", "--rows", str(args.small_rows), "--days", str(args.days),
                        "--out", str(work / "small-input")], check=True, capture_output=True)
        small_input_path = work / "small-input" / "lineitem.parquet"
        # The Iceberg schema with field ids, for the Java arm: floe's own table of the same rows.
        meta_work = work / "schema"
        subprocess.run([str(FLOE_CLI), "create", "b.t", "--schema", LINEITEM_SCHEMA, "--warehouse", str(meta_work)],
                       check=True, capture_output=True)
        schema_json = json.loads(next((meta_work / "b/t/metadata").glob("*.json")).read_text())["schemas"][0]
        import pyarrow as pa
        import pyarrow.parquet as pq
        ids = {f["name"]: f["id"] for f in schema_json["fields"]}
        table = pq.read_table(input_path)
        table = table.cast(pa.schema([f.with_metadata({"PARQUET:field_id": str(ids[f.name])}) for f in table.schema]))
        java_input = input_dir / "lineitem-ids.parquet"
        pq.write_table(table, java_input)
        del table

        generate = {}
        for rows in (args.rows, args.small_rows, args.large_rows):
            runs = [run_arm(args, "generate", "unpartitioned", 1, rows, work) for _ in range(2)]
            generate[rows] = min(runs, key=lambda r: r["seconds"])
        print(f"generating the batches alone: {generate[args.rows]['seconds']:.2f} s for {args.rows:,} rows")

        def net(arm):
            # The C++ arms generate their input as they go, on the thread feeding the writer.
            # Its CPU time is subtracted always; its wall time only from one-thread arms,
            # where it runs in series with the writing (with 2 tasks it overlaps them, so
            # those wall times stay gross).
            if "seconds" not in arm:
                return arm
            arm["gross_seconds"] = arm["seconds"]
            generated = generate[arm["rows"]]
            arm["cpu_seconds"] = max(arm["cpu_seconds"] - generated["cpu_seconds"], 1e-6)
            if arm["threads"] == 1:
                arm["seconds"] = max(arm["seconds"] - generated["seconds"], 1e-6)
                arm["rows_per_s"] = arm["rows"] / arm["seconds"]
            return arm

        for layout, partition_by in LAYOUTS.items():
            floor = net(run_arm(args, "floor", layout, 1, args.rows, work))
            arms = [floor]
            files_floor = None
            if partition_by:
                files_floor = net(run_arm(args, "floor-partitioned", layout, 1, args.rows, work))
                files_floor["arm"] = "floor (files)"
                arms.append(files_floor)
            arms.append(net(run_arm(args, "floe", layout, 1, args.rows, work)))
            arms.append(net(run_arm(args, "floe", layout, 2, args.rows, work)))
            for name, rows in (("floe (small)", args.small_rows), ("floe (large)", args.large_rows)):
                sized = run_arm(args, "floe", layout, 1, rows, work)
                sized["arm"] = name
                arms.append(net(sized))
            for arm in arms:
                arm["wall"] = "net" if arm["threads"] == 1 else "gross"
            if layout == "unpartitioned":
                arms.append(cli_arm(small_input_path, args.small_rows, work))
                arms.append(cli_arm(input_path, args.rows, work))
            if "pyiceberg" not in args.skip:
                arms.append(pyiceberg_arm(input_path, layout, args.rows, work))
            if "iceberg-java" not in args.skip:
                spec_fields = []
                if layout == "fanout":
                    spec_fields.append({"name": "l_orderkey_bucket", "transform": "bucket[16]",
                                        "source-id": ids["l_orderkey"], "field-id": 1000})
                if layout != "unpartitioned":
                    spec_fields.append({"name": "l_shipdate_day", "transform": "day",
                                        "source-id": ids["l_shipdate"], "field-id": 1000 + len(spec_fields)})
                arms.append(java_arm(java_input, layout, args.rows, work, schema_json,
                                     {"spec-id": 0, "fields": spec_fields}))
            for arm in arms:
                if "error" in arm:
                    print(f"{layout:14s} arm failed: {arm['error']}")
                    continue
                same_rows = arm["rows"] == floor["rows"] and not arm.get("reads_input")
                arm["rows_per_cpu_s"] = arm["rows"] / arm["cpu_seconds"]
                arm["ratio_to_floor"] = arm["seconds"] / floor["seconds"] if same_rows else None
                arm["ratio_to_files_floor"] = (arm["seconds"] / files_floor["seconds"]
                                               if files_floor and same_rows else None)
                rows_out.append(arm)
                ratio = f"{arm['ratio_to_floor']:.2f}" if arm["ratio_to_floor"] else "-"
                files_ratio = f"{arm['ratio_to_files_floor']:.2f}" if arm["ratio_to_files_floor"] else "-"
                print(f"{layout:14s} {arm['arm']:13s} threads={arm['threads']} rows={arm['rows']:>10,} "
                      f"{arm['rows_per_s']:>12,.0f} rows/s  {arm['rows_per_cpu_s']:>12,.0f} rows/CPU-s  "
                      f"peak {arm['peak_rss_mb']:8.1f} MB  time/floor {ratio}  time/files floor {files_ratio}")
            by_name = {(a.get("arm"), a.get("threads")): a for a in arms if "cpu_seconds" in a}
            floe_one = by_name.get(("floe", 1))
            for other in ("pyiceberg", "iceberg-java"):
                if floe_one and (other, 1) in by_name:
                    per_core = floe_one["rows_per_cpu_s"] / by_name[(other, 1)]["rows_per_cpu_s"]
                    floe_one[f"per_core_vs_{other}"] = per_core
                    print(f"{layout:14s} floe (1 thread) throughput per core / {other}'s: {per_core:.2f}x")
        report = {"date": datetime.date.today().isoformat(), "rows": args.rows, "days": args.days, "arms": rows_out}
        lines = ["| layout | arm | threads | rows | rows/s | rows per CPU-s | peak MB | time / floor | "
                 "time / files floor |", "|---|---|---|---|---|---|---|---|---|"]
        for arm in rows_out:
            ratio = f"{arm['ratio_to_floor']:.2f}" if arm["ratio_to_floor"] else "-"
            files_ratio = f"{arm['ratio_to_files_floor']:.2f}" if arm.get("ratio_to_files_floor") else "-"
            gross = " (gross)" if arm.get("wall") == "gross" else ""
            lines.append(f"| {arm['layout']} | {arm['arm']} | {arm['threads']} | {arm['rows']:,} | "
                         f"{arm['rows_per_s']:,.0f}{gross} | {arm['rows_per_cpu_s']:,.0f} | {arm['peak_rss_mb']:.0f} | "
                         f"{ratio} | {files_ratio} |")
        lines.append("")
        lines.append("floe (1 thread) throughput per core (rows per CPU-second) against the others':")
        lines.append("")
        for arm in rows_out:
            for other in ("pyiceberg", "iceberg-java"):
                if f"per_core_vs_{other}" in arm:
                    lines.append(f"- {arm['layout']}: {arm[f'per_core_vs_{other}']:.2f}x {other}")
        write_report(args.results, "write", report, lines)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
