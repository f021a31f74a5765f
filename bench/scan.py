"""Benchmark the vault scan: a first run over a big vault, then an incremental run; a markup-heavy vault's first run.

It generates a vault of 100,000 short notes over two years in a temporary folder
(`YYYY-MM-DD-slug.md` with frontmatter `created`; each file's and folder's mtime set
to when it was last written, as in a real vault written day by day), then times, in
process with the offline extractor,

    first        refresh on TODAY: no memory yet, so the 90-day window
    incremental  refresh on TODAY + 1, after 50 new notes dated that day

and prints both times, incremental/first, and how many notes each run opened
(a counter around FolderVault._read). Generation is not timed. `--workers 1` reads notes in the run's own
process only; by default a run past a quarter second of reading hands them to worker processes.
Targets: incremental <= 2 s and <= 10% of the first run, both from this one run.

The notes are kept in dated folders (`_shorts/YYYY/MM/`) by default; `--layout flat`
puts all 100,000 in `_shorts/` itself, `--layout both` runs one vault of each. They
differ in what an incremental run must look at: a dated folder whose mtime is older
than the window had no note created in it since, so its notes are passed over by name
alone; in one big folder, which changes every day, each note's mtime must be read (a
stat per note), which costs more than the 10% target — see `_Prefilter` in
pipeline/vaults/folder.py.

The second vault (`--vault markup`) is like the real Chinese vault of issue 17.6: 400 notes,
about 9 MB, of Obsidian markup — wiki links (aliased, to headings, embeds, in table cells),
callouts, tables, code blocks, tasks, `%%` comments, bold, tags, footnote marks, a link left
unclosed now and then, and one note of 400 KB of `[[` never closed. Its first run is timed,
and so is the part of it spent reading notes (inside FolderVault.sources: frontmatter, whose
words, the parse or plain-text reading, by worker processes past the first quarter second);
both are printed in MB/s of note bytes, against a target of 2 MB/s, with the notes read as
plain text (over note_text's parse budget).

    .venv/bin/python bench/scan.py [--vault shorts|markup|both] [--notes 100000] [--new 50]
                                   [--layout dated|flat|both] [--markup-notes 400] [--markup-mb 9] [--repeat 3] [--keep]
                                   [--workers N]
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

from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.cli.words import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.notes.reading import NoteReader
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.run.refresh import refresh
from hylo_memory.pipeline.run.summary import RunSummary
from hylo_memory.pipeline.vaults.folder import FolderVault

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


# ---- the markup-heavy vault: a Chinese Obsidian vault, as on the real trial ----

MARKUP_NOTES = 400
MARKUP_MB = 9.0

_ZH_TOPICS = ["项目管理", "系统设计", "读书笔记", "杭州", "数据库", "机器学习", "写作", "跑步", "咖啡", "日本旅行",
              "前端", "分布式系统", "心理学", "摄影", "围棋", "Rust", "Python", "产品思考", "时间管理", "家庭"]
_ZH_FILLER = ["这是关于{t}的一些想法，记录下来以后再整理。", "关于{t}，书里提到了几个有意思的观点。",
              "{t}的核心问题在于边界不清楚，需要进一步拆分。", "今天读到一篇讲{t}的文章，结构很清楚。",
              "和团队讨论了{t}的方案，大家意见不太一致。", "{t}这部分还没有想明白，先放在这里。",
              "参考资料里有一张图解释了{t}的流程。", "下周需要把{t}的文档补完整。"]
_ZH_OWN = ["我觉得{t}很重要。", "我想要学会{t}。", "我住在杭州。", "我喜欢早上喝咖啡。", "我的妹妹在上海工作。",
           "最近压力有点大。", "我相信小团队效率更高。", "我打算明年去日本旅行。"]
_EN_OWN = ["I live in Hangzhou.", "I love strong coffee.", "I want to run a half marathon.",
           "I believe small teams ship faster.", "Coffee with my sister Lin."]


def _zh_link(rng: random.Random) -> str:
    topic = rng.choice(_ZH_TOPICS)
    kind = rng.randrange(4)
    if kind == 0:
        return f"[[{topic}]]"
    if kind == 1:
        return f"[[笔记/{topic}|{topic}的笔记]]"
    if kind == 2:
        return f"[[{topic}#概述]]"
    return f"![[{topic}.png]]"


def _zh_sentence(rng: random.Random) -> str:
    """A sentence of a Chinese note: a wiki link in one of four, other markup in one of four."""
    topic = rng.choice(_ZH_TOPICS)
    if rng.random() < 0.08:
        return rng.choice(_ZH_OWN).format(t=topic)
    if rng.random() < 0.03:
        return rng.choice(_EN_OWN)
    text = rng.choice(_ZH_FILLER).format(t=_zh_link(rng) if rng.random() < 0.25 else topic)
    mark = rng.randrange(24)
    if mark == 0:
        text = f"**{text}**"
    elif mark == 1:
        text += f" `{topic.lower()}_config`"
    elif mark == 2:
        text += f" #{topic}"
    elif mark == 3:
        text = f"=={text}=="
    elif mark == 4:
        text += f" 见[官方文档](https://example.com/{rng.randrange(999)})。"
    elif mark == 5:
        text += "[^1]"
    return text


def _zh_paragraph(rng: random.Random) -> str:
    text = "".join(_zh_sentence(rng) for _ in range(rng.randint(3, 10)))
    if rng.random() < 0.04:  # a link left unclosed, as half-typed notes have
        text += f"还要看看[[{rng.choice(_ZH_TOPICS)}以及后面的内容"
    return text


def _zh_block(rng: random.Random) -> str:
    """One block of a note: mostly paragraphs, then headings, lists, callouts, tables, code and comments."""
    kind = rng.choices(range(8), weights=[55, 10, 10, 8, 5, 5, 4, 3])[0]
    topic = rng.choice(_ZH_TOPICS)
    if kind == 1:
        return f"## {topic} {rng.randrange(100)}"
    if kind == 2:
        items = [f"- [{rng.choice(' x ')}] {_zh_sentence(rng)}" for _ in range(rng.randint(2, 8))]
        items.insert(1, f"    - {_zh_sentence(rng)}")
        return "\n".join(items)
    if kind == 3:
        callout = rng.choice(["note", "tip", "warning", "quote", "info"])
        return "\n".join([f"> [!{callout}] {topic}"] + [f"> {_zh_paragraph(rng)}" for _ in range(rng.randint(1, 3))])
    if kind == 4:
        rows = [f"| {rng.choice(_ZH_TOPICS)} | {_zh_link(rng).replace('|', chr(92) + '|')} | {rng.randrange(1000)} |"
                for _ in range(rng.randint(3, 10))]
        return "\n".join(["| 名称 | 链接 | 数量 |", "| --- | --- | --- |", *rows])
    if kind == 5:
        body = [f"    step_{i} = compute('{topic}', {i})  # [[not a link" for i in range(rng.randint(3, 20))]
        return "\n".join([f"```{rng.choice(['python', 'mermaid', 'sql', ''])}", *body, "```"])
    if kind == 6:
        return "\n".join(f"{i}. {_zh_sentence(rng)}" for i in range(1, rng.randint(3, 6)))
    if kind == 7:
        return f"%% {topic}：待整理的草稿 %%"
    return _zh_paragraph(rng)


def _markup_note(rng: random.Random, size: int, date: dt.date) -> str:
    topic = rng.choice(_ZH_TOPICS)
    blocks = [f"---\ncreated: {date.isoformat()}\ntags: [{topic}, 笔记]\naliases: [\"{topic}笔记\"]\n---",
              f"# {topic}"]
    length = 0
    while length < size:
        block = _zh_block(rng)
        blocks.append(block)
        length += len(block.encode("utf-8")) + 2
    if rng.random() < 0.3:
        blocks.append("[^1]: 脚注：来自一本书。")
    return "\n\n".join(blocks) + "\n"


def _unclosed_links_note(size: int, date: dt.date) -> str:
    """The note of the real trial: hundreds of KB of `[[` never closed (a paste gone wrong)."""
    line = "[[未完成 [[链接 [[项目管理 [[系统设计\n"
    return f"---\ncreated: {date.isoformat()}\n---\n我喜欢整理笔记。\n\n" + line * (size // len(line.encode()))


def generate_markup(root: Path, notes: int, megabytes: float, seed: int = 398) -> int:
    """`notes` markup-heavy Chinese notes, `megabytes` in all, dated in the first run's window; their bytes."""
    rng = random.Random(seed)
    folder = root / "_shorts"
    folder.mkdir(parents=True, exist_ok=True)
    pathological = 400_000
    mean = max(1_000, int((megabytes * 1e6 - pathological) / max(1, notes - 1)))
    total = 0
    for n in range(notes):
        date = TODAY - dt.timedelta(days=n % 80)
        if n == notes // 2:
            text = _unclosed_links_note(pathological, date)
        else:
            # Sizes spread as a vault's are (a few long notes, many short), averaging `mean`.
            text = _markup_note(rng, min(int(rng.lognormvariate(0, 0.9) * mean * 0.69), 20 * mean), date)
        _write(folder, date, n, text)
        total += len(text.encode("utf-8"))
    return total


class OpenCounter:
    """Counts the notes FolderVault opens (its `_read`), run by run, and the time the run spends getting its
    sources from the vault (inside `FolderVault.sources`: opening, frontmatter, whose words, the parse)."""

    def __init__(self) -> None:
        self.count = 0
        self.reading = 0.0
        self.pooled = 0  # notes read by worker processes (pipeline/notes/reading.py)
        self._read, self._sources = FolderVault._read, FolderVault.sources

    def __enter__(self) -> OpenCounter:
        counter, read, sources = self, self._read, self._sources

        def counted(vault, path, rel, kind):  # noqa: ANN001, ANN202
            counter.count += 1
            return read(vault, path, rel, kind)

        def timed(vault, window):  # noqa: ANN001, ANN202
            reader = NoteReader() if WORKERS is None else NoteReader(workers=WORKERS)
            vault.note_reader = lambda: reader
            found = sources(vault, window)
            try:
                while True:
                    started = time.perf_counter()
                    try:
                        item = next(found)
                    except StopIteration:
                        return
                    finally:
                        counter.reading += time.perf_counter() - started
                    yield item
            finally:
                counter.pooled += reader.pooled

        FolderVault._read = counted  # type: ignore[method-assign]
        FolderVault.sources = timed  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        FolderVault._read, FolderVault.sources = self._read, self._sources  # type: ignore[method-assign]


def timed_run(root: Path, today: dt.date, memory_dir: str) -> tuple[float, int, RunSummary]:
    elapsed, opened, summary, _, _ = timed_reading(root, today, memory_dir)
    return elapsed, opened, summary


def timed_reading(root: Path, today: dt.date, memory_dir: str) -> tuple[float, int, RunSummary, float, int]:
    """A refresh's time, the notes it opened, its summary, the time it spent reading them, and how many of them
    worker processes read."""
    with OpenCounter() as opened:
        started = time.perf_counter()
        config = Config(extractor="offline", memory_dir=memory_dir)
        summary, _ = refresh(open_memory(root, config, NAMING), OfflineExtractor(), RunOptions(today))
        elapsed = time.perf_counter() - started
    return elapsed, opened.count, summary, opened.reading, opened.pooled


WORKERS: int | None = None  # --workers: the note reader's processes (None: as the product chooses)


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


def bench_markup(notes: int, megabytes: float, repeat: int, keep: bool) -> None:
    """The markup-heavy vault: generate; first runs; MB/s of the run and of its reading, against 2 MB/s.

    Reading is the time inside FolderVault.sources (bytes to Sources: frontmatter, whose words,
    the markdown parse or the plain-text reading, on worker processes past note_reading's
    START_SECONDS); the rest of the run is mostly the offline extractor's patterns over the text read.
    """
    tmp = Path(tempfile.mkdtemp(prefix="hylo-bench-markup-"))
    root = tmp / "vault"
    try:
        started = time.perf_counter()
        size = generate_markup(root, notes, megabytes)
        print(f"\n{notes:,} markup-heavy Chinese notes in _shorts/ (wiki links, callouts, tables, code, "
              f"some unclosed [[), {size / 1e6:.1f} MB: generated in {time.perf_counter() - started:.1f} s (not timed)")
        runs = [timed_reading(root, TODAY, f"_memory{'' if r == 0 else r + 1}") for r in range(repeat)]
        first, opened, summary, _, pooled = min(runs, key=lambda r: r[0])
        reading = min(r[3] for r in runs)
        plain = getattr(summary, "plain_text", None)  # None: a version that names no such notes
        print(f"  first run        {first:7.3f} s  opened {opened:,} notes, extracted {summary.sources.shorts:,}, "
              f"+{summary.counts.added} ~{summary.counts.refreshed}, {pooled:,} read by worker processes   "
              f"(fastest of {_times([r[:3] for r in runs])})")
        for what, seconds in (("reading notes", reading), ("whole first run", first)):
            rate = size / 1e6 / seconds
            print(f"  {what:16s} {seconds:7.3f} s  {rate:5.2f} MB/s  (target >= {TARGET_MB_S:g} MB/s: "
                  f"{'met' if rate >= TARGET_MB_S else 'MISSED'})")
        print(f"  read as plain text: {', '.join(plain) if plain else 'none' if plain is not None else 'n/a'}")
    finally:
        if keep:
            print(f"  vault kept in {root}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


TARGET_MB_S = 2.0


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
    parser.add_argument("--workers", type=int, help="processes reading notes (1: the run alone; default: as a run "
                                                    "chooses, pipeline/notes/reading.py)")
    parser.add_argument("--vault", choices=["shorts", "markup", "both"], default="both",
                        help="the vault of many short notes (shorts), the markup-heavy Chinese one (markup), or both")
    parser.add_argument("--markup-notes", type=int, default=MARKUP_NOTES, help="notes in the markup-heavy vault")
    parser.add_argument("--markup-mb", type=float, default=MARKUP_MB, help="megabytes of the markup-heavy vault")
    args = parser.parse_args(argv)

    print(f"python {sys.version.split()[0]}, offline extractor, in process")
    global WORKERS
    WORKERS = args.workers
    layouts = {"dated": [False], "flat": [True], "both": [False, True]}[args.layout]
    if args.vault in ("shorts", "both"):
        for flat in layouts:
            bench(args.notes, args.new, flat, args.repeat, args.keep)
    if args.vault in ("markup", "both"):
        bench_markup(args.markup_notes, args.markup_mb, args.repeat, args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
