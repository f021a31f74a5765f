"""When two wordings are the same fact: normalised equality, then near-duplicates.

Near-duplicate search is blocked so it stays linear: exact normalised keys are
looked up first; otherwise only items sharing one of the query's rarer words and
of compatible length are compared with rapidfuzz.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Generic, Hashable, TypeVar

from rapidfuzz import fuzz

K = TypeVar("K", bound=Hashable)

_TRAILING_PUNCTUATION = re.compile(r"[\s.,;:!?。，；：！？…]+$")
_WORD = re.compile(r"\w+")
# Words in more postings than this carry no signal ("the", "likes"); skip them
# unless the query has nothing else.
_COMMON_WORD_POSTINGS = 200


def normalise(text: str) -> str:
    """Fold case, white space and trailing punctuation."""
    return _TRAILING_PUNCTUATION.sub("", " ".join(text.casefold().split()))


def similarity(a: str, b: str) -> float:
    """Character-level similarity of two normalised texts, 0–100."""
    return fuzz.ratio(a, b)


class TextIndex(Generic[K]):
    """Finds the key whose text is the same fact as a query text."""

    def __init__(self, threshold: float):
        self.threshold = threshold
        self._exact: dict[str, list[K]] = defaultdict(list)
        self._texts: dict[K, str] = {}
        self._postings: dict[str, set[K]] = defaultdict(set)

    def add(self, key: K, text: str) -> None:
        norm = normalise(text)
        self._texts[key] = norm
        self._exact[norm].append(key)
        for word in _words(norm):
            self._postings[word].add(key)

    def remove(self, key: K) -> None:
        norm = self._texts.pop(key)
        self._exact[norm].remove(key)
        for word in _words(norm):
            self._postings[word].discard(key)

    def find(self, text: str, exclude: K | None = None) -> K | None:
        """The key of the same fact: exact normalised text first, then the most similar."""
        norm = normalise(text)
        for key in self._exact.get(norm, ()):
            if key != exclude:
                return key
        best, best_score = None, self.threshold
        for key in self._candidates(norm):
            if key == exclude:
                continue
            other = self._texts[key]
            if not _lengths_can_reach(len(norm), len(other), self.threshold):
                continue
            score = fuzz.ratio(norm, other, score_cutoff=best_score)
            if score >= best_score and (best is None or score > best_score or _before(key, best)):
                best, best_score = key, score
        return best

    def _candidates(self, norm: str) -> set[K]:
        postings = [p for w in set(_words(norm)) if (p := self._postings.get(w))]
        if not postings:
            return set()
        rare = [p for p in postings if len(p) <= _COMMON_WORD_POSTINGS]
        chosen = rare or [min(postings, key=len)]
        found: set[K] = set()
        for posting in chosen:
            found.update(posting)
        return found


def _words(norm: str) -> list[str]:
    return _WORD.findall(norm)


def _before(a: object, b: object) -> bool:
    try:
        return a < b  # type: ignore[operator]
    except TypeError:
        return False


def _lengths_can_reach(a: int, b: int, threshold: float) -> bool:
    # fuzz.ratio is 2·M/(a+b) with M ≤ min(a, b), so the shorter length bounds it.
    total = a + b
    return total == 0 or 200 * min(a, b) / total >= threshold
