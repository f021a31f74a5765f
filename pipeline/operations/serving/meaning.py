"""The cosines `recall` and `context --query` rank by (docs/spec.md §9.2): an embeddings server's when
`embedding_model` is set, else the bundled model's; each item's vector cached by model and text, so a memory is
embedded once. A reader embeds for at most the seconds it is given (`interactive_embedding_seconds`; none on the
quick path and over MCP): the items still without a vector are ranked by their words alone meanwhile, and counted
(`waiting`), until `hylo-memory index`, a write or the MCP server's background embeds them (`fill`). No model
library at import: the quick path (cli/quick.py) ranks with `bundled_cosines`.
"""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
import time
from array import array
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeVar, runtime_checkable

from hylo_memory.decay.recall.recall import similarities
from hylo_memory.domain.dimensions import Dimension, Fact, clean_text
from hylo_memory.extractors import bundled
from hylo_memory.pipeline.state.embedding_cache import EmbeddingCache

if TYPE_CHECKING:
    from hylo_memory.extractors.embeddings import EmbeddingSettings
    from hylo_memory.pipeline.config import Config

log = logging.getLogger(__name__)
T = TypeVar("T")

WARM_SECONDS = 10.0  # what a command that has just written the memory spends embedding its new items for readers:
# a `remember` is waited for, so a large memory new to the model is embedded by `refresh` or `index`
KEEP_EVERY = 8  # batches embedded between two writes of the cache: a stop or a crash loses at most these
clock = time.monotonic  # what a deadline is measured by (a test's seam: each batch may be made to take a second)


class Items(Protocol):
    """A memory file as embedding reads it (`model.MemoryFile`, and the quick path's kept file)."""

    @property
    def active(self) -> Sequence[Fact]: ...

    @property
    def fading(self) -> Sequence[Fact]: ...


@runtime_checkable
class Progress(Protocol):
    """Told how a long embedding goes (`index`'s bar, a refresh's)."""

    def started(self, what: str, total: int) -> None: ...

    def advanced(self, count: int) -> None: ...


class Cosines(NamedTuple):
    """Each embedded text's cosine with the query (None: BM25 alone), the model's floor of resemblance, why not, which
    model ranked, and how many items have no vector yet: ranked by their words alone (not counted when the model or
    the server failed: `fallback` says why every item was)."""

    by_text: dict[str, float] | None
    floor: float = 0.0
    fallback: str | None = None
    model: str | None = None
    waiting: int = 0
    answer_floor: float = 0.0  # the cosine some item must reach to answer a question that shares no word with any


class Filled(NamedTuple):
    """What one filling of the cache did: texts embedded and kept, texts still without a vector, and why it stopped
    short when the model or the server failed."""

    embedded: int
    left: int
    failure: str | None = None


class _Served(NamedTuple):
    filled: Filled
    vectors: dict[str, list[float]]  # what was embedded, whether the cache could keep it or not


def cosines(memory_dir: Path, config: Config, query: str, texts: Sequence[str], seconds: float) -> Cosines:
    """What the configuration ranks `texts` by for `query`, besides BM25: nothing, a server's or the bundled
    model's cosines, or the reason it fell back to nothing; after embedding for at most `seconds` what the cache
    lacks (0: nothing)."""
    if config.embedding_model is not None:
        return _served(memory_dir, config, query, texts, seconds)
    if not config.ranks_by_bundled_model() or not texts:
        return Cosines(None)
    try:
        return bundled_cosines(memory_dir, query, texts, seconds)
    except bundled.LoadFailed as exc:
        return Cosines(None, fallback=str(exc))


def bundled_cosines(memory_dir: Path, query: str, texts: Sequence[str], seconds: float) -> Cosines:
    """The bundled model's cosine with `query` of each text whose vector is kept, after embedding for at most
    `seconds` (0: none) those the cache lacks. With no vector kept at all, BM25 alone, and the query is not embedded."""
    key = bundled.cache_key()
    cache = EmbeddingCache.for_memory_dir(memory_dir)
    rows = _kept_rows(cache, key, texts)
    if seconds > 0 and any(t not in rows for t in texts):
        rows |= _fill_bundled(cache, key, [t for t in dict.fromkeys(texts) if t not in rows], texts, seconds)
    waiting = sum(1 for t in texts if t not in rows)
    kept = [t for t in dict.fromkeys(texts) if t in rows]
    if not kept:
        return Cosines(None, waiting=waiting)
    found = bundled.cosines(bundled.embed_query(query), [rows[t] for t in kept])
    return Cosines(dict(zip(kept, found, strict=True)), bundled.FLOOR, model=bundled.MODEL, waiting=waiting,
                   answer_floor=bundled.ANSWER_FLOOR)


def warm(memory_dir: Path, config: Config, texts: Sequence[str], seconds: float | None = WARM_SECONDS,
         progress: Progress | None = None, stop: Callable[[], bool] | None = None,
         batch: int | None = None) -> Filled | None:
    """Embed the texts the cache lacks, within `seconds` (None: every one), so readers rank them by meaning at once;
    None when recall does not rank by meaning here. `stop`, asked between batches, ends it early; `batch`: texts a
    call to the bundled model (fewer hold it for less time)."""
    if config.embedding_model is not None:
        return _fill_served(memory_dir, config, texts, seconds, progress, stop).filled
    if not config.ranks_by_bundled_model():
        return None
    cache, key = EmbeddingCache.for_memory_dir(memory_dir), bundled.cache_key()
    rows = _kept_rows(cache, key, texts)
    missing = [t for t in dict.fromkeys(texts) if t not in rows]
    if progress is not None:
        progress.started("Embedding items for recall", len(missing))
    if not missing:
        return Filled(0, 0)
    try:
        got = _fill_bundled(cache, key, missing, texts, seconds, progress, stop, batch or bundled.BATCH)
    except bundled.LoadFailed as exc:  # the reader says so, in its fallback line
        return Filled(0, len(missing), str(exc))
    return Filled(len(got), len(missing) - len(got))


def close_items(memory_dir: Path, config: Config, texts: Sequence[str], floor: float,
                seconds: float = WARM_SECONDS) -> dict[tuple[int, int], float] | None:
    """The pairs of `texts` (i < j) whose cosine by the bundled model is at least `floor`: what a review asks about
    by meaning (docs/spec.md §3.1). None when the model does not rank here, or did not embed them all in time."""
    if not config.ranks_by_bundled_model() or len(texts) < 2:
        return None
    wanted = [clean_text(t) for t in texts]
    cache, key = EmbeddingCache.for_memory_dir(memory_dir), bundled.cache_key()
    rows = _kept_rows(cache, key, wanted)
    try:
        rows |= _fill_bundled(cache, key, [t for t in dict.fromkeys(wanted) if t not in rows], wanted, seconds)
    except bundled.LoadFailed as exc:
        log.debug("the review finds pairs by their words alone: %s", exc)
        return None
    return None if any(t not in rows for t in wanted) else bundled.close_pairs([rows[t] for t in wanted], floor)


def item_texts(files: Mapping[Dimension, Items | None], newest_first: bool = False) -> list[str]:
    """Every item's text as ranked, Active then Fading, file by file: the texts recall and context embed. With
    `newest_first`, the items last seen latest come first: what a write has just made is embedded first."""
    items = [item for memory in files.values() if memory is not None
             for kind in (memory.active, memory.fading) for item in kind]
    if newest_first:
        items.sort(key=lambda item: item.last or dt.date.min, reverse=True)
    return [clean_text(item.text) for item in items]


def _fill_bundled(cache: EmbeddingCache, key: str, missing: Sequence[str], current: Sequence[str],
                  seconds: float | None, progress: Progress | None = None, stop: Callable[[], bool] | None = None,
                  batch: int = bundled.BATCH) -> dict[str, bytes]:
    """The vectors of `missing` embedded a batch at a time while `seconds` last (None: to the end; always at least one
    batch) and `stop` does not say so, kept in the cache as they come (with `current`, the memory's texts)."""
    done: dict[str, bytes] = {}
    unkept: dict[str, bytes] = {}
    end = None if seconds is None else clock() + seconds
    try:
        for start in range(0, len(missing), batch):
            if (stop is not None and stop()) or (start and end is not None and clock() >= end):
                break
            got = bundled.passages(missing[start:start + batch])
            done |= got
            unkept |= got
            if progress is not None:
                progress.advanced(len(got))
            if len(unkept) >= KEEP_EVERY * bundled.BATCH:
                _keep(cache, key, unkept, current)
                unkept = {}
    finally:  # an interrupted fill keeps what it embedded
        _keep(cache, key, unkept, current)
    return done


def _kept_rows(cache: EmbeddingCache, key: str, texts: Sequence[str]) -> dict[str, bytes]:
    return _quietly(cache, "read", lambda: cache.rows(key, texts), {})


def _keep(cache: EmbeddingCache, key: str, rows: dict[str, bytes], texts: Sequence[str]) -> None:
    _quietly(cache, "written", lambda: cache.put_rows(key, rows, texts), None)


def _keep_vectors(cache: EmbeddingCache, model: str, vectors: dict[str, list[float]], texts: Sequence[str]) -> None:
    _quietly(cache, "written", lambda: cache.put(model, vectors, texts), None)


def _quietly(cache: EmbeddingCache, done: str, call: Callable[[], T], otherwise: T) -> T:
    """`call`'s answer; a damaged or unreadable cache costs embedding again, never the recall: one warning."""
    try:
        return call()
    except (sqlite3.Error, OSError) as exc:
        log.warning("%s: the embedding cache cannot be %s (%s)", cache.path, done, exc)
        return otherwise


def _settings(config: Config) -> EmbeddingSettings:
    from hylo_memory.extractors.embeddings import EmbeddingSettings  # only with embeddings configured

    assert config.embedding_model is not None
    return EmbeddingSettings(model=config.embedding_model, api_key=config.api_key, base_url=config.base_url,
                             timeout=config.embedding_timeout, batch=config.embedding_batch)


def _served(memory_dir: Path, config: Config, query: str, texts: Sequence[str], seconds: float) -> Cosines:
    """Each text's cosine with the query from the configured server, the query embedded first, then for at most
    `seconds` the texts the cache lacks."""
    from hylo_memory.extractors.embeddings import embed

    if not texts:
        return Cosines(None)
    settings = _settings(config)
    cache = EmbeddingCache.for_memory_dir(memory_dir)
    kept: dict[str, list[float]] = _quietly(cache, "read", lambda: cache.get(settings.model, texts), {})
    if not kept and seconds <= 0:  # nothing to rank by meaning: no request for the query
        return Cosines(None, waiting=len(texts))
    got = embed(settings, [query])  # not kept: a query is asked once
    if got.failure or query not in got.vectors:
        return Cosines(None, fallback=got.failure or "the embedding server left the query without a vector")
    if seconds > 0 and any(t not in kept for t in texts):
        kept |= _fill_served(memory_dir, config, texts, seconds).vectors
    waiting = sum(1 for t in texts if t not in kept)
    query_vector = _single(got.vectors[query])
    stale = [t for t in kept if len(kept[t]) != len(query_vector)]
    if stale:  # the model behind the name changed: embedded again next time
        _quietly(cache, "written", lambda: cache.drop(settings.model, stale), None)
        return Cosines(None, fallback="the kept vectors and the query's differ in length (has the model changed?)")
    if not kept:
        return Cosines(None, waiting=waiting)
    found = similarities(query_vector, list(kept.values()))
    return Cosines(dict(zip(kept, found, strict=True)), model=config.embedding_model, waiting=waiting)


def _fill_served(memory_dir: Path, config: Config, texts: Sequence[str], seconds: float | None,
                 progress: Progress | None = None, stop: Callable[[], bool] | None = None) -> _Served:
    """Embed through the server the texts the cache lacks: within `seconds`, or (None) a batch at a time, each
    within `embedding_timeout`, to the end; kept as they come. A failure stops it, and is said."""
    from hylo_memory.extractors.embeddings import embed

    settings = _settings(config)
    cache = EmbeddingCache.for_memory_dir(memory_dir)
    kept: dict[str, bytes] = _quietly(cache, "read", lambda: cache.rows(settings.model, texts), {})
    missing = [t for t in dict.fromkeys(texts) if t not in kept]
    if progress is not None:
        progress.started("Embedding items for recall", len(missing))
    vectors: dict[str, list[float]] = {}
    failure = None
    step = len(missing) if seconds is not None else settings.batch
    for start in range(0, len(missing), max(step, 1)):
        if stop is not None and stop():
            break
        got = embed(settings, missing[start:start + step], seconds)
        new = {t: _single(v) for t, v in got.vectors.items()}
        _keep_vectors(cache, settings.model, new, texts)  # what came before a failure too
        vectors |= new
        if progress is not None:
            progress.advanced(len(new))
        if got.failure:
            failure = got.failure
            break
    return _Served(Filled(len(vectors), len(missing) - len(vectors), failure), vectors)


def _single(vector: list[float]) -> list[float]:
    """A vector as the cache keeps it (32-bit floats), so a ranking is the same from fresh vectors and kept ones."""
    return array("f", vector).tolist()
