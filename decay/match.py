"""When two wordings are the same fact: normalised equality, then near-duplicates.

Exact normalised keys are looked up first. Then, in a file of ordinary size, every
item of compatible length is compared with rapidfuzz, so matching is exactly SPEC
§3's. In a very large file the search is blocked so it stays linear: only items of
compatible length that share a block key with the query are compared. Two texts share a key when they
share a word, or — both being short (at most three words), where one changed
word leaves nothing else in common — a word's first or last four characters:
"vegetarian", "vegetarians" and "vegetarain" meet, as do "colour" and "color".
Keys held by very many items ("the", "likes") are skipped unless the query has
nothing else.

A near-duplicate is the same fact only when it holds the same numbers and the same names
(SPEC §3): "Wants to visit Austria" / "… Australia", "Ana — sister" / "Ann — sister",
"Runs 34 km" / "Runs 43 km" and "topic12" / "topic13" stay apart, while "Vegetarain" /
"Vegetarian" and "Inês" / "Ines" still merge. Exact normalised matches are not affected.
Numbers are digit runs ("topic12" holds 12; "007" is 7). Names are words with a capital
anywhere but at the start of the text, case- and accent-folded; the first word is a name
too when it reads as a label ("Ana — sister", "Ana: …", "Ana, my sister", "Ana's …") or
has a capital inside ("iPhone"). A name of either text must be a word of the other, so a
name written in lower case in the other wording still counts as held. Chinese, Japanese and
Korean text has no capitals and no typos of the Latin kind (an input method writes real
characters), so a CJK near-duplicate may add characters ("…左右" / "…左右吧") but not change
one: "…女朋友" / "…男朋友" and "第一部" / "第二部" stay apart.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict

from rapidfuzz import fuzz, process

_TRAILING_CHARACTERS = " .,;:!?。，；：！？…"
_WORD = re.compile(r"\w+")
# A word's first and last four characters (the whole word when it is shorter).
_PREFIX = re.compile(r"\b\w{1,4}")
_SUFFIX = re.compile(r"\w{1,4}\b")
_DIGITS = re.compile(r"\d+")
_NONE: frozenset[str] = frozenset()
# The first word in label position: "Ana — sister", "Ana: sister", "Ana, my sister", "Ana's birthday".
_LABEL = re.compile(r"\W*(\w+)(?:\s*[—–:,(]|\s+-(?:\s|$)|['’]s\b)")
# Texts of at most this many words are also blocked by word prefixes and suffixes.
_SHORT_TEXT_WORDS = 3
# Up to this many items, every item is compared (in C, by rapidfuzz): matching is then
# exactly SPEC §3's. Blocking only serves files far larger than a person's memory.
EXHAUSTIVE_UP_TO = 1000
# Keys in more postings than this carry no signal ("the", "likes"); skip them
# unless the query has nothing else.
_COMMON_WORD_POSTINGS = 200


def normalise(text: str) -> str:
    """Fold case, white space and trailing punctuation."""
    # After split/join the only white space left is " ", so one rstrip folds both.
    return " ".join(text.casefold().split()).rstrip(_TRAILING_CHARACTERS)


def fold(word: str) -> str:
    """A word case- and accent-folded: "Inês" → "ines"."""
    word = word.casefold()
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _number(digits: str) -> str:
    """A digit run as plain ASCII digits without leading zeros: "007" and "７" are 7."""
    if not digits.isascii():
        digits = "".join(str(unicodedata.digit(c)) for c in digits)
    return digits.lstrip("0") or "0"


def numbers(text: str) -> frozenset[str]:
    """The numbers a text holds: its digit runs."""
    runs = _DIGITS.findall(text)
    return frozenset(_number(d) for d in runs) if runs else _NONE


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def cjk(text: str) -> str:
    """The text's CJK characters, sorted: what a CJK near-duplicate must hold exactly."""
    return "".join(sorted(_CJK.findall(text)))


def _one_holds_the_other(a: str, b: str) -> bool:
    """Whether every CJK character of one text is in the other: added characters, none changed."""
    if a == b:
        return True
    first, second = Counter(a), Counter(b)
    return not (first - second) or not (second - first)


def names(text: str) -> frozenset[str]:
    """The names a text holds, folded: words capitalised anywhere but at the start (see the module's doc)."""
    tail = text[1:]
    if tail.lower() == tail:  # no capital past the first character: the common case, made quick
        label = _LABEL.match(text) if text[:1] != text[:1].lower() else None
        return frozenset((fold(label[1]),)) if label else _NONE
    words = _WORD.findall(text)
    found = {fold(w) for w in words[1:] if w != w.lower()}
    if words:
        head = words[0]
        if head[1:] != head[1:].lower() or (head != head.lower() and _LABEL.match(text)):
            found.add(fold(head))
    return frozenset(found)


class _Prepared:
    """A text normalised, with its block keys and what a near-duplicate must share: numbers and names."""

    __slots__ = ("text", "norm", "words", "affixes", "_signature", "_folded")

    def __init__(self, text: str):
        self.text = text
        self.norm = normalise(text)
        words = _WORD.findall(self.norm)
        self.words = frozenset(words)
        self.affixes = (
            frozenset(_PREFIX.findall(self.norm) + _SUFFIX.findall(self.norm))
            if len(words) <= _SHORT_TEXT_WORDS else frozenset()
        )
        # Made once, when a near-duplicate is first weighed: most texts never have one.
        self._signature: tuple[frozenset[str], frozenset[str], str] | None = None
        self._folded: frozenset[str] | None = None

    def signature(self) -> tuple[frozenset[str], frozenset[str], str]:
        """The text's numbers, names and CJK characters."""
        if self._signature is None:
            self._signature = (numbers(self.text), names(self.text), cjk(self.text))
        return self._signature

    def folded(self) -> frozenset[str]:
        """Every word of the text, folded: where a name of another wording is looked for."""
        if self._folded is None:
            self._folded = frozenset(fold(w) for w in _WORD.findall(self.text))
        return self._folded

    def same_numbers_and_names(self, other: _Prepared) -> bool:
        """Whether a near-duplicate `other` may be the same fact (SPEC §3): the same numbers, and
        each text's names among the other's words."""
        mine, theirs = self.signature(), other.signature()
        if mine[0] != theirs[0] or not _one_holds_the_other(mine[2], theirs[2]):
            return False
        return (not mine[1] or mine[1] <= other.folded()) and (not theirs[1] or theirs[1] <= self.folded())


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
                    and prepared.same_numbers_and_names(texts[key]):
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
