"""Polarity is part of a fact (docs/spec.md §3): "Loves X" and "Hates X", "Eats meat" and "No longer eats meat".

A text's polarity is its liking (+ for loves/likes/enjoys/prefers/is into and 喜欢/爱, − for
hates/dislikes/avoids/can't stand/is tired of and 讨厌), flipped by each negation (not, never,
no longer, don't, doesn't, isn't, can't, won't; 不, 没, 没有, 不再, 别, 并不). Two texts of
different polarity never match by any route. Two texts whose words are the same once polarity
is set aside (`core`) and whose polarity differs are opposite facts: the newer supersedes the
older (rule H). Pure; a few hundred English and Chinese words, no model.
"""

from __future__ import annotations

import functools
import re

from .words import CJK_CLASS, fold, stem

# Multi-word markers first: each is one marker, not its parts ("can't stand" is a dislike, not a negation).
_NEGATIVE_PHRASES = ("can't stand", "cannot stand", "can not stand", "is tired of", "am tired of", "tired of",
                     "is sick of", "sick of", "is fed up with", "fed up with")
_POSITIVE_PHRASES = ("is into", "am into", "are into", "really into", "is fond of", "fond of", "is a fan of",
                     "a big fan of", "fan of")
_NEGATION_PHRASES = ("no longer", "not any more", "any more", "anymore", "does not", "do not", "did not",
                     "is not", "are not", "was not", "were not", "can not", "will not", "would not", "has not",
                     "have not")
_POSITIVE = frozenset("love loves loved loving like likes liked enjoy enjoys enjoyed prefer prefers preferred "
                      "adore adores adored".split())
_NEGATIVE = frozenset("hate hates hated hating dislike dislikes disliked avoid avoids avoided detest detests "
                      "loathe loathes loathed".split())
_NEGATIONS = frozenset("not never no don't doesn't didn't isn't aren't wasn't weren't can't cannot won't "
                       "wouldn't shouldn't hasn't haven't nor".split())
# What a negation leaves of its verb: "Won't fly" and "Will fly", "Isn't vegan" and "Is vegan" share it.
_NEGATED_VERB = {"isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were", "can't": "can",
                 "cannot": "can", "won't": "will", "wouldn't": "would", "shouldn't": "should", "hasn't": "has",
                 "haven't": "have", "is not": "is", "are not": "are", "was not": "was", "were not": "were",
                 "can not": "can", "will not": "will", "would not": "would", "has not": "has", "have not": "have"}
# Words that only carry time or emphasis: "Dislikes cold brew now" is the opposite of "Loves cold brew".
_FILLER = frozenset("now really still actually truly totally absolutely genuinely".split())

# Chinese: likings and negations inside a run of characters.
_CJK_NEGATIVE = ("不喜欢", "讨厌", "厌恶", "受不了", "恨")
_CJK_POSITIVE = ("喜欢", "热爱", "爱")
# 没有 is 没 and 有: "没有车" is the opposite of "有车", so 有 stays in the core.
_CJK_NEGATIONS = ("不再", "并不", "不", "没", "别")
# Words that hold 不 or 没 and negate nothing: "不错" is good, "不过" is but.
_CJK_FALSE_NEGATIONS = ("不错", "不过", "不同", "不断", "不少", "不仅", "不管", "差不多", "不得不", "了不起",
                        "对不起", "不久", "不然", "要不", "没关系")
_CJK_FILLER = ("现在", "已经", "了")
_CJK_MARKER = re.compile("|".join(
    [re.escape(w) for w in sorted((*_CJK_FALSE_NEGATIONS, *_CJK_NEGATIVE, *_CJK_POSITIVE, *_CJK_NEGATIONS,
                                   *_CJK_FILLER), key=len, reverse=True)]))
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'"})
_CONTRACTION = re.compile(r"\b(\w+)\s*'\s*(t|s|m|re|ve|ll|d)\b")
_PHRASES = [(p, "-") for p in _NEGATIVE_PHRASES] + [(p, "+") for p in _POSITIVE_PHRASES] \
    + [(p, "!") for p in _NEGATION_PHRASES]
_PHRASE = re.compile("|".join(rf"\b{re.escape(p)}\b" for p, _ in sorted(_PHRASES, key=lambda x: -len(x[0]))))
_PHRASE_MARK = dict(_PHRASES)
_LATIN_OR_CJK = re.compile(f"[{CJK_CLASS}]+|[^\\W_{CJK_CLASS}]+(?:'[a-z]+)?")
_CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
_AUXILIARIES = frozenset(("does", "do", "did"))


class _Reading:
    """A text read for polarity: its liking, its negations, and the words left once they are set aside."""

    def __init__(self) -> None:
        self.liking, self.negations, self.marked = 0, 0, False
        self.core: list[str] = []

    def mark(self, kind: str, marker: str = "") -> None:
        self.marked = True
        if kind == "!":
            self.negations += 1
            if marker in _NEGATED_VERB:
                self.core.append(_NEGATED_VERB[marker])
            return
        self.core.append("♥")  # a liking either way: "Loves X" and "Hates X" share the core "♥ x"
        if self.liking == 0:
            self.liking = 1 if kind == "+" else -1

    def words(self, chunk: str) -> None:
        for match in _LATIN_OR_CJK.finditer(chunk):
            word = match[0]
            if _CJK_RUN.fullmatch(word):
                self.cjk(word)
            elif word in _NEGATIONS:
                self.mark("!", word)
            elif word in _POSITIVE or word in _NEGATIVE:
                self.mark("+" if word in _POSITIVE else "-")
            elif word not in _FILLER and word not in _AUXILIARIES:
                self.core.append(stem(fold(word.removesuffix("'s").replace("'", ""))))

    def cjk(self, run: str) -> None:
        pos, kept = 0, []
        for found in _CJK_MARKER.finditer(run):
            kept.append(run[pos:found.start()])
            word = found[0]
            if word in _CJK_FALSE_NEGATIONS:
                kept.append(word)
            elif word in _CJK_NEGATIVE or word in _CJK_POSITIVE:
                self.marked = True
                kept.append("♥")
                if self.liking == 0:
                    self.liking = 1 if word in _CJK_POSITIVE else -1
            elif word in _CJK_NEGATIONS:
                self.mark("!")
            pos = found.end()
        kept.append(run[pos:])
        self.core.append("".join(kept))


# Any word a marker or a phrase's may start with: a text without one (most items) is read by a quicker path.
_MARKER_WORDS = (_POSITIVE | _NEGATIVE | _NEGATIONS | _FILLER | _AUXILIARIES
                 | frozenset("stand tired sick fed into fond fan any anymore".split()))
_ALONE = (f"(?<![^\\W_{CJK_CLASS}])", f"(?![^\\W_{CJK_CLASS}])")  # a whole Latin word, as the reading splits them
_ANY_MARKER = re.compile(
    "['’‘`]|" + _ALONE[0] + "(?:" + "|".join(re.escape(w) for w in sorted(_MARKER_WORDS, key=len, reverse=True))
    + ")" + _ALONE[1] + "|" + _CJK_MARKER.pattern)
_PLAIN_WORD = re.compile(f"[{CJK_CLASS}]+|[^\\W_{CJK_CLASS}]+")


@functools.lru_cache(maxsize=200_000)
def _read(text: str) -> tuple[int, bool, tuple[str, ...]]:
    """(polarity sign, whether it has a polarity marker at all, the words left once they are set aside)."""
    folded = text.casefold()
    if not _ANY_MARKER.search(folded):  # no marker: every word is the core, as the full reading would find
        return 1, False, tuple(w if _CJK_RUN.fullmatch(w) else stem(fold(w)) for w in _PLAIN_WORD.findall(folded))
    return _read_marked(text)


def _read_marked(text: str) -> tuple[int, bool, tuple[str, ...]]:
    low = _CONTRACTION.sub(r"\1'\2", " ".join(text.translate(_APOSTROPHES).casefold().split()))
    reading = _Reading()
    pos = 0
    for phrase in _PHRASE.finditer(low):
        reading.words(low[pos:phrase.start()])
        reading.mark(_PHRASE_MARK[phrase[0]], phrase[0])
        pos = phrase.end()
    reading.words(low[pos:])
    sign = (reading.liking or 1) * (-1 if reading.negations % 2 else 1)
    return sign, reading.marked, tuple(w for w in reading.core if w)


@functools.lru_cache(maxsize=200_000)
def marked(text: str) -> bool:
    """Whether the text has a polarity marker (a liking or a negation): most items have none."""
    return bool(_ANY_MARKER.search(text.casefold())) and _read(text)[1]


def liking(text: str) -> bool:
    """Whether the text states a liking, of either sign ("Loves X", "讨厌X")."""
    return "♥" in _read(text)[2]


def sign(text: str) -> int:
    """+1 or −1: the text's liking (or +1 when it has none), flipped by each negation."""
    return _read(text)[0]


def opposed(a: str, b: str) -> bool:
    """Whether two texts differ in polarity: they are then never the same fact."""
    return _read(a)[0] != _read(b)[0]


def core(text: str) -> str:
    """The text's words, stemmed, with polarity set aside ("♥" for a liking of either sign).

    Two texts with the same core and opposite polarity are the same thing liked and disliked,
    done and no longer done: opposite facts.
    """
    return " ".join(_read(text)[2])


def opposite(a: str, b: str) -> bool:
    """Whether `b` states the opposite of `a`: the same thing, of something, with the other polarity."""
    if not opposed(a, b):
        return False
    ca = core(a)
    return ca == core(b) and ca.replace("♥", "").strip() != ""
