"""The write side of floe's Spark data source: the driver plans the write (the gate runs
there) and commits once; each Spark task writes with one of floe's WriteTasks. Batch and
streaming (one snapshot per micro-batch) writes, and the distribution Spark's Iceberg
writer requests for a table (:func:`distribute`)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.datasource import (
    DataSourceArrowWriter,
    DataSourceStreamWriter,
    WriterCommitMessage,
)
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import StructType

from .._errors import InvalidInputError
from .._write import WritePlan, WriteTask
from ..table import Table
from ._options import Options

__all__ = ["APP_ID_PROPERTY", "EPOCH_ID_PROPERTY", "QUERY_ID_PROPERTY", "FloeBatchWriter",
           "FloeCommitMessage", "FloeStreamWriter", "distribute"]

#: The summary keys iceberg-java's Spark writer records (SparkWrite): the application,
#: and for a streaming write the query and its epoch (batch id).
APP_ID_PROPERTY = "spark.app.id"
QUERY_ID_PROPERTY = "spark.sql.streaming.queryId"
EPOCH_ID_PROPERTY = "spark.sql.streaming.epochId"
#: The local property Spark's micro-batch execution gives every task of a batch.
_BATCH_ID_KEY = "streaming.sql.batchId"


@dataclass(frozen=True)
class FloeCommitMessage(WriterCommitMessage):
    """What one Spark task hands the driver: floe's TaskCommit bytes (the files written
    and every location opened) and who wrote them."""

    task_commit: bytes
    partition_id: int
    attempt_id: int
    rows: int
    #: The streaming query's id (Spark's local property), for a streaming write.
    query_id: str | None = None
    #: The micro-batch (Spark's batch id) whose plan the task wrote with, for a stream.
    epoch: int | None = None


def _plan(parsed: Options, schema: StructType, overwrite: bool) -> WritePlan:
    """Plans the write on the driver: the gate runs here (a decline raises with its
    reasons before any task runs), and the Spark schema is conformed to the table's the
    way each task will conform its rows, so that a missing required column or an unsafe
    cast fails here too, with nothing written."""
    table = parsed.target.load()
    where = parsed.read.get("where")
    if where is not None and not overwrite:
        raise InvalidInputError(
            "option 'where' replaces the rows matching it: write with mode('overwrite')"
        )
    if where is not None:
        plan = table.plan_write(parsed.write, "overwrite", where=where)
    else:
        plan = table.plan_write(parsed.write, "dynamic-overwrite" if overwrite else "append")
    empty = to_arrow_schema(schema).empty_table()
    probe = WriteTask(plan, 0, 0)
    try:
        probe.write(empty)  # no rows: no file is opened
    finally:
        probe.abort()
    return plan


def _task_ids() -> tuple[int, int]:
    """Spark's partition id, and its task attempt id, unique across the application: a
    retried or speculative attempt, or a later micro-batch, never reuses a file name."""
    context = TaskContext.get()
    if context is None:
        raise RuntimeError("floe's Spark writer runs inside a Spark task")
    return context.partitionId(), context.taskAttemptId()


def _epoch_plan(plan: WritePlan, epoch: int) -> WritePlan:
    """The plan of one micro-batch: the query's plan with an operation id of the batch's
    own (WritePlan.derive), so that each batch's commit finds exactly its own tasks' files
    and never needs to read what earlier batches committed."""
    return plan.derive(f"epoch-{epoch}")


def _write_task(
    plan: WritePlan, batches: Iterator[pa.RecordBatch], streaming: bool = False
) -> FloeCommitMessage:
    partition_id, attempt_id = _task_ids()
    context = TaskContext.get()
    query_id = context.getLocalProperty("sql.streaming.queryId") if context else None
    epoch = None
    if streaming:
        batch = context.getLocalProperty(_BATCH_ID_KEY) if context else None
        if batch is None:
            raise RuntimeError(
                f"floe's stream writer runs in a micro-batch, but Spark set no {_BATCH_ID_KEY}"
            )
        epoch = int(batch)
        plan = _epoch_plan(plan, epoch)
    rows = 0
    # A task owns its files until finish(): an exception, or the Python worker being
    # stopped, deletes them (a SIGKILL leaves them to the driver's sweep by operation id).
    batches = iter(batches)
    with WriteTask(plan, partition_id, attempt_id) as task:
        first = next(batches, None)
        if first is not None:
            reader = pa.RecordBatchReader.from_batches(
                first.schema, itertools.chain([first], batches)
            )
            rows = task.write(reader)
        message = task.finish()
    return FloeCommitMessage(message, partition_id, attempt_id, rows, query_id, epoch)


class FloeBatchWriter(DataSourceArrowWriter):
    """A batch write: planned once on the driver, one floe WriteTask per Spark task,
    one commit on the driver. Pickled to the executors with the plan inside."""

    def __init__(
        self, parsed: Options, schema: StructType, overwrite: bool, app_id: str | None
    ) -> None:
        self._parsed = parsed
        self._plan = _plan(parsed, schema, overwrite)
        self._app_id = app_id

    @property
    def plan(self) -> WritePlan:
        return self._plan

    def write(self, iterator: Iterator[pa.RecordBatch]) -> FloeCommitMessage:
        return _write_task(self._plan, iterator)

    def _committer(
        self,
        messages: Sequence[WriterCommitMessage | None],
        abort_only: bool = False,
        plan: WritePlan | None = None,
    ) -> Any:
        table = self._parsed.target.load()
        committer = table.new_committer(plan or self._plan, abort_only=abort_only)
        for message in messages:
            if isinstance(message, FloeCommitMessage):
                committer.add(message.task_commit)
        return committer

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        committer = self._committer(messages)
        try:
            _summarize(committer, self._parsed.summary, self._app_id)
        except BaseException:
            committer.abort()
            raise
        committer.commit()

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        self._committer(messages, abort_only=True).abort()


class FloeStreamWriter(FloeBatchWriter, DataSourceStreamWriter):
    """A streaming write: one snapshot per micro-batch, exactly once across restarts.

    Each commit records the query id and the epoch (batch id) in the snapshot summary,
    as Iceberg's own Spark streaming sink does; a replayed epoch that the table already
    holds commits nothing and deletes the replay's files. One plan serves the query;
    task attempt ids are unique across the application, so batches never share a file
    name; each batch's tasks write with a plan of the batch's own operation id
    (WritePlan.derive), which its commit or abort looks for.
    """

    def write(self, iterator: Iterator[pa.RecordBatch]) -> FloeCommitMessage:
        return _write_task(self._plan, iterator, streaming=True)

    def commit(  # type: ignore[override]
        self, messages: list[WriterCommitMessage | None], batchId: int
    ) -> None:
        ours = [m for m in messages if isinstance(m, FloeCommitMessage)]
        query_ids = {m.query_id for m in ours if m.query_id}
        if len(query_ids) > 1:
            raise InvalidInputError(f"micro-batch {batchId} has tasks of several queries")
        strays = sorted({m.epoch for m in ours if m.epoch != batchId}, key=str)
        if strays:
            raise InvalidInputError(
                f"micro-batch {batchId} was handed task messages of micro-batch {strays[0]}"
            )
        query_id = query_ids.pop() if query_ids else None
        committer = self._committer(messages, plan=_epoch_plan(self._plan, batchId))
        try:
            table = self._parsed.target.load()
            if query_id is not None and _epoch_committed(table, query_id, batchId):
                committer.abort()  # a replay of a committed epoch: its rows are there
                return
            summary = dict(self._parsed.summary)
            if query_id is not None:
                summary[QUERY_ID_PROPERTY] = query_id
                summary[EPOCH_ID_PROPERTY] = str(batchId)
            _summarize(committer, summary, self._app_id)
        except BaseException:
            committer.abort()
            raise
        committer.commit()

    def abort(  # type: ignore[override]
        self, messages: list[WriterCommitMessage | None], batchId: int
    ) -> None:
        self._committer(messages, abort_only=True, plan=_epoch_plan(self._plan, batchId)).abort()


def _epoch_committed(table: Table, query_id: str, epoch: int) -> bool:
    """True when a snapshot of the table's current history records this query's epoch
    (iceberg-java's streaming sink looks the same way, newest first)."""
    by_id = {s.snapshot_id: s for s in table.snapshots()}
    snapshot = table.current_snapshot()
    while snapshot is not None:
        summary = snapshot.summary
        if summary.get(QUERY_ID_PROPERTY) == query_id:
            return int(summary.get(EPOCH_ID_PROPERTY, "-1")) >= epoch
        parent = snapshot.parent_snapshot_id
        snapshot = by_id.get(parent) if parent is not None else None
    return False


def _summarize(committer: Any, summary: Mapping[str, str], app_id: str | None) -> None:
    for key, value in summary.items():
        committer.set_summary_property(key, value)
    if app_id:
        committer.set_summary_property(APP_ID_PROPERTY, app_id)


# ---- Distribution ---------------------------------------------------------------------


def distribute(df: DataFrame, table: Table, options: Mapping[str, str] | None = None) -> DataFrame:
    """`df` repartitioned as Spark's Iceberg writer requests for `table`: with a hash
    distribution (the default on a partitioned table) each table partition's rows go to
    one Spark task, so floe writes as many files per partition as Spark's writer would.
    ``write.distribution-mode=none`` (in `options` or the table's properties), or an
    unpartitioned table, keeps `df` as it is."""
    properties = {**table.properties, **(options or {})}
    mode = properties.get("write.distribution-mode", "hash")
    fields = table.spec().get("fields", [])
    if mode == "none" or not fields:
        return df
    names = _column_names(table.schema())
    keys = []
    for field in fields:
        source = names[int(field["source-id"])]
        transform = str(field["transform"])
        if transform == "void":
            continue
        keys.append(_partition_key(table, source, transform))
    return df.repartition(*keys) if keys else df


def _column_names(schema: pa.Schema) -> dict[int, str]:
    """Field id -> full dotted name, through structs."""
    out: dict[int, str] = {}

    def visit(field: pa.Field, prefix: str) -> None:
        name = prefix + field.name
        metadata = field.metadata or {}
        if b"PARQUET:field_id" in metadata:
            out[int(metadata[b"PARQUET:field_id"])] = name
        if pa.types.is_struct(field.type):
            for child in field.type:
                visit(child, name + ".")

    for field in schema:
        visit(field, "")
    return out


def _partition_key(table: Table, source: str, transform: str) -> Any:
    """A Spark column equal for two rows exactly when the partition field is."""
    column = F.col(source)
    if transform == "identity":
        return column
    if transform in ("year", "month", "day", "hour"):
        return F.date_trunc(transform, column)
    # bucket[N] and truncate[W]: floe's own kernels, so the grouping is the partitioning.
    from pyspark.sql.pandas.functions import pandas_udf

    import pandas as pd  # type: ignore[import-untyped]

    transformer = _Transformer(table.column_schema_json(source), transform)

    def partition_value(values: Any) -> Any:
        return transformer(values)

    # Series to Series: a scalar pandas UDF (the annotations say so to Spark).
    partition_value.__annotations__ = {"values": pd.Series, "return": pd.Series}
    result_type = "int" if transform.startswith("bucket") else "string"
    return pandas_udf(partition_value, result_type)(column)  # type: ignore[call-overload]


class _Transformer:
    """Picklable: applies one partition transform on an executor with floe's kernel (no
    catalog needed there). A truncated value is returned as text (equal exactly when the
    values are): only equality matters for the grouping."""

    def __init__(self, schema_json: str, transform: str) -> None:
        self._schema_json = schema_json
        self._transform = transform

    def __call__(self, values: Any) -> Any:
        import pandas as pd

        from ..table import apply_transform

        result = apply_transform(self._schema_json, self._transform, pa.array(values))
        if self._transform.startswith("bucket"):
            return pd.Series(result.to_pylist(), dtype="Int32")
        return pd.Series([None if v is None else str(v) for v in result.to_pylist()],
                         dtype="object")
