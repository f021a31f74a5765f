"""Rules A–H of docs/spec.md §3, applied to one memory file. Deterministic; `today` is passed in."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from hylo_memory.domain.dimensions import ACTIVE, FADING, Dimension
from hylo_memory.domain.evidence import Evidence
from hylo_memory.domain.items import Entry, Item, Layout, MemoryFile, RawLine, Section

from .files.format import gc_paused
from .forgetting import Tombstone, screen
from .match import TextIndex, normalise
from .polarity import core, liking, marked, opposed

DEFAULT_THRESHOLD = 90.0


class Merge(BaseModel):
    """Two items that were one fact (rule F): the wording kept, and the wording dropped."""

    kept: str
    dropped: str


class Supersession(BaseModel):
    """Rule H: an Active item faded at once by a newer fact that replaces it."""

    text: str
    by: str  # the item the superseding evidence landed on


class Conflict(BaseModel):
    """Rule H on a pinned item: never moved, reported for the person to settle."""

    pinned: str
    evidence: str
    source: str


class StatedConflict(BaseModel):
    """Evidence that says the opposite of what the person wrote in `_me.md`: not applied, reported (§2.1)."""

    line: str  # the statement of `_me.md`, as written
    evidence: str
    source: str


class Expiry(BaseModel):
    """Evidence not applied: seen before `kept_from`, today less twice its file's window (docs/spec.md §3)."""

    text: str
    source: str
    date: dt.date  # the date it was seen
    kept_from: dt.date  # the oldest date evidence for this file is kept from


class Applied(BaseModel):
    """One piece of evidence the rules applied: the item it landed on (as it reads after the run)."""

    item: str
    wording: str  # the evidence's own text
    source: str
    date: dt.date | None
    kind: Literal["added", "refreshed"]


class FileChanges(BaseModel):
    """What one application of the rules did to one file, item texts by kind."""

    dimension: Dimension
    added: list[str] = []
    refreshed: list[str] = []
    faded: list[str] = []
    deleted: list[str] = []
    merged: list[Merge] = []  # items merged into another item of the file: each drops one
    joined: list[Merge] = []  # evidence in other words that landed on an item (or on other evidence): F too
    adopted: list[str] = []
    superseded: list[Supersession] = []
    conflicts: list[Conflict] = []
    forgotten: list[str] = []  # evidence a tombstone kept out
    stated: list[StatedConflict] = []  # evidence `_me.md` says the opposite of: not applied
    applied: list[Applied] = []  # provenance: every piece of evidence applied, in order
    expired: int = 0
    expired_entries: list[Expiry] = []  # each piece of evidence counted in `expired`, in order
    # Items evidence touched that end in Fading without having faded: added (C), or brought back (B), from a
    # source already older than the window — they land where their age puts them, and are not in `faded`.
    into_fading: list[str] = []


@dataclass(eq=False, slots=True)
class _Slot:
    """An item while the rules work on it."""

    text: str
    last: dt.date
    seen: int
    pinned: bool
    section: str
    was_fading: bool  # Fading when the run began: the only items rule E may delete
    sources: set[str] | None = None  # the distinct sources supporting it in this run
    newest: dt.date | None = None
    supported: dt.date | None = None  # the newest evidence in this run for it, a source read again included (H)
    deleted: bool = False
    original: Item | None = None  # the entry it was read from (None: new in this run), reused if unchanged
    note: str = ""
    children: tuple[str, ...] = ()  # the person's indented lines under the item: they go where it goes
    layout: Layout | None = None
    into: _Slot | None = None  # the item F merged this one into

    def live(self) -> _Slot:
        """The item this one is now: itself, or the survivor of the merges it went into."""
        slot = self
        while slot.into is not None:
            slot = slot.into
        return slot

    def item(self) -> Item:
        old = self.original
        mine = (self.text, self.last, self.seen, self.pinned, self.note, self.children)
        if old is not None and old.key() == mine:
            return old
        return Item(text=self.text, last=self.last, seen=self.seen, pinned=self.pinned, note=self.note,
                    children=self.children, layout=self.layout)


def apply_rules(
    memory: MemoryFile,
    evidence: Iterable[Evidence],
    today: dt.date,
    threshold: float = DEFAULT_THRESHOLD,
    decay: bool = True,
    forgotten: Iterable[Tombstone] = (),
    known: Collection[tuple[str, str]] = frozenset(),
) -> tuple[MemoryFile, FileChanges]:
    """Apply rules A–H to `memory` with this run's evidence; return the new file and what changed.

    `decay=False` leaves D and E out: recording one fact touches that fact only (docs/spec.md §5).
    Evidence a tombstone in `forgotten` matches is not applied. `known` holds the (source,
    normalised item text) pairs already recorded: a source read again is not a new sighting.
    """
    with gc_paused():
        kept, blocked = screen(evidence, forgotten, threshold)
        memory, changes = _apply_rules(memory, kept, today, threshold, decay, known)
        changes.forgotten = [ev.text for ev in blocked]
        return memory, changes


def _apply_rules(
    memory: MemoryFile,
    evidence: Iterable[Evidence],
    today: dt.date,
    threshold: float,
    decay: bool,
    known: Collection[tuple[str, str]],
) -> tuple[MemoryFile, FileChanges]:
    window = memory.decay_window
    changes = FileChanges(dimension=memory.dimension)
    pool = _Pool(threshold)
    layout = _read_slots(memory, today, pool, changes)
    landed = _apply_evidence(memory.dimension, pool, evidence, today, window, changes, known)
    _supersede(pool, landed, changes)
    changes.applied = [Applied(item=slot.live().text, wording=ev.text, source=ev.source, date=ev.date,
                               kind="refreshed" if slot.original is not None else "added")
                       for ev, slot, _ in landed]
    if decay:
        for slot in pool.live():
            _decay(slot, today, window, changes)
    updated = _write_slots(memory, layout, pool)
    if updated != memory:
        updated.last_updated = today
    return updated, changes


class _Pool:
    """Every item of the file while the rules run, indexed by wording; ids are list positions."""

    def __init__(self, threshold: float):
        self.slots: list[_Slot] = []
        self.index = TextIndex(threshold)

    def live(self) -> list[_Slot]:
        return [s for s in self.slots if not s.deleted]

    def find(self, text: str) -> int | None:
        return self.index.find(text)

    def add(self, slot: _Slot) -> int:
        self.slots.append(slot)
        self.index.add(len(self.slots) - 1, slot.text)
        return len(self.slots) - 1

    def merge_into(self, survivor: int, slot: _Slot, changes: FileChanges) -> None:
        """Rule F: merge `slot` into item `survivor`, then any item its wording now matches."""
        self.index.remove(survivor)
        _record_merge(changes, self.slots[survivor], _absorb(self.slots[survivor], slot))
        while (other := self.index.find(self.slots[survivor].text)) is not None:
            self.index.remove(other)
            survivor, absorbed = min(survivor, other), max(survivor, other)
            _record_merge(changes, self.slots[survivor], _absorb(self.slots[survivor], self.slots[absorbed]))
        self.index.add(survivor, self.slots[survivor].text)


def _record_merge(changes: FileChanges, survivor: _Slot, dropped: str) -> None:
    """Record a merge as kept ← dropped. An earlier merge that kept the wording now dropped
    shows the wording that stays instead: the summary names what is in the file."""
    for merge in changes.merged:
        if merge.kept == dropped:
            merge.kept = survivor.text
    changes.merged.append(Merge(kept=survivor.text, dropped=dropped))


def _record_join(changes: FileChanges, kept: str, wording: str) -> None:
    """Evidence in other words landed on an item: a merge like any other, shown as kept ← dropped.

    The item keeps its wording (a new one keeps the first it was seen in): rewording it could
    make it a near-duplicate of another item, and the rules would not be idempotent.
    """
    if normalise(wording) != normalise(kept):
        join = Merge(kept=kept, dropped=wording)
        if join not in changes.joined:
            changes.joined.append(join)


def _read_slots(memory: MemoryFile, today: dt.date, pool: _Pool, changes: FileChanges) -> dict[int, _Slot]:
    """Load the file's items into the pool, merging duplicates (F); map each entry to its slot."""
    layout: dict[int, _Slot] = {}  # id() of an Item entry in memory.sections → its slot
    for section in memory.sections:
        if section.heading not in (ACTIVE, FADING):
            continue
        for entry in section.entries:
            if not isinstance(entry, Item):
                continue
            last = entry.last
            if last is None:  # a hand-written bullet: adopted, dated today
                last = today
                changes.adopted.append(entry.text)
            slot = _Slot(entry.text, last, entry.seen, entry.pinned, section.heading,
                         was_fading=section.heading == FADING, original=entry, note=entry.note,
                         children=entry.children, layout=entry.layout)
            layout[id(entry)] = slot
            target = pool.find(slot.text)
            if target is None:
                pool.add(slot)
            else:
                pool.merge_into(target, slot, changes)
    return layout


def _absorb(survivor: _Slot, other: _Slot) -> str:
    """Merge `other` into `survivor` (rule F); return the wording that was dropped."""
    mine, theirs = survivor.text, other.text
    if _clearer(other, survivor):
        survivor.text = theirs
    survivor.seen += other.seen
    survivor.last = max(survivor.last, other.last)
    survivor.pinned = survivor.pinned or other.pinned
    if ACTIVE in (survivor.section, other.section):
        survivor.section = ACTIVE
    survivor.was_fading = survivor.was_fading and other.was_fading
    # The person's words under and after the merged item are theirs: they join the survivor.
    survivor.children += other.children
    if other.note and other.note != survivor.note:
        survivor.note += other.note
    other.deleted = True
    other.into = survivor
    return theirs if survivor.text == mine else mine


def _clearer(a: _Slot, b: _Slot) -> bool:
    """Whether `a`'s wording is clearer than `b`'s: the stated (pinned), the more seen, the fuller."""
    return (a.pinned, a.seen, len(a.text)) > (b.pinned, b.seen, len(b.text))


def _apply_evidence(
    dimension: Dimension,
    pool: _Pool,
    evidence: Iterable[Evidence],
    today: dt.date,
    window: int,
    changes: FileChanges,
    known: Collection[tuple[str, str]],
) -> list[tuple[Evidence, _Slot, dt.date]]:
    """Rules A, B and C, with F between pieces of evidence; G keeps `pinned`.

    Returns each piece of evidence applied with the item it landed on and the date it was seen.
    """
    touched: list[_Slot] = []
    landed: list[tuple[Evidence, _Slot, dt.date]] = []
    for ev in evidence:
        if ev.dimension != dimension:
            raise ValueError(f"{ev.dimension.value} evidence given to the {dimension.value} file")
        # A source dated in the future is treated as seen today.
        seen_on = min(ev.date or today, today)
        if (today - seen_on).days > 2 * window:
            changes.expired += 1
            changes.expired_entries.append(Expiry(text=ev.text, source=ev.source, date=seen_on,
                                                  kept_from=today - dt.timedelta(days=2 * window)))
            continue
        target = pool.find(ev.matches) if ev.matches else None
        if target is not None and opposed(ev.text, pool.slots[target].text):
            target = None  # an extractor's `restates` never joins opposite facts (docs/spec.md §3)
        if target is None:
            target = pool.find(ev.text)
        if target is None:
            target = pool.add(_Slot(ev.text, seen_on, 0, False, ACTIVE, was_fading=False))
        else:
            _record_join(changes, pool.slots[target].text, ev.text)
        # F between pieces of evidence: a new item keeps the first wording it was seen in
        # (sources come oldest first). Rewording it later could make it a near-duplicate of
        # another item that the next run would merge: the rules would not be idempotent.
        slot = pool.slots[target]
        slot.supported = max(slot.supported or seen_on, seen_on)
        if known and slot.original is not None and (ev.source, normalise(slot.text)) in known:
            continue  # a note read again (another extractor, an edit) already supports it: not a new sighting
        if slot.sources is None:
            slot.sources = set()
        slot.sources.add(ev.source)
        slot.newest = max(slot.newest or seen_on, seen_on)
        slot.pinned = slot.pinned or ev.pinned
        touched.append(slot)
        landed.append((ev, slot, seen_on))
    for slot in dict.fromkeys(touched):
        if slot.deleted or not slot.sources:
            continue
        slot.seen += len(slot.sources)
        slot.last = max(slot.last, slot.newest or today)
        if slot.original is None:
            changes.added.append(slot.text)
        else:
            changes.refreshed.append(slot.text)
        slot.section = ACTIVE  # B: a Fading item with evidence returns to Active
        slot.sources = None
    return landed


def _supersede(pool: _Pool, landed: list[tuple[Evidence, _Slot, dt.date]], changes: FileChanges) -> None:
    """Rule H: an Active item a newer fact replaces moves to Fading; a pinned one is a conflict."""
    opposites = _Opposites(pool)
    for ev, slot, seen_on in landed:
        named = pool.find(ev.supersedes) if ev.supersedes is not None else None
        for old in ([] if named is None else [named]) + opposites.of(slot.live()):
            _replace(pool.slots[old].live(), slot.live(), ev, seen_on, changes)


class _Opposites:
    """The file's items by their polarity-free core (decay/polarity.py), built when first asked for.

    The opposite of an item ("Hates X" of "Loves X", "No longer eats meat" of "Eats meat") replaces
    it by rule H whatever the extractor said: opposites never reinforce each other. Of two opposites
    one at least has a polarity marker, and a liking's opposite is a liking; so the items without a
    marker (most of a file) are read only for a negation without a liking ("Doesn't eat meat").
    """

    def __init__(self, pool: _Pool):
        self.pool = pool
        self.marked: dict[str, list[int]] | None = None
        self.plain: dict[str, list[int]] | None = None

    def of(self, slot: _Slot) -> list[int]:
        """The items that say the opposite of `slot`."""
        text = slot.text
        mine = core(text)
        if not mine.replace("♥", "").strip():
            return []  # nothing but a liking ("Loves it"): no thing to be the opposite about
        found = self._index(plain=False).get(mine, [])
        if marked(text) and not liking(text):
            found = found + self._index(plain=True).get(mine, [])
        slots = self.pool.slots
        return [n for n in found if not slots[n].deleted and opposed(slots[n].text, text)]

    def _index(self, plain: bool) -> dict[str, list[int]]:
        index = self.plain if plain else self.marked
        if index is None:
            index = {}
            for number, other in enumerate(self.pool.slots):
                if not other.deleted and marked(other.text) != plain:
                    index.setdefault(core(other.text), []).append(number)
            if plain:
                self.plain = index
            else:
                self.marked = index
        return index


def _replace(old: _Slot, new: _Slot, ev: Evidence, seen_on: dt.date, changes: FileChanges) -> None:
    """Rule H for one replaced item: faded at once, or a conflict when pinned."""
    if old is new:
        return  # the evidence is the very item it would replace
    if old.supported is not None and old.supported >= seen_on:
        return  # supported in this run, on or after the replacing fact: still current
    if old.last > seen_on:
        return  # seen after the "replacing" fact was written (an old note read late): not a newer fact
    if old.pinned:
        conflict = Conflict(pinned=old.text, evidence=ev.text, source=ev.source)
        if conflict not in changes.conflicts:
            changes.conflicts.append(conflict)
    elif old.section == ACTIVE:
        old.section = FADING  # `last` and `seen` unchanged: E deletes it only after two windows
        changes.superseded.append(Supersession(text=old.text, by=new.text))


def _decay(slot: _Slot, today: dt.date, window: int, changes: FileChanges) -> None:
    """Rules D and E; G: pinned items never fade nor go.

    An item E deletes takes its nested lines with it: they were written about it, and left
    behind they would read as another item's. The version before is kept (history, `.archive/`).
    """
    if slot.pinned:
        return
    age = (today - slot.last).days
    if slot.section == ACTIVE and age > window:
        slot.section = FADING
        if slot.original is None or slot.was_fading:  # new in this run, or Fading when it began: it never faded
            changes.into_fading.append(slot.text)
        else:
            changes.faded.append(slot.text)
    elif slot.section == FADING and slot.was_fading and age > 2 * window:
        slot.deleted = True
        changes.deleted.append(slot.text)


def _write_slots(memory: MemoryFile, layout: dict[int, _Slot], pool: _Pool) -> MemoryFile:
    """The file with each item where it was, movers and newcomers after a section's last item."""
    placed: set[int] = set()
    sections: list[Section] = []
    for section in memory.sections:
        entries: list[Entry] = []
        for entry in section.entries:
            slot = layout.get(id(entry)) if isinstance(entry, Item) else None
            if slot is None:
                entries.append(entry)
            elif not slot.deleted and slot.section == section.heading and id(slot) not in placed:
                placed.add(id(slot))
                entries.append(slot.item())
        sections.append(section.model_copy(update={"entries": entries}))
    # Entries are immutable, so the lists are copied and the entries shared.
    updated = memory.model_copy(update={
        "sections": sections,
        "preamble": list(memory.preamble),
        "extra_frontmatter": list(memory.extra_frontmatter),
    })
    movers: dict[str, list[Item]] = {}  # by section, in the order the sections are first needed
    house = _house_layout(memory)
    for slot in pool.live():
        if id(slot) not in placed:
            if slot.original is None:
                slot.layout = house
            movers.setdefault(slot.section, []).append(slot.item())
    for heading, items in movers.items():
        _insert_items(updated.section(heading), items)
    return updated


def _house_layout(memory: MemoryFile) -> Layout | None:
    """A new item's style: the bullet marker of the file's first item ("* " in a file of `*`s)."""
    for section in memory.sections:
        if section.heading not in (ACTIVE, FADING):
            continue
        for item in section.entries:
            if isinstance(item, Item):
                head = item.layout.head.lstrip(" \t") if item.layout else "- "
                return None if head == "- " else Layout(head=head)
    return None


def _insert_items(section: Section, items: list[Item]) -> None:
    """Put `items`, in order, after the section's last item, or before its trailing blank lines."""
    entries = section.entries
    at = len(entries)
    last_item = next((i for i in range(len(entries) - 1, -1, -1) if isinstance(entries[i], Item)), None)
    if last_item is not None:
        at = last_item + 1
    else:
        while at > 0 and isinstance(entries[at - 1], RawLine) and not entries[at - 1].text.strip():
            at -= 1
    entries[at:at] = items
