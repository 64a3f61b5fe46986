#!/usr/bin/env bash
# Self-check of the parity harness: write (fanout, day(ts) + bucket[4](id)), dump, transform.
# Usage: tests/parity/smoke.sh            (uses JAVA_HOME or java on PATH)
#        JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 tests/parity/smoke.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${PYTHON:-$HERE/../../.venv/bin/python}"
WORK="$(mktemp -d -t floe-parity-smoke.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

"$PY" - "$WORK" <<'EOF'
import datetime, json, sys
import pyarrow as pa, pyarrow.parquet as pq

work = sys.argv[1]
def field(name, typ, fid, nullable=True):
    return pa.field(name, typ, nullable=nullable, metadata={"PARQUET:field_id": str(fid)})

schema = pa.schema([field("id", pa.int64(), 1, False), field("ts", pa.timestamp("us"), 2),
                    field("name", pa.string(), 3)])
ts = datetime.datetime
pq.write_table(pa.table({
    "id": [1, 2, 3, 34],
    "ts": [ts(2024, 1, 1, 1), ts(2024, 1, 2, 3), ts(1969, 12, 31, 23, 59, 59, 999999), None],
    "name": ["a", "b", None, "d"]}, schema=schema), f"{work}/in-0.parquet")
pq.write_table(pa.table({"id": [5], "ts": [ts(2024, 1, 1, 5)], "name": ["e"]}, schema=schema),
               f"{work}/in-1.parquet")

json.dump({
    "table_location": f"{work}/java_table",
    "format_version": 2,
    "schema": {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "ts", "required": False, "type": "timestamp"},
        {"id": 3, "name": "name", "required": False, "type": "string"}]},
    "partition_spec": {"spec-id": 0, "fields": [
        {"name": "ts_day", "transform": "day", "source-id": 2, "field-id": 1000},
        {"name": "id_bucket", "transform": "bucket[4]", "source-id": 1, "field-id": 1001}]},
    "sort_order": {"order-id": 0, "fields": []},
    "properties": {"write.parquet.compression-codec": "zstd"},
    "mode": "fanout",
    "input_files": [f"{work}/in-0.parquet", f"{work}/in-1.parquet"],
    "partition_id": 0, "task_id": 0, "operation_id": "smoke"}, open(f"{work}/write.json", "w"))

json.dump({"cases": [
    {"type": "long", "transform": "bucket[16]", "values": [34, None]},
    {"type": "timestamp", "transform": "day", "values": [-1, 0]},
    {"type": "date", "transform": "month", "values": [-1]},
    {"type": "string", "transform": "truncate[3]", "values": ["iceberg"]},
    {"type": "decimal(9, 2)", "transform": "bucket[16]", "values": ["14.20"]},
    {"type": "boolean", "transform": "day", "values": [True]}]}, open(f"{work}/transform.json", "w"))
EOF

"$HERE/run-harness.sh" write "$WORK/write.json" > "$WORK/write.out"
"$PY" -c 'import json,sys; print(json.dumps({"metadata_location": json.load(open(sys.argv[1]))["metadata_location"], "rows": True}))' \
  "$WORK/write.out" > "$WORK/dump.json"
"$HERE/run-harness.sh" dump "$WORK/dump.json" > "$WORK/dump.out"
"$HERE/run-harness.sh" transform "$WORK/transform.json" > "$WORK/transform.out"

"$PY" - "$WORK" <<'EOF'
import json, sys
work = sys.argv[1]
w = json.load(open(f"{work}/write.out"))
d = json.load(open(f"{work}/dump.out"))
t = json.load(open(f"{work}/transform.out"))

def check(cond, msg):
    if not cond:
        sys.exit(f"SMOKE FAILED: {msg}")

check(w["metadata_location"].startswith(f"{work}/java_table/metadata/"), "metadata location")
check(w["snapshot_summary"]["added-records"] == "5", "added-records")
check(sorted(w["written_files"]) == [f["path"] for f in w["files"]], "written_files vs files")
check(all(p.startswith(f"{work}/java_table/data/") for p in w["written_files"]), "data location")
check({k: v for k, v in w.items() if k not in ("metadata_location", "written_files")}
      == {k: v for k, v in d.items() if k != "rows"},
      "write output != dump output")
check(d["schema"]["fields"][2]["id"] == 3 and d["default_spec_id"] == 0, "schema/spec ids kept")
paths = [f["partition_path"] for f in d["files"]]
check(paths == ["ts_day=1969-12-31/id_bucket=3", "ts_day=2024-01-01/id_bucket=0",
                "ts_day=2024-01-01/id_bucket=3", "ts_day=2024-01-02/id_bucket=0",
                "ts_day=null/id_bucket=3"], f"partition paths {paths}")
f0 = d["files"][0]
check(f0["partition"][0] == {"name": "ts_day", "transform": "day", "value_bytes": "ffffffff",
                             "human": "1969-12-31"}, f"partition value {f0['partition'][0]}")
check(f0["status"] == "ADDED" and f0["data_sequence_number"] == 1 and f0["sort_order_id"] == 0,
      "entry metadata")
check(f0["lower_bounds"]["2"] == "ffffffffffffffff", "timestamp lower bound")
check(f0["parquet_footer"]["created_by"].startswith("parquet-mr version"), "created_by")
check(f0["parquet_footer"]["root_name"] == "table" and f0["parquet_footer"]["codecs"] == ["ZSTD"],
      "footer")
check(sorted(r["id"] for r in d["rows"]) == [1, 2, 3, 5, 34], "rows")
check({"id": 3, "ts": "1969-12-31T23:59:59.999999", "name": None} in d["rows"], "row values")

r = t["results"]
check(r[0] == [{"value": 3, "human": "3"}, {"value": None, "human": "null"}], f"bucket {r[0]}")
check(r[1][0] == {"value": -1, "human": "1969-12-31"} and r[1][1]["value"] == 0, f"day {r[1]}")
check(r[2] == [{"value": -1, "human": "1969-12"}], f"month {r[2]}")
check(r[3] == [{"value": "ice", "human": "ice"}], f"truncate {r[3]}")
check(r[4] == [{"value": 3, "human": "3"}], f"decimal bucket {r[4]}")
check("error" in r[5], f"day(boolean) must be an error: {r[5]}")
print("parity harness smoke test passed")
EOF
