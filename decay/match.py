"""When two wordings are the same fact (docs/spec.md §3): normalised equality, then near-duplicates.

A near-duplicate has the same words in the same order but for typos and inflections. Two
differing words are a typo of each other when, case- and accent-folded, one letter is added,
dropped or changed or two neighbours swapped, the longer of them having at least five letters
and neither a digit ("Vegetarain" / "Vegetarian", "colour" / "color", "Livs" / "Lives"); an
inflection when they share a stem ("sardine" / "sardines"). A name is never a typo: a word
capitalised anywhere but as the first word, or a first word in label position ("Ana — sister",
"Ana: …", "Ana, my sister", "Ana's …", "Maria is my sister", "Tim Smith"). Any other difference
makes two facts, however close in letters ("pecans" / "peanuts", "Mondays" / "Fridays",
"Is 34" / "Is 43", an added word). A CJK run, which an input method writes in real characters,
may gain characters ("…左右" / "…左右吧") but never change one ("女朋友" / "男朋友"). Two texts of
different polarity (decay/polarity.py) never match.

rapidfuzz's `fuzz.ratio` only finds candidates fast: exact normalised keys are looked up
first; then, in a file of ordinary size, every item of compatible length is scored, and
`same_fact` decides. In a very large file the search is blocked so it stays linear: only
items that share a block key with the query are scored. Two texts share a key when they
share a word, or — both being short (at most three words), where one changed word leaves
nothing else in common — a word's first or last four characters. Keys held by very many
items ("the", "likes") are skipped unless the query has nothing else.
"""

from __future__ import annotations

import re
from collections import defaultdict

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from .polarity import opposed
from .words import RUN, fold, stem

_TRAILING_CHARACTERS = " .,;:!?。，；：！？…"
_WORD = re.compile(r"\w+")
# A word's first and last four characters (the whole word when it is shorter).
_PREFIX = re.compile(r"\b\w{1,4}")
_SUFFIX = re.compile(r"\w{1,4}\b")
# The first word in label position: "Ana — sister", "Ana: sister", "Ana, my sister", "Ana's birthday",
# "Maria is my sister".
_LABEL = re.compile(r"\W*(\w+)(?:\s*[—–:,(]|\s+-(?:\s|$)|['’]s\b|\s+(?:is|was|are)\s+(?:my|our|the)\b)")
# Texts of at most this many words are also blocked by word prefixes and suffixes.
_SHORT_TEXT_WORDS = 3
# A typo is a one-letter slip in a word at least this long: shorter words are too often other words.
# The longer of the two words is measured, so a letter dropped from a five-letter word ("lives" /
# "livs") is a typo, while two four-letter words one letter apart ("like" / "lime") never are.
TYPO_MIN_LETTERS = 5
# An inflection changes at most this many letters at a word's end ("study" / "studies").
_INFLECTION_TAIL = 4
# Up to this many items, every item is compared (in C, by rapidfuzz): matching is then
# exactly docs/spec.md §3's. Blocking only serves files far larger than a person's memory.
EXHAUSTIVE_UP_TO = 1000
# Keys in more postings than this carry no signal ("the", "likes"); skip them
# unless the query has nothing else.
_COMMON_WORD_POSTINGS = 200


def normalise(text: str) -> str:
    """Fold case, white space and trailing punctuation."""
    # After split/join the only white space left is " ", so one rstrip folds both.
    return " ".join(text.casefold().split()).rstrip(_TRAILING_CHARACTERS)


class Word:
    """One word of a text as matching weighs it."""

    __slots__ = ("folded", "name", "cjk")

    def __init__(self, raw: str, name: bool, cjk: bool):
        self.folded = raw if cjk else fold(raw)
        self.name = name
        self.cjk = cjk


def words(text: str) -> list[Word]:
    """The text's words in order, each marked a name or a CJK run (see the module's doc)."""
    runs = list(RUN.finditer(text))
    found: list[Word] = []
    for i, run in enumerate(runs):
        raw = run[0]
        if run[1] is not None and found and found[-1].cjk:
            found[-1].folded += raw  # CJK runs apart only by punctuation are one: "游泳，和滑雪" is "游泳和滑雪"
            continue
        capital = raw != raw.lower()
        if i == 0:
            following = runs[1][0] if len(runs) > 1 else ""
            name = capital and (raw[1:] != raw[1:].lower() or bool(_LABEL.match(text))
                                or following != following.lower())
        else:
            name = capital
        found.append(Word(raw, name, run[1] is not None))
    return found


def _adds_only(a: str, b: str) -> bool:
    """Whether one CJK run is the other with characters added, none changed."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    letters = iter(long)
    return all(c in letters for c in short)


def is_typo(a: str, b: str) -> bool:
    """Whether two different folded words are one slip apart: a letter added, dropped or changed, or two swapped."""
    if max(len(a), len(b)) < TYPO_MIN_LETTERS or not (a.isalpha() and b.isalpha()):
        return False
    return OSA.distance(a, b, score_cutoff=1) <= 1


def is_inflection(a: str, b: str) -> bool:
    """Whether two different folded words are forms of one word: the same stem, differing only at the end."""
    if not (a.isalpha() and b.isalpha()) or stem(a) != stem(b):
        return False
    common = len(_common_prefix(a, b))
    return len(a) - common <= _INFLECTION_TAIL and len(b) - common <= _INFLECTION_TAIL


def _common_prefix(a: str, b: str) -> str:
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return a[:i]


def same_words(mine: list[Word], theirs: list[Word]) -> bool:
    """The same words in the same order but for typos and inflections, names and numbers exact."""
    if len(mine) != len(theirs):
        return False
    for a, b in zip(mine, theirs, strict=True):
        if a.folded == b.folded:
            continue
        if a.name or b.name or a.cjk != b.cjk:
            return False
        if a.cjk:
            if not _adds_only(a.folded, b.folded):
                return False
        elif not (is_typo(a.folded, b.folded) or is_inflection(a.folded, b.folded)):
            return False
    return True


def same_fact(a: str, b: str) -> bool:
    """Whether two wordings are the same fact by §3's rules (no extractor's word taken)."""
    return normalise(a) == normalise(b) or _Prepared(a).same_fact(_Prepared(b))


class _Prepared:
    """A text normalised, with its block keys and, made when first needed, its words as matching weighs them."""

    __slots__ = ("text", "norm", "words", "affixes", "_weighed")

    def __init__(self, text: str):
        self.text = text
        self.norm = normalise(text)
        found = _WORD.findall(self.norm)
        self.words = frozenset(found)
        self.affixes = (
            frozenset(_PREFIX.findall(self.norm) + _SUFFIX.findall(self.norm))
            if len(found) <= _SHORT_TEXT_WORDS else frozenset()
        )
        self._weighed: list[Word] | None = None  # made once, when a near-duplicate is first weighed

    def weighed(self) -> list[Word]:
        if self._weighed is None:
            self._weighed = words(self.text)
        return self._weighed

    def same_fact(self, other: _Prepared) -> bool:
        """Whether the near-duplicate candidate `other` is the same fact (docs/spec.md §3)."""
        return not opposed(self.text, other.text) and same_words(self.weighed(), other.weighed())


class TextIndex:
    """Finds the key (an item's number) whose text is the same fact as a query text."""

    def __init__(self, threshold: float):
        self.threshold = threshold
        self._exact: dict[str, list[int]] = defaultdict(list)
        self._texts: dict[int, _Prepared] = {}
        self._norms: dict[int, str] = {}  # every key's normalised text: the exhaustive search's candidates
        # block key → {item key: normalised text}, so a posting is scored by rapidfuzz in one call
        self._words: dict[str, dict[int, str]] = defaultdict(dict)
        self._affixes: dict[str, dict[int, str]] = defaultdict(dict)
        self._last: _Prepared | None = None  # the last text prepared: `find` then `add` reuse it

    def add(self, key: int, text: str) -> None:
        prepared = self._prepare(text)
        norm = prepared.norm
        self._texts[key] = prepared
        self._norms[key] = norm
        self._exact[norm].append(key)
        for word in prepared.words:
            self._words[word][key] = norm
        for affix in prepared.affixes:
            self._affixes[affix][key] = norm

    def remove(self, key: int) -> None:
        prepared = self._texts.pop(key)
        del self._norms[key]
        self._exact[prepared.norm].remove(key)
        for word in prepared.words:
            del self._words[word][key]
        for affix in prepared.affixes:
            del self._affixes[affix][key]

    def find(self, text: str, exclude: int | None = None) -> int | None:
        """The key of the same fact: exact normalised text first, then the most similar."""
        prepared = self._prepare(text)
        norm = prepared.norm
        for key in self._exact.get(norm, ()):
            if key != exclude:
                return key
        candidates = self._candidates(prepared)
        if not candidates:
            return None
        # Scored in C; rapidfuzz skips texts whose length cannot reach the threshold.
        found = process.extract(norm, candidates, scorer=fuzz.ratio, score_cutoff=self.threshold, limit=None)
        best: tuple[float, int] | None = None
        texts = self._texts
        for _, score, key in found:
            if key != exclude and (best is None or score > best[0] or (score == best[0] and key < best[1])) \
                    and prepared.same_fact(texts[key]):
                best = (score, key)
        return best[1] if best else None

    def _prepare(self, text: str) -> _Prepared:
        last = self._last
        if last is None or last.text != text:
            last = self._last = _Prepared(text)
        return last

    def _candidates(self, prepared: _Prepared) -> dict[int, str]:
        """The items to compare: all of them in a file of ordinary size, else those under the
        query's rarer block keys, or its rarest when all are common.

        The result may be one of the index's own dicts: read it, never change it.
        """
        if len(self._norms) <= EXHAUSTIVE_UP_TO:
            return self._norms
        words = self._words.get
        postings = [p for word in prepared.words if (p := words(word))]
        if prepared.affixes:
            affixes = self._affixes.get
            postings += [p for affix in prepared.affixes if (p := affixes(affix))]
        if not postings:
            return {}
        if len(postings) == 1:
            return postings[0]
        rare = [p for p in postings if len(p) <= _COMMON_WORD_POSTINGS]
        if not rare:
            return min(postings, key=len)
        if len(rare) == 1:
            return rare[0]
        merged: dict[int, str] = {}
        for posting in rare:
            merged.update(posting)
        return merged
