"""Every note the vault reads, whatever its date, as the archive reads it (docs/spec.md §9.7).

The notes are found and opened as a run finds and opens them (folder.py): the same scan paths, the same
notes passed over, the same dates. Each becomes dated parts of plain text, each marked with whose words
it holds: a Hylo daily file an entry a part, an AI chat a turn a part (the assistant's marked as the AI's,
where a run reads only the person's), a clipping or a highlights export one part marked as such. Every
part's secrets are replaced here, where it becomes text (notes/secrets.py), so the index never holds one.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from hylo_memory.domain.sources import Perspective, SourceKind
from hylo_memory.pipeline.notes import hylo_daily
from hylo_memory.pipeline.notes.dates import EARLIEST, LATEST
from hylo_memory.pipeline.notes.fields import MAX_TITLE, MAX_WORD, Unreadable, text_field
from hylo_memory.pipeline.notes.passages import ArchivedNote, Part, Stamp, Whose
from hylo_memory.pipeline.notes.reading import NoteReader
from hylo_memory.pipeline.notes.secrets import redact
from hylo_memory.pipeline.notes.whose import Reason, chat_turns, judge
from hylo_memory.pipeline.notes.whose import Whose as Judged

from .folder import FolderVault, Listed
from .protocol import Skipped

BATCH_CHARS = 512_000  # markdown read into text together: a batch is read by the pool, its workers at once


class _EveryDay:
    """The window that holds every date a note may have: the archive is the whole vault."""

    start, today = EARLIEST, LATEST

    def contains(self, day: dt.date) -> bool:
        return True


class _Draft(NamedTuple):
    """A part before its markdown is read as text."""

    date: dt.date
    whose: Whose
    markdown: str
    title: str | None = None  # a unit's title, before its text


class FolderArchive:
    """The archive's reading of a folder vault (a Hylo vault's mirror is one): `listing`, then `read`."""

    def __init__(self, vault: FolderVault, note_reader: Callable[[], NoteReader] = NoteReader):
        self.vault = vault
        self.note_reader = note_reader
        self._listed: dict[str, Listed] = {}

    def listing(self) -> dict[str, Stamp]:
        """Every note the vault reads, by vault path, with its stamp: found by names and a stat each, none opened."""
        stamps: dict[str, Stamp] = {}
        self._listed = {}
        for found in self.vault.listed(_EveryDay()):
            if isinstance(found, Skipped):
                continue  # a scan path that cannot be read: the run's summary names it
            self._listed[found.rel] = found
            stamps[found.rel] = _stamp(found.path)
        return stamps

    def read(self, paths: Sequence[str]) -> Iterator[ArchivedNote]:
        """The notes `paths` (from `listing`), in order, a batch of text read at a time (by worker processes when
        there is much to read); a note that cannot be read comes with no parts and why."""
        if any(p not in self._listed for p in paths):
            self.listing()
        with self.note_reader() as reader:
            batch: list[tuple[ArchivedNote, list[_Draft]]] = []
            size = 0
            for path in paths:
                listed = self._listed.get(path)
                note, drafts = self._open(path, listed)
                batch.append((note, drafts))
                size += sum(len(d.markdown) for d in drafts)
                if size >= BATCH_CHARS:
                    yield from _texts(reader, batch)
                    batch, size = [], 0
            yield from _texts(reader, batch)

    def _open(self, path: str, listed: Listed | None) -> tuple[ArchivedNote, list[_Draft]]:
        if listed is None:
            return ArchivedNote(path, Stamp(-1, -1), "", [], "no longer in the vault"), []
        stamp = _stamp(listed.path)  # before reading: a note saved meanwhile is read again next time
        try:
            opened = self.vault.opened(Path(listed.path), listed.rel, listed.kind)
        except Unreadable as exc:
            return ArchivedNote(path, stamp, "", [], str(exc)), []
        if opened is None:  # Hylo's `kind: index`: no unit
            return ArchivedNote(path, stamp, "", []), []
        meta, content = opened.meta, opened.content
        if opened.date is None:  # Hylo's daily file: an entry a part, each dated by its header
            drafts = [d for entry in hylo_daily.entries(content)
                      for d in _spoken(entry.day, judge(meta, path, entry.text, self.vault.author), entry.text)]
            return ArchivedNote(path, stamp, opened.content_hash, []), drafts
        stated = None
        title = None
        if listed.kind is SourceKind.knowledge:
            try:
                stance = (text_field(meta, "perspective", MAX_WORD) or "").lower()
                title = text_field(meta, "title", MAX_TITLE)
            except Unreadable:
                stance = ""
            stated = Perspective(stance) if stance in Perspective.__members__ else None
        drafts = _spoken(opened.date, judge(meta, path, content, self.vault.author, stated), content)
        if title and drafts:
            drafts[0] = drafts[0]._replace(title=title)
        return ArchivedNote(path, stamp, opened.content_hash, []), drafts


def _spoken(date: dt.date, judged: Judged, markdown: str) -> list[_Draft]:
    """A note's (or an entry's) drafts by whose words they are: an AI chat whose turns are told apart a turn each."""
    if judged.external:
        reason = judged.reason
        whose = Whose.clipping if reason is Reason.clipping else Whose.highlights if reason is Reason.highlights \
            else Whose.ai
        return [_Draft(date, whose, markdown)]
    if judged.reason is Reason.ai_chat:
        return [_Draft(date, Whose.ai if own is False else Whose.ai_chat, turn) for own, turn in chat_turns(markdown)]
    return [_Draft(date, Whose.own, markdown)]


def _texts(reader: NoteReader, batch: list[tuple[ArchivedNote, list[_Draft]]]) -> Iterator[ArchivedNote]:
    """The batch's notes with their parts' text: read as Obsidian shows it, secrets replaced, blank parts left out."""
    texts = iter(reader.start([d.markdown for _, drafts in batch for d in drafts]).result())
    for note, drafts in batch:
        parts = []
        for draft in drafts:
            text = next(texts).text
            if draft.title and draft.title not in text[:len(draft.title) + 10]:
                text = f"{draft.title}\n\n{text}"
            text = redact(text).strip()
            if text:
                parts.append(Part(draft.date, draft.whose, text))
        yield note._replace(parts=parts)


def _stamp(path: str) -> Stamp:
    try:
        info = os.stat(path)
    except OSError:
        return Stamp(-1, -1)  # read again each time, and named as it cannot be read
    return Stamp(info.st_mtime_ns, info.st_size)
