"""Benchmark how fast the command line starts: the edges a person or an assistant waits on.

It writes a memory of N items (default 1,000; one in five Fading, a few pinned) as the six memory
files of a temporary vault, in the documented format, then runs each of these as a real process,
--repeat rounds (default 5; one of each per round, so a busy moment slows them all), and reports
the median of each with its ratio to the floor measured in this same run:

    python -c pass          the floor of any command
    floors                  `import click` (of any command line), and click with one pydantic model built (of any
                            command that reads a file or the configuration into models): no target, they say
                            how much of each ratio is the libraries'
    --version, --help       target <= 2x bare Python (--help shown, no target)
    recall, context         on the N items: target <= 4x bare Python (answered by the quick path, from the
                            memos the first run kept: docs/spec.md §9.4); recall by BM25 alone
                            (bundled_embeddings = false) and context with no query load no model
    recall, by meaning      recall as it runs by default, with the bundled embedding model: numpy, the model's
                            load and the query's embedding included, the items' vectors kept by earlier runs:
                            target <= 8x bare Python
    recall, memory changed  the first recall after an edit, which parses the files and keeps the memo: no target
    mcp first recall        `hylo-memory mcp` spawned, initialized and its first `recall` answered, through
                            the SDK's own client: target <= 1.3x `python -c 'import mcp.server.lowlevel'`
    by hand                 the same N items in a second vault that no command wrote (kept by hand, or by another
                            tool), none of them embedded: `recall` called again and again, target <= 8x bare Python
                            on its slowest call (the first, which parses the files, untimed as above); and the MCP
                            server's first recall on it, the vectors removed before each spawn, target <= 1.5x
                            `import mcp.server.lowlevel` on its slowest

Ratios, not seconds: a shared machine only ever errs slow, and the floor errs with it.
No LLM, no embeddings server (the offline extractor, no user config).

    .venv/bin/python bench/startup.py [--items 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import TextContent

from hylo_memory.pipeline.state.embedding_cache import EmbeddingCache
from hylo_memory.pipeline.state.read_memo import memo_path

TODAY = "2026-11-30"
PYTHON = sys.executable
HYLO = str(Path(sys.executable).parent / "hylo-memory")
QUERY = "running"
PYDANTIC_FLOOR = "import click\nfrom pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 0\nM()"
# Rows whose target holds for every call, so for their slowest run, not their median.
EVERY_CALL = {"recall, by hand", "mcp 1st recall, by hand"}

# (file, decay_window): the six memory files, as docs/spec.md §2 names them.
FILES = [("_identity.md", "365d"), ("_preferences.md", "90d"), ("_goals.md", "30d"),
         ("_beliefs.md", "90d"), ("_people.md", "90d"), ("_state.md", "7d")]
_OPENERS = ["Prefers", "Enjoys", "Works on", "Believes in", "Lives near", "Talks often with", "Dislikes",
            "Is learning", "Reads about", "Plans to visit", "Loves running with", "Cooks"]
_CONSONANTS = "bcdfghjklmnprstvwz"
_VOWELS = "aeiou"


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(rng.randint(2, 4)))


def _bullet(rng: random.Random, seen: set[str]) -> str:
    """One item line: a fact no other item has, and its `last:… seen:…` span."""
    text = ""
    while not text or text in seen:
        text = f"{rng.choice(_OPENERS)} {' '.join(_word(rng) for _ in range(rng.randint(2, 6)))}"
    seen.add(text)
    span = f"last:2026-{rng.randint(9, 11):02d}-{rng.randint(1, 28):02d} seen:{rng.randint(1, 9)}"
    return f"- {text} `{span}{' pinned' if rng.random() < 0.05 else ''}`"


def write_memory(memory_dir: Path, n_items: int, seed: int = 20261130) -> None:
    """N items over the six files, written as a person or the pipeline would leave them."""
    rng = random.Random(seed)
    seen: set[str] = set()
    memory_dir.mkdir(parents=True)
    for k, (name, window) in enumerate(FILES):
        lines = [_bullet(rng, seen) for _ in range(n_items // 6 + (1 if k < n_items % 6 else 0))]
        fading = len(lines) // 5
        text = (f"---\ndecay_window: {window}\nlast_updated: {TODAY}\n---\n## Active\n"
                + "".join(f"{line}\n" for line in lines[fading:])
                + "\n## Fading\n" + "".join(f"{line}\n" for line in lines[:fading]))
        (memory_dir / name).write_text(text, encoding="utf-8")


def environment(home: Path) -> dict[str, str]:
    """No user config, no API key, the offline extractor: only startup is measured.

    Bytecode may be written: an installed command has its modules compiled (pip compiles them), and a
    shell that forbids it would time the compiler instead of the command."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HYLO_MEMORY_", "OPENAI_")) and k not in ("PYTHONWARNINGS", "PYTHONDONTWRITEBYTECODE")}
    home.mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), HYLO_MEMORY_EXTRACTOR="offline")
    return env


def process(argv: list[str], env: dict[str, str], prints: bool = True,
            before: Callable[[], None] | None = None) -> Callable[[], float]:
    """A timed run of `argv`, which must exit 0 and print (a failing command is not a fast one); `before` is
    done first, untimed."""
    def run() -> float:
        if before is not None:
            before()
        started = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
        seconds = time.perf_counter() - started
        if done.returncode != 0 or (prints and not done.stdout.strip()):
            raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
        return seconds
    return run


def mcp_recall(vault: Path, env: dict[str, str], before: Callable[[], None] | None = None) -> Callable[[], float]:
    """A timed spawn of the server, its initialize and its first recall answered; its shutdown is not timed, nor
    `before`, done first."""
    params = StdioServerParameters(command=HYLO, args=["mcp", "--vault", str(vault), "--today", TODAY], env=env)

    async def session(marks: list[float]) -> None:
        with open(os.devnull, "w", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    answer = await client.call_tool("recall", {"query": QUERY})
                    marks.append(time.perf_counter())
        if answer.is_error or not any(isinstance(b, TextContent) and b.text for b in answer.content):
            raise SystemExit(f"mcp recall failed: {answer.content}")

    def run() -> float:
        if before is not None:
            before()
        marks: list[float] = [time.perf_counter()]
        anyio.run(session, marks)
        return marks[1] - marks[0]
    return run


def embed_every_item(vault: Path, env: dict[str, str]) -> None:
    """Every item's vector kept, as `hylo-memory index` keeps them (a recall embeds for a fraction of a second)."""
    subprocess.run([HYLO, "index", "--vault", str(vault), "--quiet"], env=env, capture_output=True, text=True,
                   timeout=3600, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000, help="items over the six memory files")
    parser.add_argument("--repeat", type=int, default=5, help="rounds; the median of each is reported")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="hylo-bench-startup-") as tmp:
        vault, by_hand, by_hand_mcp = (Path(tmp) / name for name in ("vault", "by-hand", "by-hand-mcp"))
        for folder in (vault, by_hand, by_hand_mcp):
            write_memory(folder / "_memory", args.items)
        unembedded = EmbeddingCache.for_memory_dir(by_hand_mcp / "_memory").path
        env = environment(Path(tmp) / "home")
        words_only = {**env, "HYLO_MEMORY_BUNDLED_EMBEDDINGS": "false"}
        on_vault = ["--vault", str(vault), "--today", TODAY]
        embed_every_item(vault, env)
        # name: (work, floor's name, target ratio or None)
        rows: dict[str, tuple[Callable[[], float], str | None, float | None]] = {
            "python -c pass": (process([PYTHON, "-c", "pass"], env, prints=False), None, None),
            "import mcp.server.lowlevel": (process([PYTHON, "-c", "import mcp.server.lowlevel"], env,
                                                   prints=False), None, None),
            "floor: import click": (process([PYTHON, "-c", "import click"], env, prints=False), "python -c pass",
                                    None),
            "floor: click + pydantic": (process([PYTHON, "-c", PYDANTIC_FLOOR], env, prints=False),
                                        "python -c pass", None),
            "hylo-memory --version": (process([HYLO, "--version"], env), "python -c pass", 2.0),
            "hylo-memory --help": (process([HYLO, "--help"], env), "python -c pass", None),
            f"recall {QUERY!r}": (process([HYLO, "recall", QUERY, *on_vault], words_only), "python -c pass", 4.0),
            f"recall {QUERY!r}, by meaning": (process([HYLO, "recall", QUERY, *on_vault], env), "python -c pass",
                                              8.0),
            "context": (process([HYLO, "context", *on_vault], env), "python -c pass", 4.0),
            # The first reader after the memory changed parses the files (and keeps the read memo again).
            "recall, memory changed": (process([HYLO, "recall", QUERY, *on_vault], env,
                                               before=lambda: memo_path(vault / "_memory").unlink(missing_ok=True)),
                                       "python -c pass", None),
            "mcp: spawn to 1st recall": (mcp_recall(vault, env), "import mcp.server.lowlevel", 1.3),
            # A memory no command wrote: its items wait to be embedded (the first call, untimed, kept the memo).
            "recall, by hand": (process([HYLO, "recall", QUERY, "--vault", str(by_hand), "--today", TODAY], env),
                                "python -c pass", 8.0),
            "mcp 1st recall, by hand": (mcp_recall(by_hand_mcp, env, before=lambda: unembedded.unlink(missing_ok=True)),
                                        "import mcp.server.lowlevel", 1.5),
        }
        for work, _, _ in rows.values():  # once untimed: the files in the page cache, bytecode compiled
            work()
        times: dict[str, list[float]] = {name: [] for name in rows}
        for _ in range(args.repeat):
            for name, (work, _, _) in rows.items():
                times[name].append(work())

    median = {name: statistics.median(found) for name, found in times.items()}
    print(f"python {sys.version.split()[0]}, {args.items:,} memory items, median of {args.repeat} runs each "
          f"(worst: the slowest run's ratio; * the target is the worst's)")
    print(f"{'':<28} {'s':>7} {'ratio':>7} {'worst':>7}  {'to':<28} {'target':>8}  result")
    for name, (_, floor, target) in rows.items():
        if floor is None:
            print(f"{name:<28} {median[name]:7.3f}")
            continue
        ratio, worst = median[name] / median[floor], max(times[name]) / median[floor]
        judged = worst if name in EVERY_CALL else ratio
        verdict = "" if target is None else ("met" if judged <= target else "MISSED")
        goal = "" if target is None else f"<= {target:g}x" + ("*" if name in EVERY_CALL else "")
        print(f"{name:<28} {median[name]:7.3f} {ratio:6.2f}x {worst:6.2f}x  {floor:<28} {goal:>8}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
