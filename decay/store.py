"""The memory folder on disk: read the six files, write changed ones atomically (0600)."""

from __future__ import annotations

import os
import stat
import tempfile
import time
from pathlib import Path

from hylo_memory.errors import MemoryFileError, StorageError

from .format import parse, render
from .model import Dimension, MemoryFile

ARCHIVE_DIR = ".archive"
DEFAULT_ARCHIVE_KEEP = 10
NOT_REGULAR = "not a regular file (a pipe, socket, device or folder); refused, move it out of the memory folder"


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
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.errno and exc.filename is None:  # a write or fsync: name the file
            exc.filename = str(path)
        raise
    fsync_dir(folder)


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_regular(path: Path, what: str = "file") -> bytes | None:
    """The bytes of `path`, or None when there is none; refused (one line) when it is not a regular file.

    Opened without blocking and checked on the open file, so a pipe named like the file
    (or swapped in for it) is refused at once instead of blocking, and its lock, forever.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise MemoryFileError(path, None, NOT_REGULAR)
        try:
            return handle.read()
        except OSError as exc:
            raise StorageError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None


class MemoryStore:
    """The memory folder: one file per dimension, prior versions kept under `.archive/`.

    A memory file is a regular file, or a symlink to one inside `root` (the vault; the
    memory folder itself when not given): then the target is what is read and written,
    atomically beside it. Anything else there is refused, in one line, before it is touched.
    """

    def __init__(self, folder: Path, archive_keep: int = DEFAULT_ARCHIVE_KEEP, root: Path | None = None):
        self.folder = Path(folder)
        self.archive_keep = archive_keep
        self.root = Path(root) if root is not None else self.folder

    def path(self, dimension: Dimension) -> Path:
        return self.folder / dimension.filename

    def target(self, dimension: Dimension) -> Path:
        """Where the dimension's file is really read and written: itself, or the target of its symlink."""
        path = self.path(dimension)
        try:
            info = path.lstat()
        except FileNotFoundError:
            return path
        except OSError as exc:
            raise StorageError(f"{path}: {exc.strerror or exc}") from None
        if stat.S_ISLNK(info.st_mode):
            try:
                target = path.resolve(strict=False)
                root = self.root.resolve()
            except (OSError, RuntimeError):
                raise MemoryFileError(path, None, "a symlink loop; refused") from None
            if not target.is_relative_to(root):
                raise MemoryFileError(path, None, f"a symlink to {target}, outside the vault; refused")
            path = target
            try:
                info = path.stat()
            except FileNotFoundError:
                return path  # a link to a file still to be created, inside the vault
            except OSError as exc:
                raise MemoryFileError(self.path(dimension), None, f"a symlink that cannot be followed "
                                                                  f"({exc.strerror or exc}); refused") from None
        if not stat.S_ISREG(info.st_mode):
            raise MemoryFileError(path, None, NOT_REGULAR)
        return path

    def exists(self, dimension: Dimension) -> bool:
        return self.target(dimension).exists()

    def read_bytes(self, dimension: Dimension) -> bytes | None:
        """The file's bytes as they are on disk, or None when it does not exist yet."""
        return read_regular(self.target(dimension), "memory file")

    def read(self, dimension: Dimension) -> MemoryFile | None:
        """The parsed file, or None when it does not exist yet."""
        path = self.path(dimension)
        data = self.read_bytes(dimension)
        if data is None:
            return None
        try:
            text = data.decode("utf-8")  # a byte-order mark is kept: `parse` reads past it, `render` writes it back
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise MemoryFileError(path, line, "is not UTF-8 text") from None
        return parse(text, dimension, str(path))

    def read_all(self) -> dict[Dimension, MemoryFile | None]:
        """Every dimension's file; refuses (raises) before anything is written if one is broken."""
        return {d: self.read(d) for d in Dimension}

    def read_each(self) -> tuple[dict[Dimension, MemoryFile | None], list[MemoryFileError]]:
        """Every file that can be read, and the refusal of each that cannot: for readers, whom one
        hand-broken file should not leave with no memory at all (writers use `read_all`)."""
        files: dict[Dimension, MemoryFile | None] = {}
        refused: list[MemoryFileError] = []
        for d in Dimension:
            try:
                files[d] = self.read(d)
            except MemoryFileError as exc:
                files[d] = None
                refused.append(exc)
        return files, refused

    def write(self, memory: MemoryFile) -> Path:
        """Write one memory file atomically, archiving the version it replaces."""
        return self.write_text(memory.dimension, render(memory))

    def write_text(self, dimension: Dimension, text: str) -> Path:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = self.target(dimension)
        self._archive(self.path(dimension), self.read_bytes(dimension))
        atomic_write(target, text.encode("utf-8"))
        return self.path(dimension)

    def remove(self, dimension: Dimension) -> None:
        """Remove one memory file (an undo of the change that created it), archiving it first."""
        target = self.target(dimension)
        self._archive(self.path(dimension), self.read_bytes(dimension))
        target.unlink(missing_ok=True)
        fsync_dir(target.parent)

    def _archive(self, path: Path, previous: bytes | None) -> None:
        if previous is None:
            return
        archive = self.folder / ARCHIVE_DIR
        try:
            real, root = archive.resolve(), self.root.resolve()
        except (OSError, RuntimeError):
            raise MemoryFileError(archive, None, "a symlink loop; refused") from None
        if not real.is_relative_to(root):
            raise MemoryFileError(archive, None, f"leads to {real}, outside the vault; refused")
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
