"""A month of nightly runs against the fake server, three ways, in billed input-token equivalents (issue 32).

Thirty nights over a generated vault, a few new first-person notes a day, run twice on the same notes and
the same fake model: once asked directly, once through the batch endpoint (`batch = true`: each night
submits, the next collects). The fake reports cached tokens as OpenAI does (a shared prefix of 1,024
tokens or more, in steps of 128). Each way's tokens are priced at gpt-4o-mini's list prices (input
$0.15, cached input $0.075, output $0.60 a million; batch half price) by the product's own
`extractors/llm/costs.py`, and printed as input-token equivalents (dollars ÷ the input price):

- direct, uncached: the direct run's tokens, none cached;
- direct, cached: the same run as billed;
- batch, cached: the batch run as billed.

Target: batch-cached at most 0.5 of direct-uncached. The nights are dated from today on, since a run
dated before today never batches.

    .venv/bin/python bench/llm_month.py [--nights 30] [--per-day 3] [--cache-from 1024]

The fake keeps every prefix it saw; a provider keeps one minutes to an hour, so across nights its cache
has gone cold: the cached figures here are the most a stable prefix can save, not what a night saves.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import tempfile
from pathlib import Path

from hylo_memory.domain.usage import Usage
from hylo_memory.extractors.llm.costs import PER, Prices, cost_of
from hylo_memory.pipeline.cli.words import NAMING
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.operations.refresh import refresh_memory
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.testing import FakeOpenAI, answer

PRICES = Prices(input=0.15, cached_input=0.075, output=0.60, batch_discount=0.5)
THINGS = ["long walks", "jazz", "green tea", "chess", "the sea", "rainy mornings", "old maps", "sourdough",
          "cold brew", "crowded trains", "early meetings", "board games", "poetry", "cycling", "spreadsheets"]
FRAMES = ["I love {}.", "I can't stand {}.", "I've started to enjoy {}.", "I'm trying to cut down on {}.",
          "Lately I think a lot about {}.", "I want to spend more time on {} this year."]
DAILY = ["Slow day at work; fixed the deploy script and went home early.",
         "Met Ana for lunch. She is moving to Porto next month.",
         "Reading a book about city planning. Long call with the team about the roadmap."]


def write_night(vault: Path, day: dt.date, per_day: int, rng: random.Random) -> None:
    shorts = vault / "_shorts"
    shorts.mkdir(parents=True, exist_ok=True)
    for n in range(per_day):
        text = " ".join([rng.choice(FRAMES).format(rng.choice(THINGS)), rng.choice(DAILY)])
        (shorts / f"{day}-{n}.md").write_text(f"---\ncreated: {day}\n---\n{text}\n", encoding="utf-8")


def month(root: Path, base_url: str, nights: int, per_day: int, batch: bool) -> Usage:
    """Run `nights` nights over a fresh vault; the usage of every run, from the ledger (a batch's collect too)."""
    os.environ.update({"HYLO_MEMORY_BASE_URL": base_url, "OPENAI_API_KEY": "bench", "HOME": str(root / "home"),
                       "HYLO_MEMORY_BUNDLED_EMBEDDINGS": "false"})
    vault, rng, first = root / "vault", random.Random(7), dt.date.today()
    config = load_config()
    for night in range(nights + (1 if batch else 0)):  # a batch month ends with one more run, to collect the last
        day = first + dt.timedelta(days=night)
        if night < nights:
            write_night(vault, day, per_day, rng)
        refresh_memory(open_memory(vault, config, NAMING), RunOptions(day), batch=batch and night < nights,
                       readers=False)
    with Ledger.for_memory_dir(vault / "_memory", readonly=True) as ledger:
        return ledger.usage_since(first)[1]


def equivalents(usage: Usage, direct_uncached: bool = False) -> float:
    cost = cost_of(usage, PRICES)
    assert cost is not None
    return (cost.uncached if direct_uncached else cost.estimated) * PER / PRICES.input


def bench_month(nights: int = 30, per_day: int = 3, cache_from: int = 1024) -> None:
    with FakeOpenAI(handler=answer, cache_prefixes=cache_from) as fake:
        direct = month(Path(tempfile.mkdtemp()), fake.base_url, nights, per_day, batch=False)
        fake.reset()  # the batch month's cache starts as cold as the direct month's did
        batched = month(Path(tempfile.mkdtemp()), fake.base_url, nights, per_day, batch=True)
    uncached, cached, batch = equivalents(direct, True), equivalents(direct), equivalents(batched)
    print(f"(d) a month: {nights} nights, {per_day} new notes a night; prefixes cached from "
          f"{cache_from:,} tokens; gpt-4o-mini's prices; billed input-token equivalents")
    for name, usage, value in (("direct, uncached", direct, uncached), ("direct, cached", direct, cached),
                               ("batch, cached", batched, batch)):
        print(f"  {name:<17} {value:>10,.0f}  ({usage.requests} requests, {usage.batched} batched, "
              f"{usage.prompt_tokens:,} prompt of which {usage.cached_tokens:,} cached, "
              f"{usage.completion_tokens:,} completion)")
    print(f"  batch-cached / direct-uncached: {batch / uncached:.2f} (target ≤ 0.50)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nights", type=int, default=30)
    parser.add_argument("--per-day", type=int, default=3)
    parser.add_argument("--cache-from", type=int, default=1024,
                        help="the shortest prefix the provider caches, in tokens (OpenAI: 1,024)")
    args = parser.parse_args()
    bench_month(args.nights, args.per_day, args.cache_from)


if __name__ == "__main__":
    main()
