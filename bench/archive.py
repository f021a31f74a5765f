"""Benchmark the notes as the archive (docs/spec.md §9.7): indexing a vault of 10,000 notes of 2 KB, and searching it.

It writes N notes (default 10,000 of ~2,000 bytes: paragraphs of Zipf-distributed words, one note in ten in
Chinese, one in five with markup — a heading, a list, links — dated over five years) into a temporary vault,
then measures, once each (a first index is done once):

    words       the index built from nothing by words alone: every note listed, read as text, cut into
                passages, its postings written (what `index` does before embedding)
    embedding   the bundled model embedding the passages, for at most --embed-seconds (default: every one),
                with the rate and the time every passage takes at it (skipped with --no-meaning, or where the
                model is not installed)
    refresh     a refresh's update after 1 % of the notes were edited, 1 % added and 1 % removed
    query       `recall --notes` per query, by words alone and with the vectors: the median and the slowest
                of --queries. When --embed-seconds left passages without a vector, each is given a copy of
                an embedded one's first, for this timing only (a search's work does not depend on the values)

Targets, on 2 cores (docs/spec.md §9.7): indexing 10,000 notes of 2 KB in at most 10 minutes; a query over them
in at most 0.5 s. Generation is not timed.

    .venv/bin/python bench/archive.py [--notes 10000] [--queries 20] [--embed-seconds S] [--no-meaning]
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from hylo_memory.extractors import bundled
from hylo_memory.pipeline.cli.words import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.operations.serving.archive import index_notes
from hylo_memory.pipeline.operations.serving.archive_search import recall_notes
from hylo_memory.pipeline.state import archive_matrix
from hylo_memory.pipeline.state.archive import ArchiveIndex, archive_path

_CONSONANTS = "bcdfghjklmnprstvwz"
_VOWELS = "aeiou"
_COMMON = ("the a and to of in I it was with for on my we at that this but so had went after day today "
           "about from were our then she he they some more time work friends home really good new").split()
_CJK = "今天 朋友 咖啡 跑步 工作 周末 书店 音乐 旅行 学习 压力 爬山 电影 晚饭 天气 公园".split()
FIRST_DAY = dt.date(2021, 1, 1)
T = TypeVar("T")


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(rng.randint(2, 4))))
    return [*_COMMON, *sorted(words)]


class Writer:
    """Notes of about `size` bytes from a Zipf-distributed vocabulary."""

    def __init__(self, seed: int, size: int):
        self.rng = random.Random(seed)
        self.vocab = _vocabulary(self.rng, 8000)
        self.weights = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(self.vocab))))
        self.size = size

    def sentence(self) -> str:
        words = self.rng.choices(self.vocab, cum_weights=self.weights, k=self.rng.randint(6, 18))
        return " ".join(words).capitalize() + "."

    def note(self) -> str:
        if self.rng.random() < 0.1:
            return "".join(self.rng.choice(_CJK) + ("。" if self.rng.random() < 0.2 else "")
                           for _ in range(self.size // 7))
        paragraphs: list[str] = []
        while sum(len(p) + 2 for p in paragraphs) < self.size:
            paragraphs.append(" ".join(self.sentence() for _ in range(self.rng.randint(2, 6))))
        text = "\n\n".join(paragraphs)[:self.size]
        if self.rng.random() < 0.2:  # markup for the parser: a heading, a list, links
            word = self.rng.choice(self.vocab[40:400])
            text = f"# {word.title()}\n\n- [[{word}]] and [a link](https://example.com/{word})\n- **{word}**\n\n{text}"
        return text


def generate(root: Path, count: int, size: int, seed: int = 20261201) -> Writer:
    """`count` notes under `_shorts/`, dated over five years; the writer, to write more alike."""
    writer = Writer(seed, size)
    for n in range(count):
        day = FIRST_DAY + dt.timedelta(days=n * 5 * 365 // max(count, 1))
        path = root / "_shorts" / f"{day.isoformat()}-{n:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(writer.note() + "\n", encoding="utf-8")
    return writer


def queries(writer: Writer, count: int) -> list[str]:
    rng = random.Random(7)
    asked = [" ".join(rng.sample(writer.vocab[60:3000], rng.randint(1, 3))) for _ in range(count - 3)]
    return [*asked, "when did I first go to the bookshop with friends?", "周末 爬山", "what did we do after work"]


def _timed(call: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    found = call()
    return found, time.perf_counter() - start


def _churn(root: Path, writer: Writer, share: float) -> int:
    """Edit, add and remove `share` of the notes each: what a refresh's update then finds."""
    notes = sorted((root / "_shorts").glob("*.md"))
    step = max(1, round(1 / share))
    for n, path in enumerate(notes[::step]):
        path.write_text(writer.note() + "\n", encoding="utf-8")
        (root / "_shorts" / f"2026-11-{1 + n % 28:02d}-new{n:05d}.md").write_text(writer.note() + "\n",
                                                                                  encoding="utf-8")
    for path in notes[step // 2::step]:
        path.unlink()
    return len(notes[::step])


def _copy_vectors(memory: Path) -> int:
    """Give each passage with no vector a copy of an embedded one's (for timing a search only), kept as an update
    keeps vectors, the matrix too; how many."""
    model = bundled.cache_key()
    with ArchiveIndex.writing(memory) as index:
        kept = [row for (row,) in index.db.execute("SELECT vector FROM vectors LIMIT 1000")]
        missing = index.unembedded(model, 10_000_000)
        if not kept or not missing:
            return 0
        index.keep_vectors(model, {digest: kept[n % len(kept)] for n, (digest, _) in enumerate(missing)})
        archive_matrix.keep(index, memory, model)
    return len(missing)


def _query_times(vault: Path, config: Config, asked: list[str]) -> tuple[float, float, str]:
    times = []
    ranking = ""
    for query in asked:
        with open_memory(vault, config, NAMING) as memory:  # each query as a command asks it: the memory opened for it
            found, seconds = _timed(lambda q=query, m=memory: recall_notes(m, q, NAMING, 10))
        times.append(seconds)
        ranking = found.ranking
    return statistics.median(times), max(times), ranking


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--note-bytes", type=int, default=2_000)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--embed-seconds", type=float, default=math.inf)
    parser.add_argument("--no-meaning", action="store_true")
    args = parser.parse_args()
    meaning = not args.no_meaning and bundled.installed()
    print(f"{os.cpu_count()} cores; {args.notes:,} notes of ~{args.note_bytes:,} bytes")
    with tempfile.TemporaryDirectory(prefix="hylo-archive-bench-") as folder:
        vault = Path(folder) / "vault"
        writer = generate(vault, args.notes, args.note_bytes)
        words_only = Config(vault=str(vault), bundled_embeddings=False)
        done, seconds = _timed(lambda: index_notes(open_memory(vault, words_only, NAMING), None, 0))
        print(f"words       {seconds:8.1f} s   {done.notes:,} notes, {done.passages:,} passages")
        total = seconds
        if meaning:
            with_model = Config(vault=str(vault))
            opened = open_memory(vault, with_model, NAMING)
            done, seconds = _timed(lambda: index_notes(opened, None, args.embed_seconds))
            embedded, left = done.embedded, done.unembedded
            rate = embedded / seconds if seconds else 0.0
            every = (embedded + left) / rate if rate else math.inf
            total += seconds if not left else every
            print(f"embedding   {seconds:8.1f} s   {embedded:,} passages ({rate:.1f}/s), {left:,} left; "
                  f"every passage: {every / 60:.1f} min")
        print(f"index       {total / 60:8.1f} min (words{' and every vector' if meaning else ''}; target 10 min)")
        asked = queries(writer, args.queries)
        median, slowest, _ = _query_times(vault, words_only, asked)
        print(f"query       {median:8.3f} s median, {slowest:.3f} s slowest: words alone (target 0.5 s)")
        if meaning:
            copied = _copy_vectors(vault / "_memory")
            median, slowest, ranking = _query_times(vault, Config(vault=str(vault)), asked)
            print(f"query       {median:8.3f} s median, {slowest:.3f} s slowest: {ranking}, every passage with a "
                  f"vector{f' ({copied:,} copied for the timing)' if copied else ''} (target 0.5 s)")
        size = sum(p.stat().st_size for p in archive_path(vault / "_memory").parent.glob("archive*"))
        print(f"index files {size / 1e6:8.1f} MB (the index and its matrix of vectors, every passage with one)")
        churned = _churn(vault, writer, 0.01)
        configured = Config(vault=str(vault), bundled_embeddings=meaning)
        done, seconds = _timed(lambda: index_notes(open_memory(vault, configured, NAMING), 2_000, 30.0))
        print(f"refresh     {seconds:8.1f} s   {churned:,} edited, {churned:,} added, "
              f"{done.dropped:,} removed: {done.read:,} read, {done.embedded:,} embedded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
