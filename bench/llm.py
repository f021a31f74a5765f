"""Benchmark the LLM path against the fake OpenAI-compatible server (no network).

(a) Tokens for a first run over examples/vault, against a naive baseline computed in
    the same run: one request per source carrying all six memory files in full, as an
    agent following the seed would (its files growing as it goes). Target: ≤ 25 %.
(b) 1,000 short notes with 300 ms latency per request: wall time against the ideal
    (requests ÷ concurrency × latency), and the request count. Target: ≤ 1.5× ideal.
(c) Characters sent ÷ note characters, as measured beside mem0, LangMem and Graphiti (issue 32):
    every message content of every chat request the fake received (instructions and request),
    against the text of the notes — what each note says, without the `created:` front matter the
    bench adds to date it. Two first runs, one dated note a day ending on TODAY:
    - the first 50 LoCoMo sessions (conversation 1's, then 2's, then 3's), each as the note of its
      first speaker (`speaker_a`): that speaker's own turns, as bench/locomo_run.py writes them. The
      data is read where it lies (--locomo, default ../shared/data/locomo); target < 1.30×;
    - 10 one-line notes, a short first-person statement each; target < 7.3×.

(d) A month of nights, asked directly and through the batch endpoint (bench/llm_month.py, which runs it
    alone with its own options): billed input-token equivalents. Target: batch-cached ≤ 0.5 of
    direct-uncached.

    .venv/bin/python bench/llm.py [--notes 1000] [--latency 0.3] [--locomo DIR] [--chars-only]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hylo_memory.decay import Evidence, plan_updates, render
from hylo_memory.extractors.choice import make_extractor
from hylo_memory.extractors.llm.batching import estimate_tokens
from hylo_memory.extractors.offline.patterns import statements
from hylo_memory.pipeline.cli.words import NAMING
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.run.refresh import refresh
from hylo_memory.pipeline.run.window import choose_window
from hylo_memory.pipeline.vaults.folder import FolderVault
from hylo_memory.templates import render as render_template
from hylo_memory.testing import FakeOpenAI, answer

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "examples" / "vault"
TODAY = dt.date(2026, 11, 28)
LOCOMO = HERE.parent.parent / "shared" / "data" / "locomo"
LOCOMO_SESSIONS = 50
ONE_LINERS = [
    "I love long walks by the river before work.",
    "I've been vegetarian for six years now.",
    "I work as a data engineer at a bank in Lisbon.",
    "My sister Ines just moved to Porto with her kids.",
    "I want to run the Lisbon marathon next October.",
    "I believe small teams ship better software.",
    "I prefer Postgres over MySQL for anything serious.",
    "I'm exhausted this week after the big release.",
    "I'm learning Portuguese with a tutor on Tuesdays.",
    "I can't stand cold brew; I drink espresso.",
]


def configure(base_url: str) -> None:
    os.environ.update({"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "bench", "HOME": tempfile.mkdtemp()})


def serve(latency: float) -> None:
    """The fake server alone, until terminated: prints its base URL first."""
    with FakeOpenAI(handler=answer, latency=latency) as fake:
        print(fake.base_url, flush=True)
        signal.sigwait({signal.SIGTERM})


def tokens_of(body: dict, reply: str) -> int:
    return sum(estimate_tokens(m["content"]) for m in body["messages"]) + estimate_tokens(reply)


def naive_tokens(vault: Path) -> tuple[int, int]:
    """Tokens and requests of the seed-following agent: each source alone, with all six files."""
    config = load_config()
    window = choose_window(TODAY, True, None, config)
    sources = [s for s in FolderVault(vault, [], "_memory", config.max_note_bytes).sources(window)
               if hasattr(s, "text")]
    sources.sort(key=lambda s: (s.date, s.path))
    files: dict = {}
    instructions = render_template("extract_instructions.j2")
    total = 0
    for source in sources:
        memory = "\n".join(render(f) for f in files.values() if f is not None)
        prompt = f"{instructions}\n\nMemory files:\n{memory}\n\nSource {source.path}:\n{source.text}"
        evidence = [Evidence(dimension=d, text=t, source=source.path, date=source.date)
                    for d, t in statements(source.text)]
        reply = json.dumps({"evidence": [{"dimension": e.dimension.value, "text": e.text, "source": "S1",
                                          "restates": None} for e in evidence]})
        total += estimate_tokens(prompt) + estimate_tokens(reply)
        files = {u.dimension: u.after for u in plan_updates(files, evidence, TODAY) if u.after.items}
    return total, len(sources)


def bench_tokens() -> None:
    vault = Path(tempfile.mkdtemp()) / "vault"
    shutil.copytree(SAMPLE, vault)
    with FakeOpenAI(handler=answer) as fake:
        configure(fake.base_url)
        memory = open_memory(vault, load_config(), NAMING)
        summary, _ = refresh(memory, make_extractor(load_config().llm()), RunOptions(TODAY))
        ours = sum(tokens_of(r.body, answer(r.body)) for r in fake.chat_requests)
        requests = len(fake.chat_requests)
    naive, naive_requests = naive_tokens(vault)
    print("(a) tokens, first run over examples/vault (same estimator for both)")
    print(f"    hylo-memory: {ours:>8,} tokens in {requests} requests "
          f"(server-reported: {summary.usage.prompt_tokens + summary.usage.completion_tokens:,})")
    print(f"    naive:       {naive:>8,} tokens in {naive_requests} requests")
    print(f"    ratio:       {ours / naive:.1%} of naive (target ≤ 25%)")


def bench_latency(notes: int, latency: float) -> None:
    vault = Path(tempfile.mkdtemp()) / "vault"
    shorts = vault / "_shorts"
    shorts.mkdir(parents=True)
    for i in range(notes):
        day = TODAY - dt.timedelta(days=i % 80)
        (shorts / f"{day}-note-{i:05d}.md").write_text(
            f"---\ncreated: {day}\n---\nI love thing number {i}. I'm working on project {i % 37}. "
            "Today was ordinary: a walk, some reading, a long call about the quarter's plans.\n")
    # The fake server runs in its own process, so its work does not share our GIL.
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(latency)], stdout=subprocess.PIPE, text=True)
    try:
        configure(server.stdout.readline().strip())
        config = load_config()
        extractor = make_extractor(config.llm())
        extracting = timed(extractor, "extract")
        started = time.perf_counter()
        summary, _ = refresh(open_memory(vault, config, NAMING), extractor, RunOptions(TODAY))
        wall = time.perf_counter() - started
        requests = summary.usage.requests
    finally:
        server.terminate()
        server.wait()
    ideal = math.ceil(requests / config.concurrency) * latency
    print(f"(b) {notes:,} short notes, {latency * 1000:.0f} ms latency, concurrency {config.concurrency}")
    print(f"    requests: {requests} ({notes / requests:.1f} notes a request)")
    print(f"    whole refresh: {wall:.2f} s, ideal: {ideal:.2f} s, ratio: {wall / ideal:.2f}× (target ≤ 1.5×), "
          f"status: {summary.status}")
    print(f"    extraction alone: {extracting[0]:.2f} s, ratio: {extracting[0] / ideal:.2f}× "
          "(the rest is scanning the notes, the rules and the writes)")


def chars_sent(bodies: list[str]) -> tuple[int, int, int]:
    """A first run over one dated note a body, ending on TODAY: characters sent, requests, note characters."""
    vault = Path(tempfile.mkdtemp()) / "vault"
    shorts = vault / "_shorts"
    shorts.mkdir(parents=True)
    for i, body in enumerate(bodies):
        day = TODAY - dt.timedelta(days=len(bodies) - 1 - i)
        (shorts / f"{day}-note-{i:03d}.md").write_text(f"---\ncreated: {day}\n---\n{body}\n", encoding="utf-8")
    with FakeOpenAI(handler=answer) as fake:
        configure(fake.base_url)
        refresh(open_memory(vault, load_config(), NAMING), make_extractor(load_config().llm()), RunOptions(TODAY))
        sent = sum(len(m["content"]) for r in fake.chat_requests for m in r.body["messages"])
        requests = len(fake.chat_requests)
    shutil.rmtree(vault.parent, ignore_errors=True)
    return sent, requests, sum(len(b) for b in bodies)


def locomo_bodies(data: Path, count: int) -> list[str]:
    """The first `count` sessions, in conversation order, each as its first speaker's turns (empty ones skipped)."""
    from locomo_data import load  # bench/ is the script's own folder

    bodies = ["\n\n".join(session.turns[c.speakers[0]]) for c in load(data) for session in c.sessions]
    return [b for b in bodies if b][:count]


def bench_chars(locomo: Path) -> None:
    print("(c) characters sent ÷ note characters, first run (every message of every request; the notes' text)")
    cases = ((f"{LOCOMO_SESSIONS} LoCoMo session notes", locomo_bodies(locomo, LOCOMO_SESSIONS), 1.30),
             (f"{len(ONE_LINERS)} one-line notes", ONE_LINERS, 7.3))
    for label, bodies, target in cases:
        sent, requests, notes = chars_sent(bodies)
        print(f"    {label + ':':<27} {sent:>7,} sent ÷ {notes:>6,} = {sent / notes:.2f}× "
              f"in {requests} request{'s' * (requests != 1)} (target < {target:.2f}×)")


def timed(obj: object, method: str) -> list[float]:
    """Wrap obj.method to add up the seconds spent in it."""
    spent = [0.0]
    original = getattr(obj, method)

    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - started

    setattr(obj, method, wrapper)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--locomo", type=Path, default=LOCOMO, help="the LoCoMo folder or locomo10.json")
    parser.add_argument("--chars-only", action="store_true", help="only (c), the characters sent")
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        return serve(args.serve)
    if not args.chars_only:
        bench_tokens()
        bench_latency(args.notes, args.latency)
    bench_chars(args.locomo)
    if not args.chars_only:
        from llm_month import bench_month  # bench/ is the script's own folder

        bench_month()


if __name__ == "__main__":
    main()
