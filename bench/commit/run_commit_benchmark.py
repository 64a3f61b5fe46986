"""The commit benchmark (issue: commits that never lose an update).

For each catalog (SQLite, and PostgreSQL on a local server this script starts) and each number of
concurrent appenders W (1, 2, 4, 8), two arms in the same run, each on a fresh table with the
same properties:
  floe          build/release/bench/floe_commit_benchmark: W threads, each with its own catalog
                connection and table state, C fast appends each
  iceberg-java  the parity harness's commit-bench: W threads, each with its own JdbcCatalog and
                Table, C newFastAppend() commits each
Each writer first makes --warmup untimed commits (so the JVM's JIT is warm, as in a long-running
engine). Each commit adds one described data file (nothing is written but metadata), so only commit work
is timed: manifest, manifest list, metadata file, the catalog's compare-and-swap, and the
refresh-and-retry of every lost race. Prints p50/p99 latency, commits per second (all commits over
the wall time of the arm), retries (attempts beyond the first, summed), and the ratios floe/java
(latency) and floe/java (throughput). Writes bench/results/commit.{json,md}.

    make bench-commit    # or: .venv/bin/python bench/commit/run_commit_benchmark.py --commits 25
"""

import argparse
import datetime
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[2]
FLOE = ROOT / "build/release/src/floe/cli/floe"
BENCH = ROOT / "build/release/bench/floe_commit_benchmark"
HARNESS = ROOT / "tests/parity/run-harness.sh"
sys.path.insert(0, str(ROOT / "tests" / "interop"))

# Same for both engines: enough retries that 8 writers never give up, a short capped backoff.
TABLE_PROPERTIES = {"commit.retry.num-retries": "100", "commit.retry.min-wait-ms": "5",
                    "commit.retry.max-wait-ms": "200"}


def percentile(values, q):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def summarize(result, writers, commits):
    latencies, attempts = result["latencies_ms"], result["attempts"]
    assert len(latencies) == writers * commits, f"expected {writers * commits} commits, got {len(latencies)}"
    return {"commits": len(latencies),
            "p50_ms": percentile(latencies, 0.50), "p99_ms": percentile(latencies, 0.99),
            "mean_ms": statistics.fmean(latencies),
            "commits_per_s": len(latencies) / result["wall_seconds"],
            "retries": sum(max(0, a - 1) for a in attempts),
            "attempts_known": all(a >= 1 for a in attempts)}


def create_table(catalog, table):
    args = [str(FLOE), "create", table, "--catalog", catalog["floe"], "--warehouse", str(catalog["warehouse"]),
            "--schema", "id long not null, name string"]
    for key, value in catalog.get("floe_properties", {}).items():
        args += ["--catalog-property", f"{key}={value}"]
    for key, value in TABLE_PROPERTIES.items():
        args += ["--property", f"{key}={value}"]
    subprocess.run(args, check=True, capture_output=True, text=True)


def check_history(catalog, table, expected):
    """The table must hold exactly `expected` snapshots, each appending one file: no lost update."""
    args = [str(FLOE), "snapshots", table, "--catalog", catalog["floe"], "--warehouse", str(catalog["warehouse"])]
    for key, value in catalog.get("floe_properties", {}).items():
        args += ["--catalog-property", f"{key}={value}"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    count = out.count(" append ")
    assert count == expected, f"{table}: {count} appends in the history, expected {expected}"
    assert f"total-data-files={expected} " in out, f"{table}: total-data-files is not {expected}"


def run_floe(catalog, table, writers, commits, warmup):
    args = [str(BENCH), "--catalog", catalog["floe"], "--warehouse", str(catalog["warehouse"]),
            "--table", table, "--writers", str(writers), "--commits", str(commits),
            "--warmup", str(warmup)]
    for key, value in catalog.get("floe_properties", {}).items():
        args += ["--catalog-property", f"{key}={value}"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def run_java(catalog, table, writers, commits, warmup, work):
    request = {"uri": catalog["java"], "warehouse": str(catalog["warehouse"]), "name": "floe",
               "table": table, "properties": catalog.get("java_properties", {}),
               "writers": writers, "commits": commits, "warmup": warmup}
    path = work / f"commit-bench-{uuid.uuid4().hex[:8]}.json"
    path.write_text(json.dumps(request))
    result = subprocess.run([str(HARNESS), "commit-bench", str(path)], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"iceberg-java commit-bench failed:\n{result.stdout}\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)


def bench_catalog(name, catalog, writer_counts, commits, warmup, work):
    rows = []
    for writers in writer_counts:
        arms = {}
        for engine, runner in (("floe", run_floe), ("iceberg-java", run_java)):
            table = f"bench.{engine.replace('-', '_')}_{writers}w_{uuid.uuid4().hex[:6]}"
            create_table(catalog, table)
            result = runner(catalog, table, writers, commits, warmup) if engine == "floe" else \
                runner(catalog, table, writers, commits, warmup, work)
            check_history(catalog, table, writers * (commits + warmup))
            arms[engine] = summarize(result, writers, commits)
            print(f"{name:10} W={writers} {engine:12} p50 {arms[engine]['p50_ms']:8.2f} ms  "
                  f"p99 {arms[engine]['p99_ms']:8.2f} ms  {arms[engine]['commits_per_s']:8.1f} commits/s  "
                  f"retries {arms[engine]['retries']}", flush=True)
        floe_arm, java_arm = arms["floe"], arms["iceberg-java"]
        rows.append({"catalog": name, "writers": writers, "floe": floe_arm, "iceberg_java": java_arm,
                     "p50_ratio": floe_arm["p50_ms"] / java_arm["p50_ms"],
                     "p99_ratio": floe_arm["p99_ms"] / java_arm["p99_ms"],
                     "throughput_ratio": floe_arm["commits_per_s"] / java_arm["commits_per_s"]})
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=25, help="commits per writer")
    parser.add_argument("--warmup", type=int, default=10, help="untimed commits per writer first (JIT warm-up)")
    parser.add_argument("--writers", default="1,2,4,8")
    parser.add_argument("--catalogs", default="sqlite,postgresql")
    args = parser.parse_args()
    writer_counts = [int(w) for w in args.writers.split(",")]
    for path in (FLOE, BENCH):
        if not path.exists():
            sys.exit(f"{path} is missing: run `make build-release` first")
    rows = []
    with tempfile.TemporaryDirectory(prefix="floe-commit-bench-") as tmp:
        work = pathlib.Path(tmp)
        if "sqlite" in args.catalogs.split(","):
            warehouse = work / "sqlite"
            warehouse.mkdir()
            db = warehouse / "catalog.db"
            catalog = {"floe": f"sqlite:///{db}", "java": f"jdbc:sqlite:{db}", "warehouse": warehouse}
            subprocess.run([str(FLOE), "namespaces", "--create", "bench", "--catalog", catalog["floe"],
                            "--warehouse", str(warehouse)], check=True, capture_output=True)
            rows += bench_catalog("sqlite", catalog, writer_counts, args.commits, args.warmup, work)
        if "postgresql" in args.catalogs.split(","):
            from postgres_server import running_postgres
            import psycopg2

            with running_postgres() as port:
                connection = psycopg2.connect(host="127.0.0.1", port=port, user="floe", dbname="postgres")
                connection.autocommit = True
                connection.cursor().execute("CREATE DATABASE commitbench")
                connection.close()
                warehouse = work / "postgresql"
                warehouse.mkdir()
                catalog = {"floe": f"postgresql://floe@127.0.0.1:{port}/commitbench",
                           "java": f"jdbc:postgresql://127.0.0.1:{port}/commitbench",
                           "java_properties": {"jdbc.user": "floe"}, "warehouse": warehouse}
                subprocess.run([str(FLOE), "namespaces", "--create", "bench", "--catalog", catalog["floe"],
                                "--warehouse", str(warehouse)], check=True, capture_output=True)
                rows += bench_catalog("postgresql", catalog, writer_counts, args.commits, args.warmup, work)

    results = ROOT / "bench/results"
    results.mkdir(exist_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    (results / "commit.json").write_text(json.dumps({"date": stamp, "commits_per_writer": args.commits, "warmup_per_writer": args.warmup,
                                                      "table_properties": TABLE_PROPERTIES, "rows": rows},
                                                     indent=2) + "\n")
    lines = [f"# Commit benchmark ({stamp}, {args.commits} timed commits per writer after {args.warmup} untimed, fast appends of one file)",
             "", "`.venv/bin/python bench/commit/run_commit_benchmark.py` (release build, same run for both engines)",
             "", "| catalog | writers | floe p50 ms | floe p99 ms | floe commits/s | floe retries | "
             "java p50 ms | java p99 ms | java commits/s | java retries | p50 floe/java | p99 floe/java | "
             "throughput floe/java |", "|" + "---|" * 13]
    for row in rows:
        f, j = row["floe"], row["iceberg_java"]
        lines.append(f"| {row['catalog']} | {row['writers']} | {f['p50_ms']:.2f} | {f['p99_ms']:.2f} | "
                     f"{f['commits_per_s']:.1f} | {f['retries']} | {j['p50_ms']:.2f} | {j['p99_ms']:.2f} | "
                     f"{j['commits_per_s']:.1f} | {j['retries']}{'' if j['attempts_known'] else ' (?)'} | "
                     f"{row['p50_ratio']:.2f} | {row['p99_ratio']:.2f} | {row['throughput_ratio']:.2f} |")
    (results / "commit.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
