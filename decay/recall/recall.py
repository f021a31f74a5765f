"""Recall's ranking (docs/spec.md §9): words stemmed for English, CJK text as character bigrams, BM25, and
relative score fusion with embeddings' cosines. Pure: no I/O, no clock.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import operator
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from hylo_memory.domain.dimensions import Dimension, Fact

from ..words import RUN, is_cjk, stem
from . import concepts
from .asking import GENERIC_WORDS, QUESTION_WORDS, Asked, asked, without_cjk_function_words

# A small English list: words that say nothing about what a query asks. Left out of queries only (an item is
# indexed whole); the pieces of contractions ("I'm" reads "i", "m") are here.
STOP_WORDS = frozenset(
    "a an and are as at be by but do does for from had has have he her his i in is it its me my of on or our "
    "she so that the their them they this to was we were what when where which who will with you your "
    "s t m d ll re ve".split()
)


K1, B = 1.2, 0.75  # BM25's usual constants: term frequency saturation, length normalisation
# Relative score fusion: BM25 over its best score, plus the cosine min-max scaled over the memory, weighed
# 0.3 to 0.7. Measured on LoCoMo against reciprocal rank fusion (k = 60) and others (docs/benchmarks.md).
BM25_WEIGHT = 0.3



@functools.lru_cache(maxsize=100_000)
def _word(word: str) -> tuple[str, str]:
    """A word folded (without its accents when that leaves it plain ASCII: café → cafe), and its term."""
    bare = "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))
    folded = bare if bare.isascii() else word
    if folded.isdigit():
        return folded, folded
    return folded, stem(folded)


class Terms(NamedTuple):
    """What a text is searched by: its terms, and for a document the single CJK characters of longer runs."""

    terms: tuple[str, ...]
    unigrams: tuple[str, ...] = ()


def analyse(text: str, stop_words: frozenset[str] = frozenset(), with_concepts: bool = True) -> Terms:
    """The terms of `text`: Latin words folded and stemmed, CJK runs as bigrams (a 1-character run as itself).

    Case and compatibility forms are normalised first (NFKC, casefold): "Ｒｕｎ", "RUN" and "run" are one term.
    `with_concepts`: the concepts its words name follow them (concepts.py: recall's terms, not a likeness of words).
    """
    terms: list[str] = []
    unigrams: list[str] = []
    named: list[str] = []  # the concepts its words name (concepts.py), after its words
    for match in RUN.finditer(unicodedata.normalize("NFKC", text).casefold()):
        run = match[1]
        if run is None:
            folded, term = _word(match[0])
            if folded not in stop_words:
                terms.append(term)
                named += concepts.of_term(term)
            continue
        if len(run) == 1:
            terms.append(run)
        else:
            terms += [run[i:i + 2] for i in range(len(run) - 1)]
            unigrams += run  # so a query of one character finds the runs that hold it
        named += concepts.of_run(run)
    return Terms((*terms, *dict.fromkeys(named)) if with_concepts else tuple(terms), tuple(unigrams))


_QUERY_STOP = STOP_WORDS | QUESTION_WORDS
_CONTENT_STOP = _QUERY_STOP | GENERIC_WORDS


def query_terms(query: str) -> list[str]:
    """A query's distinct terms: the words it is about (`content_terms`), or when it has none ("what do I like?"),
    the words that say what kind of thing it asks. A query of stop and question words alone has none."""
    return content_terms(query) or list(dict.fromkeys(analyse(without_cjk_function_words(query), _QUERY_STOP).terms))


def content_terms(query: str) -> list[str]:
    """The terms a query is about: its words but stop, question and generic words ("what", "my", "how",
    "favourite", "name"), its Chinese without its question and function words ("我", "什么", "喜欢")."""
    return list(dict.fromkeys(analyse(without_cjk_function_words(query, generic=True), _CONTENT_STOP).terms))


Analyse = Callable[[str], Terms]


class BM25:
    """Okapi BM25 over a list of texts, built once and queried many times.

    `analysed`: how a text's terms are found; `analyse`, or a memo of it (the read memo keeps every item's).
    """

    def __init__(self, texts: Sequence[str], analysed: Analyse = analyse):
        self.texts = tuple(texts)  # as given: what asking.py reads the people items' names from
        self.size = len(texts)
        self.lengths: list[int] = []
        self.postings: dict[str, list[tuple[int, int]]] = {}
        postings = self.postings
        for index, text in enumerate(texts):
            found = analysed(text)
            self.lengths.append(len(found.terms))  # the unigrams of longer runs are extra keys, not length
            counts: dict[str, int] = {}
            for term in found.terms:
                counts[term] = counts.get(term, 0) + 1
            for char in found.unigrams:
                counts.setdefault(char, 1)
            for term, count in counts.items():
                if (posting := postings.get(term)) is None:
                    postings[term] = [(index, count)]
                else:
                    posting.append((index, count))
        self.average = sum(self.lengths) / self.size if self.size else 0.0

    def scores(self, query: str) -> dict[int, float]:
        """Each matching text's score for `query` (texts matching none of its terms are left out)."""
        found: dict[int, float] = {}
        for term in query_terms(query):
            postings = self.postings.get(term)
            if not postings:
                continue
            df = len(postings)
            idf = math.log(1 + (self.size - df + 0.5) / (df + 0.5))
            for index, tf in postings:
                norm = K1 * (1 - B + B * self.lengths[index] / self.average) if self.average else K1
                found[index] = found.get(index, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
        return found

    def exact(self, query: str) -> set[int]:
        """The texts holding every term of `query` that some text holds: an exact keyword match."""
        terms = {t for t in query_terms(query) if t in self.postings}
        if not terms:
            return set()
        holders = [{index for index, _ in self.postings[t]} for t in terms]
        return set.intersection(*holders)


def fuse(bm25: Mapping[int, float], cosines: Sequence[float | None], floor: float,
         scripts: Sequence[bool] | None = None) -> dict[int, float]:
    """Each entry's fused score, for the entries that match a term or whose cosine is above `floor`.

    Both parts are scaled to [0, 1] within this memory and query: BM25 by its best score, the cosine between
    the lowest and the highest of every entry of its script (`scripts`: whether each entry is written in CJK; scores
    of one model are not comparable across queries, nor across languages: a Chinese question's cosines with English
    items run lower than with Chinese ones). An entry with no cosine (its vector not embedded yet) is scored by its
    words alone, on the same scale."""
    best = max(bm25.values(), default=0.0) or 1.0
    group = scripts or [False] * len(cosines)
    spans: dict[bool, tuple[float, float]] = {}
    for script in set(group):
        known = [c for c, g in zip(cosines, group, strict=True) if c is not None and g == script]
        spans[script] = (min(known, default=0.0), max(known, default=0.0))
    fused: dict[int, float] = {}
    for i, cosine in enumerate(cosines):
        words = bm25.get(i, 0.0) / best
        if cosine is None:
            if i in bm25:
                fused[i] = words
        elif i in bm25 or cosine > floor:
            low, high = spans[group[i]]
            span = high - low
            fused[i] = BM25_WEIGHT * words + (1 - BM25_WEIGHT) * ((cosine - low) / span if span else 1.0)
    return fused


class Scores(NamedTuple):
    """How well each text answers a query (none when nothing does), its BM25 scores, and what the question asks."""

    scores: dict[int, float]  # BM25's, or fused with the cosines; weighed by `asked`
    bm25: dict[int, float]
    asked: Asked


def relevance(index: BM25, query: str, dimensions: Sequence[Dimension], cosines: Sequence[float | None] | None,
              floor: float, answer_floor: float | None = None) -> Scores:
    """How well each text of `index` (of these `dimensions`, one each) answers `query`: BM25's score, or fused with
    `cosines` (one per text), weighed by what the question asks (asking.py); nothing when nothing answers it
    (`answers`: a word of the question, a person it names, or a cosine above `answer_floor`, `floor` if None)."""
    ask = asked(query, dimensions, index.texts, content_terms(query))
    if not answers(index, query, ask, cosines, floor if answer_floor is None else answer_floor):
        return Scores({}, {}, ask)
    bm25 = index.scores(query)
    found = bm25 if cosines is None else fuse(bm25, cosines, floor, [is_cjk(text) for text in index.texts])
    # A person the question names is a candidate even when the words that name them are not its terms.
    return Scores({i: found.get(i, 0.0) * ask.weight(i, dimensions[i]) for i in {*found, *ask.named}}, bm25, ask)


def answers(index: BM25, query: str, ask: Asked, cosines: Sequence[float | None] | None, floor: float) -> bool:
    """Whether any text may answer `query`: one holds a word it is about (`query_terms`), or it names someone in the
    people file, or (with cosines) one is above `floor`. Else recall says nothing: an unrelated item is no answer."""
    if ask.named or any(term in index.postings for term in query_terms(query)):
        return True
    return cosines is not None and any(c is not None and c > floor for c in cosines)


def similarities(query: Sequence[float], vectors: Sequence[Sequence[float] | None]) -> list[float]:
    """The cosine of each vector with `query` (0 for a missing vector, or one of another length, or of zeros)."""
    query_norm = math.hypot(*query)
    found = []
    for vector in vectors:
        norm = math.hypot(*vector) * query_norm if vector is not None and len(vector) == len(query) else 0.0
        found.append(sum(map(operator.mul, query, vector)) / norm if vector is not None and norm else 0.0)
    return found


class Entry(NamedTuple):
    """An item as recall sees it: its dimension and whether it is Fading."""

    dimension: Dimension
    item: Fact
    fading: bool


class Hit(NamedTuple):
    """A ranked entry: its score (BM25, or the fused score), and the parts it came from."""

    at: int  # the entry's position in the list ranked
    score: float
    bm25: float
    similarity: float | None = None


_ORDER = {d: i for i, d in enumerate(Dimension)}


def tie_key(entry: Entry, index: int, today: dt.date) -> tuple[int, int, int, int, int, int]:
    """Equal scores: pinned first, then the most seen, then the most recent; then Active, then file order.

    A bullet not yet given metadata counts as seen today, as adopting it will record.
    """
    item = entry.item
    return -item.pinned, -item.seen, -(item.last or today).toordinal(), entry.fading, _ORDER[entry.dimension], index


def rank(entries: Sequence[Entry], index: BM25, query: str, limit: int, today: dt.date,
         similarities: Sequence[float | None] | None = None, floor: float = 0.0,
         answer_floor: float | None = None) -> list[Hit]:
    """The `limit` entries that best answer `query`: by BM25, or fused with `similarities` (one per entry, None
    for an entry not embedded yet); none when nothing answers it (`answers`, with `answer_floor`).

    Only entries that match a term, or (with similarities) rise above the model's `floor` of resemblance, are ranked.
    Each score is weighed by what the question asks (asking.py): the person's own items before other people's in
    a question about the person, a light prior for the dimensions its cue words name, and the person it names first
    when the question asks who they are.
    """
    found = relevance(index, query, [e.dimension for e in entries], similarities, floor, answer_floor)
    scores, bm25, ask = found

    def ordered(scored: Mapping[int, float]) -> list[int]:
        return sorted(scored, key=lambda i: (-scored[i], *tie_key(entries[i], i, today)))

    named = [i for i in ordered(scores) if i in ask.named] if ask.only_named else []  # "who is X": X first
    if similarities is None:
        chosen = named + [i for i in ordered(scores) if i not in named]
        return [Hit(i, scores[i], bm25.get(i, 0.0)) for i in chosen[:limit]]
    if not scores:
        return []
    chosen = ordered(scores)[:limit]
    # An exact keyword match is never pushed out of the top by resemblance alone: it takes the place of the
    # lowest item that is not one (BM25's order decides which exact matches, when there are more than `limit`),
    # and it comes first: what holds the very words asked for is what the person meant (it cost LoCoMo 0.1 %).
    # Only those of the dimensions the question points to, when its cues point to some, and never someone else's
    # when it asks about the person: the others compete by their weighed scores.
    top = max(ask.weight(i, entries[i].dimension) for i in scores)
    held = index.exact(query)
    exact = [i for i in ordered(bm25) if i in held and ask.weight(i, entries[i].dimension) >= top][:limit]
    for i in (i for i in exact if i not in chosen):
        chosen[max(n for n, c in enumerate(chosen) if c not in exact)] = i
    first = named + [i for i in ordered(scores) if i in chosen and i in exact and i not in named]
    rest = ordered({i: scores[i] for i in chosen if i not in first})
    return [Hit(i, scores[i], bm25.get(i, 0.0), similarities[i]) for i in (first + rest)[:limit]]
