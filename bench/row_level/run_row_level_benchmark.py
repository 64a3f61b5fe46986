"""The row-level benchmark (issue 23): deletes and upserts by floe, pyiceberg and Spark.

One table of --rows rows (id; region, 8 partitions by id mod 8; bucket = (id div 8) * 7919
mod 100, so every file holds every bucket; amount; note), written by floe's append with two tasks, is the start state of every case; each case
gets a fresh copy of it (a new table appended from the same Arrow IPC input, not timed).
The cases:
  delete 1% and 10% (`bucket = 0`, `bucket < 10`: rows of every data file), copy-on-write
  and merge-on-read (write.delete.mode);
  upsert 1% by key (id): half of the input replaces rows spread over every file, half is
  new, copy-on-write and merge-on-read (write.merge.mode);
  overwrite by filter: one partition's rows (`region = 'region-0'`, 12.5%) replaced by the
  same rows changed (floe's `overwrite(data, where=)`, pyiceberg's `overwrite(df,
  overwrite_filter=)`, Spark's `writeTo(t).overwrite(cond)`). Whole files match: floe and
  Spark overwrite by filter as iceberg-java's overwriteByRowFilter does, which refuses a
  file whose rows match only in part (pyiceberg rewrites such files), so the filter is
  one of whole files for all three. No merge-on-read arm (no engine writes delete files
  for it).
Engines, each in a process of its own:
  floe: its Python package (Release build), `Table.delete`, `Table.upsert`;
  pyiceberg 0.12: `Table.delete` and `Table.upsert` (copy-on-write only: it writes no delete
  files, so it has no merge-on-read arm);
  Spark 4.0 with iceberg-spark-runtime 1.11 (local[2]): `DELETE FROM` and `MERGE INTO ... WHEN
  MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`. iceberg-java itself has no
  row-level delete or merge outside an engine (its core API removes whole files only), so its
  Spark integration is iceberg-java's implementation of these operations.
Per case (each engine's arm run --repeat times, the engines alternating; the median time
kept): wall time of the operation alone (its engine already started, the table loaded),
bytes and files it wrote (everything new under the table's folder: data, delete files and
metadata, not Hadoop's .crc side files), and the rows left (checked equal across engines). Then the read cost of
merge-on-read: floe and pyiceberg scan the table after floe's merge-on-read 10% delete and a
fresh table of the same rows without deletes (three runs each, alternating, median kept).
Results go to bench/results/row_level.{json,md}.

    .venv/bin/python bench/row_level/run_row_level_benchmark.py --rows 10000000
"""

import argparse
import datetime
import json
import pathlib
import statistics
import subprocess
import sys
import shutil
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
JARS = ROOT / "build/spark-jars"
CASES = [("delete", 1), ("delete", 10), ("upsert", 1), ("overwrite", 12)]
MODES = ["copy-on-write", "merge-on-read"]

PRELUDE = r"""
import json, os, pathlib, sys, time
import pyarrow as pa, pyarrow.compute as pc
import floe
ipc, upsert_ipc, warehouse, version = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
data = pa.ipc.open_file(pa.memory_map(ipc)).read_all()
changes = pa.ipc.open_file(pa.memory_map(upsert_ipc)).read_all()
catalog = floe.Catalog(warehouse=warehouse)
catalog.create_namespace_if_not_exists("b")

def fresh(name, properties=None):
    props = {"format-version": version, "write.parquet.compression-codec": "zstd"}
    props.update(properties or {})
    table = catalog.create_table(f"b.{name}", data.schema, partition_by="region",
                                 properties=props)
    table.append(data, threads=2)
    return table

def listing(name):
    root = pathlib.Path(warehouse) / "b" / name
    # Hadoop's .crc side files (Spark's local file system writes one per file) left out.
    return {str(p): p.stat().st_size for p in root.rglob("*")
            if p.is_file() and not p.name.startswith(".")}

def written(before, after):
    new = {p: s for p, s in after.items() if before.get(p) != s}
    return sum(new.values()), len(new)

def report(case, seconds, before, after, rows, **extra):
    size, files = written(before, after)
    print("RESULT " + json.dumps(dict(case, seconds=seconds, bytes_written=size,
                                      files_written=files, rows_after=rows, **extra)),
          flush=True)

def filter_of(percent):
    return "bucket = 0" if percent == 1 else f"bucket < {percent}"

OVERWRITTEN = "region = 'region-0'"
# The overwrite's input: the rows it replaces, changed.
replacement = data.filter(pc.equal(data["region"], "region-0"))
replacement = replacement.set_column(replacement.schema.get_field_index("amount"), "amount",
                                     pc.negate(replacement["amount"]))
"""

FLOE_ARM = PRELUDE + r"""
for op, percent, mode in json.loads(sys.argv[5]):
    name = f"floe_{op}{percent}_{mode[0]}"
    key = "write.delete.mode" if op == "delete" else "write.merge.mode"
    table = fresh(name, {key: mode})
    before = listing(name)
    start = time.perf_counter()
    if op == "delete":
        result = table.delete(filter_of(percent), threads=2)
    elif op == "overwrite":
        result = table.overwrite(replacement, where=OVERWRITTEN, threads=2)
    else:
        result = table.upsert(changes, join_cols="id", threads=2)
    seconds = time.perf_counter() - start
    rows = table.refresh().scan(columns=["id"]).to_arrow().num_rows
    report(dict(engine="floe", op=op, percent=percent, mode=mode), seconds, before,
           listing(name), rows, delete_files=getattr(result, "delete_files", 0))
"""

PYICEBERG_ARM = PRELUDE + r"""
from pyiceberg.catalog.sql import SqlCatalog
theirs = SqlCatalog("floe", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}")
for op, percent, mode in json.loads(sys.argv[5]):
    name = f"pyiceberg_{op}{percent}_{mode[0]}"
    fresh(name)
    table = theirs.load_table(f"b.{name}")
    before = listing(name)
    start = time.perf_counter()
    if op == "delete":
        table.delete(filter_of(percent))
    elif op == "overwrite":
        table.overwrite(replacement, overwrite_filter=OVERWRITTEN)
    else:
        table.upsert(changes, join_cols=["id"])
    seconds = time.perf_counter() - start
    rows = catalog.load_table(f"b.{name}").scan(columns=["id"]).to_arrow().num_rows
    report(dict(engine="pyiceberg", op=op, percent=percent, mode=mode), seconds, before,
           listing(name), rows)
"""

SPARK_ARM = PRELUDE + r"""
from pyspark.sql import SparkSession
jars = sys.argv[6]
spark = (SparkSession.builder.master("local[2]")
         .config("spark.jars", f"{jars}/iceberg-spark-runtime-4.0_2.13-1.11.0.jar,{jars}/sqlite-jdbc-3.54.1.0.jar")
         .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config("spark.sql.catalog.floe", "org.apache.iceberg.spark.SparkCatalog")
         .config("spark.sql.catalog.floe.type", "jdbc")
         .config("spark.sql.catalog.floe.uri", f"jdbc:sqlite:{warehouse}/catalog.db")
         .config("spark.sql.catalog.floe.warehouse", f"file:{warehouse}")
         .config("spark.sql.catalog.floe.cache-enabled", "false")
         .config("spark.sql.shuffle.partitions", "8")
         .config("spark.driver.memory", "6g")
         .config("spark.ui.enabled", "false").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
source = pathlib.Path(warehouse) / "upsert_input.parquet"
import pyarrow.parquet as pq
pq.write_table(changes, source)
spark.read.parquet(str(source)).createOrReplaceTempView("changes")
replaced_source = pathlib.Path(warehouse) / "overwrite_input.parquet"
pq.write_table(replacement, replaced_source)
replacement_frame = spark.read.parquet(str(replaced_source)).cache()
replacement_frame.count()
spark.sql("SELECT count(*) FROM changes").collect()  # warm: the input is read once
for op, percent, mode in json.loads(sys.argv[5]):
    name = f"spark_{op}{percent}_{mode[0]}"
    key = "write.delete.mode" if op == "delete" else "write.merge.mode"
    fresh(name, {key: mode})
    spark.sql(f"SELECT count(*) FROM floe.b.{name}").collect()  # loaded, as the others'
    before = listing(name)
    start = time.perf_counter()
    if op == "delete":
        spark.sql(f"DELETE FROM floe.b.{name} WHERE {filter_of(percent)}")
    elif op == "overwrite":
        from pyspark.sql.functions import expr
        replacement_frame.writeTo(f"floe.b.{name}").overwrite(expr(OVERWRITTEN))
    else:
        spark.sql(f"MERGE INTO floe.b.{name} t USING changes s ON t.id = s.id "
                  "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    seconds = time.perf_counter() - start
    rows = catalog.load_table(f"b.{name}").scan(columns=["id"]).to_arrow().num_rows
    report(dict(engine="spark", op=op, percent=percent, mode=mode), seconds, before,
           listing(name), rows)
spark.stop()
"""

READ_ARM = PRELUDE + r"""
from pyiceberg.catalog.sql import SqlCatalog
theirs = SqlCatalog("floe", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}")
deleted = fresh("read_deleted", {"write.delete.mode": "merge-on-read"})
deleted.delete(filter_of(10), threads=2)
plain = fresh("read_plain")
plain.delete(filter_of(10), options={"write.delete.mode": "copy-on-write"}, threads=2)
times = {}
for run in range(3):
    for engine in ("floe", "pyiceberg"):
        for name in ("read_deleted", "read_plain"):
            start = time.perf_counter()
            if engine == "floe":
                rows = catalog.load_table(f"b.{name}").scan().to_arrow().num_rows
            else:
                rows = theirs.load_table(f"b.{name}").scan().to_arrow().num_rows
            times.setdefault((engine, name), []).append((time.perf_counter() - start, rows))
for (engine, name), runs in times.items():
    print("READ " + json.dumps(dict(engine=engine, table=name,
                                    seconds=[round(s, 3) for s, _ in runs],
                                    rows=runs[0][1])), flush=True)
"""


def bucket(ids):
    """0..99, independent of the region (id mod 8): every data file has every bucket."""
    return (((ids // 8) * 7919) % 100).astype("int32")


def make_input(rows: int, directory: pathlib.Path):
    import numpy as np
    import pyarrow as pa

    ids = np.arange(rows, dtype=np.int64)
    regions = np.array([f"region-{k}" for k in range(8)], dtype=object)
    data = pa.table({
        "id": pa.array(ids),
        "region": pa.array(regions[ids % 8]),
        "bucket": pa.array(bucket(ids)),
        "amount": pa.array(ids.astype(np.float64) / 4),
        "note": pa.array(np.char.add("note-", (ids % 100_000).astype(str)).astype(object)),
    })
    # 1% upsert: half replaces rows spread over every file, half is new.
    count = rows // 100
    existing = np.arange(0, rows, 199, dtype=np.int64)[: count // 2]
    new = np.arange(rows, rows + count - len(existing), dtype=np.int64)
    keys = np.concatenate([existing, new])
    changes = pa.table({
        "id": pa.array(keys),
        "region": pa.array(regions[keys % 8]),
        "bucket": pa.array(bucket(keys)),
        "amount": pa.array(-keys.astype(np.float64)),
        "note": pa.array(["changed"] * len(keys)),
    })
    paths = []
    for name, table in (("data", data), ("changes", changes)):
        path = directory / f"{name}.arrow"
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        paths.append(path)
    expected = {("delete", 1): rows - int((bucket(ids) == 0).sum()),
                ("delete", 10): rows - int((bucket(ids) < 10).sum()),
                ("upsert", 1): rows + len(new), ("overwrite", 12): rows}
    return paths, expected, len(existing), len(new)


def run_arm(script: str, paths, warehouse, version, cases, *extra, timeout=3600):
    cases_json = json.dumps(cases)
    done = subprocess.run([sys.executable, "-c", script, str(paths[0]), str(paths[1]),
                           str(warehouse), str(version), cases_json, *map(str, extra)],
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"arm failed:\n{done.stderr[-4000:]}")
    results = [json.loads(line.split(" ", 1)[1]) for line in done.stdout.splitlines()
               if line.startswith(("RESULT ", "READ "))]
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--format-version", type=int, default=2)
    parser.add_argument("--engines", default="floe,pyiceberg,spark,read")
    parser.add_argument("--results", default=str(ROOT / "bench/results/row_level"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    engines = args.engines.split(",")
    with tempfile.TemporaryDirectory(prefix="floe-row-level-") as tmp:
        tmp = pathlib.Path(tmp)
        paths, expected, replaced, inserted = make_input(args.rows, tmp)
        runs, reads = {}, []
        every = [(op, pct, mode) for op, pct in CASES for mode in MODES
                 if op != "overwrite" or mode == "copy-on-write"]
        arms = {"floe": (FLOE_ARM, every, ()),
                "pyiceberg": (PYICEBERG_ARM, [(op, pct, "copy-on-write") for op, pct in CASES], ()),
                "spark": (SPARK_ARM, every, (JARS,))}
        for attempt in range(args.repeat):
            for engine in engines:
                if engine == "read":
                    continue
                warehouse = tmp / f"wh-{engine}-{attempt}"
                warehouse.mkdir()
                script, cases, extra = arms[engine]
                for result in run_arm(script, paths, warehouse, args.format_version, cases,
                                      *extra):
                    print(json.dumps(result), flush=True)
                    key = (result["engine"], result["op"], result["percent"], result["mode"])
                    runs.setdefault(key, []).append(result)
                shutil.rmtree(warehouse)
        if "read" in engines:
            warehouse = tmp / "wh-read"
            warehouse.mkdir()
            reads = run_arm(READ_ARM, paths, warehouse, args.format_version, [])
        # Per case, the run of median time (its bytes, files and rows with it); every
        # run's rows must be right.
        results = []
        for key, attempts in runs.items():
            ordered = sorted(attempts, key=lambda r: r["seconds"])
            result = dict(ordered[len(ordered) // 2])
            result["all_seconds"] = [round(r["seconds"], 3) for r in attempts]
            result["rows_after_all"] = [r["rows_after"] for r in attempts]
            results.append(result)
    for result in results:
        want = expected[(result["op"], result["percent"])]
        result["rows_ok"] = all(rows == want for rows in result["rows_after_all"])
    write_results(args, results, reads, replaced, inserted)


def write_results(args, results, reads, replaced, inserted):
    today = datetime.date.today().isoformat()
    out = pathlib.Path(args.results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(
        dict(rows=args.rows, format_version=args.format_version, repeat=args.repeat,
             date=today,
             results=results, reads=reads), indent=1) + "\n")
    lines = [
        "# Row-level writes: floe vs pyiceberg and Spark (iceberg-java)", "",
        f"`.venv/bin/python bench/row_level/run_row_level_benchmark.py --rows {args.rows} "
        f"--format-version {args.format_version} --repeat {args.repeat}` "
        f"(2 cores; median of {args.repeat} runs per case, the engines alternating; all runs' "
        f"seconds in the JSON; {today}). Delete 1% "
        "(`bucket = 0`) and 10% (`bucket < 10`) of rows spread over every data file, "
        f"upsert 1% by id ({replaced:,} rows replaced, {inserted:,} inserted), and overwrite "
        "by filter one partition of eight (`region = 'region-0'`, the `overwrite 12%` rows: "
        "its rows replaced by the same rows changed). "
        "Bytes written: everything new under the table's folder (data, delete files, "
        "metadata; not the `.crc` side files Spark's local file system adds).", "",
        "| op | mode | engine | s | MB written | files written | rows after ok |",
        "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(results, key=lambda r: (r["op"], r["percent"], r["mode"], r["engine"])):
        lines.append(f"| {r['op']} {r['percent']}% | {r['mode']} | {r['engine']} | "
                     f"{r['seconds']:.2f} | {r['bytes_written'] / 2**20:.1f} | "
                     f"{r['files_written']} | {r['rows_ok']} |")
    lines += ["", "Ratios (wall clock; > 1 means floe is faster):", ""]
    by = {(r["op"], r["percent"], r["mode"], r["engine"]): r for r in results}
    for op, pct in CASES:
        for mode in MODES:
            ours = by.get((op, pct, mode, "floe"))
            if not ours:
                continue
            parts = []
            for engine in ("pyiceberg", "spark"):
                theirs = by.get((op, pct, mode, engine))
                if theirs:
                    parts.append(f"{theirs['seconds'] / ours['seconds']:.2f}x {engine} "
                                 f"(bytes {theirs['bytes_written'] / max(ours['bytes_written'], 1):.2f}x)")
            if parts:
                lines.append(f"- {op} {pct}% {mode}: floe " + ", ".join(parts))
    if reads:
        lines += ["", "Read cost of merge-on-read (full scan after floe's merge-on-read 10% "
                  "delete, against the same rows without delete files; median of three):", "",
                  "| engine | with delete files s | without s | ratio | rows |",
                  "| --- | --- | --- | --- | --- |"]
        medians = {(r["engine"], r["table"]): (statistics.median(r["seconds"]), r["rows"])
                   for r in reads}
        for engine in ("floe", "pyiceberg"):
            with_deletes, rows = medians[(engine, "read_deleted")]
            without, rows_plain = medians[(engine, "read_plain")]
            lines.append(f"| {engine} | {with_deletes:.2f} | {without:.2f} | "
                         f"{with_deletes / without:.2f}x | {rows:,} = {rows_plain:,}: "
                         f"{rows == rows_plain} |")
    # The analysis below the figures, written by hand, is kept.
    previous = out.with_suffix(".md")
    kept = ""
    if previous.exists() and "\n## " in previous.read_text():
        text = previous.read_text()
        kept = text[text.index("\n## "):]
    previous.write_text("\n".join(lines) + "\n" + kept)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
