"""The run that collects a provider's batch shows what its answers took (docs/spec.md §4.8, §4.9): the batch's
tokens and, with prices set, its cost at the batch's discount, in the collected line and in `--json`, priced as
`status` prices the run that applied it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from batch_helpers import refresh, run, vault_with

from hylo_memory.domain.usage import Usage
from hylo_memory.extractors.llm.costs import Prices, cost_of
from hylo_memory.testing import FakeOpenAI, answer
from hylo_memory.testing.fake_replies import reply

PRICES = Prices(input=2.0, cached_input=0.5, output=8.0)


@pytest.fixture
def llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(handler=lambda body: reply(answer(body)), cache_prefixes=256) as fake:
        yield fake


@pytest.fixture
def priced(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("INPUT", PRICES.input), ("CACHED_INPUT", PRICES.cached_input), ("OUTPUT", PRICES.output)):
        monkeypatch.setenv(f"HYLO_MEMORY_PRICE_{name}", str(value))


def sent(tmp_path: Path, llm: FakeOpenAI) -> Path:
    """A vault whose notes are in a batch, sent after another run made the prompt's prefix a cached one."""
    refresh(vault_with(tmp_path / "earlier"), llm, "--no-batch")
    vault = vault_with(tmp_path / "batched")
    refresh(vault, llm, "--batch")
    return vault


def applied_run(vault: Path, llm: FakeOpenAI) -> dict[str, Any]:
    """The run that applied the batch, as `status --json` has it from the ledger."""
    runs: list[dict[str, Any]] = json.loads(run(vault, llm, "status", "--json").stdout)["runs"]
    return next(r for r in runs if r["usage"]["batched"])


def test_the_json_of_the_run_that_collects_a_batch_has_its_tokens_and_cost(tmp_path: Path, llm: FakeOpenAI,
                                                                         priced: None) -> None:
    vault = sent(tmp_path, llm)
    summary = refresh(vault, llm, "--no-batch")  # collects first; its own window has nothing new to ask
    [batch] = summary["batches"]
    usage = Usage.model_validate(batch["usage"])
    assert usage.requests == usage.batched == 1 and 0 < usage.cached_tokens < usage.prompt_tokens
    assert usage.completion_tokens > 0 and summary["usage"] == batch["usage"]
    expected = cost_of(usage, PRICES)
    assert expected is not None and batch["cost"] == summary["cost"] == expected.model_dump()
    assert expected.estimated < expected.uncached  # at the batch's discount, and some of it cached
    status = applied_run(vault, llm)
    assert (status["usage"], status["cost"]) == (batch["usage"], batch["cost"])


def test_the_collected_line_of_the_text_summary_has_its_tokens_and_cost(tmp_path: Path, llm: FakeOpenAI,
                                                                       priced: None) -> None:
    vault = sent(tmp_path, llm)
    done = run(vault, llm, "refresh", "--no-batch", "--quiet")
    assert done.exit_code == 0, done.stderr
    status = applied_run(vault, llm)
    u, cost = Usage.model_validate(status["usage"]), status["cost"]
    [line] = [x for x in done.stdout.splitlines() if x.startswith("Batch ")]
    assert "collected" in line and line.endswith(
        f"; {u.prompt_tokens} prompt ({u.cached_tokens} cached) + {u.completion_tokens} completion tokens, "
        f"estimated cost ${cost['estimated']:.4f} (direct and uncached: ${cost['uncached']:.4f})")
    assert "LLM: 1 request (1 through a batch)" in done.stdout


def test_collect_alone_shows_the_batchs_tokens_and_cost(tmp_path: Path, llm: FakeOpenAI, priced: None) -> None:
    vault = sent(tmp_path, llm)
    [batch] = json.loads(run(vault, llm, "refresh", "--collect", "--json").stdout)["batches"]
    assert batch["usage"]["batched"] == 1 and batch["cost"] == applied_run(vault, llm)["cost"] is not None


def test_without_prices_a_collected_batch_has_its_tokens_and_no_cost(tmp_path: Path, llm: FakeOpenAI) -> None:
    summary = refresh(sent(tmp_path / "json", llm), llm, "--no-batch")
    [batch] = summary["batches"]
    assert batch["usage"]["prompt_tokens"] > 0 and batch["cost"] is None and summary["cost"] is None
    done = run(sent(tmp_path / "text", llm), llm, "refresh", "--no-batch", "--quiet")
    [line] = [x for x in done.stdout.splitlines() if x.startswith("Batch ")]
    assert line.endswith(" completion tokens") and "cost" not in done.stdout
