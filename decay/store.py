"""The memory folder on disk: read the six files, write changed ones atomically (0600)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from hylo_memory.errors import HyloMemoryError, MemoryFileError

from .format import parse, render
from .model import Dimension, MemoryFile

ARCHIVE_DIR = ".archive"
DEFAULT_ARCHIVE_KEEP = 10


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write `path` whole or not at all: unique temp file, fsync, rename, fsync the folder."""
    folder = path.parent
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(folder)


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class MemoryStore:
    """The memory folder: one file per dimension, prior versions kept under `.archive/`."""

    def __init__(self, folder: Path, archive_keep: int = DEFAULT_ARCHIVE_KEEP):
        self.folder = Path(folder)
        self.archive_keep = archive_keep

    def path(self, dimension: Dimension) -> Path:
        return self.folder / dimension.filename

    def exists(self, dimension: Dimension) -> bool:
        return self.path(dimension).exists()

    def read(self, dimension: Dimension) -> MemoryFile | None:
        """The parsed file, or None when it does not exist yet."""
        path = self.path(dimension)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise HyloMemoryError(f"{path}: cannot read: {exc.strerror}") from None
        try:
            text = data.decode("utf-8-sig")  # a byte-order mark must not hide the frontmatter
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise MemoryFileError(path, line, "is not UTF-8 text") from None
        return parse(text, dimension, str(path))

    def read_all(self) -> dict[Dimension, MemoryFile | None]:
        """Every dimension's file; refuses (raises) before anything is written if one is broken."""
        return {d: self.read(d) for d in Dimension}

    def write(self, memory: MemoryFile) -> Path:
        """Write one memory file atomically, archiving the version it replaces."""
        return self.write_text(memory.dimension, render(memory))

    def write_text(self, dimension: Dimension, text: str) -> Path:
        path = self.path(dimension)
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._archive(path)
        atomic_write(path, text.encode("utf-8"))
        return path

    def _archive(self, path: Path) -> None:
        try:
            previous = path.read_bytes()
        except FileNotFoundError:
            return
        archive = self.folder / ARCHIVE_DIR
        archive.mkdir(mode=0o700, exist_ok=True)
        # Named by the clock, which may not have moved since the last version (a coarse or
        # frozen clock): never reuse a name, or that version would be overwritten.
        stamp = time.time_ns()
        while (target := archive / f"{path.name}.{stamp}").exists():
            stamp += 1
        atomic_write(target, previous)
        versions = sorted(archive.glob(f"{path.name}.*"), key=lambda p: p.name)
        for old in versions[: max(0, len(versions) - self.archive_keep)]:
            old.unlink(missing_ok=True)
