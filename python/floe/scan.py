"""Scans: the rows of one snapshot of a table, read as its columns and filter need."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ._arrow import reader_from_capsule, schema_from_capsule

if TYPE_CHECKING:
    from .table import Table

__all__ = ["Scan"]


class Scan:
    """A scan of one snapshot: only the files, row groups and Parquet leaves the columns
    and the filter need are read."""

    def __init__(self, table: Table, scan: Any) -> None:
        self._table = table
        self._scan = scan

    @property
    def snapshot_id(self) -> int | None:
        """The snapshot read (None for a table without snapshots)."""
        value = self._scan.snapshot_id()
        return None if value is None else int(value)

    def schema(self) -> pa.Schema:
        """The schema of the rows returned (with field ids)."""
        return schema_from_capsule(self._scan.schema())

    def to_reader(self) -> pa.RecordBatchReader:
        """The rows as a ``pyarrow.RecordBatchReader``, read file after file as it is
        consumed (no column data is copied on the way out)."""
        return reader_from_capsule(self._scan.stream())

    def to_arrow(self) -> pa.Table:
        """The rows as a ``pyarrow.Table``. The files read ahead decode to their end
        without waiting for the ones before them to be taken (``to_reader`` bounds what
        each holds), since the table keeps every row anyway."""
        return reader_from_capsule(self._scan.stream(keeps_all=True)).read_all()

    def plan_files(self) -> list[dict[str, Any]]:
        """The data files that may hold matching rows (after pruning by partition and
        metrics), each with ``file_path``, ``record_count``, ``file_size_in_bytes``,
        ``spec_id``, ``split_offsets`` (its row groups' first bytes, where a reader may
        split it), the ``delete_files`` that apply to it and their ``delete_files_size``
        (bytes; a deletion vector's blob)."""
        return list(self._scan.plan_files())

    @property
    def stats(self) -> dict[str, int]:
        """What was pruned and read so far: manifests, files, row groups, bytes, requests,
        rows (the ``--stats`` of ``floe scan``)."""
        return dict(self._scan.stats())
