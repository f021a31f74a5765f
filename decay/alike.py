"""Pairs of one file's items that may be the same fact in other words, or opposites (docs/spec.md §3.1).

Rule F merges only what differs by typos; a rewording ("Student at the University of Chicago" /
"Rising senior at the University of Chicago") is one item only when a reader says so. This finds what
to ask about: two items alike by their words (at least half the shorter one's words, two at least,
in the other; a word most items hold left out) or by meaning (the cosine of their embeddings, when a
model gave them). It decides nothing. Pure: the cosines are given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .recall.recall import STOP_WORDS, analyse

WORDS_FLOOR = 0.5  # the share of the shorter item's words the other holds, for the pair to be asked about
COMMON_SHARE, COMMON_MIN = 1 / 3, 8  # a word held by more items than this share of the file (and this many) is
# common: it says nothing of which two are alike ("likes" in a file of likings)
PER_ITEM = 2  # an item is asked about with at most its two most alike (`nearest`)
COSINE_FLOOR = 0.88  # the bundled model's cosine for two items to be alike: its cosines crowd into 0.8-0.95, and
# rewordings measured 0.89-0.96 ("Uses Obsidian for notes" / "Writes notes in Obsidian": 0.96), opposites too
# ("Loves cold brew" / "Hates cold brew": 0.92), while unrelated items stayed below 0.88 but for a few


class Alike(NamedTuple):
    """Two items (their positions in the list given), and how alike: the words' share plus the cosine."""

    score: float
    first: int
    second: int


def alike_pairs(texts: Sequence[str], close: Mapping[tuple[int, int], float] | None = None) -> list[Alike]:
    """The pairs of `texts` alike by words or by meaning, most alike first (ties: in the texts' order). `close`: the
    pairs (i < j) whose cosine is at least COSINE_FLOOR, with it."""
    shares = _word_shares(texts)
    close = close or {}
    found = [Alike(round(shares.get(pair, 0.0) + close.get(pair, 0.0), 6), *pair)
             for pair in set(shares) | set(close) if shares.get(pair, 0.0) >= WORDS_FLOOR or pair in close]
    found.sort(key=lambda pair: (-pair.score, pair.first, pair.second))
    return nearest(found, PER_ITEM)


def nearest(pairs: Sequence[Alike], k: int) -> list[Alike]:
    """The pairs (most alike first) that are among the `k` most alike of at least one of their items: an item is
    asked about with its closest few, so a file of n items gives at most k·n pairs, not n² (a file of likings all
    alike to the model's eye would otherwise hand the reader every pair)."""
    taken: dict[int, int] = {}
    kept = []
    for pair in pairs:
        if taken.get(pair.first, 0) < k or taken.get(pair.second, 0) < k:
            kept.append(pair)
            taken[pair.first] = taken.get(pair.first, 0) + 1
            taken[pair.second] = taken.get(pair.second, 0) + 1
    return kept


def _word_shares(texts: Sequence[str]) -> dict[tuple[int, int], float]:
    """For each pair sharing words enough to be asked about: the share of the shorter text's words the other holds
    (stemmed, stop words left out). Two words at least, unless the shorter has one; and a word held by many of the
    file's items ("likes" in a file of likings) does not count."""
    terms = [set(analyse(text, STOP_WORDS, with_concepts=False).terms) for text in texts]
    holders: dict[str, list[int]] = {}
    for i, found in enumerate(terms):
        for term in found:
            holders.setdefault(term, []).append(i)
    common = max(COMMON_MIN, COMMON_SHARE * len(texts))
    counted = [{t for t in found if len(holders[t]) <= common} for found in terms]
    shared: dict[tuple[int, int], int] = {}
    for holding in holders.values():
        if len(holding) <= common:
            for a, i in enumerate(holding):
                for j in holding[a + 1:]:
                    shared[(i, j)] = shared.get((i, j), 0) + 1
    shares: dict[tuple[int, int], float] = {}
    for (i, j), n in shared.items():
        shorter = min(len(counted[i]), len(counted[j]))
        if n >= min(2, shorter):
            shares[(i, j)] = n / shorter
    return shares
