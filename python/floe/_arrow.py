"""Arrow data across the boundary, through the Arrow PyCapsule interface (no copies)."""

from __future__ import annotations

import weakref
from typing import Any

import pyarrow as pa

# The pyarrow readers floe has read: a reader is read once, and a second read of one
# would silently give no rows (an empty append).
_consumed: weakref.WeakSet[pa.RecordBatchReader] = weakref.WeakSet()


class _StreamHolder:
    """Hands a C stream capsule made by floe._floe to pyarrow, once."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise ValueError("this floe stream was already read")
        return capsule


class _SchemaHolder:
    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_schema__(self) -> Any:
        return self._capsule


def reader_from_capsule(capsule: Any) -> pa.RecordBatchReader:
    """A pyarrow.RecordBatchReader over a stream capsule floe._floe exported."""
    return pa.RecordBatchReader.from_stream(_StreamHolder(capsule))


def schema_from_capsule(capsule: Any) -> pa.Schema:
    return pa.schema(_SchemaHolder(capsule))


def stream_capsule(data: Any) -> Any:
    """An ``arrow_array_stream`` capsule for any object that exports Arrow data.

    Takes whatever implements ``__arrow_c_stream__`` (pyarrow Table and
    RecordBatchReader, polars DataFrame, DuckDB relations, pandas DataFrames of recent
    pandas, nanoarrow, ...), anything implementing ``__arrow_c_array__`` (a RecordBatch
    or a struct array), and pandas DataFrames (converted by pyarrow, without the index).
    """
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    if isinstance(data, pa.RecordBatchReader):
        if data in _consumed:
            raise ValueError(
                "this RecordBatchReader was already read by floe; a reader gives its rows "
                "once (pass a new reader, or a pyarrow.Table to write the same rows again)"
            )
        _consumed.add(data)
    exporter = getattr(data, "__arrow_c_stream__", None)
    if exporter is not None:
        return exporter()
    if hasattr(data, "__arrow_c_array__"):
        return pa.Table.from_batches([pa.record_batch(data)]).__arrow_c_stream__()
    module = type(data).__module__ or ""
    if module.startswith("pandas"):
        return pa.Table.from_pandas(data, preserve_index=False).__arrow_c_stream__()
    if module.startswith("duckdb") and hasattr(data, "fetch_record_batch"):
        return data.fetch_record_batch().__arrow_c_stream__()
    raise TypeError(
        "floe takes Arrow data: an object exporting __arrow_c_stream__ (a pyarrow Table or "
        "RecordBatchReader, a polars DataFrame, a DuckDB relation) or a pandas DataFrame, "
        f"not {type(data).__name__}"
    )


def schema_capsule(schema: Any) -> Any:
    """An ``arrow_schema`` capsule for a pyarrow.Schema (or anything exporting one)."""
    exporter = getattr(schema, "__arrow_c_schema__", None)
    if exporter is None:
        raise TypeError(f"expected a pyarrow.Schema, not {type(schema).__name__}")
    return exporter()
