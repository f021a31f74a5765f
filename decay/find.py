"""Finding the item a person names ("why is X here?", "forget X"), and a file without it. Pure."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from pydantic import BaseModel
from rapidfuzz import fuzz

from hylo_memory.domain.dimensions import ACTIVE, FADING, Dimension
from hylo_memory.domain.items import Item, MemoryFile, Section

from .match import TextIndex, normalise
from .polarity import marked, opposed
from .recall.recall import STOP_WORDS
from .words import RUN, fold, stem

CLOSEST = 3


class Found(BaseModel):
    """An item of a memory file, with where it is."""

    dimension: Dimension
    section: str  # Active or Fading
    item: Item


def items_of(files: Mapping[Dimension, MemoryFile | None], dimension: Dimension | None = None) -> list[Found]:
    """Every Active and Fading item, file by file in the order of `Dimension`."""
    return [Found(dimension=d, section=heading, item=item)
            for d in Dimension if (dimension is None or d == dimension) and (memory := files.get(d)) is not None
            for heading, items in ((ACTIVE, memory.active), (FADING, memory.fading)) for item in items]


def find_items(text: str, files: Mapping[Dimension, MemoryFile | None], threshold: float,
               dimension: Dimension | None = None) -> list[Found]:
    """The items `text` names by §3's matching: every exact (normalised) match, else the nearest duplicate per file."""
    candidates = items_of(files, dimension)
    exact = [f for f in candidates if normalise(f.item.text) == normalise(text)]
    if exact:  # the first in each file: the same line twice in a file is one fact (rule F merges them)
        first: dict[Dimension, Found] = {}
        for f in exact:
            first.setdefault(f.dimension, f)
        return list(first.values())
    found = []
    for d in Dimension:
        index, mine = TextIndex(threshold), [f for f in candidates if f.dimension == d]
        for number, f in enumerate(mine):
            index.add(number, f.item.text)
        if (hit := index.find(text)) is not None:
            found.append(mine[hit])
    return found


def closest(text: str, files: Mapping[Dimension, MemoryFile | None], dimension: Dimension | None = None,
            limit: int = CLOSEST) -> list[Found]:
    """The items whose wording is nearest `text`, for a "did you mean" line."""
    candidates = items_of(files, dimension)
    query = normalise(text)
    # Words in common first ("Ines" names "Ines — sister", not "Loves grilled sardines"), then overall likeness.
    texts = [normalise(f.item.text) for f in candidates]
    scored = sorted(range(len(texts)), key=lambda i: (-fuzz.token_set_ratio(query, texts[i]),
                                                      -fuzz.WRatio(query, texts[i]), i))
    return [candidates[i] for i in scored[:limit]]


def by_words(text: str, files: Mapping[Dimension, MemoryFile | None],
             dimension: Dimension | None = None) -> list[Found]:
    """The items holding every word of `text` ("Toby" names "Name: Toby Chan"): Latin words case- and
    accent-folded and stemmed, Chinese, Japanese and Korean by their characters; the query's stop words
    left out unless it has nothing else. A query with a polarity ("Loves jazz") never finds its opposite."""
    wanted = word_set(text, STOP_WORDS) or word_set(text)
    if not wanted:
        return []
    signed = marked(text)
    return [f for f in items_of(files, dimension)
            if wanted <= word_set(f.item.text) and not (signed and opposed(text, f.item.text))]


def word_set(text: str, stop_words: frozenset[str] = frozenset()) -> set[str]:
    found: set[str] = set()
    for run in RUN.finditer(unicodedata.normalize("NFKC", text)):
        if run[1] is not None:
            found.update(run[1])
        elif (folded := fold(run[0])) not in stop_words:
            found.add(stem(folded))
    return found


def without(memory: MemoryFile, item: Item) -> MemoryFile:
    """The file with its first item equal to `item` (and the lines nested under it, written about it) taken
    out; the rest as written. A file without it is returned unchanged."""
    sections: list[Section] = []
    taken = False
    for section in memory.sections:
        entries = section.entries
        if not taken and section.heading in (ACTIVE, FADING) and item in entries:
            at = entries.index(item)
            entries, taken = entries[:at] + entries[at + 1:], True
        sections.append(section.model_copy(update={"entries": entries}))
    return memory.model_copy(update={"sections": sections})
