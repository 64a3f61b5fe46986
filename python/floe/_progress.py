"""``progress=True``: a one-line progress display on a terminal."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from ._results import WriteProgress


class TerminalProgress:
    """Rows read (and, on a sorted table, rows written in sort order) on one line of
    stderr, redrawn at most five times a second; nothing when stderr is not a terminal.
    """

    def __init__(self, what: str, stream: TextIO | None = None) -> None:
        self._what = what
        self._stream = stream if stream is not None else sys.stderr
        self._tty = bool(getattr(self._stream, "isatty", lambda: False)())
        self._started = time.monotonic()
        self._last = 0.0
        self._drawn = False

    def __call__(self, progress: WriteProgress) -> None:
        if not self._tty:
            return
        now = time.monotonic()
        if now - self._last < 0.2:
            return
        self._last = now
        line = f"{self._what}: {progress.rows:,} rows read"
        if progress.input_done:
            line += f", {progress.rows_sorted:,} written in sort order"
        line += f" ({int(now - self._started)} s)"
        self._stream.write("\r" + line.ljust(80))
        self._stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self._stream.write("\r" + " " * 80 + "\r")
            self._stream.flush()


def progress_callback(
    progress: bool | Callable[[WriteProgress], Any] | None, what: str
) -> tuple[Callable[[dict[str, Any]], Any] | None, Callable[[], None]]:
    """The engine-side callback for ``progress=``, and what to call when the write ends."""
    if progress is None or progress is False:
        return None, lambda: None
    if progress is True:
        display = TerminalProgress(what)
        user: Callable[[WriteProgress], Any] = display
        done = display.close
    elif callable(progress):
        user = progress
        done = lambda: None  # noqa: E731
    else:
        raise TypeError(f"progress must be a callable or a bool, not {type(progress).__name__}")

    def engine(raw: dict[str, Any]) -> Any:
        return user(
            WriteProgress(
                rows=int(raw["rows"]),
                batches=int(raw["batches"]),
                input_done=bool(raw["input_done"]),
                rows_sorted=int(raw["rows_sorted"]),
            )
        )

    return engine, done
