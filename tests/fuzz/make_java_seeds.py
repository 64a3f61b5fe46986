#!/usr/bin/env python3
"""Regenerates the iceberg-java seeds of the fuzz corpora (tests/fuzz/corpus/*/java-*).

  .venv/bin/python tests/fuzz/make_java_seeds.py

Writes two small tables with iceberg-java's own writers through the parity harness
(tests/parity/run-harness.sh): format v1 and v2, partitioned by day(ts) and bucket[4](id), with a
struct, a list and a map column, and copies the metadata JSON, a manifest, the manifest list and
a data file into the table_metadata, manifest and data_file_reader corpora. Seeds stay
small (the fuzzers mutate them; a few KB each is plenty)."""

import datetime
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
HARNESS = ROOT / "tests" / "parity" / "run-harness.sh"


def field(name, typ, fid, nullable=True):
    return pa.field(name, typ, nullable=nullable, metadata={"PARQUET:field_id": str(fid)})


def write_input(path):
    point = pa.struct([field("x", pa.float64(), 10), field("label", pa.string(), 11)])
    tags = pa.list_(field("element", pa.string(), 12))
    attrs = pa.map_(field("key", pa.string(), 13, False), field("value", pa.int32(), 14))
    schema = pa.schema([field("id", pa.int64(), 1, False), field("ts", pa.timestamp("us"), 2),
                        field("name", pa.string(), 3), field("point", point, 4),
                        field("tags", tags, 5), field("attrs", attrs, 6)])
    ts = datetime.datetime
    pq.write_table(pa.table({
        "id": [1, 2, 3, 34, -7],
        "ts": [ts(2024, 1, 1, 1), ts(1969, 12, 31, 23, 59, 59), None, ts(2262, 4, 1), ts(1900, 1, 1)],
        "name": ["a", "ü/é %", None, "d\x00e", ""],
        "point": [{"x": -0.0, "label": "p"}, {"x": float("nan"), "label": None}, None,
                  {"x": 1.5, "label": "q"}, {"x": None, "label": "r"}],
        "tags": [["t1", None], [], None, ["x"], ["y", "z"]],
        "attrs": [[("k", 1)], [], None, [("a", None), ("b", 2)], [("c", 3)]],
    }, schema=schema), path)


def request(work, version):
    struct = {"type": "struct", "fields": [
        {"id": 10, "name": "x", "required": False, "type": "double"},
        {"id": 11, "name": "label", "required": False, "type": "string"}]}
    return {
        "table_location": f"{work}/v{version}",
        "format_version": version,
        "schema": {"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"},
            {"id": 2, "name": "ts", "required": False, "type": "timestamp"},
            {"id": 3, "name": "name", "required": False, "type": "string"},
            {"id": 4, "name": "point", "required": False, "type": struct},
            {"id": 5, "name": "tags", "required": False, "type": {
                "type": "list", "element-id": 12, "element-required": False, "element": "string"}},
            {"id": 6, "name": "attrs", "required": False, "type": {
                "type": "map", "key-id": 13, "key": "string", "value-id": 14,
                "value-required": False, "value": "int"}}]},
        "partition_spec": {"spec-id": 0, "fields": [
            {"name": "ts_day", "transform": "day", "source-id": 2, "field-id": 1000},
            {"name": "id_bucket", "transform": "bucket[4]", "source-id": 1, "field-id": 1001}]},
        "sort_order": {"order-id": 0, "fields": []},
        "properties": {"write.parquet.compression-codec": "zstd"},
        "mode": "fanout",
        "input_files": [f"{work}/in.parquet"],
        "partition_id": 0, "task_id": 0, "operation_id": "seed"}


def main():
    with tempfile.TemporaryDirectory() as work:
        write_input(f"{work}/in.parquet")
        for version in (1, 2):
            (pathlib.Path(work) / "req.json").write_text(json.dumps(request(work, version)))
            out = subprocess.run([str(HARNESS), "write", f"{work}/req.json"], check=True,
                                 capture_output=True, text=True).stdout
            result = json.loads(out)
            metadata = pathlib.Path(result["metadata_location"].removeprefix("file:"))
            shutil.copy(metadata, CORPUS / "table_metadata" / f"java-v{version}.json")
            meta_dir = metadata.parent
            lists = sorted(meta_dir.glob("snap-*.avro"))
            manifests = sorted(p for p in meta_dir.glob("*.avro") if not p.name.startswith("snap-"))
            shutil.copy(lists[0], CORPUS / "manifest" / f"java-v{version}-list.avro")
            shutil.copy(manifests[0], CORPUS / "manifest" / f"java-v{version}-manifest.avro")
            if version == 2:  # the data files of both versions are alike
                data = sorted((pathlib.Path(work) / f"v{version}" / "data").rglob("*.parquet"))
                shutil.copy(data[0], CORPUS / "data_file_reader" / "java.parquet")
    for path in sorted(CORPUS.glob("*/java-*")):
        print(f"{path.relative_to(ROOT)}  {path.stat().st_size} bytes")


if __name__ == "__main__":
    sys.exit(main())
