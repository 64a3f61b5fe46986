#!/usr/bin/env bash
# floe's main job on the embedded default (./warehouse with its SQLite catalog): generate a
# realistic data set, create a partitioned table, append it, inspect it, scan a projection, and
# read the same table with pyiceberg to show both engines see the same rows.
set -euo pipefail
floe="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python=.venv/bin/python
table=demo.events
rows=${FLOE_DEMO_ROWS:-1000000}
data=build/demo-data

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "generating ${rows} deterministic order events in ${data}/"
rm -rf "$data"
$python tests/data/generate_events.py --rows "$rows" --files 4 --out "$data" >/dev/null
ls -l "$data"

step "creating ${table} in ./warehouse (SQLite catalog ./warehouse/catalog.db)"
if "$floe" describe "$table" >/dev/null 2>&1; then
  "$floe" drop "$table"
  rm -rf warehouse/demo/events
fi
schema=$($python -c 'import sys; sys.path.insert(0, "tests/data"); import generate_events; print(generate_events.SCHEMA_TEXT)')
"$floe" create "$table" --schema "$schema" --partition-by region

step "appending (2 write tasks, one commit)"
"$floe" append "$table" "$data"/*.parquet --threads 2

step "floe describe ${table}"
"$floe" describe "$table"

step "floe snapshots ${table}"
"$floe" snapshots "$table"

step "floe files ${table}"
"$floe" files "$table"

step "floe scan ${table} --columns order_id,region,amount,address --limit 10"
"$floe" scan "$table" --columns order_id,region,amount,address --limit 10

step "reading the same table with pyiceberg and comparing with floe's scan"
"$floe" scan "$table" --format parquet --output build/demo-scan.parquet
$python - "$table" <<'PY'
import os, sys
sys.path.insert(0, "tests/interop")
from arrow_compare import differences
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog

warehouse = os.path.abspath("warehouse")
catalog = SqlCatalog("floe", uri=f"sqlite:///{warehouse}/catalog.db", warehouse=f"file://{warehouse}")
table = catalog.load_table(sys.argv[1])
theirs = table.scan().to_arrow().sort_by("order_id")
ours = pq.read_table("build/demo-scan.parquet").sort_by("order_id")
print(f"pyiceberg read {theirs.num_rows:,} rows; floe read {ours.num_rows:,} rows")
problems = differences(theirs, ours)
same = not problems
for problem in problems:
    print("  difference:", problem)
summary = table.current_snapshot().summary
print(f"snapshot summary: total-records={summary['total-records']} total-data-files={summary['total-data-files']}")
print("identical rows in both engines:", same)
print("amount sum:", pc.sum(theirs.column("amount")).as_py())
sys.exit(0 if same else 1)
PY

step "what to run next"
cat <<TXT
  build/release/src/floe/cli/floe scan ${table} --columns customer,amount --format csv --limit 5
  build/release/src/floe/cli/floe files ${table}
  build/release/src/floe/cli/floe append ${table} ${data}/events-00.parquet   # a second snapshot
  build/release/src/floe/cli/floe scan ${table} --snapshot <first snapshot id> --stats
  make test    # every test;   make bench   # the write benchmark
TXT
