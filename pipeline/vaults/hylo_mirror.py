"""A Hylo vault reached by URL, as a local mirror every command works on (docs/spec.md §10).

The mirror is the vault's local state folder (`state_dir`, else under the user's state
directory, one folder a URL). It holds what must last on the person's machine — the memory
folder's ledger, locks, journal, prior versions, history — beside copies of what the run read:
the memory files (`read`), the window's daily files (`short_list`, in pages), knowledge units
(`knowledge_list` + `knowledge_read`) and extra scan paths (`list` + `read`). Every command then
runs on the mirror as on a folder, so every guarantee of the folder backend holds; the memory
lock's holder syncs the memory files with Hylo (`take` on taking it, `push` on leaving it).

Hylo's `create` overwrites blindly, so `push` reads each file again just before writing it: a
file that is not what the mirror last read of it (the person, or Hylo, changed it meanwhile) is
not written, and says so; the next sync starts from its new text.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from hylo_memory.decay import Dimension
from hylo_memory.decay.files.store import atomic_write, read_regular
from hylo_memory.domain.sources import Source
from hylo_memory.errors import FileChanged
from hylo_memory.pipeline.notes.hylo_daily import render_daily

from . import BACKENDS
from .hylo_client import Hylo, HyloError, Note, NoteInfo, ShortEntry, is_missing
from .protocol import Skipped, Span, Vault

if TYPE_CHECKING:
    from hylo_memory.pipeline.config import Config

# At a mirror's root: which Hylo it mirrors. The registry (vaults/__init__.py) finds a mirror by it.
MARKER = next(b.marker for b in BACKENDS if b.module == __name__.rpartition(".")[2])

LOG = logging.getLogger(__name__)
KNOWN = "hylo-remote.json"  # in the memory folder's .state: each memory file's hash as Hylo last had it
LOOKAHEAD = dt.timedelta(days=3)  # past the run's day: clock skew, and notes dated later that day
NOT_A_UNIT = "is not a knowledge note"  # `knowledge_read` of a note whose kind is not `knowledge` (notes.ResolvePath)
SAID_CHARS = 200
T = TypeVar("T")


class Settings(BaseModel):
    """What the mirror needs of the configuration, kept in its marker for the memory lock's holder."""

    url: str
    memory_dir: str = "_memory"
    timeout: float = 30.0
    page: int = 500
    shorts_paths: list[str] = ["_shorts"]
    knowledge_paths: list[str] = ["_knowledge"]
    extra_scan_paths: list[str] = []


def state_root(url: str, state_dir: str | None) -> Path:
    """The local state folder of the Hylo at `url`: `state_dir` itself when set, else one folder a URL under
    the user's state directory (named for the URL's host and a hash of the whole URL)."""
    if state_dir:
        return Path(os.path.expanduser(state_dir))
    import platformdirs

    host = re.sub(r"[^A-Za-z0-9.-]+", "-", url.split("://", 1)[-1].split("/", 1)[0]).strip("-") or "hylo"
    digest = hashlib.sha256(url.strip().encode("utf-8")).hexdigest()[:12]
    return platformdirs.user_state_path("hylo-memory") / "hylo" / f"{host}-{digest}"


def prepare(settings: Settings, state_dir: str | None) -> Path:
    """The mirror's folder for this Hylo, created (0700) with its marker: the vault every command works on."""
    root = state_root(settings.url, state_dir)
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    marker = root / MARKER
    data = settings.model_dump_json(indent=2).encode("utf-8")
    if read_regular(marker) != data:
        atomic_write(marker, data)
    return root.resolve()


# What the registry (vaults/__init__.py) asks of this backend, for a vault given as a Hylo MCP endpoint's URL.
def open_mirror(config: Config) -> Path:
    """The mirror of the Hylo at `config.vault`, prepared: the folder every command works on."""
    assert config.vault is not None
    settings = Settings(url=config.vault, memory_dir=config.memory_dir, timeout=config.hylo_timeout,
                        page=config.hylo_page, shorts_paths=config.shorts_paths,
                        knowledge_paths=config.knowledge_paths, extra_scan_paths=config.extra_scan_paths)
    return prepare(settings, config.state_dir)


def home_at(root: Path) -> Mirror | None:
    """Where the memory of the mirror at `root` lives: in Hylo, synced by the mirror."""
    return mirror_of(root)


def notes_at(root: Path, folder: Vault) -> HyloVault | None:
    """The notes of the mirror at `root`: pulled from Hylo, then read in `folder`, the mirror on disk."""
    mirror = mirror_of(root)
    return None if mirror is None else HyloVault(mirror, folder)


def mirror_of(root: Path) -> Mirror | None:
    """The mirror whose root is `root`, or None for a vault on disk."""
    data = read_regular(root / MARKER) if (root / MARKER).exists() else None
    return None if data is None else Mirror(root, Settings.model_validate_json(data))


class Mirror:
    def __init__(self, root: Path, settings: Settings):
        self.root, self.settings = root, settings
        self.memory = root / settings.memory_dir
        self.calls = 0  # Hylo tool calls this process made through this mirror
        self.refused: list[Skipped] = []  # listed units the last pull's `knowledge_read` would not read

    def _session(self) -> Hylo:
        return Hylo(self.settings.url, self.settings.timeout)

    def _remote(self, dimension: Dimension) -> str:
        return f"/{self.settings.memory_dir.strip('/')}/{dimension.filename}"

    # ---- the memory files ----

    def take(self) -> None:
        """Under the memory lock: write what an interrupted command left unsent, then take Hylo's memory files."""
        known = self._known()
        with self._session() as hylo:
            remote = self._read_memory(hylo)
            for dimension in Dimension:
                name = dimension.filename
                local = read_regular(self.memory / name)
                theirs = remote.get(dimension)
                if name in known and _digest(local) != known[name]:  # a change not yet sent
                    if _digest(theirs) == known[name]:
                        self._send(hylo, dimension, local)
                        known[name] = _digest(local if local is not None else b"")
                        continue
                    _not_written(dimension, self.settings.url)
                if _digest(local) != _digest(theirs):
                    self._put_local(dimension, theirs)
                known[name] = _digest(theirs)
            self.calls += hylo.calls
        self._save_known(known)

    def push(self) -> None:
        """Leaving the memory lock: send each memory file the command changed, unless Hylo's changed meanwhile."""
        known = self._known()
        changed = [d for d in Dimension if _digest(read_regular(self.memory / d.filename)) != known.get(d.filename)]
        if not changed:
            return
        with self._session() as hylo:
            for dimension in changed:
                local = read_regular(self.memory / dimension.filename)
                now = self._read_one(hylo, dimension)
                if _digest(now) != known.get(dimension.filename):
                    _not_written(dimension, self.settings.url)
                    continue
                self._send(hylo, dimension, local)
                known[dimension.filename] = _digest(local if local is not None else b"")
                self._save_known(known)  # one file at a time: a kill between two leaves the first recorded
            self.calls += hylo.calls

    def send(self, files: Mapping[Dimension, str | None]) -> None:
        """A command's new memory files into Hylo, before they are written here (the commit's first step).

        Each is read in Hylo again just before it is written, and compared by content with what was
        last read there: Hylo's list dates are for display, so only the text can tell. A file changed
        in Hylo meanwhile is taken into the mirror and `FileChanged` raised, so the command plans again
        on that text, as on a person's save in a folder. Whatever stops it, the files it already sent
        are given back what they held, so a failed command leaves Hylo as it found it (docs/spec.md §10)."""
        known = self._known()
        sent: list[tuple[Dimension, bytes | None]] = []
        with self._session() as hylo:
            try:
                for dimension, text in files.items():
                    now = self._read_one(hylo, dimension)
                    if _digest(now) != known.get(dimension.filename):
                        self._put_local(dimension, now)
                        known[dimension.filename] = _digest(now)
                        raise FileChanged(self.memory / dimension.filename)
                    data = (text or "").encode("utf-8")  # a file removed here is written empty there, as sync does
                    hylo.create(self._remote(dimension), data.decode("utf-8"))
                    sent.append((dimension, now))
                    known[dimension.filename] = _digest(data)
            except BaseException:
                self._give_back(hylo, sent, known)
                raise
            finally:
                self._save_known(known)  # what Hylo holds now, whatever stopped the loop
                self.calls += hylo.calls

    def _give_back(self, hylo: Hylo, sent: list[tuple[Dimension, bytes | None]], known: dict[str, str | None]) -> None:
        """The files a failed `send` wrote, as they were: their text, or gone (Hylo's `delete`) if new."""
        for dimension, before in reversed(sent):
            try:
                if before is None:
                    hylo.delete(self._remote(dimension))
                else:
                    hylo.create(self._remote(dimension), before.decode("utf-8"))
                known[dimension.filename] = _digest(before)
            except HyloError as exc:  # left for the next command's sync, which sends the mirror's text
                LOG.warning("%s: %s could not be put back as it was (%s)", self.settings.url,
                            dimension.filename, exc)

    def _send(self, hylo: Hylo, dimension: Dimension, local: bytes | None) -> None:
        """`create` with `force`; a memory file removed here is written empty there (`delete` only takes back
        a failed command's new file)."""
        hylo.create(self._remote(dimension), (local or b"").decode("utf-8"))
        if local is None:
            self._put_local(dimension, b"")

    def _read_memory(self, hylo: Hylo) -> dict[Dimension, bytes | None]:
        folder = f"/{self.settings.memory_dir.strip('/')}"
        try:
            listed = hylo.list(folder)
        except HyloError as exc:
            if not is_missing(exc):
                raise
            listed = []  # no memory folder in Hylo yet
        names = {n.name or n.path.rsplit("/", 1)[-1] for n in listed}
        return {d: self._read_one(hylo, d) if d.filename in names else None for d in Dimension}

    def _read_one(self, hylo: Hylo, dimension: Dimension) -> bytes | None:
        try:
            return hylo.read(self._remote(dimension)).content.encode("utf-8")
        except HyloError as exc:
            if is_missing(exc):
                return None
            raise

    def _put_local(self, dimension: Dimension, data: bytes | None) -> None:
        path = self.memory / dimension.filename
        if data is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write(path, data)

    def _known(self) -> dict[str, str | None]:
        data = read_regular(self.memory / ".state" / KNOWN)
        return {} if data is None else dict(json.loads(data))

    def _save_known(self, known: dict[str, str | None]) -> None:
        atomic_write(self.memory / ".state" / KNOWN, json.dumps(known, indent=2, sort_keys=True).encode("utf-8"))

    # ---- the sources ----

    def pull_sources(self, window: Span) -> None:
        """The window's sources into the mirror, in pages; every listed note read, and written when it changed."""
        # Hylo's `start`/`end` are UTC midnights, its times the server's own zone: a day more on the
        # left; on the right, a few days, for clock skew and notes dated later today (docs/spec.md §10).
        start, end = window.start - dt.timedelta(days=1), window.today + LOOKAHEAD
        self.refused = []
        with self._session() as hylo:
            page = self.settings.page
            for folder in self.settings.shorts_paths:
                for found in _paged(partial(_shorts, hylo, folder), start, end, page):
                    self._write_daily(found)
            units = partial(_units, hylo)  # the whole vault's units: a `path` lists one folder, not below it
            self._copy_notes(hylo.knowledge_read, _paged(units, start, end, page), self.settings.knowledge_paths)
            if self.settings.extra_scan_paths:
                notes = partial(_listed, hylo)
                self._copy_notes(hylo.read, _paged(notes, start, end, page), self.settings.extra_scan_paths)
            self.calls += hylo.calls

    def _write_daily(self, entries: list[ShortEntry]) -> None:
        by_file: dict[str, list[ShortEntry]] = {}
        for entry in entries:
            by_file.setdefault(entry.daily_path, []).append(entry)
        for daily, found in by_file.items():
            path = self._inside(daily, "short_list", "daily_path")
            # Each entry at its own time, in Hylo's zone as its header says: one written after midnight
            # into the day before's file is dated by itself, as it is on disk.
            stamps = sorted((_stamp(e.created_at), e.content) for e in found)
            day = _day_of(path.stem) or stamps[0][0].date()
            items = [(s.strftime("%Y-%m-%d %H:%M:%S"), text) for s, text in stamps]
            data = render_daily(day, items).encode("utf-8")
            if read_regular(path) != data:
                atomic_write(path, data)

    def _copy_notes(self, read: Callable[[str], Note], pages: Iterator[list[NoteInfo]], roots: list[str]) -> None:
        """The listed notes under `roots` into the mirror. Each is read: a listing's size and time are for
        display (`1.2 KB`, minutes), too coarse to tell a note unchanged, so only its text can."""
        for page in pages:
            for note in page:
                if (note.kind or "").lower() == "index" or not _under(note.path, roots) or self._is_memory(note.path):
                    continue  # a domain's index is no unit (docs/spec.md §10); the memory is synced apart
                path = self._inside(note.path, "list", "path")
                data = self._text_of(read, note.path, path)
                if data is None:
                    continue
                if read_regular(path) != data:
                    atomic_write(path, data)
                    when = _shown_time(note.updated_at)
                    if when is not None:  # dated as Hylo shows it, for a note whose date is its file's
                        os.utime(path, (when, when))

    def _text_of(self, read: Callable[[str], Note], vault_path: str, path: Path) -> bytes | None:
        """A listed note's text; None when it went between the listing and the read, or when Hylo will not read it
        as a unit: that one is named in the run's summary with Hylo's words, and no copy of it is kept here."""
        try:
            return read(vault_path).content.encode("utf-8")
        except HyloError as exc:
            said = exc.said or ""
            if is_missing(exc):
                return None
            if NOT_A_UNIT not in said:
                raise
        self.refused.append(Skipped(path=vault_path.strip().lstrip("/"),
                                    reason=f"Hylo's knowledge_read refused it: {_one_line(said)}"))
        path.unlink(missing_ok=True)  # a copy from when it was one would be read as a unit
        return None

    def _is_memory(self, vault_path: str) -> bool:
        return _under(vault_path, [self.settings.memory_dir])

    def _inside(self, vault_path: str, tool: str, field: str) -> Path:
        rel = vault_path.strip().lstrip("/")
        path = (self.root / rel).resolve()
        memory = self.memory.resolve()
        if not rel or not path.is_relative_to(self.root) or path.is_relative_to(memory) or path.name == MARKER:
            raise HyloError(f"{self.settings.url}: {tool}: the result's field {field!r} ({vault_path!r}) "
                            "is not a path inside the vault")
        return path


class HyloVault:
    """A Hylo vault's notes: the window pulled into the mirror, then read there as a folder's."""

    def __init__(self, mirror: Mirror, folder: Vault):
        self.mirror, self.folder = mirror, folder

    def pull(self, window: Span) -> None:
        self.mirror.pull_sources(window)

    def sources(self, window: Span) -> Iterator[Source | Skipped]:
        yield from self.mirror.refused
        yield from self.folder.sources(window)


def _paged(fetch: Callable[[str, str, int], list[T]], start: dt.date, end: dt.date, page: int) -> Iterator[list[T]]:
    """Every result of `fetch(start, end, limit)` over [start, end), a page at most at a time: a range whose
    answer fills the page is halved (by days) and asked again; a single day that fills it is read whole."""
    ranges = [(start, end)]
    while ranges:
        a, b = ranges.pop()
        found = fetch(a.isoformat(), b.isoformat(), page)
        if len(found) < page:
            if found:
                yield found
            continue
        days = (b - a).days
        if days <= 1:
            yield fetch(a.isoformat(), b.isoformat(), 0)  # one day's notes, whatever their number
            continue
        middle = a + dt.timedelta(days=days // 2)
        ranges += [(middle, b), (a, middle)]  # the older half first


def _shorts(hylo: Hylo, folder: str, start: str, end: str, limit: int) -> list[ShortEntry]:
    return hylo.short_list(start, end, limit, folder)


def _units(hylo: Hylo, start: str, end: str, limit: int) -> list[NoteInfo]:
    return hylo.knowledge_list(None, start, end, limit)


def _listed(hylo: Hylo, start: str, end: str, limit: int) -> list[NoteInfo]:
    return hylo.list(None, start, end, limit, kind="raw")  # daily files and units come by their own tools


def _under(vault_path: str, roots: list[str]) -> bool:
    rel = vault_path.strip().lstrip("/")
    folders = [root.strip().strip("/") for root in roots]
    return any(f in ("", ".") or rel == f or rel.startswith(f"{f}/") for f in folders)


def _one_line(said: str) -> str:
    """Hylo's error text on one line, at most SAID_CHARS characters."""
    line = " ".join(said.split())
    return line if len(line) <= SAID_CHARS else line[:SAID_CHARS - 1] + "…"


def _stamp(text: str | None) -> dt.datetime:
    """`created_at` as Hylo's Go encodes a time (RFC 3339, the server's zone), kept at its own wall clock."""
    try:
        return dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise HyloError(f"Hylo: a date {text!r} is not RFC 3339 (short_list's created_at)") from None


def _shown_time(text: str | None) -> float | None:
    """A listing's `updated_at`, shown for a person (`2026-11-28 10:15:02`): the time it names, or None."""
    try:
        return dt.datetime.fromisoformat(str(text).strip().replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _day_of(stem: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(stem[:10])
    except ValueError:
        return None


def _digest(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def _not_written(dimension: Dimension, url: str) -> None:
    LOG.warning("%s: %s changed in Hylo since it was read: not written; the next run starts from its new text",
                url, dimension.filename)
