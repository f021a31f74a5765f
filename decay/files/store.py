"""The memory folder on disk: read the six files, write changed ones atomically (0600).

A write is a compare-and-swap against a person's editor, which takes no lock: it replaces
a file only if the file still holds what the command read and planned from, and never
over a save that lands meanwhile (decay/files/aside.py).
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

from hylo_memory.domain.dimensions import Dimension
from hylo_memory.domain.items import MemoryFile
from hylo_memory.errors import FileChanged, HyloMemoryError, MemoryFileError, StorageError

from .aside import NO_HARD_LINKS, Replaced, asides_of, link_in, move_aside, read_fd
from .format import parse, render

ARCHIVE_DIR = ".archive"
DEFAULT_ARCHIVE_KEEP = 10
# Beyond the last `archive_keep`, every version of the last day is kept too, up to this many
# bytes of one file's versions: no burst of writes pushes a person's own edit out of the archive.
ARCHIVE_DAY_NS = 24 * 3600 * 10**9
ARCHIVE_BYTES = 16 * 1024 * 1024
READ_TRIES = 10  # reads of a memory file moved aside again and again as it is read, before it counts as missing
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


def current(target: Path) -> bytes | None:
    """The memory file's bytes; while a write has it moved aside for an instant, the bytes it moved, which
    are what a reader of a file renamed over would have read until then."""
    for _ in range(READ_TRIES):
        if (data := read_regular(target, "memory file")) is not None:
            return data
        if not (asides := asides_of(target)):
            return None
        if (data := read_regular(asides[0], "memory file")) is not None:
            return data
    return None  # written again and again as it was read: as good as missing


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
        data = current(self.target(dimension))
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

        The file is moved aside to a private name and checked, the new one given the name only if
        nothing appeared there meanwhile (decay/files/aside.py), and the old one archived: a person's save
        landing at any moment stands, and `FileChanged` says so, for the command to plan again on their
        text; the version their save replaced is archived. A person who saved *into* the file (their
        editor had it open) gets that very file back in place, their save landing in it even if still
        under way. The replaced version is archived as a hard link where the file system allows, else
        as a copy. `prune=False` leaves the older versions for `prune`, once the command has succeeded:
        a command that fails must not have cost the archive a version.
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

    def settle_asides(self) -> None:
        """After a write a kill interrupted (call under the memory lock): each file it had moved aside goes
        back to its name, or, when the name holds a file again, into the archive — never left the only copy
        of its version (docs/spec.md §7)."""
        for dimension in Dimension:
            try:
                target = self.target(dimension)
            except HyloMemoryError:
                continue  # refused, in one line, where it is read or written
            for aside in asides_of(target):
                self._restore(dimension.filename, target, aside, self._archived_as(dimension.filename, aside))

    def _swap(self, name: str, target: Path, data: bytes | None, expect: str | None) -> Path | None:
        """Put `data` at `target` if it holds what `expect` hashes, else `FileChanged`; where the version
        it replaced was archived (None: there was none)."""
        tmp = None if data is None else temp_file(target, data)
        try:
            old = self._take(name, target, expect)
            try:
                self._put(name, target, tmp, old)
                if old is not None:
                    self._keep(name, target, old, digest(data))
            finally:
                if old is not None:
                    os.close(old.fd)
        finally:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
        fsync_dir(target.parent)
        return None if old is None else old.archived

    def _take(self, name: str, target: Path, expect: str | None) -> Replaced | None:
        """The file about to be replaced, moved aside, open and checked to hold what `expect` hashes (None:
        there is no file, as expected); put back first when it does not. The name stays empty only until
        `_put`: no archiving, no fsync in between."""
        aside = move_aside(target)
        if aside is None:
            if expect is not None:
                raise FileChanged(target)
            return None
        try:
            fd = os.open(aside, os.O_RDONLY | os.O_NONBLOCK)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise MemoryFileError(target, None, NOT_REGULAR)
                data = read_fd(fd)
                if digest(data) != expect:
                    raise FileChanged(target)
            except BaseException:
                os.close(fd)
                raise
        except BaseException:
            self._restore(name, target, aside, None)
            raise
        return Replaced(fd, data, aside)

    def _put(self, name: str, target: Path, tmp: Path | None, old: Replaced | None) -> None:
        """Give `tmp` the name (no `tmp`: leave it empty, a removal) unless a person saved there since the
        old file was moved aside: then theirs stands, and `FileChanged`, the old version archived (their
        save replaced it). Failed otherwise, the old file is put back as it was."""
        try:
            if tmp is not None:
                link_in(target, tmp)
            elif os.path.lexists(target):
                raise FileExistsError(target)
        except FileExistsError:
            if old is not None:
                self._archive(name, old.aside, old.data)
                old.aside.unlink()
            raise FileChanged(target) from None
        except BaseException:
            if old is not None:
                self._restore(name, target, old.aside, None)
            raise

    def _keep(self, name: str, target: Path, old: Replaced, ours: str | None) -> None:
        """Archive the version a write replaced (if it cannot be, it is put back in place of the write's),
        and give back a file a person saved into meanwhile."""
        try:
            old.archived, old.linked = self._archive(name, old.aside, old.data)
        except BaseException:
            self._reinstate(name, target, old.aside, ours)  # else theirs stands, and recovery archives it
            raise
        if old.saved_into():
            self._give_back(name, target, old, ours)
        old.aside.unlink()  # archived: its private name goes

    def _restore(self, name: str, target: Path, aside: Path, archived: Path | None) -> None:
        """Put a file moved aside back at its name, dropping its archived version (`archived`: it was
        replaced by nothing); if a person saved at the name meanwhile, their save replaced it, and it is
        kept in the archive instead."""
        try:
            link_in(target, aside)
        except FileExistsError:
            if archived is None:
                self._archive(name, aside, read_regular(aside) or b"")
        else:
            if archived is not None:
                archived.unlink(missing_ok=True)
        aside.unlink(missing_ok=True)
        fsync_dir(target.parent)

    def _reinstate(self, name: str, target: Path, aside: Path, ours: str | None) -> bool:
        """Put a file moved aside back at its name in place of the write's own version (which `ours`
        hashes), if that is still what is there; False when a person saved there since: theirs stands,
        and the file moved aside is left where it is, for the caller."""
        mine = move_aside(target)
        if mine is not None and self._holds(name, target, mine) != ours:
            self._restore(name, target, mine, None)  # a save at the name since
            return False
        try:
            link_in(target, aside)
        except FileExistsError:
            return False
        finally:
            if mine is not None:
                mine.unlink()  # the write's own version, never a person's
            fsync_dir(target.parent)
        return True

    def _give_back(self, name: str, target: Path, old: Replaced, ours: str | None) -> None:
        """A person saved into the file a write had just moved aside (their editor had it open): put that
        file back, if the write's is still what is at the name (else they saved there again, and that
        stands; the file they saved into is in the archive). Then `FileChanged`, to plan again on it."""
        if not old.linked:  # a copy was archived: their text, once their save has ended
            try:
                self._swap(name, target, old.settled(), ours)
            except FileChanged:
                self._archive(name, old.aside, read_fd(old.fd))
        elif self._reinstate(name, target, old.aside, ours) and old.archived is not None:
            old.archived.unlink()  # the very file in place again (a save under way lands in it): no prior version
        old.aside.unlink(missing_ok=True)
        fsync_dir(target.parent)
        raise FileChanged(target)

    def _holds(self, name: str, target: Path, aside: Path) -> str | None:
        """The hash of what a file moved aside holds; one that cannot be read is put back first."""
        try:
            return digest(read_regular(aside))
        except BaseException:
            self._restore(name, target, aside, None)
            raise

    def _archive(self, name: str, aside: Path, data: bytes) -> tuple[Path, bool]:
        """Keep the version moved aside in `.archive/`: the file itself (a hard link) where possible, else
        a copy of `data`. Where it is, and whether it is the file itself."""
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
            while (linked := _link_or_copy(aside, archive / f"{name}.{stamp}", data)) is None:
                stamp += 1
            fsync_dir(archive)
        return archive / f"{name}.{stamp}", linked

    def _archived_as(self, name: str, aside: Path) -> Path | None:
        """The archived version that is this very file (a hard link), if it was archived before a kill."""
        try:
            info = os.stat(aside)
            versions = list((self.folder / ARCHIVE_DIR).glob(f"{name}.*"))
        except OSError:
            return None
        for version in versions:
            with suppress(OSError):
                if os.path.samestat(info, os.stat(version)):
                    return version
        return None

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


def _link_or_copy(aside: Path, version: Path, data: bytes) -> bool | None:
    """Archive the file moved aside as `version`: a hard link (True), or a copy of `data` where links are
    not allowed (False); None if that name is taken."""
    if os.path.lexists(version):
        return None
    try:
        os.link(aside, version)
    except FileExistsError:
        return None
    except OSError as exc:
        if exc.errno not in NO_HARD_LINKS:
            raise
        atomic_write(version, data)
        return False
    return True


def _stamp(version: Path) -> int:
    """When an archived version was archived (its name's suffix); 0 for a name that says nothing."""
    try:
        return int(version.name.rsplit(".", 1)[1])
    except (IndexError, ValueError):
        return 0
