"""Benchmark recall and context on a memory of 10,000 items, against a plain substring scan.

It writes N items (default 10,000; one in ten in Chinese, one in five Fading) over the six memory files
of a temporary vault, then measures, in process, the fastest of --repeat rounds of

    read          MemoryStore.read_all(): what every call starts with
    scan          a casefolded substring test of every item's text, per query: the floor to compare with
    index build   BM25 over every item (recall builds it each call)
    query         one query against a built index
    recall        recall(): read, build, rank, per query, as the command line runs it; and again
                  with the index kept from the call before (a server's next recall, the items unchanged)
    context       build_context() at the default budget, and with --query
    meaning       with the bundled embedding model (the default ranking): every item embedded once (timed once,
                  a first recall's or a refresh's work, spread over commands by their deadlines), then
                  recall and context --query per query with the vectors kept: the query's embedding, the
                  cache's read and the fusion (skipped with --no-meaning, or where the model is not installed)

and prints each with its ratio to the scan measured in this same run (and recall's and context's to
read + scan, the floor of a call that reads the files). Ratios, not targets: a shared machine only
ever errs slow, and the scan errs with it. Generation is not timed. The rows above "meaning" rank by BM25 alone.

    .venv/bin/python bench/recall.py [--items 10000] [--queries 20] [--repeat 3] [--no-meaning]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hylo_memory.decay import Dimension
from hylo_memory.decay.files.format import render
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.decay.recall.recall import BM25, Entry, rank
from hylo_memory.domain.dimensions import ACTIVE, FADING, clean_text
from hylo_memory.domain.items import Item, MemoryFile, RawLine, Section
from hylo_memory.extractors import bundled
from hylo_memory.pipeline.cli.words import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.operations.serving import recall as recall_module
from hylo_memory.pipeline.operations.serving.context import build_context
from hylo_memory.pipeline.operations.serving.meaning import warm
from hylo_memory.pipeline.operations.serving.recall import recall
from hylo_memory.pipeline.state.opened import Opened

TODAY = dt.date(2026, 11, 30)

_OPENERS = ["Prefers", "Enjoys", "Works on", "Believes in", "Lives near", "Talks often with", "Dislikes",
            "Is learning", "Reads about", "Plans to visit", "Worries about", "Uses", "Loves running with",
            "Cooks", "Writes about"]
_CJK_WORDS = "素食 咖啡 跑步 北京 工作 朋友 音乐 旅行 学习 压力 周末 书店 猫 茶".split()
_CJK_OPENERS = ["喜欢", "讨厌", "最近", "想去", "每天", "觉得", "是"]
_CONSONANTS = "bcdfghjklmnprstvwz"
_VOWELS = "aeiou"


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _fact(rng: random.Random, vocab: list[str]) -> str:
    if rng.random() < 0.1:
        return rng.choice(_CJK_OPENERS) + "".join(rng.choice(_CJK_WORDS) for _ in range(rng.randint(1, 4)))
    return f"{rng.choice(_OPENERS)} {' '.join(rng.choice(vocab) for _ in range(rng.randint(2, 6)))}"


def generate(memory_dir: Path, n_items: int, seed: int = 20261130) -> list[str]:
    """N items over the six files; returns the words queries are drawn from."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng, 3000)
    seen: set[str] = set()
    memory_dir.mkdir(parents=True)
    for k, dimension in enumerate(Dimension):
        count = n_items // 6 + (1 if k < n_items % 6 else 0)
        active: list[Item] = []
        fading: list[Item] = []
        while len(active) + len(fading) < count:
            text = _fact(rng, vocab)
            if text in seen:
                continue
            seen.add(text)
            item = Item(text=text, last=TODAY - dt.timedelta(days=rng.randint(0, dimension.default_window)),
                        seen=rng.randint(1, 9), pinned=rng.random() < 0.05)
            (fading if rng.random() < 0.2 else active).append(item)
        memory = MemoryFile(dimension=dimension, decay_window=dimension.default_window, last_updated=TODAY,
                            sections=[Section(heading=ACTIVE, entries=[*active, RawLine(text="")]),
                                      Section(heading=FADING, entries=fading)])
        (memory_dir / dimension.filename).write_text(render(memory), encoding="utf-8")
    return vocab


def queries(rng: random.Random, vocab: list[str], count: int) -> list[str]:
    """One word, two words, an inflected word, a Chinese word: in turn."""
    found = []
    for n in range(count):
        kind = n % 4
        if kind == 0:
            found.append(rng.choice(vocab))
        elif kind == 1:
            found.append(f"{rng.choice(vocab)} {rng.choice(vocab)}")
        elif kind == 2:
            found.append("running")
        else:
            found.append(rng.choice(_CJK_WORDS))
    return found


def opened(vault: Path, config: Config) -> Opened:
    return open_memory(vault, config, NAMING)


def best(repeat: int, work: Callable[[], object]) -> float:
    """The fastest of `repeat` timings of `work`."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def by_meaning(vault: Path, texts: list[str], asked: list[str], repeat: int) -> list[tuple[str, float, float | None]]:
    """The bundled model's rows: every item embedded once, then recall and context --query per query."""
    config = Config(memory_dir="_memory")
    started = time.perf_counter()
    warm(vault / "_memory", config, [clean_text(t) for t in texts], seconds=3600.0)
    t_embed = time.perf_counter() - started
    per = len(asked)
    t_recall = best(repeat, lambda: [recall(opened(vault, config), q, 10, TODAY) for q in asked]) / per
    assert recall(opened(vault, config), asked[0], 10, TODAY).fallback is None
    t_context = best(repeat, lambda: [build_context(opened(vault, config), TODAY, NAMING, query=q)
                                      for q in asked]) / per
    return [("meaning: embed every item", t_embed, None), ("meaning: recall", t_recall, None),
            ("meaning: context --query", t_context, None)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000, help="items over the six memory files")
    parser.add_argument("--queries", type=int, default=20, help="queries per round")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the fastest of each is reported")
    parser.add_argument("--no-meaning", action="store_true", help="leave out the bundled model's rows")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="hylo-bench-recall-") as tmp:
        vault = Path(tmp) / "vault"
        vocab = generate(vault / "_memory", args.items)
        asked = queries(random.Random(7), vocab, args.queries)
        config = Config(memory_dir="_memory", bundled_embeddings=False)
        store = MemoryStore(vault / "_memory")

        files = store.read_all()
        entries = [Entry(d, i, fading) for d, m in files.items() if m is not None
                   for fading, found in ((False, m.active), (True, m.fading)) for i in found]
        texts = [e.item.text for e in entries]
        folded = [t.casefold() for t in texts]
        index = BM25(texts)
        matched = statistics.mean(len(rank(entries, index, q, 10_000, TODAY)) for q in asked)

        def scan() -> None:
            for q in asked:
                needle = q.casefold()
                _ = [t for t in folded if needle in t]

        per = len(asked)
        t_read = best(args.repeat, store.read_all)
        t_scan = best(args.repeat, scan) / per
        t_build = best(args.repeat, lambda: BM25(texts))
        t_query = best(args.repeat, lambda: [rank(entries, index, q, 10, TODAY) for q in asked]) / per

        def cold() -> None:
            for q in asked:
                recall_module._last_index = None  # as a fresh command-line process: the index built again
                recall(opened(vault, config), q, 10, TODAY)

        t_recall = best(args.repeat, cold) / per
        t_warm = best(args.repeat, lambda: [recall(opened(vault, config), q, 10, TODAY) for q in asked]) / per
        t_context = best(args.repeat, lambda: build_context(opened(vault, config), TODAY, NAMING))
        t_context_q = best(args.repeat, lambda: build_context(opened(vault, config), TODAY, NAMING, query=asked[0]))
        meaning = [] if args.no_meaning or not bundled.installed() else by_meaning(vault, texts, asked, args.repeat)

    floor = t_read + t_scan
    print(f"python {sys.version.split()[0]}, {len(entries):,} items over 6 files, {per} queries "
          f"({matched:,.0f} items match one on average), fastest of {args.repeat}")
    print(f"{'':<24} {'ms':>9} {'x scan':>9} {'x read+scan':>12}")
    rows = [("scan (per query)", t_scan, None), ("read all files", t_read, None),
            ("index build", t_build, None), ("query, index built", t_query, None),
            ("recall (per query)", t_recall, floor), ("recall, index kept", t_warm, floor),
            ("context", t_context, floor),
            ("context --query", t_context_q, floor), *meaning]
    for label, seconds, base in rows:
        versus = f"{seconds / base:12.1f}" if base else f"{'':>12}"
        print(f"{label:<24} {seconds * 1000:9.2f} {seconds / t_scan:9.1f} {versus}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
