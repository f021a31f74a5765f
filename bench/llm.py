"""Benchmark the LLM path against the fake OpenAI-compatible server (no network).

(a) Tokens for a first run over examples/vault, against a naive baseline computed in
    the same run: one request per source carrying all six memory files in full, as an
    agent following the seed would (its files growing as it goes). Target: ≤ 25 %.
(b) 1,000 short notes with 300 ms latency per request: wall time against the ideal
    (requests ÷ concurrency × latency), and the request count. Target: ≤ 1.5× ideal.

    .venv/bin/python bench/llm.py [--notes 1000] [--latency 0.3]
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
from hylo_memory.extractors.batching import estimate_tokens
from hylo_memory.extractors.choice import make_extractor
from hylo_memory.extractors.patterns import statements
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.run.refresh import refresh
from hylo_memory.pipeline.run.window import choose_window
from hylo_memory.pipeline.vaults.folder import FolderVault
from hylo_memory.templates import render as render_template
from hylo_memory.testing import FakeOpenAI, answer

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "examples" / "vault"
TODAY = dt.date(2026, 11, 28)


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
        summary, _ = refresh(vault, load_config(), make_extractor(load_config().llm()), TODAY)
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
        summary, _ = refresh(vault, config, extractor, TODAY)
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
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        return serve(args.serve)
    bench_tokens()
    bench_latency(args.notes, args.latency)


if __name__ == "__main__":
    main()
