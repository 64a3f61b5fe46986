"""Write benchmark: floe append (release build) against pyarrow's Parquet writer, same input.

Both arms read the same Parquet input (the demo's order events) and write it as zstd Parquet
with the same settings; floe also does everything an Iceberg append needs (field ids, metrics,
manifests, the commit). Runs the arms alternately in one process run and reports the median
rows/s of each and the ratio floe / pyarrow (of times: below 1.0 means floe is faster).

    .venv/bin/python bench/write/write_benchmark.py --floe build/release/src/floe/cli/floe
"""

import argparse
import json
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import pyarrow.parquet as pq

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "data"))
import generate_events  # noqa: E402


def floe_arm(floe: str, warehouse: pathlib.Path, inputs: list, partition_by: str, run: int) -> float:
    table = f"bench.events_{run}"
    subprocess.run([floe, "create", table, "--schema", generate_events.SCHEMA_TEXT, "--partition-by",
                    partition_by, "--warehouse", str(warehouse)], check=True, capture_output=True)
    started = time.perf_counter()
    subprocess.run([floe, "append", table, *map(str, inputs), "--warehouse", str(warehouse)],
                   check=True, capture_output=True)
    return time.perf_counter() - started


def pyarrow_arm(inputs: list, out: pathlib.Path) -> float:
    started = time.perf_counter()
    for index, path in enumerate(inputs):
        table = pq.read_table(path)
        pq.write_table(table, out / f"part-{index}.parquet", compression="zstd",
                       row_group_size=1 << 30, data_page_size=1 << 20, write_statistics=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--floe", required=True)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--results", type=pathlib.Path, default=ROOT / "bench" / "results" / "write.json")
    args = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="floe-bench-"))
    try:
        inputs_dir = work / "input"
        subprocess.run([sys.executable, str(ROOT / "tests/data/generate_events.py"), "--rows", str(args.rows),
                        "--files", "4", "--out", str(inputs_dir)], check=True, capture_output=True)
        inputs = sorted(inputs_dir.glob("*.parquet"))
        results = {"rows": args.rows, "runs": args.runs}
        for label, partition_by in [("unpartitioned", ""), ("identity(region)", "region")]:
            floe_times, pyarrow_times = [], []
            for run in range(args.runs):
                warehouse = work / f"warehouse-{label}-{run}"
                floe_times.append(floe_arm(args.floe, warehouse, inputs, partition_by, run))
                out = work / f"pyarrow-{run}"
                out.mkdir()
                pyarrow_times.append(pyarrow_arm(inputs, out))
                shutil.rmtree(out)
                shutil.rmtree(warehouse)
            floe_time = statistics.median(floe_times)
            pyarrow_time = statistics.median(pyarrow_times)
            results[label] = {
                "floe_rows_per_s": round(args.rows / floe_time),
                "pyarrow_rows_per_s": round(args.rows / pyarrow_time),
                "ratio_floe_over_pyarrow_time": round(floe_time / pyarrow_time, 3),
            }
            print(f"{label:18s} floe {args.rows / floe_time:12,.0f} rows/s   pyarrow {args.rows / pyarrow_time:12,.0f} rows/s"
                  f"   time ratio floe/pyarrow {floe_time / pyarrow_time:.2f}")
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {args.results}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
