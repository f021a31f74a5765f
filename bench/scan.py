"""Benchmark the vault scan: a first run over a big vault, then an incremental run.

It generates a vault of 100,000 short notes over two years in a temporary folder
(`YYYY-MM-DD-slug.md` with frontmatter `created`; each file's and folder's mtime set
to when it was last written, as in a real vault written day by day), then times, in
process with the offline extractor,

    first        refresh on TODAY: no memory yet, so the 90-day window
    incremental  refresh on TODAY + 1, after 50 new notes dated that day

and prints both times, incremental/first, and how many notes each run opened
(a counter around FolderVault._read). Generation is not timed.
Targets: incremental <= 2 s and <= 10% of the first run, both from this one run.

The notes are kept in dated folders (`_shorts/YYYY/MM/`) by default; `--layout flat`
puts all 100,000 in `_shorts/` itself, `--layout both` runs one vault of each. They
differ in what an incremental run must look at: a dated folder whose mtime is older
than the window had no note created in it since, so its notes are passed over by name
alone; in one big folder, which changes every day, each note's mtime must be read (a
stat per note), which costs more than the 10% target — see `_Prefilter` in
pipeline/vault.py.

    .venv/bin/python bench/scan.py [--notes 100000] [--new 50] [--layout dated|flat|both] [--repeat 3] [--keep]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from hylo_memory.extractors.offline import OfflineExtractor
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.run.refresh import refresh
from hylo_memory.pipeline.run.summary import RunSummary
from hylo_memory.pipeline.vault import FolderVault

TODAY = dt.date(2026, 11, 30)
SPAN_DAYS = 730

_PLACES = ["Lisbon", "Porto", "Braga", "Faro", "Coimbra", "Sintra", "Madrid", "Berlin", "Lagos", "Accra"]
_TOOLS = ["Neovim", "Postgres", "Dagster", "Obsidian", "Python", "Rust", "Excel", "Linear", "Jira", "Figma"]
_NAMES = ["Ines", "Rui", "Joana", "Tomas", "Kwame", "Marta", "Ana", "Pedro", "Sofia", "Nuno"]
_RELATIONS = ["sister", "manager", "friend", "partner", "colleague", "mentor", "cousin", "neighbour"]
_THINGS = ["long walks", "grilled sardines", "quiet mornings", "modal jazz", "strong coffee", "sea swimming",
           "old bookshops", "board games", "rainy afternoons", "fresh bread", "night trains", "small teams"]
_GOALS = ["run a half marathon", "ship the migration", "learn Portuguese grammar properly", "read fifty books",
          "start a newsletter", "fix the garden shed", "record ten episodes", "visit Kyoto"]
_BELIEFS = ["boring technology is underrated", "most meetings should be emails", "small teams ship faster",
            "tests are specifications", "cities need more trees", "sleep matters more than caffeine"]
_MOODS = ["tired", "stressed about the deadline", "calm", "excited about the trip", "anxious", "restless"]
_NOISE = ["Groceries: eggs, rice, lemons.", "Standup moved to 10:30.", "Call the dentist on Tuesday.",
          "Train delayed again, twenty minutes.", "Backup finished without errors.", "Paid the electricity bill.",
          "Water the plants.", "The printer is out of toner.", "Lunch at the usual place.", "Rain all day."]


def _sentence(rng: random.Random) -> str:
    kind = rng.randrange(8)
    if kind == 0:
        return f"I live in {rng.choice(_PLACES)}."
    if kind == 1:
        return f"I {rng.choice(['love', 'enjoy', 'like'])} {rng.choice(_THINGS)}."
    if kind == 2:
        return f"I always use {rng.choice(_TOOLS)} for this."
    if kind == 3:
        return f"I want to {rng.choice(_GOALS)}."
    if kind == 4:
        return f"I believe {rng.choice(_BELIEFS)}."
    if kind == 5:
        return f"Coffee with my {rng.choice(_RELATIONS)} {rng.choice(_NAMES)}."
    if kind == 6:
        return f"I feel {rng.choice(_MOODS)}."
    return rng.choice(_NOISE)


def _note(rng: random.Random, date: dt.date, n: int) -> str:
    sentences = [rng.choice(_NOISE) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.4:  # most notes say nothing about their author
        sentences.insert(rng.randrange(len(sentences) + 1), _sentence(rng))
    return f"---\ncreated: {date.isoformat()}\ntags: [daily]\n---\nNote {n}. " + " ".join(sentences) + "\n"


def _noon(date: dt.date) -> float:
    return time.mktime(dt.datetime.combine(date, dt.time(12, 0)).timetuple())


def _folder(root: Path, date: dt.date, flat: bool) -> Path:
    return root / "_shorts" if flat else root / "_shorts" / f"{date:%Y}" / f"{date:%m}"


def _write(folder: Path, date: dt.date, n: int, text: str) -> None:
    """One note, its mtime noon of its day (it was last written then); fd calls, to generate fast."""
    fd = os.open(folder / f"{date.isoformat()}-note-{n:06d}.md", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, text.encode("utf-8"))
        os.utime(fd, (_noon(date), _noon(date)))
    finally:
        os.close(fd)


def generate(root: Path, notes: int, flat: bool, seed: int = 20261130) -> None:
    """`notes` short notes spread evenly over the SPAN_DAYS days up to TODAY."""
    rng = random.Random(seed)
    first = TODAY - dt.timedelta(days=SPAN_DAYS - 1)
    newest: dict[Path, dt.date] = {}
    for n in range(notes):
        date = first + dt.timedelta(days=n * SPAN_DAYS // notes)
        folder = _folder(root, date, flat)
        if folder not in newest:
            folder.mkdir(parents=True, exist_ok=True)
        newest[folder] = date
        _write(folder, date, n, _note(rng, date, n))
    # Each folder (and those above it) was last changed when its newest note was written.
    for folder, date in newest.items():
        for changed in {folder, folder.parent, root / "_shorts"}:
            os.utime(changed, (_noon(date), _noon(date)))


def add_new(root: Path, count: int, date: dt.date, flat: bool, seed: int = 7) -> None:
    rng = random.Random(seed)
    folder = _folder(root, date, flat)
    folder.mkdir(parents=True, exist_ok=True)  # a new month folder, or the flat one: its mtime is now
    for n in range(count):
        _write(folder, date, 900_000 + n, _note(rng, date, 900_000 + n))


class OpenCounter:
    """Counts the notes FolderVault opens (its `_read`), run by run."""

    def __init__(self) -> None:
        self.count = 0
        self._original = FolderVault._read

    def __enter__(self) -> OpenCounter:
        counter, original = self, self._original

        def counted(vault, path, rel, kind):  # noqa: ANN001, ANN202
            counter.count += 1
            return original(vault, path, rel, kind)

        FolderVault._read = counted  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        FolderVault._read = self._original  # type: ignore[method-assign]


def timed_run(root: Path, today: dt.date, memory_dir: str) -> tuple[float, int, RunSummary]:
    with OpenCounter() as opened:
        started = time.perf_counter()
        summary, _ = refresh(root, Config(extractor="offline", memory_dir=memory_dir), OfflineExtractor(), today)
        elapsed = time.perf_counter() - started
    return elapsed, opened.count, summary


def bench(notes: int, new: int, flat: bool, repeat: int, keep: bool) -> None:
    """One layout: generate; first runs; new notes; incremental runs; print the times and targets.

    Each repetition has its own memory folder (and ledger) in the same vault, so the
    first runs all start from nothing and the incremental runs all see the same new notes.
    The fastest of each is reported, as timings on a shared machine only ever err slow.
    """
    tmp = Path(tempfile.mkdtemp(prefix="hylo-bench-scan-"))
    root = tmp / "vault"
    layout = "_shorts/ (one folder)" if flat else "_shorts/YYYY/MM/"
    memories = [f"_memory{'' if r == 0 else r + 1}" for r in range(repeat)]
    try:
        started = time.perf_counter()
        generate(root, notes, flat)
        print(f"\n{notes:,} notes in {layout} over {SPAN_DAYS} days up to {TODAY}: "
              f"generated in {time.perf_counter() - started:.1f} s (not timed)")

        firsts = [timed_run(root, TODAY, m) for m in memories]
        first, first_opened, s1 = min(firsts, key=lambda r: r[0])
        print(f"  first run        {first:7.3f} s  {s1.mode}, {s1.window_days}-day window, "
              f"opened {first_opened:,} notes, extracted {s1.sources.shorts:,}, "
              f"+{s1.counts.added} ~{s1.counts.refreshed} >{s1.counts.faded} expired {s1.counts.expired}"
              f"   (fastest of {_times(firsts)})")

        tomorrow = TODAY + dt.timedelta(days=1)
        add_new(root, new, tomorrow, flat)
        incrementals = [timed_run(root, tomorrow, m) for m in memories]
        incremental, opened, s2 = min(incrementals, key=lambda r: r[0])
        print(f"  incremental run  {incremental:7.3f} s  {s2.mode}, {s2.window_days}-day window, {new} new notes, "
              f"opened {opened:,} of {notes + new:,} notes, extracted {s2.sources.shorts:,}, "
              f"already extracted {s2.already_extracted:,}   (fastest of {_times(incrementals)})")

        ratio = incremental / first
        fast, small = incremental <= 2, ratio <= 0.10
        print(f"  incremental/first = {ratio:.1%}  (target <= 10%: {'met' if small else 'MISSED'});  "
              f"incremental = {incremental:.3f} s  (target <= 2 s: {'met' if fast else 'MISSED'})")
    finally:
        if keep:
            print(f"  vault kept in {root}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def _times(runs: list[tuple[float, int, RunSummary]]) -> str:
    return ", ".join(f"{t:.3f}" for t, _, _ in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=100_000, help="short notes in the vault")
    parser.add_argument("--new", type=int, default=50, help="new notes before the incremental run")
    parser.add_argument("--layout", choices=["dated", "flat", "both"], default="dated",
                        help="notes in _shorts/YYYY/MM/ (dated, the default), all in _shorts/ (flat), "
                             "or a vault of each")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind per vault; the fastest is reported")
    parser.add_argument("--keep", action="store_true", help="keep the generated vaults and print their paths")
    args = parser.parse_args(argv)

    print(f"python {sys.version.split()[0]}, offline extractor, in process")
    layouts = {"dated": [False], "flat": [True], "both": [False, True]}[args.layout]
    for flat in layouts:
        bench(args.notes, args.new, flat, args.repeat, args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
