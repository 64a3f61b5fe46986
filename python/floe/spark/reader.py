"""The read side of floe's Spark data source: the driver plans floe's scan of one snapshot
and packs its files into Spark partitions (:mod:`floe.spark.splits`); each executor reads
its splits with floe's scan and yields Arrow batches."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, InputPartition
from pyspark.sql.pandas.types import from_arrow_schema
from pyspark.sql.types import StructType

from .._errors import FloeError, InvalidInputError
from ..table import Table
from ._options import Options
from .filters import floe_filter
from .splits import plan_task_groups

__all__ = ["FloeFilteringReader", "FloeReader", "read_schema", "spark_schema"]


def read_schema(table: Table, read: Mapping[str, str]) -> pa.Schema:
    """The schema of the rows a read of `table` with the read options `read` returns."""
    scan = _scan(table, read, files=None, snapshot_id=None)
    return scan.schema()


def spark_schema(schema: pa.Schema) -> StructType:
    """`schema` as Spark's (a timestamp without a time zone as TIMESTAMP_NTZ)."""
    return from_arrow_schema(schema, prefer_timestamp_ntz=True)


def _scan(
    table: Table, read: Mapping[str, str], files: list[str] | None, snapshot_id: int | None,
    splits: list[tuple[str, int, int]] | None = None,
) -> Any:
    def number(key: str) -> int | None:
        text = read.get(key)
        if text is None:
            return None
        try:
            return int(text)
        except ValueError:
            raise InvalidInputError(f"option '{key}' must be an integer, not {text!r}")

    if snapshot_id is None:
        snapshot_id = number("snapshot-id")
    return table.scan(
        where=read.get("where"), snapshot_id=snapshot_id, as_of=number("as-of-timestamp")
        if snapshot_id is None else None, files=files, splits=splits,
    )


@dataclass(frozen=True)
class _FilesPartition(InputPartition):
    """One Spark input partition: data files of the snapshot, or byte ranges of them
    (path, start, length), read in order (none: an empty table)."""

    splits: tuple[tuple[str, int, int], ...]


class FloeReader(DataSourceReader):
    """A batch read: the driver plans floe's file tasks (pruned by floe's filter), splits
    them at their row groups and packs the splits into Spark partitions as iceberg-java's
    Spark reader does (``split-size``, ``lookback``, ``file-open-cost`` options, or the
    table's ``read.split.*``); each executor reads its splits with floe's scan and yields
    Arrow batches. Every task reads the snapshot the driver planned. On pyspark 4.1+,
    Spark's pushed filters join the ``where`` option (:class:`FloeFilteringReader`)."""

    def __init__(
        self, parsed: Options, schema: StructType, parallelism: int | None = None
    ) -> None:
        self._parsed = parsed
        self._schema = schema
        self._parallelism = parallelism
        #: The floe filters made of the filters Spark pushed, in the order pushed.
        self.pushed_filters: list[str] = []
        self._plan(parsed.target.load(), snapshot_id=None)

    def _read_options(self) -> Mapping[str, str]:
        parts = [self._parsed.read["where"]] if "where" in self._parsed.read else []
        parts += self.pushed_filters
        if not self.pushed_filters:
            return self._parsed.read
        return {**self._parsed.read, "where": " AND ".join(f"({p})" for p in parts)}

    def _plan(self, table: Table, snapshot_id: int | None) -> None:
        read = self._read_options()
        scan = _scan(table, read, files=None, snapshot_id=snapshot_id)
        self._snapshot_id = scan.snapshot_id
        files = scan.plan_files()
        self._groups = plan_task_groups(table, read, files, self._parallelism)

    def take_filters(self, filters: Sequence[Any]) -> list[Any]:
        """The filters Spark pushes (pyspark 4.1+, with
        ``spark.sql.python.filterPushdown.enabled``; their AND), taken into floe's
        filter where floe selects exactly the rows Spark would: comparisons, IN, IS
        [NOT] NULL, starts-with and their negations, over boolean, integer, decimal,
        string, date and timestamp columns, top-level or nested. floe then prunes
        manifests, files and row groups by them and applies them to the rows, and the
        read is planned again (same snapshot). Returns the filters left to Spark (those
        over floating-point or binary columns, and the kinds floe has no filter for).

        Only with the read option ``push-filters=true``; otherwise every filter is left to
        Spark. Spark (4.1 to 4.3 at least) keeps the read a reader planned after taking
        filters with the DataFrame, and reuses it for the DataFrame's later queries that
        push nothing (``df.count()`` after ``df.where(...)``), which then miss rows: with
        ``push-filters``, load a DataFrame for each query (docs/spark.md, "Reads: executors
        and filter pushdown")."""
        setting = self._parsed.read.get("push-filters", "false").lower()
        if setting not in ("true", "false"):
            raise InvalidInputError(
                f"option 'push-filters' must be true or false, not {setting!r}")
        if setting != "true":
            return list(filters)
        table = self._parsed.target.load()
        left: list[Any] = []
        taken: list[str] = []
        for pushed in filters:
            text = floe_filter(pushed, self._schema)
            if text is not None:
                try:
                    # Binds it to the columns and types of the snapshot read.
                    table.scan(where=text, snapshot_id=self._snapshot_id)
                except (FloeError, ValueError, TypeError):
                    text = None
            if text is None:
                left.append(pushed)
            else:
                taken.append(text)
        if taken:
            self.pushed_filters += taken
            self._plan(table, self._snapshot_id)
        return left

    def partitions(self) -> Sequence[InputPartition]:
        return [_FilesPartition(group) for group in self._groups] or [_FilesPartition(())]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        splits = list(getattr(partition, "splits", ()))
        if not splits or self._snapshot_id is None:
            return
        table = self._parsed.target.load()
        scan = _scan(table, self._read_options(), files=None,
                     snapshot_id=self._snapshot_id, splits=splits)
        yield from scan.to_reader()


class FloeFilteringReader(FloeReader):
    """The reader of a session that pushes filters to Python data sources (pyspark 4.1+,
    ``spark.sql.python.filterPushdown.enabled``): Spark hands it the query's filters
    (:meth:`FloeReader.take_filters`)."""

    def pushFilters(self, filters: list[Any]) -> list[Any]:
        return self.take_filters(filters)
