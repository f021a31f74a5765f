"""Reading sources from a vault folder (SPEC §1), behind one interface.

A filesystem vault is the only backend today; Hylo's MCP tools (`short_list`,
`knowledge_list`, `knowledge_read`) would be another `Vault` with the same method.
"""

from __future__ import annotations

import codecs
import datetime as dt
import hashlib
import operator
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from stat import S_ISREG
from typing import Protocol

import frontmatter
import yaml
from pydantic import BaseModel

from hylo_memory.decay.format import yaml_error_line
from hylo_memory.errors import VaultError
from hylo_memory.extractors.base import Perspective, Source, SourceKind


def check_vault(vault: Path) -> Path:
    """The vault folder, resolved; a clear error when it is not one."""
    if not vault.exists():
        raise VaultError(f"{vault}: vault not found")
    if not vault.is_dir():
        raise VaultError(f"{vault}: vault is not a folder")
    return vault.resolve()


class Span(Protocol):
    """The dates a run reads, inclusive (a run's `Window` is one)."""

    start: dt.date
    today: dt.date

    def contains(self, day: dt.date) -> bool: ...


SHORTS = "_shorts"
KNOWLEDGE = "_knowledge"
_DATE_PREFIX = re.compile(r"^(\d{4}-\d{2}-\d{2})")
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_NAME = operator.attrgetter("name")


class Skipped(BaseModel):
    """A note the vault could not read, and why: named in the run summary."""

    path: str
    reason: str


class Unreadable(Exception):
    """A note that is skipped, with the reason the summary shows."""


class Vault(Protocol):
    def sources(self, window: Span) -> Iterator[Source | Skipped]:
        """Every source dated inside the window, in pages as the backend likes; skips named."""
        ...


class FolderVault:
    """A vault on disk: `_shorts/`, `_knowledge/` and extra scan paths."""

    def __init__(self, root: Path, extra_paths: list[str], memory_dir: str, max_bytes: int):
        self.root = root.resolve()
        self.extra_paths = extra_paths
        self.memory_dir = memory_dir
        self.max_bytes = max_bytes

    def sources(self, window: Span) -> Iterator[Source | Skipped]:
        seen: set[str] = set()  # a file under two scan paths is read once, by the first
        scans = [(SHORTS, SourceKind.short), (KNOWLEDGE, SourceKind.knowledge)]
        scans += [(p, SourceKind.extra) for p in self.extra_paths]
        for folder, kind in scans:
            problem = self._unusable(folder, required=kind is SourceKind.extra)
            if problem:
                yield Skipped(path=folder, reason=problem)
                continue
            for rel, path in self._candidates(folder, _Prefilter(kind, window), seen):
                try:
                    source = self._read(Path(path), rel, kind)
                except Unreadable as exc:
                    yield Skipped(path=rel, reason=str(exc))
                    continue
                if source is not None and window.contains(source.date):
                    yield source

    def _unusable(self, folder: str, required: bool) -> str | None:
        """Why a scan path cannot be read, said once in the summary rather than passed over in silence."""
        top = self.root / folder
        if not _inside(top, self.root):
            return "leads outside the vault: not read"
        if required and not top.exists():
            return "extra scan path not found in the vault"
        return None

    def _candidates(self, folder: str, may_be_in: _Prefilter, seen: set[str]) -> Iterator[tuple[str, str]]:
        """(vault-relative path, path) of each markdown file under `folder` that may be in the window."""
        top = Path(os.path.normpath(self.root / folder))
        if not _inside(top, self.root) or not top.exists():
            return
        rel = top.relative_to(self.root).as_posix()
        if top.is_file():
            if top.suffix == ".md" and str(top) not in seen:
                seen.add(str(top))
                if may_be_in(top.name, top.stat, may_be_in.settled(str(top.parent))):
                    yield rel, str(top)
            return
        yield from self._walk(str(top), rel, may_be_in, seen)

    def _walk(self, top: str, top_rel: str, may_be_in: _Prefilter, seen: set[str]) -> Iterator[tuple[str, str]]:
        """`_candidates` under the folder `top`, depth first and by name; symlinked folders are not entered.

        This loop runs for every file of the vault on every run (100,000 notes in a big
        one), so it stays on strings and `os.DirEntry`: no `Path` and no `resolve()` per
        file, one generator for the whole tree, and nothing built for a file passed over.
        Only a symlinked file can lead outside the vault, so only those are resolved.
        """
        folders = [(top, top_rel)]
        while folders:
            folder, rel = folders.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = sorted(listing, key=_NAME)
            except OSError:
                continue
            settled = may_be_in.settled(folder)
            older = may_be_in.first if settled else ""
            subfolders = []
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue  # hidden folders (.obsidian, .trash) and files are not notes
                if name[:10] < older and name.endswith(".md") and _DATE_PREFIX.match(name):
                    continue  # the bulk of a big vault: `may_be_in` would say no, said first and fast
                if entry.is_symlink():
                    if not name.endswith(".md") or entry.is_dir() or not _inside(Path(entry.path), self.root):
                        continue
                elif entry.is_dir():
                    if name != self.memory_dir:
                        subfolders.append((entry.path, f"{rel}/{name}"))
                    continue
                elif not name.endswith(".md"):
                    continue
                if entry.path in seen:
                    continue
                seen.add(entry.path)
                if may_be_in(name, entry.stat, settled):
                    yield f"{rel}/{name}", entry.path
            folders += reversed(subfolders)

    def _read(self, path: Path, rel: str, kind: SourceKind) -> Source | None:
        data = _read_bytes(path, self.max_bytes)
        # Before decoding: most binary files are not UTF-8 either, and "binary" says more.
        # UTF-16 text has NUL bytes too, but it is text in the wrong encoding.
        if b"\x00" in data and not data.startswith(_UTF16_BOMS):
            raise Unreadable("binary file, not a note")
        try:
            text = data.decode("utf-8-sig")  # a byte-order mark must not hide the frontmatter
        except UnicodeDecodeError:
            raise Unreadable("not UTF-8 text") from None
        post = _parse(text)
        meta = post.metadata if isinstance(post.metadata, dict) else {}
        if kind == SourceKind.knowledge and str(meta.get("kind", "knowledge")) != "knowledge":
            return None
        content_hash = hashlib.sha256(data).hexdigest()
        date = _source_date(meta, kind) or _name_date(path) or dt.date.fromtimestamp(path.stat().st_mtime)
        fields = _unit_fields(meta, rel) if kind == SourceKind.knowledge else {"perspective": Perspective.own}
        return Source(path=rel, kind=kind, date=date, text=post.content.strip(), content_hash=content_hash, **fields)


def _parse(text: str) -> frontmatter.Post:
    try:
        return frontmatter.loads(text)
    except yaml.YAMLError as exc:
        # python-frontmatter hands YAML the text from the end of the opening `---`
        # line, so YAML's first line is the file's line 1.
        line = yaml_error_line(exc, 1)
        raise Unreadable(f"frontmatter is not valid YAML{f' (line {line})' if line else ''}") from None
    except (ValueError, TypeError) as exc:
        # Well-formed YAML whose value cannot be built, e.g. `created: 2026-02-30`.
        raise Unreadable(f"frontmatter is not valid YAML ({exc})") from None


class _Prefilter:
    """Cheap test before opening a file: can this note be dated inside the window?

    A note dated inside the window was written then, so either its name says so or it
    was modified since the window began. This keeps an incremental run from opening
    the years of notes outside it.
    """

    def __init__(self, kind: SourceKind, window: Span):
        # Bounds as the text a file name starts with: ISO dates sort as text.
        self.first, self.last = window.start.isoformat(), window.today.isoformat()
        self.since = _midnight(window.start)
        # Knowledge units are dated by `updated`, which an edit in place moves.
        self.dated_once = kind is not SourceKind.knowledge

    def settled(self, folder: str) -> bool:
        """Whether no file was created in (or moved into) `folder` since the window began.

        Then every dated-by-name note in it was created before the window, and its date
        (frontmatter `created`/`date`, else its name) is older too: an edit does not move
        it. In a big vault kept in dated folders this spares a stat per note of every
        older folder. Not for undated names: an edit moves the mtime that dates them.
        """
        return self.dated_once and _mtime(folder) < self.since

    def __call__(self, name: str, stat: Callable[[], os.stat_result], settled: bool) -> bool:
        if self.first <= name[:10] <= self.last and _DATE_PREFIX.match(name):
            return True
        if settled and _DATE_PREFIX.match(name):
            return False
        try:
            return stat().st_mtime >= self.since
        except OSError:
            return True  # let _read name the problem


def _mtime(folder: str) -> float:
    """A folder's mtime; +inf when unknown, so that nothing in it is passed over."""
    try:
        return os.stat(folder).st_mtime
    except OSError:
        return float("inf")


def _midnight(day: dt.date) -> float:
    """The timestamp at which `day` begins in local time, as `date.fromtimestamp` reads mtimes."""
    return dt.datetime.combine(day, dt.time()).timestamp()


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    try:
        info = path.stat()
        if not S_ISREG(info.st_mode):
            # A pipe named like a note would block the run (and its lock) forever.
            raise Unreadable("not a regular file (a pipe, socket or device)")
        size = info.st_size
        if size > max_bytes:
            raise Unreadable(f"larger than {max_bytes:,} bytes")
        return path.read_bytes()
    except OSError as exc:
        raise Unreadable(f"cannot read: {exc.strerror}") from None


def _inside(path: Path, root: Path) -> bool:
    """Whether `path`, symlinks followed, stays inside the vault."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):
        return False


def _name_date(path: Path) -> dt.date | None:
    match = _DATE_PREFIX.match(path.name)
    return _as_date(match.group(1)) if match else None


def _as_date(value: object) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


def _source_date(meta: dict[str, object], kind: SourceKind) -> dt.date | None:
    if kind == SourceKind.knowledge:
        # An edited unit counts from its last edit.
        dates = [d for d in (_as_date(meta.get("updated")), _as_date(meta.get("created"))) if d]
        return max(dates) if dates else None
    return _as_date(meta.get("created")) or _as_date(meta.get("date"))


def _unit_fields(meta: dict[str, object], rel: str) -> dict[str, object]:
    perspective = str(meta.get("perspective", "")).strip().lower()
    return {
        "title": str(meta["title"]) if meta.get("title") else Path(rel).stem,
        "tags": [t.lstrip("#").lower() for t in _strings(meta.get("tags"))],
        "source_notes": _strings(meta.get("source_notes")),
        "perspective": Perspective(perspective) if perspective in Perspective.__members__ else None,
    }


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        value = [v for v in re.split(r"[,\s]+", value) if v]
    if not isinstance(value, list):
        return []
    return [str(v).strip() for v in value if str(v).strip()]
