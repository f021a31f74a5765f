"""A reader's judgement of pairs of items (docs/spec.md §3.1): `same` merged by rule F, `contradicts` by rule H.

Rule F merges by itself only what differs by typos; the same fact in other words is one item when a
reader (the person's assistant, or the model at night) says so. Its `same` merges two items as F
does — `seen` summed, the later `last`, pinned if either was, Active if either was — keeping the
clearer wording for a reworded fact: the pinned one's (the person's own words), else the fuller (the
longer: "Studies Economics and Psychology at the University of Chicago" over "Student at the
University of Chicago"), else the more seen, else the one seen last. Its `contradicts` [newer, older]
supersedes the older as H does: faded when Active, a conflict when pinned. What the rules never allow
is refused, pair by pair: two texts of different polarity as one fact, two that name different
things (a name or a number each has that the other lacks: "Maria"/"Marta", "Is 34"/"Is 43"), an older
item seen after the newer one. Pure.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from hylo_memory.domain.dimensions import Dimension
from hylo_memory.domain.evidence import Evidence
from hylo_memory.domain.items import MemoryFile

from .match import normalise, words
from .polarity import opposed
from .rules import (
    DEFAULT_THRESHOLD,
    FileChanges,
    _absorb,
    _Pool,
    _read_slots,
    _record_merge,
    _replace,
    _Slot,
    _write_slots,
)

Verdict = Literal["same", "contradicts"]
GONE = "no longer in the file (it changed since the pair was handed out)"


class Refused(BaseModel):
    """A pair the rules would not take as judged, and why."""

    verdict: Verdict
    first: str
    second: str
    reason: str


def why_not_same(a: str, b: str) -> str | None:
    """Why two wordings can never be one fact, whoever says so; None when they may be."""
    if opposed(a, b):
        return "they differ in polarity: opposites never merge (one contradicts the other)"
    mine, theirs = _named(a), _named(b)
    if mine - theirs and theirs - mine:
        return (f"they name different things ({', '.join(sorted(mine - theirs))} / "
                f"{', '.join(sorted(theirs - mine))}): two different names never match")
    return None


def other_people(dimension: Dimension, a: str, b: str) -> bool:
    """Two people items that name different people ("Matthew — pool friend" / "Jason — pool friend"): never one
    fact, never opposites; no reader is asked about them."""
    mine, theirs = _named(a), _named(b)
    return dimension is Dimension.people and bool(mine - theirs) and bool(theirs - mine)


def _named(text: str) -> set[str]:
    """The names and numbers a text holds, folded: what a rewording may add to, never change."""
    return {w.folded for w in words(text) if w.name or any(c.isdigit() for c in w.folded)}


def apply_review(memory: MemoryFile, same: Sequence[tuple[str, str]], contradicts: Sequence[tuple[str, str]],
                 today: dt.date, source: str) -> tuple[MemoryFile, FileChanges, list[Refused]]:
    """The file with the reader's `same` pairs merged (F), then its `contradicts` pairs (newer, older) applied (H),
    each item named by its text; what changed, and the pairs refused. `source`: the reader, for a conflict."""
    changes = FileChanges(dimension=memory.dimension)
    pool = _Pool(DEFAULT_THRESHOLD)
    layout = _read_slots(memory, today, pool, changes)  # F among the items first, as every writer does
    by_text: dict[str, _Slot] = {}
    for slot in layout.values():
        by_text.setdefault(slot.text, slot)
        by_text.setdefault(normalise(slot.text), slot)
    refused: list[Refused] = []
    for first, second in same:
        a, b = _found(by_text, first), _found(by_text, second)
        reason = GONE if a is None or b is None else None if a is b else why_not_same(a.text, b.text)
        if reason is not None:
            refused.append(Refused(verdict="same", first=first, second=second, reason=reason))
        elif a is not None and b is not None and a is not b:
            _merge(a, b, changes)
    for newer, older in contradicts:
        new, old = _found(by_text, newer), _found(by_text, older)
        reason = _why_not_replaced(new, old)
        if reason is not None:
            refused.append(Refused(verdict="contradicts", first=newer, second=older, reason=reason))
        elif new is not None and old is not None:
            evidence = Evidence(dimension=memory.dimension, text=new.text, source=source, date=new.last)
            _replace(old, new, evidence, new.last, changes)
    updated = _write_slots(memory, layout, pool)
    if updated != memory:
        updated.last_updated = today
    return updated, changes, refused


def _found(by_text: dict[str, _Slot], text: str) -> _Slot | None:
    slot = by_text.get(text) or by_text.get(normalise(text))
    return slot.live() if slot is not None else None


def _merge(a: _Slot, b: _Slot, changes: FileChanges) -> None:
    """Rule F between two items a reader judged one fact: the clearer wording kept, in the kept item's place."""
    keep, drop = (a, b) if _clearer(a, b) else (b, a)
    wording = keep.text
    _absorb(keep, drop)  # seen, last, pinned, Active, the person's lines under it: as F merges
    keep.text = wording  # F's own choice is the more seen: a reworded fact keeps its fuller wording
    _record_merge(changes, keep, drop.text)


def _clearer(a: _Slot, b: _Slot) -> bool:
    """Whether `a`'s wording is the clearer of a reworded fact: the pinned, the fuller, the more seen, the later."""
    return (a.pinned, len(a.text), a.seen, a.last) >= (b.pinned, len(b.text), b.seen, b.last)


def _why_not_replaced(new: _Slot | None, old: _Slot | None) -> str | None:
    if new is None or old is None:
        return GONE
    if new is old:
        return "they are one item (merged as the same fact)"
    if old.last > new.last:
        return f"the older was seen after the newer ({old.last}, {new.last}): it still holds"
    return None
