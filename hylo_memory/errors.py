"""Failures the person can act on, each naming the file (and line) at fault."""

from __future__ import annotations

from pathlib import Path


class HyloMemoryError(Exception):
    """Base of every expected failure; the CLI prints it as one line."""


class MemoryFileError(HyloMemoryError):
    """A memory file that cannot be parsed safely; it is refused, never overwritten."""

    def __init__(self, path: str | Path, line: int | None, reason: str):
        self.path, self.line, self.reason = str(path), line, reason
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {reason}")
