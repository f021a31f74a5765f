"""Tombstones (docs/spec.md §8): facts the person asked to forget, and the evidence they keep out."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from pydantic import BaseModel

from hylo_memory.domain.dimensions import Dimension
from hylo_memory.domain.evidence import Evidence

from .match import TextIndex
from .polarity import opposed


class Tombstone(BaseModel):
    """A forgotten fact: evidence matching it by §3's rules is never applied again."""

    dimension: Dimension
    text: str
    forgotten_on: dt.date


def screen(evidence: Iterable[Evidence], tombstones: Iterable[Tombstone],
           threshold: float) -> tuple[list[Evidence], list[Evidence]]:
    """Split evidence into what may be applied and what a tombstone of its dimension blocks."""
    indexes: dict[Dimension, TextIndex] = {}
    for number, stone in enumerate(tombstones):
        indexes.setdefault(stone.dimension, TextIndex(threshold)).add(number, stone.text)
    kept: list[Evidence] = []
    blocked: list[Evidence] = []
    for ev in evidence:
        index = indexes.get(ev.dimension)
        # The item an extractor says it restates counts only when it is of the same polarity (docs/spec.md §3):
        # forgetting "Loves X" never blocks "Hates X".
        restated = ev.matches is not None and not opposed(ev.text, ev.matches)
        hit = index is not None and (index.find(ev.text) is not None
                                     or (restated and index.find(ev.matches or "") is not None))
        (blocked if hit else kept).append(ev)
    return kept, blocked
