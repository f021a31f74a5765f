"""`hylo-memory recall QUERY`: the items that best answer a query (docs/spec.md §9).

BM25 over every item, Active and Fading; with `embedding_model` configured, fused with the items'
embeddings by reciprocal rank. An embedding endpoint that is slow, failing or hanging costs at most
`embedding_timeout` seconds, and the ranking then says it is BM25's alone, and why.
"""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
from array import array
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from hylo_memory.decay import Dimension
from hylo_memory.decay.model import clean_text
from hylo_memory.decay.recall import BM25, Entry, rank, similarities
from hylo_memory.errors import InputError

from .. import clock
from ..config import Config
from ..state.embedding_cache import EmbeddingCache
from ..state.writing import open_store, settle

MAX_QUERY_CHARS = 1000
MAX_LIMIT = 1000

log = logging.getLogger(__name__)


class Found(BaseModel):
    """One item recall ranked, with its scores."""

    rank: int
    dimension: Dimension
    text: str
    fading: bool
    pinned: bool
    seen: int
    last: dt.date | None
    score: float  # BM25's, or the fused score with embeddings
    bm25: float
    similarity: float | None = None  # the cosine with the query, with embeddings


class RecallResult(BaseModel):
    """The ranked items, and how they were ranked."""

    query: str
    limit: int
    ranking: Literal["bm25", "bm25+embeddings"]
    fallback: str | None = None  # why embeddings were configured but not used
    items: list[Found]
    refused: list[str] = []  # memory files that could not be read, one line each: their items are not searched

    def to_text(self) -> str:
        """One line an item, best first; a line saying the ranking fell back, when it did."""
        lines = []
        for found in self.items:
            marks = [found.dimension.value, *(["Fading"] if found.fading else []), f"seen {found.seen}",
                     *([f"last {found.last}"] if found.last else []), *(["pinned"] if found.pinned else [])]
            lines.append(f"{found.rank}. {found.text}  ({', '.join(marks)})")
        if not self.items:
            lines.append(f"No item matches {self.query!r}. {self.what_to_try()}")
        if self.fallback:
            lines.append(f"Ranked by BM25 alone: embeddings unavailable ({self.fallback}).")
        lines += [f"Not searched: {line}" for line in self.refused]
        return "\n".join(lines) + "\n"

    def what_to_try(self) -> str:
        """Recall matches words, not meanings: what to do when none of the query's words is in an item."""
        tries = ["other words, the ones the fact would use (\"vegetarian\" rather than \"diet\")",
                 "`hylo-memory context` for the whole memory"]
        if self.ranking == "bm25" and self.fallback is None:  # no embeddings configured: say they would help
            tries.append("an `embedding_model` setting to match by meaning")
        return f"Recall matches words, not meanings: try {', '.join(tries[:-1])}, or {tries[-1]}."

    def to_json(self) -> str:
        return self.model_dump_json()


def check_query(query: str) -> str:
    """The query as searched: one line, not blank, at most MAX_QUERY_CHARS characters (else a one-line error)."""
    cleaned = clean_text(query)
    if not cleaned:
        raise InputError("the query is blank: give the words to look for")
    if len(cleaned) > MAX_QUERY_CHARS:
        raise InputError(f"the query has {len(cleaned):,} characters; at most {MAX_QUERY_CHARS:,}")
    return cleaned


def recall(vault: Path, config: Config, query: str, limit: int = 10, today: dt.date | None = None) -> RecallResult:
    """The `limit` items that best answer `query`, read from the vault's memory files (nothing is written there)."""
    query = check_query(query)
    if not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"the limit must be 1 to {MAX_LIMIT:,}, not {limit:,}")
    day = today or clock.today(config.timezone)
    store = open_store(vault, config)
    settle(store, config.lock_timeout)
    files, refused = store.read_each()
    entries = [Entry(dimension, item, fading)
               for dimension, memory in files.items() if memory is not None
               for fading, items in ((False, memory.active), (True, memory.fading)) for item in items]
    texts = [clean_text(e.item.text) for e in entries]
    index = _index(texts)
    cosines, fallback = None, None
    if config.embedding_model and entries:
        cosines, fallback = _similarities(store.folder, config, query, texts)
    hits = rank(entries, index, query, limit, day, cosines)
    items = [Found(rank=n, dimension=entries[h.index].dimension, text=texts[h.index], fading=entries[h.index].fading,
                   pinned=entries[h.index].item.pinned, seen=entries[h.index].item.seen,
                   last=entries[h.index].item.last, score=round(h.score, 6), bm25=round(h.bm25, 6),
                   similarity=None if h.similarity is None else round(h.similarity, 6))
             for n, h in enumerate(hits, start=1)]
    return RecallResult(query=query, limit=limit, ranking="bm25" if cosines is None else "bm25+embeddings",
                        fallback=fallback, items=items, refused=[str(e) for e in refused])


_last_index: tuple[tuple[str, ...], BM25] | None = None


def _index(texts: list[str]) -> BM25:
    """The BM25 index of `texts`: the last one built when the texts are the same (a server's next recall)."""
    global _last_index
    key = tuple(texts)
    last = _last_index  # read once: another thread may replace it, never change it
    if last is not None and last[0] == key:
        return last[1]
    index = BM25(key)
    _last_index = (key, index)
    return index


def _similarities(memory_dir: Path, config: Config, query: str,
                  texts: list[str]) -> tuple[list[float] | None, str | None]:
    """Each text's cosine with the query, embedding only what the cache lacks; or None and why not."""
    from hylo_memory.extractors.embeddings import EmbeddingSettings, embed  # only with embeddings configured

    assert config.embedding_model is not None
    settings = EmbeddingSettings(model=config.embedding_model, api_key=config.api_key, base_url=config.base_url,
                                 timeout=config.embedding_timeout, batch=config.embedding_batch)
    cache = EmbeddingCache.for_memory_dir(memory_dir)
    try:
        kept = cache.get(settings.model, texts)
    except (sqlite3.Error, OSError) as exc:  # a damaged or unreadable cache costs embedding again, not the recall
        log.warning("%s: the embedding cache cannot be read (%s); embedding without it", cache.path, exc)
        kept = {}
    missing = [t for t in dict.fromkeys(texts) if t not in kept]
    # The query first, so a single request answers it when every item is cached; it is not kept.
    got = embed(settings, [query, *(t for t in missing if t != query)])
    fresh = {t: _single(v) for t, v in got.vectors.items()}
    new = {t: fresh[t] for t in missing if t in fresh}
    try:
        cache.put(settings.model, new, texts)  # even a call that falls back keeps what it got, for the next
    except (sqlite3.Error, OSError) as exc:
        log.warning("%s: the embedding cache cannot be written (%s)", cache.path, exc)
    if got.failure:
        left = sum(1 for t in missing if t not in new)
        progress = f"; {len(new):,} new item(s) embedded and kept, {left:,} to go next time" if new and left else ""
        return None, got.failure + progress
    vectors = kept | new
    if query not in fresh or any(t not in vectors for t in texts):
        return None, "the embedding server left texts without a vector"
    query_vector = fresh[query]
    stale = [t for t in texts if len(vectors[t]) != len(query_vector)]
    if stale:  # the model behind the name changed: embedded again next time
        try:
            cache.drop(settings.model, stale)
        except (sqlite3.Error, OSError) as exc:
            log.warning("%s: the embedding cache cannot be written (%s)", cache.path, exc)
        return None, "the kept vectors and the query's differ in length (has the model changed?)"
    return similarities(query_vector, [vectors[t] for t in texts]), None


def _single(vector: list[float]) -> list[float]:
    """A vector as the cache keeps it (32-bit floats), so a ranking is the same from fresh vectors and kept ones."""
    return array("f", vector).tolist()
