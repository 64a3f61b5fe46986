"""The sorted-table write benchmark: floe's sorting write path against Arrow sorting in memory.

The lineitem-like rows of run_write_benchmark.py, written into an unpartitioned table whose sort
order is "l_shipdate, l_partkey" (the rows arrive in generation order, not sorted). Arms, each in
its own process so peak memory is its own:
  floor (sort)   Arrow alone: the whole input in memory, its stable multi-key sort, its Parquet
                 writer over the sorted rows into one file (no Iceberg work, no memory bound)
  floe sorted    an append through floe's write path; each task sorts its rows, spilling sorted
                 runs of 256 MiB to TMPDIR past that and merging them; with 2 threads the tasks
                 split the rows by sort key (Spark's range distribution, the default for a
                 sorted table), each writing one key range merged from both tasks' runs
  floe sorted (distribution none)  2 threads, each task writing the rows it was given: what
                 the range split costs
  floe unsorted  the same append to the same table without a sort order: what sorting costs floe
  floe sorted at --small-rows rows: peak memory against the input's length
The C++ arms generate their batches as they go; a generate-only run's time is subtracted from
the one-thread arms (net figures). Prints and writes bench/results/write-sorted.{json,md}.

    .venv/bin/python bench/write/run_sorted_benchmark.py --rows 10000000
"""

import argparse
import datetime
import pathlib
import shutil
import tempfile

from run_write_benchmark import ROOT, run_arm, write_report


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--small-rows", type=int, default=1_000_000, help="second size, for floe's peak memory")
    parser.add_argument("--days", type=int, default=31)
    parser.add_argument("--results", type=pathlib.Path, default=ROOT / "bench/results")
    args = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="floe-sorted-bench-"))
    arms = []
    try:
        generated = {rows: min((run_arm(args, "generate", "unpartitioned", 1, rows, work) for _ in range(2)),
                               key=lambda r: r["seconds"]) for rows in (args.rows, args.small_rows)}

        def net(arm, name):
            arm["arm"] = name
            generate = generated[arm["rows"]]
            arm["cpu_seconds"] = max(arm["cpu_seconds"] - generate["cpu_seconds"], 1e-6)
            if arm["threads"] == 1:
                arm["seconds"] = max(arm["seconds"] - generate["seconds"], 1e-6)
                arm["rows_per_s"] = arm["rows"] / arm["seconds"]
            arms.append(arm)
            return arm

        floor = net(run_arm(args, "floor-sorted", "sorted", 1, args.rows, work), "floor (sort)")
        sorted_one = net(run_arm(args, "floe", "sorted", 1, args.rows, work), "floe sorted")
        ranged = net(run_arm(args, "floe", "sorted", 2, args.rows, work), "floe sorted")
        unranged = net(run_arm(args, "floe", "sorted", 2, args.rows, work, distribution="none"),
                       "floe sorted (distribution none)")
        unsorted = net(run_arm(args, "floe", "unpartitioned", 1, args.rows, work), "floe unsorted")
        net(run_arm(args, "floe", "sorted", 1, args.small_rows, work), "floe sorted")
        lines = ["| arm | threads | rows | rows/s | rows per CPU-s | peak MB | time / floor (sort) |",
                 "|---|---|---|---|---|---|---|"]
        for arm in arms:
            ratio = f"{arm['seconds'] / floor['seconds']:.2f}" if arm["rows"] == floor["rows"] else "-"
            gross = " (gross)" if arm["threads"] > 1 else ""
            line = (f"| {arm['arm']} | {arm['threads']} | {arm['rows']:,} | {arm['rows_per_s']:,.0f}{gross} | "
                    f"{arm['rows'] / arm['cpu_seconds']:,.0f} | {arm['peak_rss_mb']:.0f} | {ratio} |")
            lines.append(line)
            print(line)
        summary = (f"floe sorted / floor (sort): {sorted_one['seconds'] / floor['seconds']:.2f}x time, "
                   f"{sorted_one['peak_rss_mb'] / floor['peak_rss_mb']:.2f}x peak memory; "
                   f"floe sorted / floe unsorted: {sorted_one['seconds'] / unsorted['seconds']:.2f}x time; "
                   f"2 threads, range split / distribution none: "
                   f"{ranged['seconds'] / unranged['seconds']:.2f}x time, "
                   f"{ranged['peak_rss_mb'] / unranged['peak_rss_mb']:.2f}x peak memory")
        print(summary)
        lines += ["", summary, "",
                  f"Command: `.venv/bin/python bench/write/run_sorted_benchmark.py --rows {args.rows}` "
                  f"({datetime.date.today().isoformat()}; spills to TMPDIR, here on the machine's disk)."]
        report = {"date": datetime.date.today().isoformat(), "rows": args.rows, "days": args.days, "arms": arms}
        write_report(args.results, "write-sorted", report, lines)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
