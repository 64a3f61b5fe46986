"""What durability costs (issue: storage and durability): floe's append with and without its fsyncs.

Every file floe writes on local disk is fsynced before its stream closes (in the write task,
in parallel with the other tasks), and at commit each folder that gained a name is synced
once, before the catalog's pointer moves (docs/storage.md, "Durability"). The catalog property
`floe.io.fsync=false` turns both off. This runs floe's append arm of the write benchmark
(bench/write/write_benchmark.cc, release build) with 1 thread, unpartitioned and fanout
(bucket(16, l_orderkey), day(l_shipdate): one file per partition, so the most files and
folders per row), alternating on and off, and reports the median wall time of each, their
ratio, and the files and folders the append made, from the table left behind.

    .venv/bin/python bench/write/run_durability_benchmark.py --rows 2000000 --repeat 3
"""

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH = ROOT / "build/release/bench/floe_write_benchmark"


def run(layout, fsync, rows, days, work):
    out = work / f"{layout}-{fsync}"
    shutil.rmtree(out, ignore_errors=True)
    started = time.monotonic()
    subprocess.run([str(BENCH), "--arm", "floe", "--layout", layout, "--threads", "1",
                    "--rows", str(rows), "--days", str(days), "--fsync", fsync,
                    "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    seconds = time.monotonic() - started
    files = sum(len(names) for _, _, names in os.walk(out))
    folders = sum(len(dirs) for _, dirs, _ in os.walk(out))
    shutil.rmtree(out, ignore_errors=True)
    return seconds, files, folders


def fsync_time(layout, rows, days, work):
    """Seconds spent inside fsync and fdatasync (wall time of the calls, strace -w -c) and
    their count, in one run with fsync on: the cost itself, which this noisy machine's run
    to run variation in throughput can hide."""
    out = work / f"{layout}-traced"
    shutil.rmtree(out, ignore_errors=True)
    summary = work / "strace.txt"
    subprocess.run(["strace", "-f", "-w", "-c", "-e", "trace=fsync,fdatasync", "-o", str(summary),
                    str(BENCH), "--arm", "floe", "--layout", layout, "--threads", "1", "--rows", str(rows),
                    "--days", str(days), "--fsync", "on", "--out", str(out)],
                   check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(out, ignore_errors=True)
    seconds, calls = 0.0, 0
    for line in summary.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[-1] in ("fsync", "fdatasync"):
            seconds += float(fields[1])
            calls += int(fields[3])
    return seconds, calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--days", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", default=None, help="a folder on the disk to measure")
    args = parser.parse_args()
    if not BENCH.exists():
        sys.exit(f"{BENCH} is missing: make build-release")
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="floe-durability-", dir=ROOT / "build"))
    work.mkdir(parents=True, exist_ok=True)
    results = {}
    for layout in ("unpartitioned", "fanout"):
        times = {"on": [], "off": []}
        shape = None
        for _ in range(args.repeat):
            for fsync in ("on", "off"):  # alternated, so drift hits both alike
                seconds, files, folders = run(layout, fsync, args.rows, args.days, work)
                times[fsync].append(seconds)
                shape = (files, folders)
        on, off = statistics.median(times["on"]), statistics.median(times["off"])
        in_fsync, calls = fsync_time(layout, args.rows, args.days, work)
        results[layout] = {"on_s": on, "off_s": off, "ratio": on / off, "files": shape[0],
                           "folders": shape[1], "runs": times, "in_fsync_s": in_fsync, "fsync_calls": calls}
        print(f"{layout:14} fsync on {on:7.2f} s   off {off:7.2f} s   on/off {on / off:5.3f}   "
              f"({shape[0]} files, {shape[1]} folders; {calls} fsyncs taking {in_fsync:.2f} s)", flush=True)
    out = ROOT / "bench/results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "durability.json").write_text(json.dumps(
        {"rows": args.rows, "days": args.days, "repeat": args.repeat, "results": results}, indent=2) + "\n")
    lines = ["# Durability: floe's append with and without fsync", "",
             f"`{' '.join(['.venv/bin/python', 'bench/write/run_durability_benchmark.py', '--rows', str(args.rows), '--repeat', str(args.repeat)])}`"
             f" (release build, 1 thread, {args.rows} lineitem rows, median of {args.repeat} alternated runs).", "",
             "| layout | files | folders | fsync on (s) | fsync off (s) | on / off | fsync calls | time in them (s) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for layout, r in results.items():
        lines.append(f"| {layout} | {r['files']} | {r['folders']} | {r['on_s']:.2f} | {r['off_s']:.2f} | "
                     f"{r['ratio']:.3f} | {r['fsync_calls']} | {r['in_fsync_s']:.2f} |")
    lines += ["", "The time in the calls is their wall time under `strace -f -w -c` in one extra run with fsync on "
              "(SQLite's own fsyncs of the catalog included): the cost itself, which the on/off ratio of "
              "whole runs can hide on these noisy 2-core machines (their throughput varies by up to 2x "
              "between runs)."]
    (out / "durability.md").write_text("\n".join(lines) + "\n")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
