"""iceberg-java's split planning, as its Spark reader plans a scan: each file cut into
splits at its row groups (BaseContentScanTask.split), the splits packed into tasks
(TableScanUtil.planTaskGroups), the split size adapted to the read's parallelism. Needs no
Spark: the driver of any engine may plan its read tasks so."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._errors import InvalidInputError
from ..table import Table

__all__ = ["Split", "plan_task_groups"]

#: How iceberg-java's Spark reader packs files into tasks: (read option, table property,
#: default).
_SPLIT_SIZE = ("split-size", "read.split.target-size", 134217728)
_LOOKBACK = ("lookback", "read.split.planning-lookback", 10)
_FILE_OPEN_COST = ("file-open-cost", "read.split.open-file-cost", 4194304)


def _split_setting(table: Table, read: Mapping[str, str], setting: tuple[str, str, int]) -> int:
    option, prop, default = setting
    text = read.get(option, table.properties.get(prop))
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        source = f"option '{option}'" if option in read else f"table property '{prop}'"
        raise InvalidInputError(f"{source} must be a positive integer")
    return value


def _split_size(table: Table, read: Mapping[str, str], files: Sequence[Mapping[str, Any]],
                parallelism: int | None) -> int:
    """The split size, adapted as iceberg-java's Spark reader adapts it (SparkScan's
    adjustSplitSize, with TableScanUtil.adjustSplitSize) unless the read names one or the
    table turns it off: when the files would make fewer splits than the read's
    parallelism, the split size shrinks to the scan's size over the parallelism, but not
    below 16 MiB (or the configured size if that is smaller)."""
    size = _split_setting(table, read, _SPLIT_SIZE)
    adaptive = table.properties.get("read.split.adaptive-size.enabled", "true").lower()
    if _SPLIT_SIZE[0] in read or adaptive != "true" or not parallelism:
        return size
    scan_size = sum(int(f["file_size_in_bytes"]) for f in files)
    split_count = -(-scan_size // size)
    if split_count >= parallelism:
        return size
    return max(scan_size // parallelism, min(16 * 1024 * 1024, size))


#: One item a Spark partition reads: a data file's path and a byte range of it.
Split = tuple[str, int, int]


def _splits(file: Mapping[str, Any], target: int) -> list[tuple[Split, int, int]]:
    """A planned file as iceberg-java's split planning cuts it (BaseContentScanTask.split):
    at each of its split offsets (one split per row group) when they are strictly
    ascending and below the file's size, else into ranges of `target` bytes. Each split
    with its weight in bytes (its length plus the bytes of its delete files) and the files
    it opens."""
    path = str(file["file_path"])
    size = int(file["file_size_in_bytes"])
    deletes = int(file.get("delete_files_size", 0))
    opened = 1 + len(file.get("delete_files", ()))
    offsets = [int(o) for o in file.get("split_offsets") or ()]
    valid = bool(offsets) and offsets[-1] < size and all(
        a < b for a, b in zip(offsets, offsets[1:]))
    if size <= 0:
        # A size the manifest does not give: one split over the whole file, so that no row
        # group is left unread, weighing what its open costs.
        return [((path, 0, 1 << 62), deletes, opened)]
    if valid:
        ends = offsets[1:] + [size]
        ranges = [(start, end - start) for start, end in zip(offsets, ends)]
    else:
        ranges = [(start, min(target, size - start)) for start in range(0, size, target)]
    return [((path, start, length), length + deletes, opened) for start, length in ranges]


def _pack(files: Sequence[Mapping[str, Any]], target: int, lookback: int,
          open_cost: int) -> list[tuple[Split, ...]]:
    """Files split and packed into tasks as iceberg-java's Spark reader does
    (TableScanUtil.planTaskGroups with BinPacking's PackingIterable, largest bin first):
    each file is cut into splits (`_splits`); a split weighs its bytes or its open cost per
    file opened, whichever is more; it joins the first open bin it fits in; when none
    has room a new bin opens, and past `lookback` open bins the heaviest is closed (the
    first of equals). Adjacent splits of one file in a bin merge into one range."""
    bins: list[tuple[int, list[Split]]] = []
    closed: list[list[Split]] = []
    for file in files:
        for split, size, opened in _splits(file, target):
            weight = max(size, opened * open_cost)
            for k, (total, items) in enumerate(bins):
                if total + weight <= target:
                    bins[k] = (total + weight, items + [split])
                    break
            else:
                bins.append((weight, [split]))
                if len(bins) > lookback:
                    heaviest = max(range(len(bins)), key=lambda k: (bins[k][0], -k))
                    closed.append(bins.pop(heaviest)[1])
    closed.extend(items for _, items in bins)
    return [tuple(_merge(items)) for items in closed]


def _merge(items: list[Split]) -> list[Split]:
    """Adjacent splits of one file merged (iceberg-java's TableScanUtil.mergeTasks)."""
    merged: list[Split] = []
    for path, start, length in items:
        if merged:
            last_path, last_start, last_length = merged[-1]
            if last_path == path and last_start + last_length == start:
                merged[-1] = (path, last_start, last_length + length)
                continue
        merged.append((path, start, length))
    return merged


def plan_task_groups(table: Table, read: Mapping[str, str],
                     files: Sequence[Mapping[str, Any]],
                     parallelism: int | None) -> list[tuple[Split, ...]]:
    """The files a scan planned (``Scan.plan_files()``) split and packed into tasks as
    iceberg-java's Spark reader does, with the read options `read` (``split-size``,
    ``lookback``, ``file-open-cost``) over the table's ``read.split.*`` properties, the
    split size adapted to the read's `parallelism` (None: not adapted)."""
    return _pack(
        files,
        _split_size(table, read, files, parallelism),
        _split_setting(table, read, _LOOKBACK),
        _split_setting(table, read, _FILE_OPEN_COST),
    )
