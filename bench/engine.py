"""Benchmark the memory engine end to end: parse, rules A–G, render and write.

For N = 1,000, 10,000 and 100,000 items (N in total, spread over the six memory
files; one in five a short fact of one to three words, the rest sentences) and N/10
evidence lines (a third exact restatements, a third near-duplicates of existing items,
a third new facts), it writes the files into a temporary vault, then times

    parse           MemoryStore.read_all()
    rules           plan_updates(...)
    render+write    MemoryStore.write(...) for every changed file

and prints items/second per N and t(100k)/t(10k) measured in this same run.
Targets: ratio <= 12 and 100k items + 10k evidence in < 3 s.

    .venv/bin/python bench/engine.py [--sizes 1000,10000,100000] [--per-file] [--repeat 3]

`--per-file` adds the heavier variant: 100,000 items in *each* of the six files
(600,000 items) with 10,000 evidence lines per file, clearly labelled.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import tempfile
import time
from pathlib import Path

from hylo_memory.decay import Dimension, Evidence, plan_updates
from hylo_memory.decay.files.format import render
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.domain.dimensions import ACTIVE, FADING
from hylo_memory.domain.items import Item, MemoryFile, RawLine, Section

TODAY = dt.date(2026, 11, 30)
THRESHOLD = 90.0

_CONSONANTS = "bcdfghjklmnprstvwz"
_VOWELS = "aeiou"
_OPENERS = [
    "Prefers", "Enjoys", "Works on", "Believes in", "Lives near", "Talks often with",
    "Dislikes", "Is learning", "Reads about", "Plans to visit", "Worries about", "Uses",
]


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        syllables = rng.randint(2, 4)
        words.add("".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(syllables)))
    return sorted(words)


def _fact(rng: random.Random, vocab: list[str]) -> str:
    """A fact: one in five short (one to three words, like "Vegetarian"), the rest a sentence."""
    if rng.random() < 0.2:
        return " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 3))).capitalize()
    words = " ".join(rng.choice(vocab) for _ in range(rng.randint(3, 6)))
    return f"{rng.choice(_OPENERS)} {words}"


def _typo(rng: random.Random, text: str) -> str:
    """A near-duplicate: a short fact in the plural, a sentence with one character changed."""
    if len(text.split()) <= 3:
        return text + "s"
    chars = list(text)
    positions = [i for i, c in enumerate(chars) if c.isalpha() and i > 8]
    i = rng.choice(positions)
    chars[i] = "x" if chars[i] != "x" else "y"
    return "".join(chars)


def build(n_items: int, n_evidence: int, seed: int, per_file: bool = False):
    """The memory files (n_items in total, or in each file with `per_file`) and the evidence."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng, 20_000)
    dimensions = list(Dimension)
    files: dict[Dimension, MemoryFile] = {}
    texts: dict[Dimension, list[str]] = {}
    seen_texts: set[str] = set()
    for k, dimension in enumerate(dimensions):
        count = n_items if per_file else n_items // 6 + (1 if k < n_items % 6 else 0)
        window = dimension.default_window
        active: list[Item] = []
        fading: list[Item] = []
        mine: list[str] = []
        while len(mine) < count:
            text = _fact(rng, vocab)
            if text.casefold() in seen_texts:
                continue
            seen_texts.add(text.casefold())
            mine.append(text)
            age = rng.randint(0, 3 * window)
            item = Item(text=text, last=TODAY - dt.timedelta(days=age), seen=rng.randint(1, 9),
                        pinned=rng.random() < 0.05)
            (active if age <= window or rng.random() < 0.5 else fading).append(item)
        files[dimension] = MemoryFile(
            dimension=dimension,
            decay_window=window,
            last_updated=TODAY - dt.timedelta(days=1),
            sections=[Section(heading=ACTIVE, entries=[*active, RawLine(text="")]),
                      Section(heading=FADING, entries=fading)],
        )
        texts[dimension] = mine
    evidence: list[Evidence] = []
    spread = [n_evidence // 6 + (1 if k < n_evidence % 6 else 0) for k in range(6)]
    per_dimension = [n_evidence] * 6 if per_file else spread
    for dimension, count in zip(dimensions, per_dimension, strict=True):
        for j in range(count):
            kind = j % 3
            if kind == 0:  # restates an existing item (case and punctuation differ)
                text = rng.choice(texts[dimension]).lower() + "."
            elif kind == 1:  # a near-duplicate of an existing item
                text = _typo(rng, rng.choice(texts[dimension]))
            else:  # a new fact
                text = _fact(rng, vocab)
            date = TODAY - dt.timedelta(days=rng.randint(0, 2))
            evidence.append(Evidence(dimension=dimension, text=text, source=f"note-{rng.randint(0, n_evidence)}",
                                     date=date))
    return files, evidence


def run_once(n_items: int, n_evidence: int, seed: int, per_file: bool = False) -> dict[str, float]:
    files, evidence = build(n_items, n_evidence, seed, per_file)
    with tempfile.TemporaryDirectory(prefix="hylo-bench-") as tmp:
        memory_dir = Path(tmp) / "_memory"
        memory_dir.mkdir()
        for memory in files.values():
            (memory_dir / memory.dimension.filename).write_text(render(memory), encoding="utf-8")
        store = MemoryStore(memory_dir)

        t0 = time.perf_counter()
        parsed = store.read_all()
        t1 = time.perf_counter()
        updates = plan_updates(parsed, evidence, TODAY, THRESHOLD)
        t2 = time.perf_counter()
        written = 0
        for update in updates:
            if update.write:
                store.write(update.after)
                written += 1
        t3 = time.perf_counter()

    changes = [u.changes for u in updates]
    return {
        "parse": t1 - t0,
        "rules": t2 - t1,
        "write": t3 - t2,
        "total": t3 - t0,
        "written": written,
        "added": sum(len(c.added) for c in changes),
        "refreshed": sum(len(c.refreshed) for c in changes),
        "faded": sum(len(c.faded) for c in changes),
        "deleted": sum(len(c.deleted) for c in changes),
        "merged": sum(len(c.merged) for c in changes),
    }


def measure(n_items: int, n_evidence: int, repeat: int, per_file: bool = False) -> dict[str, float]:
    """The fastest of `repeat` runs (each on freshly generated files)."""
    runs = [run_once(n_items, n_evidence, seed=1000 + r, per_file=per_file) for r in range(repeat)]
    return min(runs, key=lambda r: r["total"])


def _row(label: str, items: int, evidence: int, r: dict[str, float]) -> str:
    return (f"{label:<28} {items:>9,} {evidence:>8,} {r['parse']:>8.3f} {r['rules']:>8.3f} {r['write']:>8.3f} "
            f"{r['total']:>8.3f} {items / r['total']:>12,.0f}   "
            f"+{r['added']} ~{r['refreshed']} >{r['faded']} -{r['deleted']} ={r['merged']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated item counts")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per size (fresh files each); the fastest is reported")
    parser.add_argument("--per-file", action="store_true", help="also run 100,000 items in each of the six files")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]

    print(f"python {sys.version.split()[0]}, threshold {THRESHOLD}, today {TODAY}")
    print(f"{'case':<28} {'items':>9} {'evidence':>8} {'parse s':>8} {'rules s':>8} {'write s':>8} "
          f"{'total s':>8} {'items/s':>12}   changes (+added ~refreshed >faded -deleted =merged)")
    results: dict[int, dict[str, float]] = {}
    for n in sizes:
        results[n] = r = measure(n, n // 10, args.repeat)
        print(_row(f"N={n:,} over 6 files", n, n // 10, r))
    if 10_000 in results and 100_000 in results:
        ratio = results[100_000]["total"] / results[10_000]["total"]
        total = results[100_000]["total"]
        print(f"t(100k)/t(10k) = {ratio:.2f}  (target <= 12: {'met' if ratio <= 12 else 'MISSED'})")
        print(f"100k items + 10k evidence: {total:.3f} s  (target < 3 s: {'met' if total < 3 else 'MISSED'})")
    if args.per_file:
        r = measure(100_000, 10_000, 1, per_file=True)
        print(_row("6x100,000 (100k PER FILE)", 600_000, 60_000, r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
