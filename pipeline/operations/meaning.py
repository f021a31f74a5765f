"""The cosines `recall` and `context --query` rank by (docs/spec.md §9.2): an embeddings server's when
`embedding_model` is set, else the bundled model's; each item's vector cached by model and text, so a memory is
embedded once. Either way one call spends at most `embedding_timeout` seconds embedding; short of that, BM25
alone, and why. No model library at import: the quick path (cli/quick.py) ranks with `bundled_cosines`.
"""

from __future__ import annotations

import logging
import sqlite3
from array import array
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeVar

from hylo_memory.decay.names import Dimension, Fact, clean_text
from hylo_memory.decay.recall import similarities
from hylo_memory.extractors import bundled
from hylo_memory.pipeline.state.embedding_cache import EmbeddingCache

if TYPE_CHECKING:
    from hylo_memory.pipeline.config import Config

log = logging.getLogger(__name__)
T = TypeVar("T")

WARM_SECONDS = 10.0  # what a command that has just written the memory spends embedding its new items for readers:
# a `remember` is waited for, so a large memory new to the model is embedded over several commands


class Items(Protocol):
    """A memory file as embedding reads it (`model.MemoryFile`, and the quick path's kept file)."""

    @property
    def active(self) -> Sequence[Fact]: ...

    @property
    def fading(self) -> Sequence[Fact]: ...


class Cosines(NamedTuple):
    """Each text's cosine with the query (None: BM25 alone), the model's floor of resemblance, why not, and which
    model ranked."""

    by_text: dict[str, float] | None
    floor: float = 0.0
    fallback: str | None = None
    model: str | None = None


def cosines(memory_dir: Path, config: Config, query: str, texts: Sequence[str]) -> Cosines:
    """What the configuration ranks `texts` by for `query`, besides BM25: nothing, a server's or the bundled
    model's cosines, or the reason it fell back to nothing."""
    if config.embedding_model is not None:
        return _served(memory_dir, config, query, texts)
    if not config.ranks_by_bundled_model() or not texts:
        return Cosines(None)
    try:
        found = bundled_cosines(memory_dir, query, texts, config.embedding_timeout)
    except bundled.LoadFailed as exc:
        return Cosines(None, fallback=str(exc))
    if isinstance(found, str):
        return Cosines(None, fallback=found)
    return Cosines(found, bundled.FLOOR, model=bundled.MODEL)


def bundled_cosines(memory_dir: Path, query: str, texts: Sequence[str],
                    seconds: float | None) -> dict[str, float] | str:
    """The bundled model's cosine of each text with `query`, embedding within `seconds` what the cache lacks
    (None: nothing, and a text not kept is a KeyError, for the quick path to decline); a line when time ran out."""
    key = bundled.cache_key()
    cache = EmbeddingCache.for_memory_dir(memory_dir)
    if seconds is None:
        rows, left = _kept_rows(cache, key, texts), 0
        if any(t not in rows for t in texts):
            raise KeyError("a text with no kept vector")
    else:
        rows, left = _embed_missing(cache, key, texts, seconds)
    if left:
        return f"the bundled model embedded new items for {seconds:g} s and kept them; {left:,} to go next time"
    vectors = bundled.cosines(bundled.embed_query(query), [rows[t] for t in texts])
    return dict(zip(texts, vectors, strict=True))


def warm(memory_dir: Path, config: Config, texts: Sequence[str], seconds: float = WARM_SECONDS) -> None:
    """Embed the items the cache lacks with the bundled model, so the next reader ranks at once (after a write)."""
    if not config.ranks_by_bundled_model() or not texts:
        return
    try:
        _embed_missing(EmbeddingCache.for_memory_dir(memory_dir), bundled.cache_key(), texts, seconds)
    except bundled.LoadFailed as exc:  # the reader says so, in its fallback line
        log.debug("the item vectors were not kept: %s", exc)


def close_items(memory_dir: Path, config: Config, texts: Sequence[str], floor: float,
                seconds: float = WARM_SECONDS) -> dict[tuple[int, int], float] | None:
    """The pairs of `texts` (i < j) whose cosine by the bundled model is at least `floor`: what a review asks about
    by meaning (docs/spec.md §3.1). None when the model does not rank here, or did not embed them all in time."""
    if not config.ranks_by_bundled_model() or len(texts) < 2:
        return None
    wanted = [clean_text(t) for t in texts]
    try:
        rows, left = _embed_missing(EmbeddingCache.for_memory_dir(memory_dir), bundled.cache_key(), wanted, seconds)
    except bundled.LoadFailed as exc:
        log.debug("the review finds pairs by their words alone: %s", exc)
        return None
    return None if left else bundled.close_pairs([rows[t] for t in wanted], floor)


def item_texts(files: Mapping[Dimension, Items | None]) -> list[str]:
    """Every item's text as ranked, Active then Fading, file by file: the texts recall and context embed."""
    return [clean_text(item.text) for memory in files.values() if memory is not None
            for items in (memory.active, memory.fading) for item in items]


def _embed_missing(cache: EmbeddingCache, key: str, texts: Sequence[str],
                   seconds: float) -> tuple[dict[str, bytes], int]:
    """Every kept vector of `texts`, with those the cache lacked embedded within `seconds` and kept; and how
    many are still missing."""
    rows = _kept_rows(cache, key, texts)
    missing = [t for t in dict.fromkeys(texts) if t not in rows]
    if not missing:
        return rows, 0
    got = bundled.embed_passages(missing, seconds)
    _keep(cache, key, got.vectors, texts)
    return rows | got.vectors, got.left


def _kept_rows(cache: EmbeddingCache, key: str, texts: Sequence[str]) -> dict[str, bytes]:
    return _quietly(cache, "read", lambda: cache.rows(key, texts), {})


def _keep(cache: EmbeddingCache, key: str, rows: dict[str, bytes], texts: Sequence[str]) -> None:
    _quietly(cache, "written", lambda: cache.put_rows(key, rows, texts), None)


def _quietly(cache: EmbeddingCache, done: str, call: Callable[[], T], otherwise: T) -> T:
    """`call`'s answer; a damaged or unreadable cache costs embedding again, never the recall: one warning."""
    try:
        return call()
    except (sqlite3.Error, OSError) as exc:
        log.warning("%s: the embedding cache cannot be %s (%s)", cache.path, done, exc)
        return otherwise


def _served(memory_dir: Path, config: Config, query: str, texts: Sequence[str]) -> Cosines:
    """Each text's cosine with the query from the configured server, embedding only what the cache lacks."""
    from hylo_memory.extractors.embeddings import EmbeddingSettings, embed  # only with embeddings configured

    assert config.embedding_model is not None
    if not texts:
        return Cosines(None)
    settings = EmbeddingSettings(model=config.embedding_model, api_key=config.api_key, base_url=config.base_url,
                                 timeout=config.embedding_timeout, batch=config.embedding_batch)
    cache = EmbeddingCache.for_memory_dir(memory_dir)
    kept: dict[str, list[float]] = _quietly(cache, "read", lambda: cache.get(settings.model, texts), {})
    missing = [t for t in dict.fromkeys(texts) if t not in kept]
    # The query first, so a single request answers it when every item is cached; it is not kept.
    got = embed(settings, [query, *(t for t in missing if t != query)])
    fresh = {t: _single(v) for t, v in got.vectors.items()}
    new = {t: fresh[t] for t in missing if t in fresh}
    # Even a call that falls back keeps what it got, for the next.
    _quietly(cache, "written", lambda: cache.put(settings.model, new, texts), None)
    if got.failure:
        left = sum(1 for t in missing if t not in new)
        progress = f"; {len(new):,} new item(s) embedded and kept, {left:,} to go next time" if new and left else ""
        return Cosines(None, fallback=got.failure + progress)
    vectors = kept | new
    if query not in fresh or any(t not in vectors for t in texts):
        return Cosines(None, fallback="the embedding server left texts without a vector")
    query_vector = fresh[query]
    stale = [t for t in texts if len(vectors[t]) != len(query_vector)]
    if stale:  # the model behind the name changed: embedded again next time
        _quietly(cache, "written", lambda: cache.drop(settings.model, stale), None)
        return Cosines(None, fallback="the kept vectors and the query's differ in length (has the model changed?)")
    found = similarities(query_vector, [vectors[t] for t in texts])
    return Cosines(dict(zip(texts, found, strict=True)), model=config.embedding_model)


def _single(vector: list[float]) -> list[float]:
    """A vector as the cache keeps it (32-bit floats), so a ranking is the same from fresh vectors and kept ones."""
    return array("f", vector).tolist()
