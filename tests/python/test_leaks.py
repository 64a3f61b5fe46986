"""No leak: 2,000 small appends and scans in one process keep RSS within a bound."""

import subprocess
import sys
import textwrap

# Measured here: the process grew by 1.8 MiB over the measured 1,800 operations
# (Arrow's allocator keeps some pages; SQLite its cache). A leak of one small batch's
# buffers per operation (~30 KiB) would add over 50 MiB.
BOUND_MIB = 24

SCRIPT = textwrap.dedent(
    """
    import resource, sys
    import pyarrow as pa
    import floe

    def rss_mib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20

    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("s", pa.string())])
    catalog = floe.Catalog(warehouse=sys.argv[1])
    catalog.create_namespace("db")
    tables = [catalog.create_table(f"db.t{i}", schema) for i in range(20)]
    data = pa.table({"id": range(500), "s": ["v" * 40] * 500}, schema=schema)
    baseline = None
    for op in range(2000):
        table = tables[(op // 2) % 20]
        if op % 2 == 0:
            table.append(data)
        else:
            assert table.scan(columns=["id"]).to_arrow().num_rows > 0
        if op == 199:
            baseline = rss_mib()
    print(baseline, rss_mib())
    """
)


def test_two_thousand_appends_and_scans_keep_rss_bounded(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "wh")], capture_output=True, text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    baseline, final = map(float, result.stdout.split())
    print(f"RSS after 200 operations {baseline:.1f} MiB, after 2000 {final:.1f} MiB")
    assert final - baseline < BOUND_MIB, (baseline, final)
