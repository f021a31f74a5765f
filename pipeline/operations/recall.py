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
from typing import Literal, NamedTuple

from pydantic import BaseModel

from hylo_memory.decay import Dimension, MemoryFile
from hylo_memory.decay.model import clean_text
from hylo_memory.decay.recall import BM25, Entry, rank, similarities
from hylo_memory.decay.store import MemoryStore
from hylo_memory.errors import HyloMemoryError, InputError, MemoryFileError
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.answers import MAX_LIMIT as MAX_LIMIT
from hylo_memory.pipeline.operations.answers import MAX_QUERY_CHARS as MAX_QUERY_CHARS
from hylo_memory.pipeline.operations.answers import check_query as check_query
from hylo_memory.pipeline.operations.answers import recall_text
from hylo_memory.pipeline.state import read_memo
from hylo_memory.pipeline.state.embedding_cache import EmbeddingCache
from hylo_memory.pipeline.state.names import journal_path
from hylo_memory.pipeline.state.writing import open_store, settle

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
        return recall_text(self.items, self.query, self.ranking != "bm25", self.fallback, self.refused)

    def to_json(self) -> str:
        return self.model_dump_json()


def recall(vault: Path, config: Config, query: str, limit: int = 10, today: dt.date | None = None) -> RecallResult:
    """The `limit` items that best answer `query`, read from the vault's memory files (nothing is written there)."""
    query = check_query(query)
    if not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"the limit must be 1 to {MAX_LIMIT:,}, not {limit:,}")
    day = today or clock.today(config.timezone)
    read = read_memory(vault, config)
    files, refused, store = read.files, read.refused, read.store
    entries = [Entry(dimension, item, fading)
               for dimension, memory in files.items() if memory is not None
               for fading, items in ((False, memory.active), (True, memory.fading)) for item in items]
    texts = [clean_text(e.item.text) for e in entries]
    index = _index(texts)
    cosines, fallback = None, None
    if config.embedding_model and entries:
        cosines, fallback = _similarities(store.folder, config, query, texts)
    hits = rank(entries, index, query, limit, day, cosines)
    items = [Found(rank=n, dimension=entries[h.at].dimension, text=texts[h.at], fading=entries[h.at].fading,
                   pinned=entries[h.at].item.pinned, seen=entries[h.at].item.seen,
                   last=entries[h.at].item.last, score=round(h.score, 6), bm25=round(h.bm25, 6),
                   similarity=None if h.similarity is None else round(h.similarity, 6))
             for n, h in enumerate(hits, start=1)]
    return RecallResult(query=query, limit=limit, ranking="bm25" if cosines is None else "bm25+embeddings",
                        fallback=fallback, items=items, refused=[str(e) for e in refused])


class Read(NamedTuple):
    """The memory as a reader found it: the store, each file (None: none yet, or refused), the refusals, and the
    person's name as `context` gives it."""

    store: MemoryStore
    files: dict[Dimension, MemoryFile | None]
    refused: list[MemoryFileError]
    name: str | None


def read_memory(vault: Path, config: Config) -> Read:
    """Every memory file that can be read, after any interrupted change is finished; kept in the read memo when
    none was refused, so the next `recall` or `context` can answer without parsing (quick.py)."""
    from hylo_memory.pipeline.run.profile import build_profile, intro_from, kept_intro_bytes

    store = open_store(vault, config)
    settle(store, config.lock_timeout)
    files, refused = store.read_each()
    intro = kept_intro_bytes(store)
    name = build_profile(files[Dimension.identity], None, intro_from(intro)).name
    if not refused:
        read_memo.keep(store.folder, {d: store.planned_from(d) for d in Dimension}, files, intro, name)
    return Read(store, files, refused, name)


def keep_for_readers(vault: Path, config: Config) -> None:
    """After a command has written the memory: read it as a reader would (~12 ms for 1,000 items), so the next
    shell `recall` or `context`, a hook that runs before every prompt, answers from the read memo at once."""
    try:
        if journal_path(open_store(vault, config)).exists():
            return  # another command is writing: no waiting for it here, after this one's change is made
        read_memory(vault, config)
    except (HyloMemoryError, OSError):  # the next reader meets it and says what is wrong; the change stands
        log.debug("the read memo was not kept after a change", exc_info=True)


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
