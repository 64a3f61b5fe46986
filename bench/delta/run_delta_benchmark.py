"""The Delta benchmark (issue 21): floe's Delta writer and log reader against deltalake
(delta-rs, pinned in scripts/bootstrap.sh), in one run, through each engine's Python API.

1. Append throughput: the same in-memory pyarrow.Table (--rows rows of an events-like set:
   id, timestamp, a 16-value region, an amount, a note) appended once as one version by
   `floe.delta.write` (1 and 2 write tasks) and by `deltalake.write_deltalake`,
   unpartitioned and partitioned by region, both with snappy (each engine's default, and
   Spark's).
2. Commit latency: --commits-latency one-row appends in a row (one writer), and the same
   number split over 8 processes appending at once to one table, per engine (floe with the
   filesystem committer on a path-based table, and with the catalog committer on a
   catalog-managed table in a SQLite catalog: stage, ratify, publish); the median and
   90th percentile of one commit's wall time, and the total. Both retry a lost race up to
   10,000,000 times (delta-spark's delta.maxCommitAttempts; delta-rs's default of 15 fails
   here with 8 writers).
3. Snapshot load: a table floe wrote with --log-commits one-row commits (a checkpoint every
   10 versions, as delta-spark does), loaded at its latest version (the newest checkpoint,
   then whatever commits follow it) and at a version 5 commits past a mid-log checkpoint, by
   `floe.delta.snapshot` and by `deltalake.DeltaTable` (its file list taken, so both did the
   whole replay).
Each measurement is the median of --repeat runs, the engines alternating. Written to
bench/results/delta.{json,md}.

    .venv/bin/python bench/delta/run_delta_benchmark.py --rows 2000000 --log-commits 10000
"""

import argparse
import datetime
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import pyarrow as pa

ROOT = pathlib.Path(__file__).resolve().parents[2]
REGIONS = [f"region-{i:02d}" for i in range(16)]


def events(rows: int, start: int = 0) -> pa.Table:
    ids = pa.array(range(start, start + rows), pa.int64())
    base = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    import pyarrow.compute as pc

    seconds = pc.multiply(ids, pa.scalar(7, pa.int64()))
    stamps = pc.add(pa.scalar(base, pa.timestamp("us", tz="UTC")),
                    pc.cast(pc.multiply(seconds, pa.scalar(1_000_000, pa.int64())), pa.duration("us")))
    region = pc.take(pa.array(REGIONS), pc.bit_wise_and(ids, pa.scalar(15, pa.int64())))
    amount = pc.divide(pc.cast(pc.bit_wise_and(pc.multiply(ids, pa.scalar(2654435761, pa.int64())),
                                               pa.scalar(0xFFFFF, pa.int64())), pa.float64()),
                       pa.scalar(100.0))
    note = pc.binary_join_element_wise(pa.scalar("note-"), pc.cast(pc.bit_wise_and(
        ids, pa.scalar(1023, pa.int64())), pa.string()), "")
    return pa.table({"id": ids, "ts": stamps, "region": region, "amount": amount, "note": note})


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def floe_append(path, data, partition_by, threads=1):
    import floe.delta

    floe.delta.create_table(path, data.schema, partition_by=partition_by)
    return timed(lambda: floe.delta.write(path, data, threads=threads))


def floe_append_default(path, data, partition_by):
    """floe at the defaults a user gets: no threads= (one task per core)."""
    return floe_append(path, data, partition_by, threads=None)


def floe_append_2(path, data, partition_by):
    return floe_append(path, data, partition_by, threads=2)


def deltalake_append(path, data, partition_by):
    from deltalake import write_deltalake

    write_deltalake(path, data.slice(0, 0), mode="append", partition_by=partition_by or None)
    return timed(lambda: write_deltalake(path, data, mode="append"))


WRITER = """
import json, sys, time
import pyarrow as pa
engine, path, start, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if engine == "floe":
    import floe.delta
    write = lambda data: floe.delta.write(path, data)
elif engine == "floe catalog":
    # path is the warehouse of a SQLite catalog holding the catalog-managed table bench.t.
    import floe, floe.delta
    catalog = floe.Catalog(warehouse=path)
    write = lambda data: floe.delta.write("bench.t", data, catalog=catalog)
else:
    from deltalake import CommitProperties, write_deltalake
    # delta-rs gives up after 15 lost races by default (CommitFailedError with 8 writers
    # here); as many as floe's and delta-spark's default.
    retries = CommitProperties(max_commit_retries=10_000_000)
    write = lambda data: write_deltalake(path, data, mode="append", commit_properties=retries)
seconds = []
for i in range(start, start + count):
    data = pa.table({"id": pa.array([i], pa.int64()), "region": pa.array(["r"])})
    began = time.perf_counter()
    write(data)
    seconds.append(time.perf_counter() - began)
print(json.dumps(seconds))
"""


def commit_latency(engine: str, path: str, commits: int, writers: int) -> dict:
    schema = pa.schema([("id", pa.int64()), ("region", pa.string())])
    if engine == "floe":
        import floe.delta

        floe.delta.create_table(path, schema)
    elif engine == "floe catalog":
        import floe
        import floe.delta

        floe.delta.create_table("bench.t", schema, catalog=floe.Catalog(warehouse=path))
    else:
        from deltalake import write_deltalake

        write_deltalake(path, schema.empty_table(), mode="append")
    share = commits // writers
    began = time.perf_counter()
    processes = [subprocess.Popen([sys.executable, "-c", WRITER, engine, path, str(w * share), str(share)],
                                  stdout=subprocess.PIPE, text=True) for w in range(writers)]
    seconds = []
    for process in processes:
        out, _ = process.communicate(timeout=1800)
        if process.returncode != 0:
            raise RuntimeError(f"{engine} writer failed")
        seconds.extend(json.loads(out))
    total = time.perf_counter() - began
    seconds.sort()
    return {"median_ms": statistics.median(seconds) * 1000,
            "p90_ms": seconds[int(len(seconds) * 0.9) - 1] * 1000,
            "total_s": total, "commits": len(seconds)}


def build_log(path: str, commits: int) -> None:
    import floe.delta

    schema = pa.schema([("id", pa.int64()), ("region", pa.string())])
    floe.delta.create_table(path, schema, partition_by=["region"])
    for i in range(commits):
        floe.delta.write(path, pa.table({"id": pa.array([i], pa.int64()),
                                         "region": pa.array([REGIONS[i % 16]])}))


def load_floe(path, version):
    import floe.delta

    # The live files as Arrow (add_actions), as deltalake keeps them.
    return floe.delta.snapshot(path, version=version).add_actions.num_rows


def load_deltalake(path, version):
    from deltalake import DeltaTable

    table = DeltaTable(path, version=version)
    return len(table.file_uris())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--commits-latency", type=int, default=80)
    parser.add_argument("--log-commits", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--parts", default="append,latency,load",
                        help="which measurements to run; the others keep their figures from "
                             "the last run's delta.json")
    args = parser.parse_args()
    import deltalake
    import floe

    work = pathlib.Path(tempfile.mkdtemp(prefix="floe-delta-bench-"))
    parts = set(args.parts.split(","))
    results = {"rows": args.rows, "versions": {"floe": floe.__version__, "deltalake": deltalake.__version__},
               "append": {}, "latency": {}, "load": {}}
    earlier = pathlib.Path(args.out) / "delta.json"
    if parts != {"append", "latency", "load"} and earlier.exists():
        kept = json.loads(earlier.read_text())
        for part in ("append", "latency", "load"):
            if part not in parts:
                results[part] = kept[part]
        if "load" not in parts:
            results["log_build_s"] = kept.get("log_build_s", 0)
            args.log_commits = kept.get("log_commits", args.log_commits)
        if "append" not in parts:
            results["rows"] = args.rows = kept["rows"]
    results["log_commits"] = args.log_commits
    try:
        data = events(args.rows) if "append" in parts else None
        for layout, partition_by in (("unpartitioned", []), ("partitioned by region", ["region"])):
            if "append" not in parts:
                break
            runs = {"floe default": [], "floe": [], "floe 2 threads": [], "deltalake": []}
            for attempt in range(args.repeat):
                for engine, append in (("floe default", floe_append_default),
                                       ("floe", floe_append), ("floe 2 threads", floe_append_2),
                                       ("deltalake", deltalake_append)):
                    path = str(work / f"append-{engine.replace(' ', '-')}-{attempt}")
                    runs[engine].append(append(path, data, partition_by))
                    shutil.rmtree(path)
            results["append"][layout] = {engine: statistics.median(s) for engine, s in runs.items()}
            print(layout, results["append"][layout], flush=True)
        for writers in (1, 8) if "latency" in parts else ():
            for engine in ("floe", "floe catalog", "deltalake"):
                path = str(work / f"latency-{engine.replace(' ', '-')}-{writers}")
                results["latency"][f"{engine} {writers}"] = commit_latency(
                    engine, path, args.commits_latency, writers)
                print(engine, writers, results["latency"][f"{engine} {writers}"], flush=True)
                shutil.rmtree(path)
        log = str(work / "log")
        middle = (args.log_commits // 20) * 10 + 5
        if "load" in parts:
            began = time.perf_counter()
            build_log(log, args.log_commits)
            results["log_build_s"] = time.perf_counter() - began
        for label, version in ((("latest", None), (f"version {middle}", middle))
                               if "load" in parts else ()):
            runs = {"floe": [], "deltalake": []}
            files = {}
            for _ in range(args.repeat):
                for engine, load in (("floe", load_floe), ("deltalake", load_deltalake)):
                    began = time.perf_counter()
                    files[engine] = load(log, version)
                    runs[engine].append(time.perf_counter() - began)
            assert files["floe"] == files["deltalake"], files
            results["load"][label] = {**{e: statistics.median(s) for e, s in runs.items()},
                                      "files": files["floe"]}
            print(label, results["load"][label], flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out = pathlib.Path(args.out)
    (out / "delta.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = [
        "# Delta: floe vs deltalake",
        "",
        f"`.venv/bin/python bench/delta/run_delta_benchmark.py --rows {args.rows} --log-commits "
        f"{args.log_commits}` (floe {results['versions']['floe']}, deltalake "
        f"{results['versions']['deltalake']}; 2 cores; median of {args.repeat}; "
        f"{datetime.date.today()}). Ratios > 1 mean floe is faster.",
        "",
        f"| append (one version) | floe s (default: {os.cpu_count()} tasks) | floe s (1 task) | "
        "floe s (2 tasks) | deltalake s | floe rows/s (default) | ratio at defaults | "
        "ratio 1 task | ratio 2 tasks |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for layout, r in results["append"].items():
        two = r["floe 2 threads"]
        default = r.get("floe default")
        if default is None:  # results of a run before the default arm existed
            at_defaults = speed = default_cell = ""
        else:
            default_cell = f"{default:.2f}"
            at_defaults = f"{r['deltalake'] / default:.2f}x"
            speed = f"{args.rows / default:,.0f}"
        lines.append(f"| {layout} | {default_cell} | {r['floe']:.2f} | {two:.2f} | "
                     f"{r['deltalake']:.2f} | {speed} | {at_defaults} | "
                     f"{r['deltalake'] / r['floe']:.2f}x | {r['deltalake'] / two:.2f}x |")
    lines += ["", "| commit latency (one-row appends) | writers | median ms | p90 ms | total s | "
              "ratio (median) |", "| --- | --- | --- | --- | --- | --- |"]
    for writers in (1, 8):
        d = results["latency"][f"deltalake {writers}"]
        for engine in ("floe", "floe catalog", "deltalake"):
            r = results["latency"].get(f"{engine} {writers}")
            if r is None:
                continue
            ratio = f"{d['median_ms'] / r['median_ms']:.2f}x" if engine != "deltalake" else ""
            engine = {"floe": "floe (filesystem committer)",
                      "floe catalog": "floe (catalog committer, SQLite)"}.get(engine, engine)
            lines.append(f"| {engine} | {writers} | {r['median_ms']:.1f} | {r['p90_ms']:.1f} | "
                         f"{r['total_s']:.1f} | {ratio} |")
    lines += ["", f"| snapshot load ({args.log_commits} commits, checkpoint every 10) | files | "
              "floe ms | deltalake ms | ratio |", "| --- | --- | --- | --- | --- |"]
    for label, r in results["load"].items():
        lines.append(f"| {label} | {r['files']} | {r['floe'] * 1000:.1f} | {r['deltalake'] * 1000:.1f} | "
                     f"{r['deltalake'] / r['floe']:.2f}x |")
    lines += ["", f"Building the {args.log_commits}-commit log with floe took "
              f"{results['log_build_s']:.0f} s.", ""]
    # The hand-written reading of the figures (from its heading on) is kept across runs.
    previous = out / "delta.md"
    kept = ""
    if previous.exists() and "## What limits" in previous.read_text():
        kept = previous.read_text()[previous.read_text().index("## What limits"):]
    (out / "delta.md").write_text("\n".join(lines) + ("\n" + kept if kept else ""))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
