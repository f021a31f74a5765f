"""`hylo-memory recall QUERY`: the items that best answer a query (docs/spec.md §9).

BM25 over every item, Active and Fading, fused with the items' cosines with the query, from the bundled model or
a configured server (meaning.py). It embeds items for at most `interactive_embedding_seconds` (the MCP server: none,
it embeds after answering); an item not embedded yet is ranked by its words alone, and the answer says how many
wait. A query the server does not embed in `embedding_timeout` leaves the ranking BM25's alone, and it says why.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Literal, NamedTuple

from pydantic import BaseModel, Field

from hylo_memory.decay import Dimension, MemoryFile
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.decay.recall.recall import BM25, Entry, rank
from hylo_memory.domain.dimensions import clean_text
from hylo_memory.errors import InputError, MemoryFileError
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming
from hylo_memory.pipeline.operations.serving.answers import MAX_LIMIT as MAX_LIMIT
from hylo_memory.pipeline.operations.serving.answers import MAX_QUERY_CHARS as MAX_QUERY_CHARS
from hylo_memory.pipeline.operations.serving.answers import check_query as check_query
from hylo_memory.pipeline.operations.serving.answers import recall_text
from hylo_memory.pipeline.operations.serving.meaning import cosines
from hylo_memory.pipeline.state import read_memo
from hylo_memory.pipeline.state.writing import settle

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.opened import Opened


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
    model: str | None = None  # the embedding model that ranked by meaning
    fallback: str | None = None  # why embeddings were configured but not used
    waiting: int = 0  # items not embedded yet, ranked by their words alone (the index embeds them)
    items: list[Found]
    refused: list[str] = []  # memory files that could not be read, one line each: their items are not searched
    empty: bool = Field(default=False, exclude=True)  # no item kept yet, none unreadable: said, not in the JSON

    def to_text(self, naming: Naming) -> str:
        """One line an item, best first; a line saying the ranking fell back, when it did; what to try next in the
        words of the door's `naming` (the result's JSON names no step)."""
        return recall_text(self.items, self.query, self.ranking != "bm25", self.fallback, self.refused, naming,
                           self.waiting, self.empty)

    def to_json(self) -> str:
        return self.model_dump_json()


def recall(memory: Opened, query: str, limit: int = 10, today: dt.date | None = None,
           embed_seconds: float | None = None) -> RecallResult:
    """The `limit` items that best answer `query`, read from the vault's memory files (nothing is written there);
    items not embedded yet embedded for `embed_seconds` at most (default `interactive_embedding_seconds`)."""
    query = check_query(query)
    if not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"the limit must be 1 to {MAX_LIMIT:,}, not {limit:,}")
    config = memory.config
    day = today or clock.today(config.timezone)
    read = read_memory(memory)
    files, refused, store = read.files, read.refused, read.store
    entries = [Entry(dimension, item, fading)
               for dimension, memory in files.items() if memory is not None
               for fading, items in ((False, memory.active), (True, memory.fading)) for item in items]
    texts = [clean_text(e.item.text) for e in entries]
    index = _index(texts)
    seconds = config.interactive_embedding_seconds if embed_seconds is None else embed_seconds
    meaning = cosines(store.folder, config, query, texts, seconds)
    by_text = meaning.by_text
    hits = rank(entries, index, query, limit, day, None if by_text is None else [by_text.get(t) for t in texts],
                meaning.floor, meaning.answer_floor)
    items = [Found(rank=n, dimension=entries[h.at].dimension, text=texts[h.at], fading=entries[h.at].fading,
                   pinned=entries[h.at].item.pinned, seen=entries[h.at].item.seen,
                   last=entries[h.at].item.last, score=round(h.score, 6), bm25=round(h.bm25, 6),
                   similarity=None if h.similarity is None else round(h.similarity, 6))
             for n, h in enumerate(hits, start=1)]
    return RecallResult(query=query, limit=limit, ranking="bm25" if by_text is None else "bm25+embeddings",
                        model=meaning.model, fallback=meaning.fallback, waiting=meaning.waiting, items=items,
                        refused=[str(e) for e in refused], empty=not entries and not refused)


class Read(NamedTuple):
    """The memory as a reader found it: the store, each file (None: none yet, or refused), the refusals, and the
    person's name as `context` gives it."""

    store: MemoryStore
    files: dict[Dimension, MemoryFile | None]
    refused: list[MemoryFileError]
    name: str | None


def read_memory(memory: Opened) -> Read:
    """Every memory file that can be read, after any interrupted change is finished; kept in the read memo when
    none was refused, so the next `recall` or `context` can answer without parsing (quick.py)."""
    return read_store(memory.store, memory.config)


def read_store(store: MemoryStore, config: Config) -> Read:
    """`read_memory` of a store already opened."""
    from hylo_memory.pipeline.run.profile import build_profile, intro_from, kept_intro_bytes

    settle(store, config.lock_timeout)
    files, refused = store.read_each()
    intro = kept_intro_bytes(store)
    name = build_profile(files[Dimension.identity], None, intro_from(intro)).name
    if not refused:
        read_memo.keep(store.folder, {d: store.planned_from(d) for d in Dimension}, files, intro, name)
    return Read(store, files, refused, name)


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
