"""The memory folder on disk: read the six files, write changed ones atomically (0600).

A write is a compare-and-swap against a person's editor, which takes no lock: it replaces
a file only if the file still holds what the command read and planned from.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from hylo_memory.errors import FileChanged, MemoryFileError, StorageError

from .format import parse, render
from .model import Dimension, MemoryFile

ARCHIVE_DIR = ".archive"
DEFAULT_ARCHIVE_KEEP = 10
# Beyond the last `archive_keep`, every version of the last day is kept too, up to this many
# bytes of one file's versions: no burst of writes pushes a person's own edit out of the archive.
ARCHIVE_DAY_NS = 24 * 3600 * 10**9
ARCHIVE_BYTES = 16 * 1024 * 1024
SETTLE_SECONDS, SETTLE_TRIES = 0.05, 40  # how long a person's save into a replaced file is waited for to end
_NO_HARD_LINKS = {errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS}
_NOT_WRITABLE = {errno.EACCES, errno.EPERM, errno.EROFS}
NOT_REGULAR = "not a regular file (a pipe, socket, device or folder); refused, move it out of the memory folder"


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write `path` whole or not at all: unique temp file, fsync, rename, fsync the folder."""
    folder = path.parent
    with writable(folder):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = temp_file(path, data, mode)
        try:
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        fsync_dir(folder)


def temp_file(path: Path, data: bytes, mode: int = 0o600) -> Path:
    """`data` in a new temp file beside `path` (".NAME.XXXX.tmp", swept if a killed process leaves it), fsynced."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.errno and exc.filename is None:  # a write or fsync: name the file
            exc.filename = str(path)
        raise
    return Path(tmp)


@contextmanager
def writable(folder: Path) -> Iterator[None]:
    """A write the file system refuses for its permissions names the folder and what to do, not a temp file."""
    try:
        yield
    except OSError as exc:
        if exc.errno in _NOT_WRITABLE:
            raise StorageError(f"{folder} is not writable: check its permissions") from None
        raise


def digest(data: bytes | None) -> str | None:
    """A file's content hash (None: there is no file): what a command carries of the text it read."""
    return hashlib.sha256(data).hexdigest() if data is not None else None


def resolved(path: Path) -> Path | None:
    """`path` with its symlinks followed (what is missing kept as written), or None when they go round in a loop.

    Asked strictly first: Python 3.13's lenient `resolve()` returns a path for a loop, where 3.11 and 3.12 raise."""
    try:
        return path.resolve(strict=True)
    except RuntimeError:  # a loop, before 3.13
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None
    try:
        return path.resolve()  # something on the way is missing
    except (OSError, RuntimeError):
        return None


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def refusal(refused: list[MemoryFileError]) -> MemoryFileError:
    """One refusal naming every hand-broken file a command needs, in one line: the first's path and line (what
    the error carries), then each other's, so the person mends them all before running it again."""
    first, *others = refused
    if not others:
        return first
    return MemoryFileError(first.path, first.line, "; also ".join([first.reason, *(str(e) for e in others)]))


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
        self._read: dict[Dimension, bytes | None] = {}  # what this store last read of each file
        self._archived: dict[Dimension, Path | None] = {}  # where its last write of each file archived the old one

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
            target, root = resolved(path), resolved(self.root)
            if target is None or root is None:
                raise MemoryFileError(path, None, "a symlink loop; refused")
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
        """The file's bytes as they are on disk, or None when it does not exist yet; kept as what was read."""
        data = read_regular(self.target(dimension), "memory file")
        self._read[dimension] = data
        return data

    def planned_from(self, dimension: Dimension) -> bytes | None:
        """The bytes this store last read of the file: what a command planned its write from, and what
        the file must still hold when it is written (never read again at commit time)."""
        if dimension not in self._read:
            raise ValueError(f"{self.path(dimension)}: a write planned without reading the file first")
        return self._read[dimension]

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
        """Every dimension's file, for a command that may write any of them (a refresh: rules D and E reach
        every file); refuses (raises, naming every hand-broken file) before anything is written if one is."""
        return self.read_writing(Dimension)[0]

    def read_writing(self, writes: Iterable[Dimension]) -> tuple[dict[Dimension, MemoryFile | None],
                                                                 dict[Dimension, MemoryFileError]]:
        """Every file, for a command that writes those of `writes` and maybe others it can read: refused
        (raised, naming each) when one of `writes` is hand-broken; any other that is, is left out (None) and
        given back with its refusal, for the command to leave as it is (docs/spec.md §7)."""
        files, refused = self._read_every()
        needed = set(writes)
        if blocking := [exc for d, exc in refused.items() if d in needed]:
            raise refusal(blocking)
        return files, refused

    def read_each(self) -> tuple[dict[Dimension, MemoryFile | None], list[MemoryFileError]]:
        """Every file that can be read, and the refusal of each that cannot: for readers, whom one
        hand-broken file should not leave with no memory at all (writers use `read_writing`)."""
        files, refused = self._read_every()
        return files, list(refused.values())

    def _read_every(self) -> tuple[dict[Dimension, MemoryFile | None], dict[Dimension, MemoryFileError]]:
        """Each file parsed, or None with its refusal: all six are read, so that every broken one is named."""
        files: dict[Dimension, MemoryFile | None] = {}
        refused: dict[Dimension, MemoryFileError] = {}
        for d in Dimension:
            try:
                files[d] = self.read(d)
            except MemoryFileError as exc:
                files[d] = None
                refused[d] = exc
        return files, refused

    def write(self, memory: MemoryFile) -> Path:
        """Write one memory file atomically, archiving the version it replaces."""
        return self.write_text(memory.dimension, render(memory))

    def write_text(self, dimension: Dimension, text: str) -> Path:
        """Write over whatever the file holds now (for callers with no plan to protect; commands use `replace`)."""
        self.replace(dimension, text.encode("utf-8"), digest(read_regular(self.target(dimension), "memory file")))
        return self.path(dimension)

    def remove(self, dimension: Dimension) -> None:
        """Remove one memory file, whatever it holds now, archiving it first."""
        self.replace(dimension, None, digest(read_regular(self.target(dimension), "memory file")))

    def replace(self, dimension: Dimension, data: bytes | None, expect: str | None, prune: bool = True) -> None:
        """Write the file (None: remove it) only if it still holds what `expect` hashes; archive what it held.

        Checked on the open file just before the rename and again just after: a person who saved
        in between (their editor had the file open) gets that very file back in place, their save
        landing in it even if still under way, and `FileChanged` says so, for the command to plan
        again on their text. The replaced version is archived as a hard link where the file
        system allows, else as a copy. `prune=False` leaves the older versions for `prune`, once the
        command has succeeded: a command that fails must not have cost the archive a version.
        """
        name, target = dimension.filename, self.target(dimension)
        with writable(target.parent):
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:
                self._archived[dimension] = self._swap(name, target, data, expect)
            except FileChanged:
                raise FileChanged(self.path(dimension)) from None
        if prune:
            self.prune(dimension)

    def put_back(self, dimension: Dimension, data: bytes | None, expect: str | None) -> None:
        """Undo this store's last write of the file, for a command that failed: `data` (what the file held
        before; None: no file) put back over the command's version, which `expect` hashes. Neither version
        stays in `.archive/`: the command's was never kept, and the one it had archived is in place again
        (docs/spec.md §7) — so a failed first run leaves no archive at all."""
        made = self._archived.get(dimension)
        self.replace(dimension, data, expect, prune=False)
        for version in (made, self._archived.pop(dimension, None)):
            if version is not None:
                version.unlink(missing_ok=True)
        archive = self.folder / ARCHIVE_DIR
        try:
            archive.rmdir()  # an archive made only for this command goes with it
        except OSError:  # it holds other versions (or is not a folder of ours to remove)
            if archive.is_dir():
                fsync_dir(archive)
        else:
            fsync_dir(self.folder)

    def _swap(self, name: str, target: Path, data: bytes | None, expect: str | None) -> Path | None:
        """Put `data` at `target` if it holds what `expect` hashes, else `FileChanged`; where the version
        it replaced was archived (None: there was none)."""
        tmp = None if data is None else temp_file(target, data)
        try:
            old = self._take(name, target, expect)
            try:
                _put(target, tmp, old)
                if old is not None and old.saved_into():
                    self._give_back(name, target, old, digest(data))
            finally:
                if old is not None:
                    os.close(old.fd)
        finally:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
        fsync_dir(target.parent)
        return None if old is None else old.archived

    def _give_back(self, name: str, target: Path, old: _Replaced, ours: str | None) -> None:
        """A person saved into the file a write just replaced: put that file back, if the write is
        still what is there (else they saved again, and that stands; theirs is in the archive)."""
        if old.linked:  # the very file, so the rest of a save under way lands in it too
            if ours is None:
                with suppress(FileExistsError):
                    os.link(old.archived, target)
                    old.archived.unlink()
            elif digest(read_regular(target)) == ours:
                os.replace(old.archived, target)
        else:
            with suppress(FileChanged):
                self._swap(name, target, old.settled(), ours)
        fsync_dir(target.parent)
        raise FileChanged(target)

    def _take(self, name: str, target: Path, expect: str | None) -> _Replaced | None:
        """The file about to be replaced, open and archived, once checked to hold what `expect` hashes
        (None: there is no file, as expected)."""
        try:
            fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            if expect is not None:
                raise FileChanged(target) from None
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise MemoryFileError(target, None, NOT_REGULAR)
            data = _read_fd(fd)
            if digest(data) != expect:
                raise FileChanged(target)
            archived, linked = self._archive(name, target, fd, data)
        except BaseException:
            os.close(fd)
            raise
        return _Replaced(fd, data, archived, linked)

    def _archive(self, name: str, target: Path, fd: int, data: bytes) -> tuple[Path, bool]:
        """Keep the version about to be replaced in `.archive/`: the file itself (a hard link) where
        possible, else a copy of `data`. Where it is, and whether it is the file itself."""
        archive = self.folder / ARCHIVE_DIR
        real, root = resolved(archive), resolved(self.root)
        if real is None or root is None:
            raise MemoryFileError(archive, None, "a symlink loop; refused")
        if not real.is_relative_to(root):
            raise MemoryFileError(archive, None, f"leads to {real}, outside the vault; refused")
        with writable(archive):
            archive.mkdir(mode=0o700, exist_ok=True)
            # Named by the clock, which may not have moved since the last version (a coarse or
            # frozen clock): never reuse a name, or that version would be overwritten.
            stamp = time.time_ns()
            while (version := archive / f"{name}.{stamp}").exists() or not _link_or_copy(target, version, data):
                stamp += 1
            linked = os.path.samestat(os.stat(version), os.fstat(fd))
            if not linked and version.read_bytes() != data:
                version.unlink()  # the link caught a person's save, made between opening and linking
                raise FileChanged(target)
            fsync_dir(archive)
        return version, linked

    def prune(self, dimension: Dimension) -> None:
        """Keep the newest `archive_keep` versions of the file, and every version of the last day
        while they fit in ARCHIVE_BYTES; remove the others."""
        name, archive = dimension.filename, self.folder / ARCHIVE_DIR
        if not archive.is_dir():
            return
        versions = sorted(archive.glob(f"{name}.*"), key=lambda p: p.name, reverse=True)
        recent, total = time.time_ns() - ARCHIVE_DAY_NS, 0
        for n, version in enumerate(versions):
            try:
                total += version.stat().st_size
            except FileNotFoundError:
                continue
            if n < self.archive_keep or (_stamp(version) >= recent and total <= ARCHIVE_BYTES):
                continue
            version.unlink(missing_ok=True)


class _Replaced:
    """The open file a write replaces, what it held when checked, where it is archived and whether
    that is the file itself (a hard link) or a copy."""

    def __init__(self, fd: int, data: bytes, archived: Path, linked: bool):
        self.fd, self.data, self.archived, self.linked = fd, data, archived, linked

    def saved_into(self) -> bool:
        """Whether a person wrote into it since it was checked (their editor had it open)."""
        return _read_fd(self.fd) != self.data

    def settled(self) -> bytes:
        """What it holds once a save into it, maybe still under way, has ended (for a copy: waited for)."""
        now = _read_fd(self.fd)
        for _ in range(SETTLE_TRIES):
            time.sleep(SETTLE_SECONDS)
            if (again := _read_fd(self.fd)) == now:
                break
            now = again
        return now


def _put(target: Path, tmp: Path | None, old: _Replaced | None) -> None:
    """Rename `tmp` over the file `old` checked, create it only if still absent, or remove it (no `tmp`).
    Failed, the archived copy of a file left as it was is dropped: it is no prior version."""
    try:
        if old is not None and tmp is not None:
            os.replace(tmp, target)
        elif old is not None:
            target.unlink()
        elif tmp is not None:
            _create(target, tmp)
    except BaseException:
        if old is not None:
            old.archived.unlink(missing_ok=True)
        raise


def _create(target: Path, tmp: Path) -> None:
    """Give `tmp` the name `target` unless someone created that meanwhile: theirs is never overwritten."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise FileChanged(target) from None
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        if target.exists():
            raise FileChanged(target) from None
        os.replace(tmp, target)


def _link_or_copy(target: Path, version: Path, data: bytes) -> bool:
    """Archive `target` as `version`: a hard link, or a copy of `data` where links are not allowed;
    False if that name was taken meanwhile."""
    try:
        os.link(target, version)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        atomic_write(version, data)
    return True


def _read_fd(fd: int) -> bytes:
    """The whole of an open file, from its start, as it is now."""
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _stamp(version: Path) -> int:
    """When an archived version was archived (its name's suffix); 0 for a name that says nothing."""
    try:
        return int(version.name.rsplit(".", 1)[1])
    except (IndexError, ValueError):
        return 0
