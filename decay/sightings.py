"""Promotion after sightings (docs/spec.md §3.2): with `min_sightings` above 1, an inferred fact seen once waits as
a *candidate* until it is seen again within its file's window. Pure: the candidates are data, kept by the caller.

Only evidence that rule C would make a new item waits. Evidence the rules would not apply as new passes
through untouched, so the rules still count and name it: a pinned fact (the person's own word), one a
tombstone blocks (`forgotten`), one too old to be kept (`expired`), one that restates or matches a kept item
(rules A and B). Sightings of one candidate are matched as the rules match an item (decay/match.py: normalised
text, near-duplicates, never opposite polarity), one sighting a distinct source. A candidate whose sightings
reach `min_sightings` is promoted: its sightings, each with its own source and date, become the evidence the
rules apply, so rule C makes the item with `seen` their number, `last` the newest and the first wording.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, Field

from hylo_memory.domain.dimensions import ACTIVE, Dimension
from hylo_memory.domain.evidence import Evidence
from hylo_memory.domain.items import Item, MemoryFile

from .forgetting import Tombstone, screen
from .match import TextIndex, normalise
from .polarity import opposed

MAX_SIGHTINGS = 100  # kept a candidate: far past any `min_sightings`, so a hostile extractor cannot grow one


class Sighting(BaseModel):
    """One source that proposed the candidate, and who read it there (the actor)."""

    text: str  # the evidence's own wording
    source: str
    date: dt.date
    actor: str  # "offline", the model's name, the assistant's: never "you" (the person's word never waits)
    supersedes: str | None = None
    content_hash: str | None = None  # a note's content when it was read: a re-read is then no new sighting (§4.4)


class Candidate(BaseModel):
    """A fact seen fewer than `min_sightings` times: it waits in the ledger, not in the file."""

    dimension: Dimension
    text: str  # its first wording: the item's, once promoted (rule F keeps the first)
    sightings: list[Sighting] = Field(min_length=1)

    @property
    def key(self) -> str:
        return normalise(self.text)

    @property
    def first(self) -> dt.date:
        return min(s.date for s in self.sightings)

    @property
    def last(self) -> dt.date:
        return max(s.date for s in self.sightings)

    @property
    def sources(self) -> set[str]:
        return {s.source for s in self.sightings}

    def evidence(self) -> list[Evidence]:
        """Its sightings as the evidence the rules apply when it is promoted."""
        return [Evidence(dimension=self.dimension, text=s.text, source=s.source, date=s.date, supersedes=s.supersedes)
                for s in self.sightings]


class Gated(BaseModel):
    """What the gate let through to the rules, and what happened to the candidates."""

    evidence: list[Evidence] = []  # to apply: what passed, and the promoted candidates' sightings
    actors: dict[tuple[str, str], str] = {}  # (source, wording) of a promoted sighting → the actor who proposed it
    put: list[Candidate] = []  # candidates new or seen again in this run, as they are now
    promoted: list[Candidate] = []  # left the ledger for the file
    expired: list[Candidate] = []  # left the ledger: their window passed before a sighting promoted them
    waiting: int = 0  # candidates in the ledger after this run


def window_of(files: Mapping[Dimension, MemoryFile | None], dimension: Dimension) -> int:
    """The dimension's window: its file's `decay_window`, the truth for the file, else the default."""
    memory = files.get(dimension)
    return memory.decay_window if memory is not None else dimension.default_window


def gate(
    files: Mapping[Dimension, MemoryFile | None],
    evidence: Iterable[Evidence],
    candidates: Iterable[Candidate],
    today: dt.date,
    min_sightings: int,
    actor: str,
    threshold: float,
    forgotten: Iterable[Tombstone] = (),
) -> Gated:
    """Hold back the evidence that would make a new item until it has been seen `min_sightings` times."""
    evidence, candidates = list(evidence), list(candidates)
    if min_sightings <= 1 and not candidates:
        return Gated(evidence=evidence)
    blocked = {id(ev) for ev in screen(evidence, forgotten, threshold)[1]}
    kept = _Kept(files, threshold)
    gated = Gated()
    waiting: dict[Dimension, _Waiting] = {}
    for ev in sorted(evidence, key=lambda ev: ev.date or today):  # oldest first, as the rules read them
        window = window_of(files, ev.dimension)
        seen_on = min(ev.date or today, today)
        if ev.pinned or (today - seen_on).days > 2 * window or id(ev) in blocked or kept.lands(ev):
            gated.evidence.append(ev)
            continue
        room = waiting.get(ev.dimension) or waiting.setdefault(
            ev.dimension, _Waiting([c for c in candidates if c.dimension == ev.dimension], threshold))
        room.see(ev, seen_on, window, actor, min_sightings, gated)
    for dimension, room in waiting.items():
        room.settle(today, window_of(files, dimension), gated)
    left = [c for room in waiting.values() for c in room.live()]
    for candidate in (c for c in candidates if c.dimension not in waiting):  # no evidence reached them: still aging
        if (today - candidate.first).days > window_of(files, candidate.dimension):
            gated.expired.append(candidate)
        else:
            left.append(candidate)
    gated.waiting = len(left)
    return gated


class _Kept:
    """The files' items, indexed once a dimension: whether evidence lands on one as the rules find it (A, B)."""

    def __init__(self, files: Mapping[Dimension, MemoryFile | None], threshold: float):
        self.files = files
        self.threshold = threshold
        self.indexes: dict[Dimension, tuple[TextIndex, list[str]]] = {}

    def lands(self, ev: Evidence) -> bool:
        if ev.dimension not in self.indexes:
            memory = self.files.get(ev.dimension)
            texts = [item.text for item in memory.items] if memory is not None else []
            index = TextIndex(self.threshold)
            for number, text in enumerate(texts):
                index.add(number, text)
            self.indexes[ev.dimension] = (index, texts)
        index, texts = self.indexes[ev.dimension]
        if not texts:
            return False
        if ev.matches is not None and (hit := index.find(ev.matches)) is not None and not opposed(ev.text, texts[hit]):
            return True
        return index.find(ev.text) is not None


class _Waiting:
    """One dimension's candidates while the gate runs; ids are list positions, a promoted one is None."""

    def __init__(self, candidates: list[Candidate], threshold: float):
        self.slots: list[Candidate | None] = []
        self.touched: set[int] = set()
        self.index = TextIndex(threshold)
        for candidate in candidates:
            self._add(candidate)
        self.promoted: set[int] = set()

    def _add(self, candidate: Candidate) -> int:
        self.slots.append(candidate)
        self.index.add(len(self.slots) - 1, candidate.text)
        return len(self.slots) - 1

    def live(self) -> list[Candidate]:
        return [c for c in self.slots if c is not None]

    def see(self, ev: Evidence, seen_on: dt.date, window: int, actor: str, least: int, gated: Gated) -> None:
        sighting = Sighting(text=ev.text, source=ev.source, date=seen_on, actor=actor, supersedes=ev.supersedes)
        hit = self.index.find(ev.text)
        if hit is not None and hit in self.promoted:
            gated.evidence.append(ev)  # promoted in this run: the rules join it to the new item
            gated.actors[(ev.source, ev.text)] = actor
            return
        candidate = self.slots[hit] if hit is not None else None
        if candidate is not None and hit is not None:
            span = max(candidate.last, seen_on) - min(candidate.first, seen_on)
            if span.days > window:
                if seen_on < candidate.first:
                    return  # older than the candidate's window allows: a sighting expired in itself
                gated.expired.append(candidate)  # its window passed before this sighting: it starts again
                self._drop(hit)
                hit, candidate = None, None
        if candidate is None or hit is None:
            hit = self._add(Candidate(dimension=ev.dimension, text=ev.text, sightings=[sighting]))
        elif ev.source not in candidate.sources and len(candidate.sightings) < MAX_SIGHTINGS:
            candidate = candidate.model_copy(update={"sightings": [*candidate.sightings, sighting]})
            self.slots[hit] = candidate
        self.touched.add(hit)
        current = self.slots[hit]
        if current is not None and len(current.sources) >= least:
            self.promoted.add(hit)
            gated.promoted.append(current)
            for old in current.sightings:
                gated.actors[(old.source, old.text)] = old.actor
            gated.evidence += current.evidence()

    def _drop(self, hit: int) -> None:
        self.index.remove(hit)
        self.slots[hit] = None
        self.touched.discard(hit)

    def settle(self, today: dt.date, window: int, gated: Gated) -> None:
        """After the run's evidence: the promoted leave, the expired leave, the touched are put back as they are."""
        for hit in sorted(self.promoted):
            self._drop(hit)
        for hit, candidate in enumerate(self.slots):
            if candidate is None:
                continue
            if (today - candidate.first).days > window:
                gated.expired.append(candidate)
                self._drop(hit)
            elif hit in self.touched:
                gated.put.append(candidate)


def matching(candidates: Iterable[Candidate], dimension: Dimension, text: str, threshold: float) -> Candidate | None:
    """The candidate of `dimension` that `text` is a sighting of, as the rules match an item (never its opposite)."""
    mine = [c for c in candidates if c.dimension == dimension]
    index = TextIndex(threshold)
    for number, candidate in enumerate(mine):
        index.add(number, candidate.text)
    hit = index.find(text)
    return None if hit is None else mine[hit]


def as_files(candidates: Iterable[Candidate]) -> dict[Dimension, MemoryFile]:
    """The candidates as memory files of Active items (`last` their last sighting, `seen` their sources), so the
    person names one as they name an item (decay/find.py: `promote`, `reject`)."""
    files: dict[Dimension, MemoryFile] = {}
    for c in candidates:
        memory = files.get(c.dimension) or files.setdefault(c.dimension, MemoryFile.new(c.dimension))
        memory.section(ACTIVE).entries.append(Item(text=c.text, last=c.last, seen=len(c.sources)))
    return files
