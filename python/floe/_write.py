"""The split write, as DESIGN.md draws it, for drivers and executors of other engines.

1. On the driver, ``plan = table.plan_write(...)`` runs the eligibility gate and fixes
   everything the tasks need. The plan pickles to its serialised form.
2. Wherever the rows are (a worker process, a Spark executor), one
   ``floe.WriteTask(plan, partition_id, attempt_id)`` per slice of the input writes Parquet
   data files and ``finish()`` gives its commit message (bytes). A task needs no catalog:
   only the plan and the storage it names.
3. On the driver, one ``committer = table.new_committer(plan)`` takes every message
   (``add``) and commits exactly once (``commit``), or ``abort()`` deletes every file of
   every message it was given.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

from . import _floe
from ._arrow import stream_capsule
from ._results import CommitReport, WriteResult

if TYPE_CHECKING:
    from .table import Table

OPERATIONS = ("append", "dynamic-overwrite", "overwrite")


class WritePlan:
    """A write's plan: immutable, picklable (its pickle is the serialised plan).

    Its repr names the table location, the operation and the write's operation id, never
    the table's properties (they may hold credentials).
    """

    __slots__ = ("_data", "_operation")

    def __init__(self, data: bytes, operation: str = "append") -> None:
        if not isinstance(data, bytes):
            raise TypeError(f"a WritePlan is made of bytes, not {type(data).__name__}")
        if operation not in OPERATIONS:
            raise ValueError(f"operation must be one of {OPERATIONS}, not {operation!r}")
        self._data = data
        self._operation = operation

    @property
    def operation(self) -> str:
        """``"append"``, ``"dynamic-overwrite"`` or ``"overwrite"`` (by the plan's filter):
        what the committer commits."""
        return self._operation

    def to_bytes(self) -> bytes:
        """The serialised WritePlan (what travels to the tasks)."""
        return self._data

    def describe(self) -> dict[str, Any]:
        """The plan's table location, operation id, format version, writer mode and
        distribution (nothing from the table's properties)."""
        return dict(_floe.describe_plan(self._data))

    @property
    def table_location(self) -> str:
        """The location of the table the plan writes."""
        return str(self.describe()["table_location"])

    @property
    def operation_id(self) -> str:
        """Embedded in every data file name of this write."""
        return str(self.describe()["operation_id"])

    def derive(self, part: str) -> WritePlan:
        """This plan with an operation id of its own, derived from this plan's and
        `part`: every process derives the same one. For one plan serving several commits
        (a streaming query's micro-batches), so each commit finds the files of its own
        tasks, and only those, by its id."""
        if not isinstance(part, str):
            raise TypeError(f"part must be a str, not {type(part).__name__}")
        return WritePlan(_floe.derive_plan(self._data, part), self._operation)

    def __reduce__(self) -> tuple[Any, ...]:
        return (WritePlan, (self._data, self._operation))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, WritePlan)
            and other._data == self._data
            and other._operation == self._operation
        )

    def __hash__(self) -> int:
        return hash((self._data, self._operation))

    def __repr__(self) -> str:
        facts = self.describe()
        return (
            f"WritePlan(table_location={facts['table_location']!r}, "
            f"operation={self._operation!r}, operation_id={facts['operation_id']!r})"
        )


class WriteTask:
    """One task of a split write: writes its slice of the rows into Parquet data files.

    ``partition_id`` and ``attempt_id`` must be non-negative and unique per attempt of
    the write (they are part of every file name, so a retried attempt never reuses a
    name). Until ``finish()`` the task owns its files: ``abort()``, an error, or dropping
    the task deletes them. After ``finish()`` they belong to whoever holds the message,
    and a committer that ``add``s it deletes them if the job aborts.

    Use it as a context manager to abort on an exception::

        with floe.WriteTask(plan, partition_id=3, attempt_id=0) as task:
            task.write(batches)
            message = task.finish()
    """

    def __init__(self, plan: WritePlan | bytes, partition_id: int, attempt_id: int) -> None:
        data = plan.to_bytes() if isinstance(plan, WritePlan) else plan
        if not isinstance(data, bytes):
            raise TypeError(f"plan must be a WritePlan or bytes, not {type(plan).__name__}")
        for name, value in (("partition_id", partition_id), ("attempt_id", attempt_id)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, not {type(value).__name__}")
            if value < 0:
                raise ValueError(f"{name} must be non-negative, not {value}")
        self._task = _floe.WriteTask(data, partition_id, attempt_id)

    def write(self, data: Any) -> int:
        """Writes every row of `data` (any Arrow stream, table or batch: see
        ``floe.Table.append``); returns the number of rows. Columns are matched to the
        plan's schema by name and cast safely. On an error the task's files are deleted
        and the task can no longer be used."""
        return int(self._task.write(stream_capsule(data)))

    def finish(self) -> bytes:
        """Closes the task's files and returns its commit message (the TaskCommit
        bytes: the files written and every location opened), for ``Committer.add``."""
        return bytes(self._task.finish())

    def abort(self) -> None:
        """Deletes every file the task wrote. Safe to call more than once."""
        self._task.abort()

    @property
    def open(self) -> bool:
        """False once finished or aborted."""
        return bool(self._task.open)

    def __enter__(self) -> WriteTask:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Left without finish (an exception, or a forgotten finish): nothing is kept.
        self.abort()


class Committer:
    """The one committer of a split write (``Table.new_committer``).

    ``add`` each task's message as it arrives (the committer then owns its files);
    ``commit()`` once, or ``abort()``. A message naming files outside the write's data
    location is refused: no message can make the committer delete another's files.
    """

    def __init__(self, table: Table, committer: Any, operation: str = "append") -> None:
        self._table = table
        self._committer = committer
        self._operation = operation

    def add(self, message: bytes) -> None:
        """Takes ownership of one task's files (InvalidMetadataError for a corrupt or
        foreign message)."""
        if not isinstance(message, bytes):
            raise TypeError(f"a task message is bytes, not {type(message).__name__}")
        self._committer.add(message)

    def set_summary_property(self, key: str, value: str) -> None:
        """Adds ``key=value`` to the snapshot summary of the commit (as iceberg-java's
        ``snapshot-property.<key>`` write options do). A key floe computes itself
        (``added-records``, ``total-*``, ``engine-name``, ...) raises InvalidInputError."""
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("summary properties are str to str")
        self._committer.set_summary_property(key, value)

    def commit(self) -> WriteResult:
        """Commits every file added as one snapshot, refreshing and retrying lost races
        (data files are never rewritten). On failure the files are deleted, except after
        CommitStateUnknownException. Files of this write's task attempts that no message
        reported (a killed worker, a lost speculative attempt) are deleted after the
        commit (see ``unreported_deleted``).

        A dynamic overwrite with no files commits nothing (as Spark's Iceberg writer
        skips an empty dynamic overwrite): ``committed`` is False."""
        if self._operation == "dynamic-overwrite" and self.files == 0:
            self._committer.abort()
            return WriteResult(committed=False, rows=0, data_files=0, commit=None)
        raw = self._committer.commit()
        self._table.refresh()
        return WriteResult(
            committed=True,
            rows=int(raw["rows"]),
            data_files=int(raw["data_files"]),
            commit=CommitReport._of(raw),
        )

    def abort(self) -> int:
        """Deletes the files of every message added; commits nothing. Returns how many
        files could not be deleted (logged)."""
        return int(self._committer.abort())

    @property
    def unreported_deleted(self) -> int:
        """After ``commit()``: the files of lost task attempts it deleted."""
        return int(self._committer.unreported_deleted)

    @property
    def files(self) -> int:
        """Data files added so far."""
        return int(self._committer.files)

    @property
    def rows(self) -> int:
        """Rows in the data files added so far."""
        return int(self._committer.records)
