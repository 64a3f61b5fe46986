"""What floe's operations return."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CommitReport:
    """The snapshot a commit made."""

    snapshot_id: int
    operation: str
    sequence_number: int
    #: 1 when the first compare-and-swap won; more after lost races (each retry rebuilt
    #: only metadata, never the data files).
    attempts: int
    metadata_location: str

    @classmethod
    def _of(cls, raw: dict[str, Any] | None) -> CommitReport | None:
        if raw is None or "snapshot_id" not in raw:
            return None
        return cls(
            snapshot_id=int(raw["snapshot_id"]),
            operation=str(raw["operation"]),
            sequence_number=int(raw["sequence_number"]),
            attempts=int(raw["attempts"]),
            metadata_location=str(raw["metadata_location"]),
        )


class _Committed:
    """What every result that may have committed a snapshot answers."""

    commit: CommitReport | None

    @property
    def snapshot_id(self) -> int | None:
        """The snapshot committed (None when nothing was)."""
        return self.commit.snapshot_id if self.commit else None

    @property
    def attempts(self) -> int:
        """Commit attempts (1 when the first won; 0 when nothing was committed)."""
        return self.commit.attempts if self.commit else 0


@dataclass(frozen=True)
class WriteResult(_Committed):
    """What an append, an overwrite or a split write's commit did."""

    #: False when nothing was committed (a dynamic overwrite of no rows).
    committed: bool
    rows: int
    data_files: int
    commit: CommitReport | None

    @classmethod
    def _of(cls, raw: dict[str, Any]) -> WriteResult:
        return cls(
            committed=bool(raw["committed"]),
            rows=int(raw["rows"]),
            data_files=int(raw["data_files"]),
            commit=CommitReport._of(raw.get("commit")),
        )


@dataclass(frozen=True)
class RowLevelResult(_Committed):
    """What a delete, an update, an upsert, an overwrite by filter or a rewrite did."""

    #: False when no row matched (or nothing needed rewriting): no snapshot was made.
    committed: bool
    rows_removed: int
    files_removed: int
    #: Of the files removed, those whose other rows were written anew.
    files_rewritten: int
    #: Rows written: kept rows of rewritten files, or an overwrite's input.
    rows: int
    data_files: int
    commit: CommitReport | None
    #: Rows an update changed, or table rows an upsert replaced (among ``rows``).
    rows_updated: int = 0
    #: Input rows of an upsert whose key no table row had (among ``rows``).
    rows_inserted: int = 0
    #: Delete files a merge-on-read delete, update or upsert wrote (one per data file it
    #: deleted from: deletion vectors on format v3, position delete files on v2), or that
    #: ``rewrite_position_deletes`` wrote.
    delete_files: int = 0
    #: Delete files a rewrite removed: the deletion vectors of the files it replaced, and
    #: with ``remove_dangling_deletes`` the dangling ones (Spark's
    #: ``removed_delete_files_count``); the files ``rewrite_position_deletes`` replaced.
    delete_files_removed: int = 0

    @classmethod
    def _of(cls, raw: dict[str, Any]) -> RowLevelResult:
        return cls(
            committed=bool(raw["committed"]),
            rows_removed=int(raw["rows_removed"]),
            files_removed=int(raw["files_removed"]),
            files_rewritten=int(raw["files_rewritten"]),
            rows=int(raw["rows"]),
            data_files=int(raw["data_files"]),
            commit=CommitReport._of(raw.get("commit")),
            delete_files=int(raw.get("delete_files", 0)),
            rows_updated=int(raw.get("rows_updated", 0)),
            rows_inserted=int(raw.get("rows_inserted", 0)),
            delete_files_removed=int(raw.get("delete_files_removed", 0)),
        )


@dataclass(frozen=True)
class ExpireResult:
    """What expire_snapshots expired and deleted (or, on a dry run, would)."""

    expired: list[int]
    removed_refs: list[str]
    data_files: list[str]
    manifests: list[str]
    manifest_lists: list[str]
    statistics_files: list[str]
    #: Reachable only from expired snapshots but not the table's own: never deleted.
    kept_outside: list[str]
    delete_failures: int
    #: Set when the commit succeeded but finding the files to delete failed.
    cleanup_error: str
    attempts: int


@dataclass(frozen=True)
class OrphanResult:
    """What remove_orphans found and (unless a dry run) deleted."""

    orphans: list[str]
    bytes: int
    folders: list[str]
    referenced: int
    listed: int
    too_recent: int
    unrecognised: int
    hidden: int
    symbolic_links: int
    other_tables: int
    delete_failures: int


@dataclass(frozen=True)
class ExplainResult:
    """The eligibility gate's answer for a write, and how floe would write it."""

    #: True when floe writes the table exactly as iceberg-java would.
    supported: bool
    #: Why not (property and column names, never values).
    reasons: list[str]
    #: How an append would write (writer mode, distribution, sizes, codec); empty when
    #: declined.
    plan: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class WriteProgress:
    """Progress of a running write, as given to ``progress=`` callables."""

    rows: int
    batches: int
    #: The input is all read: a sorted table's tasks are sorting and writing its rows.
    input_done: bool
    #: Rows a sorted table's tasks have written in sort order so far.
    rows_sorted: int


@dataclass(frozen=True)
class Snapshot:
    """A snapshot of the table (the fields of its metadata JSON)."""

    snapshot_id: int
    parent_snapshot_id: int | None
    sequence_number: int
    timestamp_ms: int
    manifest_list: str
    #: The summary: "operation" and iceberg-java's counters ("added-records", ...).
    summary: dict[str, str]
    schema_id: int | None

    @property
    def operation(self) -> str:
        """The summary's operation: append, overwrite, delete or replace."""
        return self.summary.get("operation", "")

    @classmethod
    def _of(cls, raw: dict[str, Any]) -> Snapshot:
        return cls(
            snapshot_id=int(raw["snapshot-id"]),
            parent_snapshot_id=raw.get("parent-snapshot-id"),
            sequence_number=int(raw.get("sequence-number", 0)),
            timestamp_ms=int(raw["timestamp-ms"]),
            manifest_list=str(raw.get("manifest-list", "")),
            summary={str(k): str(v) for k, v in raw.get("summary", {}).items()},
            schema_id=raw.get("schema-id"),
        )
