"""`recall QUERY --notes` (and MCP `recall` with `notes: true`): the passages of the person's notes that best answer
a query (docs/spec.md §9.7), each with its note's path and date, and whose words it holds.

Ranked as items are (docs/spec.md §9.2): BM25 over the passages' words, from the index's postings, fused with
each passage's cosine with the query by the bundled model, where it is installed and the passage embedded; an
exact keyword match first. A question that asks for the first (or last) time orders the passages that answer
it best by their date. Read only: nothing is indexed or embedded here.
"""

from __future__ import annotations

import datetime as dt
import heapq
import math
import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from pydantic import BaseModel

from hylo_memory.decay.recall.recall import BM25_WEIGHT, K1, B, query_terms
from hylo_memory.errors import InputError
from hylo_memory.extractors import bundled
from hylo_memory.extractors.llm.tokens import estimate_tokens
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.notes.passages import Whose
from hylo_memory.pipeline.operations.serving.answers import MAX_LIMIT, check_query
from hylo_memory.pipeline.state.archive import ArchiveIndex, Found

if TYPE_CHECKING:
    import numpy as np

    from hylo_memory.pipeline.state.opened import Opened

BAND = 0.5  # with "first" or "last" asked, the passages within this share of the topic's best BM25 score go by date
_FIRST = re.compile(r"\b(?:first|earliest|first[- ]ever)\b|第一次|首次|最早|最初|初めて", re.I)
_LAST = re.compile(r"\b(?:last|latest|most recent(?:ly)?|lately)\b|最后一次|最近一次|上一次|上次|前回", re.I)


class Passage(BaseModel):
    """One passage the search ranked, with its note and scores."""

    rank: int
    path: str
    date: dt.date
    whose: Whose
    text: str
    score: float  # BM25's, or the fused score with vectors
    bm25: float
    similarity: float | None = None


class NotesResult(BaseModel):
    """The ranked passages, and how they were ranked."""

    query: str
    limit: int
    indexed: bool = True  # False: no index of the notes yet
    ranking: Literal["bm25", "bm25+embeddings"] = "bm25"
    model: str | None = None
    fallback: str | None = None  # why the vectors were meant to rank and did not
    unembedded: int = 0  # passages with no vector yet: matched by their words alone
    passages: list[Passage] = []

    def to_text(self, naming: Naming) -> str:
        """One passage a block, best first; the steps it advises in the words of the door's `naming` (the result's
        JSON names none)."""
        index = naming.say(Step.INDEX)
        if not self.indexed:
            return (f"Your notes are not indexed yet: the next refresh indexes them ({naming.say(Step.REFRESH)}), "
                    f"and {index} does it at once.\n")
        lines = []
        for found in self.passages:
            mark = found.whose.mark()
            lines.append(f"{found.rank}. {found.date}  {found.path}" + (f"  ({mark})" if mark else ""))
            lines += [f"   {line}" for line in found.text.split("\n") if line.strip()]
        if not self.passages:
            lines.append(f"No passage of your notes matches {self.query!r}.")
        if self.fallback:
            lines.append(f"Ranked by BM25 alone: embeddings unavailable ({self.fallback}).")
        elif self.unembedded:
            lines.append(f"{self.unembedded:,} passages are not embedded yet and were matched by their words alone "
                         f"(the next refresh, or {index}, embeds them).")
        return "\n".join(lines) + "\n"

    def to_json(self) -> str:
        return self.model_dump_json()


def recall_notes(memory: Opened, query: str, naming: Naming, limit: int = 10) -> NotesResult:
    """The `limit` passages of the vault's notes that best answer `query` (nothing is written); an index that cannot
    be read is refused in one line saying how to rebuild it, in the words of the door's `naming`."""
    query = check_query(query)
    if not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"the limit must be 1 to {MAX_LIMIT:,}, not {limit:,}")
    folder, config = memory.folder, memory.config
    try:
        return search(folder, config, query, limit)
    except sqlite3.Error as exc:
        raise InputError(f"{folder}: the notes' index cannot be read ({exc}); {naming.say(Step.INDEX)} rebuilds it") \
            from None


def search(folder: Path, config: Config, query: str, limit: int) -> NotesResult:
    """`recall_notes` in the memory folder `folder`, the query checked."""
    with ArchiveIndex.reading(folder) as index:
        if index is None:
            return NotesResult(query=query, limit=limit, indexed=False)
        bm25, exact = _words(index, query)
        result = NotesResult(query=query, limit=limit)
        meaning = _meaning(index, folder, config, query, result)
        wanted = set(heapq.nlargest(limit, exact, key=lambda i: (bm25[i], -i)))
        scores = bm25 if meaning is None else meaning.fused(bm25, bundled.FLOOR, wanted, limit)
        chosen = _ranked(scores, bm25, wanted, limit)
        found = index.found([i for i, _ in chosen])
        ordered = _by_date(index, query, [(i, score) for i, score in chosen if i in found], found)
    result.passages = [Passage(rank=n, path=found[i].path, date=dt.date.fromisoformat(found[i].date),
                               whose=Whose(found[i].whose), text=found[i].text, score=round(score, 6),
                               bm25=round(bm25.get(i, 0.0), 6),
                               similarity=None if meaning is None else meaning.similarity(i))
                       for n, (i, score) in enumerate(ordered, start=1)]
    return result


def _words(index: ArchiveIndex, query: str) -> tuple[dict[int, float], set[int]]:
    """Each passage's BM25 score for `query`, as decay.recall.BM25 scores a text, and the exact keyword matches."""
    size, total = index.size()
    average = total / size if size else 0.0
    held = index.postings(query_terms(query))
    scores: dict[int, float] = {}
    for postings in held.values():
        df = len(postings)
        idf = math.log(1 + (size - df + 0.5) / (df + 0.5))
        for passage, tf, length in postings:
            norm = K1 * (1 - B + B * length / average) if average else K1
            scores[passage] = scores.get(passage, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
    holders = [{passage for passage, _, _ in postings} for postings in held.values()]
    return scores, set.intersection(*holders) if holders else set()


class Meaning(NamedTuple):
    """Each embedded passage's id (ascending) and its cosine with the query."""

    ids: np.ndarray
    cosines: np.ndarray

    def similarity(self, passage: int) -> float | None:
        at = int(self.ids.searchsorted(passage))
        return round(float(self.cosines[at]), 6) if at < len(self.ids) and self.ids[at] == passage else None

    def fused(self, bm25: Mapping[int, float], floor: float, wanted: set[int], limit: int) -> dict[int, float]:
        """decay.recall.fuse's scores, vectorised over every passage, of those that can be among the `limit` best:
        the best fused, every one with no vector yet that matches a word (by its words alone, on the fused scale),
        and `wanted`."""
        import numpy as np

        best = max(bm25.values(), default=0.0) or 1.0
        low, high = float(self.cosines.min()), float(self.cosines.max())
        scaled = (self.cosines - low) / (high - low) if high > low else np.ones_like(self.cosines)
        matched = np.fromiter(bm25, dtype=np.int64, count=len(bm25))
        values = np.fromiter(bm25.values(), dtype=np.float64, count=len(bm25)) / best
        at = np.minimum(self.ids.searchsorted(matched), len(self.ids) - 1)
        embedded = self.ids[at] == matched
        words = np.zeros(len(self.ids))
        words[at[embedded]] = values[embedded]
        fused = BM25_WEIGHT * words + (1 - BM25_WEIGHT) * scaled
        fused[(self.cosines <= floor) & (words == 0)] = -np.inf  # neither a word nor a resemblance: not ranked
        top = np.argsort(-fused, kind="stable")[:limit] if len(fused) <= limit else \
            np.argpartition(-fused, limit - 1)[:limit]
        scores = {int(self.ids[k]): float(fused[k]) for k in top if fused[k] > -np.inf}
        scores |= {int(m): float(v) for m, v in zip(matched[~embedded], values[~embedded], strict=True)}
        scores |= {int(matched[k]): float(fused[at[k]]) for k in np.flatnonzero(embedded) if int(matched[k]) in wanted}
        return scores


def _meaning(index: ArchiveIndex, folder: Path, config: Config, query: str, result: NotesResult) -> Meaning | None:
    """Each embedded passage's cosine with the query by the bundled model (None: words alone); `result` is told
    how it ranked."""
    if not (config.bundled_embeddings and bundled.installed()):
        return None
    from hylo_memory.pipeline.state import archive_matrix

    try:
        model = bundled.cache_key()
        matrix = archive_matrix.load(index, folder, model)
        if not len(matrix.ids):
            result.unembedded = index.size()[0]
            return None
        query_vector = bundled.embed_query(query)
    except bundled.LoadFailed as exc:
        result.fallback = str(exc)
        return None
    result.ranking, result.model = "bm25+embeddings", bundled.MODEL
    result.unembedded = index.size()[0] - len(matrix.ids)
    return Meaning(matrix.ids, matrix.vectors @ query_vector.astype(matrix.vectors.dtype))


def _ranked(scores: Mapping[int, float], bm25: Mapping[int, float], exact: set[int],
            limit: int) -> list[tuple[int, float]]:
    """The `limit` best of `scores` (BM25's, or fused), best first. An exact keyword match (`exact`: the best of them
    by BM25) is never pushed out by resemblance: it takes the place of the lowest that is not one, and comes first."""
    def best(among: Iterable[int], count: int) -> list[int]:
        return heapq.nsmallest(count, among, key=lambda i: (-scores[i], i))

    chosen = best(scores, limit)
    for i in (i for i in best(exact, limit) if i not in chosen):
        chosen[max(n for n, c in enumerate(chosen) if c not in exact)] = i
    ordered = best(chosen, limit)
    return [(i, scores[i]) for i in [i for i in ordered if i in exact] + [i for i in ordered if i not in exact]]


def _by_date(index: ArchiveIndex, query: str, chosen: Sequence[tuple[int, float]],
             found: Mapping[int, Found]) -> list[tuple[int, float]]:
    """A question asking for the first (last) time: the passages that answer its topic — the question without the
    words that ask when, within BAND of the best BM25 score — oldest (newest) first, then the rest as ranked. Any
    other question: as ranked."""
    oldest, newest = bool(_FIRST.search(query)), bool(_LAST.search(query))
    if oldest == newest:
        return list(chosen)
    topic = _LAST.sub(" ", _FIRST.sub(" ", query))
    scores, _ = _words(index, topic) if query_terms(topic) else ({}, set())
    best = max((scores.get(i, 0.0) for i, _ in chosen), default=0.0)
    if not best:
        return list(chosen)
    band = [(i, s) for i, s in chosen if scores.get(i, 0.0) >= BAND * best]
    band.sort(key=lambda pair: (found[pair[0]].date, found[pair[0]].at), reverse=newest)
    return band + [(i, s) for i, s in chosen if scores.get(i, 0.0) < BAND * best]

SECTION = "## From your notes"
SECTION_PASSAGES = 5  # looked at for `context`'s section; as many as fit its share of the budget are shown
SECTION_CHARS = 400  # of a passage in `context`'s section: the rest is a `recall --notes` away


def notes_section(folder: Path, config: Config, query: str, tokens: int) -> str | None:
    """`context --query`'s last section when no item answers the query: the best passages of the notes, one a line
    with its date and note, within `tokens` estimated tokens; None when the notes hold none (or no index yet)."""
    try:
        found = search(folder, config, query, SECTION_PASSAGES)
    except sqlite3.Error:
        return None  # `recall --notes` says what is wrong with the index
    lines = [SECTION]
    for passage in found.passages:
        text = " ".join(passage.text.split())
        text = text if len(text) <= SECTION_CHARS else text[:SECTION_CHARS - 1].rstrip() + "…"
        mark = passage.whose.mark()
        line = f"- {passage.date}, {passage.path}{f' ({mark})' if mark else ''}: {text}"
        if estimate_tokens("\n".join([*lines, line]) + "\n") > tokens:
            break
        lines.append(line)
    return "\n".join(lines) if len(lines) > 1 else None
