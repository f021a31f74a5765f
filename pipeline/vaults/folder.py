"""A vault on disk (docs/spec.md §1): its sources read from its folders, as the `Vault` promise says.

A Hylo vault is read through this too, once its notes are pulled into its mirror (hylo_mirror.py).
"""

from __future__ import annotations

import codecs
import datetime as dt
import errno
import hashlib
import operator
import os
import posixpath
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from stat import S_ISREG
from typing import Any, NamedTuple

from hylo_memory.decay.files.store import resolved
from hylo_memory.domain.sources import Perspective, Source, SourceKind
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.notes import hylo_daily
from hylo_memory.pipeline.notes.dates import EARLIEST, LATEST, name_date, name_day
from hylo_memory.pipeline.notes.fields import MAX_WORD, Unreadable, parse_note, source_date, text_field, unit_fields
from hylo_memory.pipeline.notes.layouts import LOGSEQ, is_logseq_folder, templates_folders, tool_folder
from hylo_memory.pipeline.notes.logseq import read_outline
from hylo_memory.pipeline.notes.reading import NoteReader, Pending
from hylo_memory.pipeline.notes.secrets import redact
from hylo_memory.pipeline.notes.text import link_target
from hylo_memory.pipeline.notes.whose import Reason, judge, own_stance, pool_fields, without_quotes

from .protocol import Skipped, Span

SHORTS = "_shorts"
KNOWLEDGE = "_knowledge"

_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_NAME = operator.attrgetter("name")
Identity = tuple[int, int] | str  # a note's file, (st_dev, st_ino) of its target; its path when it cannot be stat'ed


class ReadingOptions(NamedTuple):
    """How a folder vault reads its notes: whose clippings are the person's (`author`: their name and aliases,
    docs/spec.md §1), the time zone a file's mtime is dated in (`zone`; None: the machine's), the notes an earlier
    run found dated after its day (`future`), and what reads a note (`note_reader`)."""

    author: Sequence[str] = ()
    zone: dt.tzinfo | None = None
    future: Collection[str] = ()
    note_reader: Callable[[], NoteReader] = NoteReader

class FolderVault:
    """A vault on disk: its short-note folders (`_shorts/`), knowledge folders (`_knowledge/`) and extra scan paths.

    `"."` as any of them is the whole vault. A folder configured as one kind inside a scan
    path of another (`_knowledge/` inside `"."`) is read as its own kind, not twice; the
    memory folder and hidden folders are never read.

    `zone` is the person's time zone (config `timezone`; None: the machine's): a file's mtime
    is a date there, so a note saved at 07:30 in Shanghai is dated that day on a UTC machine.
    `future` names notes an earlier run found dated after its day: opened whatever their mtime,
    so each is read on its day.
    """

    def __init__(self, root: Path, extra_paths: list[str], memory_dir: str, max_bytes: int,
                 shorts_paths: list[str] | None = None, knowledge_paths: list[str] | None = None,
                 left_out: Collection[str] = (), reading: ReadingOptions | None = None):
        reading = reading or ReadingOptions()
        self.root = root.resolve()
        self.left_out = frozenset(_relative(f) for f in left_out)  # never read: the scopes' (docs/spec.md §1.1)
        self.note_reader = reading.note_reader
        self.author = reading.author  # the person's name and aliases: a clipping they wrote is theirs (docs/spec.md §1)
        self.zone = reading.zone or clock.zone()
        self.future = frozenset(reading.future)
        self.extra_paths = extra_paths
        self.memory_dir = memory_dir
        self.max_bytes = max_bytes
        self.shorts_paths = [SHORTS] if shorts_paths is None else shorts_paths
        self.knowledge_paths = [KNOWLEDGE] if knowledge_paths is None else knowledge_paths
        self._names: dict[str, list[str]] | None = None  # file name (lower case) → vault paths, built when needed

    def scans(self) -> list[tuple[str, SourceKind]]:
        """Every scan path with the kind of source it holds, in the order they are read."""
        return ([(p, SourceKind.short) for p in self.shorts_paths]
                + [(p, SourceKind.knowledge) for p in self.knowledge_paths]
                + [(p, SourceKind.extra) for p in self.extra_paths])

    def _left_out(self, folder: str, kind: SourceKind, scans: list[tuple[str, SourceKind]],
                  templates: frozenset[str] = frozenset()) -> frozenset[str]:
        """Vault-relative folders a walk of `folder` passes over: the memory, Obsidian's templates folders,
        scan paths of other kinds in it, and the folders left out (the scopes')."""
        top = _relative(folder)
        inner = {_relative(p) for p, k in scans if k is not kind}
        inside = {p for p in inner if p != top and (top == "." or p.startswith(f"{top}/"))}
        return frozenset(inside | templates | self.left_out | {_relative(self.memory_dir)})

    def pull(self, window: Span) -> None:
        pass  # its notes are here already

    def sources(self, window: Span) -> Iterator[Source | Skipped]:
        # The notes are read in batches, their text by `note_reader` (on other processes when there is much to
        # read); each batch is read while the next one's files are opened.
        with self.note_reader() as reader:
            batch: list[Skipped | _Draft] = []
            size = 0
            reading: deque[tuple[list[Skipped | _Draft], Pending]] = deque()
            for found in self._drafts(window):
                batch.append(found)
                size += len(found.body) if isinstance(found, _Draft) else 0
                if size >= BATCH_CHARS:
                    reading.append((batch, _started(reader, batch)))
                    batch, size = [], 0
                    while len(reading) > 1:
                        yield from _finished(*reading.popleft())
            reading.append((batch, _started(reader, batch)))
            while reading:
                yield from _finished(*reading.popleft())

    def _drafts(self, window: Span) -> Iterator[_Draft | Skipped]:
        for found in self.listed(window):
            if isinstance(found, Skipped):
                yield found
                continue
            rel, path, kind = found
            try:
                read = self._read(Path(path), rel, kind)
            except Unreadable as exc:
                yield Skipped(path=rel, reason=str(exc))
                continue
            yield from (d for d in read if window.start <= d.fields["date"])

    def listed(self, window: Span) -> Iterator[Listed | Skipped]:
        """Each note that may be dated in the window or after it, by its name or mtime, not opened; unusable scan
        paths named. A note reached twice (two scan paths, a symlink, a hard link) is one source, listed by the
        first path (docs/spec.md §1)."""
        seen: set[Identity] = set()
        scans = self.scans()
        templates = templates_folders(self.root)  # never read, wherever they sit (docs/spec.md §1)
        for folder, kind in scans:
            if any(_relative(folder) == f or _relative(folder).startswith(f"{f}/") for f in self.left_out):
                continue  # a scope's folder: its notes are the scope's memory's (docs/spec.md §1.1)
            problem = self._unusable(folder, required=kind is SourceKind.extra) or tool_folder(self.root, folder,
                                                                                                templates)
            if problem:
                yield Skipped(path=folder, reason=problem)
                continue
            left_out = self._left_out(folder, kind, scans, templates)
            prefilter = _Prefilter(kind, window, self.zone, self.future)
            for rel, path in self._candidates(folder, prefilter, seen, left_out):
                yield Listed(rel, path, kind)

    def dates(self, note: Listed) -> list[tuple[dt.date, bool]]:
        """The dates a run gives a listed note (a daily file's entries have one each), each with whether it is the
        note's own (False: its mtime's, or unreadable); none when it cannot be read."""
        try:
            return [(d.fields["date"], not d.fields.get("undated")) for d in self._read(Path(note.path), note.rel,
                                                                                       note.kind)]
        except Unreadable:
            return []

    def resolve(self, link: str, where: str = "") -> str:
        """The vault path a `source_notes` entry names, resolved as Obsidian resolves links (docs/spec.md §1).

        By path first (`.md` added when missing; `./` and `../` from the note `where` too),
        else by a file name (or a path's ending) unique across the vault; a link that names
        no note, or several, is kept as written, brackets and alias removed.
        """
        target = link_target(link)
        if not target:
            return target
        md = target if target.lower().endswith(".md") else f"{target}.md"
        tries = [md, target]
        if link.strip().startswith(("./", "../")) or target.startswith("../"):
            here = posixpath.dirname(where)
            tries = [posixpath.normpath(posixpath.join(here, t)) for t in tries] + tries
        for rel in tries:
            if not rel.startswith("../") and rel != ".." and os.path.isfile(self.root / rel):
                return rel
        matches = [p for p in self._by_name().get(posixpath.basename(md).lower(), [])
                   if "/" not in md or p.lower() == md.lower() or p.lower().endswith(f"/{md.lower()}")]
        return matches[0] if len(matches) == 1 else target

    def _by_name(self) -> dict[str, list[str]]:
        """Every note of the vault by file name: one walk, the first time a link needs it."""
        if self._names is None:
            self._names = {}
            for folder, subfolders, files in os.walk(self.root):
                subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d != self.memory_dir
                                       and not (d == LOGSEQ and is_logseq_folder(os.path.join(folder, d))))
                rel = Path(folder).relative_to(self.root).as_posix()
                for name in sorted(files):
                    if name.endswith(".md") and not name.startswith("."):
                        path = name if rel == "." else f"{rel}/{name}"
                        self._names.setdefault(name.lower(), []).append(path)
        return self._names

    def _unusable(self, folder: str, required: bool) -> str | None:
        """Why a scan path cannot be read, said once in the summary rather than passed over in silence."""
        top = self.root / folder
        if resolved(top) is None:
            return "a symlink loop (too many levels of symbolic links): not read"
        if not _inside(top, self.root):
            return "leads outside the vault: not read"
        if required and not top.exists():
            return "extra scan path not found in the vault"
        return None

    def _candidates(self, folder: str, may_be_in: _Prefilter, seen: set[Identity],
                    left_out: frozenset[str] = frozenset()) -> Iterator[tuple[str, str]]:
        """(vault-relative path, path) of each markdown file under `folder` that may be in the window."""
        top = Path(os.path.normpath(self.root / folder))
        if not _inside(top, self.root) or not top.exists():
            return
        rel = top.relative_to(self.root).as_posix()
        if top.is_file():
            if top.suffix == ".md" and _first_time(seen, top.stat, str(top)):
                if may_be_in(top.name, top.stat, may_be_in.settled(str(top.parent))) or rel in may_be_in.future:
                    yield rel, str(top)
            return
        yield from self._walk(str(top), rel, may_be_in, seen, left_out)

    def _walk(self, top: str, top_rel: str, may_be_in: _Prefilter, seen: set[Identity],
              left_out: frozenset[str] = frozenset()) -> Iterator[tuple[str, str]]:
        """`_candidates` under the folder `top`, depth first and by name; symlinked folders are not entered,
        nor the folders `left_out` (vault-relative), any named like the memory folder, or Logseq's own.

        This loop runs for every file of the vault on every run (100,000 notes in a big
        one), so it stays on strings and `os.DirEntry`: no `Path` and no `resolve()` per
        file, one generator for the whole tree, and nothing built for a file passed over.
        Only a symlinked file can lead outside the vault, so only those are resolved. A
        note's identity is its `entry.stat()`, which the mtime test reuses (DirEntry caches
        it): a note passed over by its name alone is never stat'ed.
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
            prefix = "" if rel == "." else f"{rel}/"  # the whole vault's notes are named from its root
            future = may_be_in.future
            subfolders = []
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue  # hidden folders (.obsidian, .trash) and files are not notes
                by_name = may_be_in.by_name(name, settled) if name.endswith(".md") else None
                awaited = bool(future) and f"{prefix}{name}" in future  # dated after an earlier run's day
                if by_name is False and not awaited:
                    continue  # the bulk of a big vault: passed over by its name, first and fast
                if entry.is_symlink():
                    if not name.endswith(".md") or _leads_away(entry.path, self.root):
                        continue
                elif entry.is_dir():
                    if name != self.memory_dir and f"{prefix}{name}" not in left_out \
                            and not (name == LOGSEQ and is_logseq_folder(entry.path)):
                        subfolders.append((entry.path, f"{prefix}{name}"))
                    continue
                elif not name.endswith(".md"):
                    continue
                if not _first_time(seen, entry.stat, entry.path):
                    continue
                if by_name or awaited or may_be_in.modified(entry.stat):
                    yield f"{prefix}{name}", entry.path
            folders += reversed(subfolders)

    def opened(self, path: Path, rel: str, kind: SourceKind) -> Opened | None:
        """The note's file read and parsed, and dated unless it is Hylo's daily file (whose entries are); None when
        it is no source (Hylo's `kind: index`); Unreadable (skipped, and why) when it cannot be read."""
        data = _read_bytes(path, self.max_bytes)
        # Before decoding: most binary files are not UTF-8 either, and "binary" says more.
        # UTF-16 text has NUL bytes too, but it is text in the wrong encoding.
        if b"\x00" in data and not data.startswith(_UTF16_BOMS):
            raise Unreadable("binary file, not a note")
        try:
            text = data.decode("utf-8-sig")  # a byte-order mark must not hide the frontmatter
        except UnicodeDecodeError:
            raise Unreadable("not UTF-8 text") from None
        post = parse_note(text)
        meta = post.metadata if isinstance(post.metadata, dict) else {}
        properties, content = read_outline(post.content)  # Logseq's `key:: value` lines (docs/spec.md §1)
        meta = properties | meta  # fields, as frontmatter's: where both give one, the frontmatter's
        if kind == SourceKind.knowledge and (text_field(meta, "kind", MAX_WORD) or "knowledge") != "knowledge":
            return None  # Hylo's `kind: index` (a domain's index) is no unit
        content_hash = hashlib.sha256(data).hexdigest()
        if kind is not SourceKind.knowledge and hylo_daily.is_daily(meta):
            return Opened(meta, content, content_hash, None, False)
        written, unreadable = source_date(meta, kind)
        by_name = None if written else name_date(path)
        date = written or by_name or _mtime_date(path, self.zone)
        # Named in the summary: a date the note gives and we cannot read, or none but the file's mtime.
        return Opened(meta, content, content_hash, date, unreadable or not (written or by_name))

    def _read(self, path: Path, rel: str, kind: SourceKind) -> list[_Draft]:
        """The note's source but for its text — or, for Hylo's daily file, one an entry's (docs/spec.md §10)."""
        opened = self.opened(path, rel, kind)
        if opened is None:
            return []
        meta, content, content_hash, date, undated = opened
        if date is None:
            return self._entries(rel, meta, content)
        fields = unit_fields(meta, rel, self.resolve) if kind == SourceKind.knowledge \
            else {"perspective": Perspective.own}
        stated = fields["perspective"] if kind == SourceKind.knowledge else None
        whose = judge(meta, rel, content, self.author, stated if isinstance(stated, Perspective) else None)
        if whose.external:  # someone else's words: no dimension, its title and tags for the external pool
            fields = ({} if kind == SourceKind.knowledge else pool_fields(meta, rel)) | fields \
                | {"perspective": Perspective.external}
        drafts = [_Draft(whose.body, whose.reason, {"path": rel, "kind": kind, "date": date,
                                                    "content_hash": content_hash, "undated": undated, **fields})]
        stance = own_stance(content) if kind == SourceKind.knowledge else None
        if stance:  # kept by the run only when the unit is judged someone else's (docs/spec.md §10)
            drafts.append(_Draft(stance, None, {
                "path": f"{rel}#stance", "kind": kind, "date": date, "undated": undated, "stance": True,
                "content_hash": hashlib.sha256(stance.encode("utf-8")).hexdigest(), "title": fields.get("title"),
                "perspective": Perspective.own}))
        return drafts

    def _entries(self, rel: str, meta: dict[str, object], content: str) -> list[_Draft]:
        """A daily file's entries, each its own source: id the daily path and time, its own date, its own text's
        hash, so an entry appended later is the only new one."""
        taken: set[str] = set()
        found = []
        for entry in hylo_daily.entries(content):
            ident = entry.source_id(rel, taken)
            whose = judge(meta, rel, entry.text, self.author, None)
            fields = pool_fields(meta, rel) | {"perspective": Perspective.external} if whose.external \
                else {"perspective": Perspective.own}
            found.append(_Draft(whose.body, whose.reason, {
                "path": ident, "kind": SourceKind.short, "date": entry.day,
                "content_hash": hashlib.sha256(entry.text.encode("utf-8")).hexdigest(), **fields}))
        return found


class Opened(NamedTuple):
    """A note's file read: its fields (frontmatter over Logseq properties), its body, its bytes' hash, and its date
    (None: Hylo's daily file, whose entries have theirs) and whether it is named under `undated`."""

    meta: dict[str, object]
    content: str
    content_hash: str
    date: dt.date | None
    undated: bool


class Listed(NamedTuple):
    """A note found by the walk, not opened: its vault path, its path on disk, and the kind of source it is."""

    rel: str
    path: str
    kind: SourceKind


class _Draft(NamedTuple):
    """A source read but for its text: the body to read as plain text, why it is someone else's words, the rest."""

    body: str
    reason: Reason | None
    fields: dict[str, Any]


def _started(reader: NoteReader, batch: list[Skipped | _Draft]) -> Pending:
    return reader.start([found.body for found in batch if isinstance(found, _Draft)])


def _finished(batch: list[Skipped | _Draft], reading: Pending) -> Iterator[Source | Skipped]:
    """A batch's sources, with their texts, and its skips, in the order found."""
    texts = iter(reading.result())
    for found in batch:
        if isinstance(found, Skipped):
            yield found
            continue
        # What the person wrote, not its markup nor the words they quote (docs/spec.md §1); the hash stays the
        # file's bytes'. As plain text when its markup would cost too much to parse: named.
        note = next(texts)
        text, quoted = without_quotes(note.text)
        others = found.reason or (Reason.quotes if quoted else None)
        # Every reader — a model, an assistant's batch, the ledger's leases and batches — gets the text from here,
        # its secrets replaced (docs/spec.md §1 "Secrets"). The hash stays the note's own: it never leaves the
        # machine, and one of the redacted text would have every note read before this rule read again.
        yield Source(text=redact(text), others_words=others.value if others else None, plain_text=note.plain,
                     **_without_secrets(found.fields))


def _without_secrets(fields: dict[str, Any]) -> dict[str, Any]:
    """A unit's title and tags, which join the external pool and the requests: its title's secrets replaced, a tag
    holding one left out (a tag `[secret]` would join units with nothing else in common)."""
    if isinstance(fields.get("title"), str):
        fields = fields | {"title": redact(fields["title"])}
    if "tags" in fields:
        fields = fields | {"tags": [tag for tag in fields["tags"] if redact(tag) == tag]}
    return fields


BATCH_CHARS = 512_000  # note text read together: a batch is read while the next one's files are opened


class _Prefilter:
    """Cheap test before opening a file: can this note be dated inside the window?

    A note dated inside the window was written then, so either its name says so or it
    was modified since the window began — midnight in the person's zone, where mtimes are
    dated. This keeps an incremental run from opening the years of notes outside it.
    A note named for a day after the window is opened too, to be named as waiting.
    """

    def __init__(self, kind: SourceKind, window: Span, zone: dt.tzinfo, future: frozenset[str] = frozenset()):
        self.first, self.last = window.start, window.today
        self.since = _midnight(window.start, zone)
        self.future = future  # vault paths dated after an earlier run's day: opened whatever their mtime
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
        by_name = self.by_name(name, settled)
        return self.modified(stat) if by_name is None else by_name

    def by_name(self, name: str, settled: bool) -> bool | None:
        """What the note's name says: in the window (its date is), not (an older folder's), or None (ask its mtime).

        Every dated name counts (`name_day`: ISO, Logseq's `YYYY_MM_DD`, a Zettelkasten id), and
        only a real date: an impossible one dates nothing, so its note is dated by its mtime.
        A name after the window is in it too: the run names that note as waiting for its day.
        """
        day = name_day(name)
        if day is None:
            return None
        return True if self.first <= day else (False if settled else None)

    def modified(self, stat: Callable[[], os.stat_result]) -> bool:
        """Whether the note was modified since the window began."""
        try:
            return stat().st_mtime >= self.since
        except OSError:
            return True  # let _read name the problem


def _first_time(seen: set[Identity], stat: Callable[[], os.stat_result], path: str) -> bool:
    """Whether a note's file is met for the first time, added to `seen`: by its identity, so that a symlink or
    a hard link to a note already read is not read again (docs/spec.md §1); by its path when it cannot be stat'ed."""
    try:
        info = stat()  # follows a symlink: its target's identity
        # A DirEntry's stat has no inode on Windows (0): there a note is known by its path.
        identity: Identity = (info.st_dev, info.st_ino) if info.st_ino else path
    except OSError:
        identity = path
    if identity in seen:
        return False
    seen.add(identity)
    return True


def _mtime(folder: str) -> float:
    """A folder's mtime; +inf when unknown, so that nothing in it is passed over."""
    try:
        return os.stat(folder).st_mtime
    except OSError:
        return float("inf")


def _midnight(day: dt.date, zone: dt.tzinfo) -> float:
    """The timestamp at which `day` begins in the person's zone, where `_mtime_date` dates mtimes."""
    return dt.datetime.combine(day, dt.time(), tzinfo=zone).timestamp()


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    try:
        # Opened without blocking and checked on the open file: a pipe named like a note
        # (or swapped in for one) would block the run, and its lock, forever.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not S_ISREG(info.st_mode):
                raise Unreadable("not a regular file (a pipe, socket or device)")
            if info.st_size > max_bytes:
                raise Unreadable(f"larger than {max_bytes:,} bytes")
            data = handle.read(max_bytes + 1)
        if len(data) > max_bytes:  # grown since it was measured
            raise Unreadable(f"larger than {max_bytes:,} bytes")
        return data
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unreadable("a symlink loop (too many levels of symbolic links): not read") from None
        raise Unreadable(f"cannot read: {exc.strerror or exc}") from None


def _relative(folder: str) -> str:
    """A scan path as the walk names folders: vault-relative, POSIX, normalised (`"."` for the vault itself)."""
    return posixpath.normpath(folder.strip().replace(os.sep, "/")) or "."


def _leads_away(path: str, root: Path) -> bool:
    """Whether a symlinked note leads to a folder or outside the vault: then it is passed over.

    A link that leads nowhere (dangling, or a loop) is read, so that the summary names it.
    """
    try:
        target = Path(path).resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return target.is_dir() or not target.is_relative_to(root)


def _inside(path: Path, root: Path) -> bool:
    """Whether `path`, symlinks followed, stays inside the vault."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):
        return False


def _mtime_date(path: Path, zone: dt.tzinfo) -> dt.date:
    """The note's modification date in the person's zone (not the machine's): its date of last resort,
    checked like any other."""
    try:
        day = dt.datetime.fromtimestamp(path.stat().st_mtime, zone).date()
    except (OSError, OverflowError, ValueError):
        raise Unreadable("no date: none in its frontmatter or name, and its modification time "
                         "is out of range") from None
    if not EARLIEST <= day <= LATEST:
        raise Unreadable(f"no date: none in its frontmatter or name, and its modification time ({day}) "
                         f"is out of range ({EARLIEST} to {LATEST})")
    return day
