"""What one change to the memory files records (docs/spec.md §8): its files before and after, provenance, tombstones.

Built by every command that writes memory files, carried in the journal, and recorded in the
ledger in the same transaction as the rest of the command, so a replayed journal records it once.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Collection, Iterable, Mapping
from typing import Literal, NamedTuple

from pydantic import BaseModel, Field

from hylo_memory.decay import Dimension, FileUpdate, Tombstone
from hylo_memory.decay.match import normalise
from hylo_memory.pipeline.state.candidates import Actors as Actors
from hylo_memory.pipeline.state.candidates import Restore
from hylo_memory.pipeline.state.ledger import Counts

Command = Literal["refresh", "remember", "apply", "review", "forget", "unforget", "undo", "promote", "reject"]
ProvenanceKind = Literal["added", "refreshed", "adopted", "superseded", "forgotten"]


class Provenance(BaseModel):
    """One piece of evidence a change applied to an item, or what else happened to it (adopted, superseded)."""

    dimension: Dimension
    item: str  # the item's text after the change
    wording: str  # the evidence's own text (for `superseded`: the item that replaced it)
    source: str  # a note's path, `remember`, an apply file's source, `hand-written`
    source_date: dt.date | None = None
    content_hash: str | None = None  # a note's content when it was read
    kind: ProvenanceKind
    via: str | None = None  # "synthesis": a theme's preference, drawn from this unit and others of its cluster
    # Who proposed it ("you", the model's name, `assistant (<client>)`, "offline") and who let it into the file: the
    # same but for a candidate (docs/spec.md §3.2) the person promoted ("you"); the loop is never recorded as "you".
    actor: str | None = None
    approved: str | None = None


class Alias(BaseModel):
    """Rule F merged `dropped` into `kept`: the kept item's sources include the dropped one's."""

    dimension: Dimension
    dropped: str
    kept: str


class SourceRow(BaseModel):
    """A source as the ledger recorded it before a run read it again: what undoing that run restores."""

    path: str
    hash: str
    run_id: int
    extracted_on: str
    extractor: str | None = None


class ChangeRecord(BaseModel):
    """A change as the journal carries it; `before` is filled in by `commit` from the files on disk."""

    token: str = Field(default_factory=lambda: uuid.uuid4().hex)  # makes a replayed record land once
    command: Command
    today: dt.date | None = None  # the command's date (`--today`), which a back-fill sets apart from `at`
    detail: str = ""  # the fact remembered, the evidence file, the item forgotten, the change undone
    counts: dict[str, int] = {}
    before: dict[Dimension, str | None] = {}
    provenance: list[Provenance] = []
    aliases: list[Alias] = []
    buried: list[Tombstone] = []  # tombstones this change adds
    raised: list[Tombstone] = []  # tombstones this change removes
    run_id: int | None = None
    undoes: int | None = None
    # A refresh's sources that earlier runs had recorded (read again: `--reextract`, an edit), as they
    # were; filled in when the run's sources are recorded, so undoing the run puts them back.
    replaced_sources: list[SourceRow] = []
    candidates: Restore = Restore()  # the candidates as they were before this change (docs/spec.md §3.2)


def key(text: str) -> str:
    """How provenance names an item: its normalised text, so a change of case or a full stop loses nothing."""
    return normalise(text)


class Origin(NamedTuple):
    """Where a change's evidence came from: each note source's content hash (`hashes`), the (source, wording) of
    the evidence a theme's synthesis proposed (`synthesised`), and who proposed it (`actors`)."""

    hashes: Mapping[str, str] | None = None
    synthesised: Collection[tuple[str, str]] = ()
    actors: Actors | None = None


def change_of(command: Command, updates: list[FileUpdate], today: dt.date, detail: str = "",
              origin: Origin | None = None, run_id: int | None = None,
              candidates: Restore | None = None) -> ChangeRecord:
    """The change a command that applied the rules records: the evidence it applied, its merges, its counts, and
    the candidates as they were before it (`candidates`, what undoing it puts back)."""
    origin = origin or Origin()
    rows, aliases = record_updates(updates, origin.hashes, origin.synthesised, origin.actors)
    return ChangeRecord(command=command, today=today, detail=detail, provenance=rows, aliases=aliases,
                        counts=Counts.of(u.changes for u in updates).nonzero(), run_id=run_id,
                        candidates=candidates or Restore())


def record_updates(updates: Iterable[FileUpdate], hashes: Mapping[str, str] | None = None,
                   synthesised: Collection[tuple[str, str]] = (),
                   actors: Actors | None = None) -> tuple[list[Provenance], list[Alias]]:
    """The provenance and merges of the rules' updates; `hashes` gives each note source's content hash,
    `synthesised` the (source, wording) of the evidence a theme's synthesis proposed, `actors` who proposed it."""
    hashes = hashes or {}
    actors = actors or Actors()
    rows: list[Provenance] = []
    aliases: list[Alias] = []
    for update in updates:
        changes, dimension = update.changes, update.dimension
        rows += [Provenance(dimension=dimension, item=text, wording=text, source="hand-written", kind="adopted")
                 for text in changes.adopted]
        for a in changes.applied:
            promoted = actors.sightings.get((a.source, a.wording))
            actor = promoted or actors.actor
            via = "synthesis" if (a.source, a.wording) in synthesised else "sightings" if promoted else None
            rows.append(Provenance(dimension=dimension, item=a.item, wording=a.wording, source=a.source,
                                   source_date=a.date, content_hash=hashes.get(a.source), kind=a.kind, via=via,
                                   actor=actor, approved=actors.approved or actor))
        rows += [Provenance(dimension=dimension, item=s.text, wording=s.by, source="rule H", kind="superseded")
                 for s in changes.superseded]
        aliases += [Alias(dimension=dimension, dropped=m.dropped, kept=m.kept) for m in changes.merged]
    return rows, aliases
