"""Pairs of one file's items that may be the same fact in other words, or opposites (docs/spec.md §3.1).

Rule F merges only what differs by typos; a rewording ("Student at the University of Chicago" /
"Rising senior at the University of Chicago") is one item only when a reader says so. This finds what
to ask about: two items alike by their words (the weight of the words they share over the lighter
one's, each word weighed by its rarity in the file) or by meaning (the cosine of their embeddings, when
a model gave them). It decides nothing. Pure: the cosines are given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .recall import STOP_WORDS, analyse

WORDS_FLOOR = 0.5  # the share of the lighter item's word weight the two share, for the pair to be asked about
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
    return found


def _word_shares(texts: Sequence[str]) -> dict[tuple[int, int], float]:
    """For each pair sharing a word: the weight of the words they share over the lighter text's, each distinct
    word weighed by its rarity in the file: "likes", in every other item, weighs little."""
    terms = [set(analyse(text, STOP_WORDS).terms) for text in texts]
    holders: dict[str, list[int]] = {}
    for i, found in enumerate(terms):
        for term in found:
            holders.setdefault(term, []).append(i)
    size = len(texts)
    # Smoothed, so that in a small file the words a few rewordings share still weigh: log(1 + N/df).
    idf = {t: math.log(1 + size / len(h)) for t, h in holders.items()}
    weight = [sum(idf[t] for t in found) for found in terms]
    shared: dict[tuple[int, int], float] = {}
    for term, holding in holders.items():
        for a, i in enumerate(holding):
            for j in holding[a + 1:]:
                shared[(i, j)] = shared.get((i, j), 0.0) + idf[term]
    return {(i, j): w / min(weight[i], weight[j]) for (i, j), w in shared.items()}
