"""A/B of two builds' benchmark binaries, alternated in one run: did a change move the numbers?

For a refactor that must leave performance alone (the seams issue), the same benchmarks run
from an old build and a new one, interleaved old, new, old, new, ... so that the machine's
drift (2 noisy cores) falls on both alike. Arms:
  write   floe_write_benchmark --arm floe, 1 thread, per layout (unpartitioned, clustered,
          fanout): the writer's own seconds as it reports them (generation not subtracted;
          it is the same for both builds)
  write2  the same with --threads 2, fanout only
  scan    floe_scan_benchmark over the table the new build's unpartitioned write made:
          a whole read, and one column
  commit  floe_commit_benchmark, 1 and 4 writers on SQLite: p50 commit latency
Prints each arm's median for both builds and the ratio new/old, and writes the table to
--out (markdown) when given.

    .venv/bin/python bench/compare_builds.py --old /tmp/bench-old --new build/release/bench \
        --rows 3000000 --repeat 5 --out bench/results/seams.md
"""

import argparse
import json
import shlex
import pathlib
import statistics
import subprocess
import tempfile


def run_json(args):
    out = subprocess.run([str(a) for a in args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def write_seconds(binary_dir, layout, rows, threads, work):
    out = pathlib.Path(tempfile.mkdtemp(dir=work))
    result = run_json([binary_dir / "floe_write_benchmark", "--arm", "floe", "--layout", layout,
                       "--rows", rows, "--threads", threads, "--out", out])
    subprocess.run(["rm", "-rf", str(out)], check=True)
    return result["seconds"]


def scan_seconds(binary_dir, warehouse, columns):
    args = [binary_dir / "floe_scan_benchmark", "--warehouse", warehouse,
            "--table", "bench.lineitem", "--repeat", "1"]
    if columns:
        args += ["--columns", columns]
    return run_json(args)["seconds"]


def commit_p50_ms(binary_dir, writers, work):
    warehouse = pathlib.Path(tempfile.mkdtemp(dir=work))
    catalog = f"sqlite:///{warehouse}/catalog.db"
    floe = binary_dir.parent / "src/floe/cli/floe"
    if not floe.exists():
        floe = binary_dir / "floe"
    subprocess.run([str(floe), "namespaces", "--create", "bench", "--catalog", catalog,
                    "--warehouse", str(warehouse)], check=True, capture_output=True)
    subprocess.run([str(floe), "create", "bench.t", "--schema", "id long", "--catalog", catalog,
                    "--warehouse", str(warehouse),
                    "--property", "commit.retry.num-retries=100",
                    "--property", "commit.retry.min-wait-ms=5",
                    "--property", "commit.retry.max-wait-ms=200"], check=True,
                   capture_output=True)
    result = run_json([binary_dir / "floe_commit_benchmark", "--catalog", catalog,
                       "--warehouse", warehouse, "--table", "bench.t", "--writers", writers,
                       "--commits", 25, "--warmup", 10])
    subprocess.run(["rm", "-rf", str(warehouse)], check=True)
    return statistics.median(result["latencies_ms"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, type=pathlib.Path)
    parser.add_argument("--new", required=True, type=pathlib.Path)
    parser.add_argument("--rows", type=int, default=3000000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--only", default="",
                        help="run only the arms whose name contains one of these comma-separated "
                             "texts (e.g. fanout, or write,scan)")
    args = parser.parse_args()
    builds = {"old": args.old.resolve(), "new": args.new.resolve()}
    samples = {}

    wanted = args.only.split(",")

    def chosen(arm):
        return any(text in arm for text in wanted)

    def sample(arm, measure):
        if not chosen(arm):
            return
        for _ in range(args.repeat):
            for name in ("old", "new"):
                samples.setdefault(arm, {}).setdefault(name, []).append(measure(builds[name]))

    with tempfile.TemporaryDirectory(prefix="floe-ab-") as tmp:
        work = pathlib.Path(tmp)
        for layout in ("unpartitioned", "clustered", "fanout"):
            sample(f"write {layout} 1t (s)",
                   lambda b, layout=layout: write_seconds(b, layout, args.rows, 1, work))
        sample("write fanout 2t (s)", lambda b: write_seconds(b, "fanout", args.rows, 2, work))
        table = work / "scan"
        table.mkdir()
        scan_arms = ("scan all columns (s)", "scan l_extendedprice (s)")
        if any(chosen(arm) for arm in scan_arms):
            run_json([builds["new"] / "floe_write_benchmark", "--arm", "floe", "--layout",
                      "unpartitioned", "--rows", args.rows, "--out", table])
        sample(scan_arms[0], lambda b: scan_seconds(b, table, ""))
        sample(scan_arms[1], lambda b: scan_seconds(b, table, "l_extendedprice"))
        for writers in (1, 4):
            sample(f"commit sqlite {writers} writer(s) p50 (ms)",
                   lambda b, w=writers: commit_p50_ms(b, w, work))

    lines = [f"# Old build against new, alternated ({args.repeat} runs each, {args.rows:,} rows)",
             "",
             f"`.venv/bin/python bench/compare_builds.py --old {args.old} --new {args.new} "
             f"--rows {args.rows} --repeat {args.repeat}"
             + (f" --only {shlex.quote(args.only)}" if args.only else "") + "`",
             "",
             "| arm | old median | new median | new / old | old range | new range |",
             "|---|---|---|---|---|---|"]
    for arm, by_build in samples.items():
        old, new = by_build["old"], by_build["new"]
        lines.append(f"| {arm} | {statistics.median(old):.4g} | {statistics.median(new):.4g} | "
                     f"{statistics.median(new) / statistics.median(old):.3f} | "
                     f"{min(old):.4g}-{max(old):.4g} | {min(new):.4g}-{max(new):.4g} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
