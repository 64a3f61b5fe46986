"""Compaction of Delta tables by path (`floe rewrite PATH`, delta-spark's OPTIMIZE by
bin-packing): deltalake and pyarrow read the same rows after it; its adds and removes change
no data; it leaves the files per partition that deltalake's own compaction leaves, packs bins
as delta-spark's OptimizeExecutor does, never conflicts with a concurrent append, fails on a
concurrent remove of a file it rewrites, and a refused or failed compaction leaves storage
as it was."""

import json
import shutil
import urllib.parse
from collections import Counter, defaultdict

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

deltalake = pytest.importorskip("deltalake")
from deltalake import DeltaTable  # noqa: E402

from test_delta_dml import (_paused, build_table, deltalake_appends,  # noqa: E402
                            last_commit, rows)
from test_delta_read import assert_same_rows  # noqa: E402
from test_delta_write import floe, storage  # noqa: E402


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A table of 8 appends by 1 to 4 tasks: 8 small files in most of its 10 hostile
    regions (null, empty, `x=y`, `US/East`, `ünï`, `100%`, ...)."""
    return build_table(tmp_path_factory.mktemp("template"), 8)


@pytest.fixture
def table(template, tmp_path):
    copy = tmp_path / "t"
    shutil.copytree(template, copy)
    return copy


def live(table) -> list:
    """The live adds, as deltalake lists them: (path, partition values, size)."""
    dt = DeltaTable(str(table))
    actions = pa.table(dt.get_add_actions(flatten=True)).to_pydict()
    regions = actions["partition.region"]
    return [(urllib.parse.unquote(p), r, s)
            for p, r, s in zip(actions["path"], regions, actions["size_bytes"])]


def data_files(table) -> dict:
    return {n: h for n, h in storage(table).items() if not n.startswith("_delta_log/")}


def expected_bins(files, min_size, max_size):
    """delta-spark's OptimizeExecutor (4.0) bins: per partition the files under min_size,
    smallest first, packed while their sizes sum to at most max_size; bins of one file
    dropped. Returns the multiset of bin sizes (file counts) per partition."""
    by_region = defaultdict(list)
    for _, region, size in files:
        if size < min_size:
            by_region[region].append(size)
    bins = {}
    for region, sizes in by_region.items():
        counts, current, total = [], 0, 0
        for size in sorted(sizes):
            if current and total + size > max_size:
                counts.append(current)
                current, total = 0, 0
            current += 1
            total += size
        counts.append(current)
        kept = sorted(c for c in counts if c > 1)
        if kept:
            bins[region] = kept
    return bins


def test_compaction_keeps_every_row_and_packs_each_partition_into_one_file(table, tmp_path):
    before_rows = rows(table)
    before_files = live(table)
    before_storage = data_files(table)
    regions = Counter(r for _, r, _ in before_files)
    assert max(regions.values()) >= 8, regions
    # deltalake's own compaction of a copy: one file per region too.
    theirs = tmp_path / "theirs"
    shutil.copytree(table, theirs)
    DeltaTable(str(theirs)).optimize.compact()
    result = floe("rewrite", table, "--threads", 4)
    assert "compacted" in result.stdout and "as version 9" in result.stdout, result.stdout
    after = live(table)
    assert Counter(r for _, r, _ in after) == {r: 1 for r in regions}
    # (deltalake's replay keeps the files its own removes spell percent-encoded in the
    # non-ASCII region live: see test_delta_dml.NON_ASCII.)
    assert Counter(r for _, r, _ in live(theirs) if r != "ünï") == {
        r: 1 for r in regions if r != "ünï"}
    assert_same_rows(rows(table), before_rows, "after compaction (deltalake)")
    # pyarrow reads the new files themselves: every row once, in its region's file.
    for path, region, _ in after:
        held = pq.read_table(table / path)
        assert held.num_rows == before_rows.filter(
            pc.field("region").is_null() if region is None else
            pc.field("region") == region).num_rows, path
    # The commit: adds and removes that change no data, operation OPTIMIZE.
    commit = last_commit(table)
    info = next(a["commitInfo"] for a in commit if "commitInfo" in a)
    assert info["operation"] == "OPTIMIZE"
    assert info["operationParameters"] == {"predicate": "[]", "zOrderBy": "[]",
                                           "clusterBy": "[]", "auto": False}
    assert info["isolationLevel"] == "SnapshotIsolation" and info["isBlindAppend"] is False
    added = [a["add"] for a in commit if "add" in a]
    removed = [a["remove"] for a in commit if "remove" in a]
    assert all(a["dataChange"] is False for a in added + removed)
    assert all("stats" in a and json.loads(a["stats"])["numRecords"] > 0 for a in added)
    sizes = sorted(a["size"] for a in added)
    metrics = info["operationMetrics"]
    assert metrics["numAddedFiles"] == str(len(added)) == str(len(regions))
    assert metrics["numRemovedFiles"] == str(len(removed)) == str(len(before_files))
    assert metrics["numAddedBytes"] == str(sum(sizes))
    assert metrics["numRemovedBytes"] == str(sum(s for _, _, s in before_files))
    assert (metrics["minFileSize"], metrics["p50FileSize"], metrics["maxFileSize"]) == (
        str(sizes[0]), str(sizes[len(sizes) // 2]), str(sizes[-1]))
    # Storage: every old file still there, unchanged (vacuum's to delete); the new ones
    # are exactly the adds.
    now = data_files(table)
    assert {n: now[n] for n in before_storage} == before_storage
    assert set(now) - set(before_storage) == {urllib.parse.unquote(a["path"]) for a in added}
    # Nothing left to compact: no version.
    again = floe("rewrite", table)
    assert "no version committed" in again.stdout, again.stdout
    assert DeltaTable(str(table)).version() == 9


def test_bins_are_packed_as_delta_spark_packs_them(table):
    files = live(table)
    sizes = sorted(s for _, _, s in files)
    min_size, max_size = sizes[len(sizes) * 3 // 4], 3 * sizes[len(sizes) // 2]
    bins = expected_bins(files, min_size, max_size)
    assert any(len(b) > 1 for b in bins.values()), bins  # several bins in some region
    floe("rewrite", table, "--min-file-size", min_size, "--max-file-size", max_size,
         "--threads", 3)
    commit = last_commit(table)
    removed = {urllib.parse.unquote(a["remove"]["path"]) for a in commit if "remove" in a}
    added = [a["add"] for a in commit if "add" in a]
    # Exactly the files of bins of two or more were removed; one file was added per bin.
    assert removed <= {p for p, r, s in files if r in bins and s < min_size}
    assert len(removed) == sum(sum(b) for b in bins.values())
    assert Counter(a["partitionValues"]["region"] for a in added) == Counter(
        {r: len(b) for r, b in bins.items()})
    assert DeltaTable(str(table)).to_pyarrow_table().num_rows == 8 * 53


def test_a_partition_predicate_compacts_only_its_partitions(table):
    before = data_files(table)
    log = storage(table / "_delta_log")
    # Iceberg's rewrite settings are refused on a Delta table, not ignored.
    for flags in (["--option", "write.target-file-size-bytes=1"], ["--min-input-files", "2"]):
        refused = floe("rewrite", table, *flags, check=False)
        assert refused.returncode != 0 and "do not apply to a Delta table" in refused.stderr
    refused = floe("rewrite", table, "--where", "id < 10", check=False)
    assert refused.returncode != 0
    assert "partition columns only" in refused.stderr and "id < 10" in refused.stderr
    assert data_files(table) == before and storage(table / "_delta_log") == log
    floe("rewrite", table, "--where", "region = 'x=y' OR region IS NULL")
    commit = last_commit(table)
    info = next(a["commitInfo"] for a in commit if "commitInfo" in a)
    assert json.loads(info["operationParameters"]["predicate"]) == [
        "region = 'x=y' OR region IS NULL"]
    touched = {a[k]["partitionValues"]["region"] for a in commit for k in ("add", "remove")
               if k in a}
    assert touched == {"x=y", None}


def test_a_concurrent_append_never_conflicts_with_a_compaction(table):
    before = rows(table).num_rows
    compaction = _paused(["rewrite", table])
    deltalake_appends(table, "x=y")  # into a region being compacted
    out, err = compaction.communicate(timeout=300)
    assert compaction.returncode == 0, err
    assert "as version 10" in out and "attempt 2" in out, out
    got = rows(table)
    assert got.num_rows == before + 10
    assert got.filter(pc.field("id") >= 7000).num_rows == 10
    # The appended file stays live beside the compacted one.
    assert Counter(r for _, r, _ in live(table))["x=y"] == 2


def test_a_concurrent_remove_of_a_compacted_file_fails_the_compaction(table):
    before = rows(table)
    files = data_files(table)
    compaction = _paused(["rewrite", table])
    DeltaTable(str(table)).delete("id < 10 AND region = 'plain'")
    out, err = compaction.communicate(timeout=300)
    assert compaction.returncode != 0, out
    assert "ConcurrentDeleteReadException" in err and "nothing was committed" in err, err
    assert DeltaTable(str(table)).version() == 9  # deltalake's delete
    # The compaction's files are gone: only deltalake's delete added one.
    new = set(data_files(table)) - set(files)
    assert new == {urllib.parse.unquote(a["add"]["path"]) for a in last_commit(table)
                   if "add" in a}
    gone = before.filter((pc.field("id") < 10) & (pc.field("region") == "plain"))
    assert rows(table).num_rows == before.num_rows - gone.num_rows


def test_an_append_only_table_compacts_but_refuses_a_delete(tmp_path):
    table = tmp_path / "t"
    floe("create", table, "--schema", "id long, region string", "--partition-by", "region",
         "--property", "delta.appendOnly=true")
    for i in range(3):
        (tmp_path / f"{i}.csv").write_text("id,region\n" + "".join(
            f"{i * 10 + j},r{j % 2}\n" for j in range(10)))
        floe("append", table, tmp_path / f"{i}.csv")
    refused = floe("delete", table, "--where", "id = 1", check=False)
    assert refused.returncode != 0 and "delta.appendOnly" in refused.stderr
    floe("rewrite", table)
    assert Counter(r for _, r, _ in live(table)) == {"r0": 1, "r1": 1}
    assert sorted(DeltaTable(str(table)).to_pyarrow_table()["id"].to_pylist()) == list(range(30))
