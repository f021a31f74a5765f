"""What a run's requests cost (docs/spec.md §4.8): cached prompt tokens counted as the server reports them, the
prompt's stable prefix the same bytes across runs, and an estimated cost from the person's prices."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import hylo

from hylo_memory.domain.usage import Usage
from hylo_memory.extractors.llm.costs import Prices, cost_of
from hylo_memory.testing import FakeOpenAI, answer
from hylo_memory.testing.fake_replies import reply

TODAY = "2026-11-30"


@pytest.fixture
def llm() -> Any:
    with FakeOpenAI(handler=lambda body: reply(answer(body)), cache_prefixes=256) as fake:
        yield fake


def vault_with(tmp_path: Path, *notes: tuple[str, str]) -> Path:
    vault = tmp_path / "vault"
    (vault / "_shorts").mkdir(parents=True)
    for day, text in notes:
        (vault / "_shorts" / f"{day}.md").write_text(f"---\ncreated: {day}\n---\n{text}\n", encoding="utf-8")
    return vault


def refresh(vault: Path, llm: FakeOpenAI, *extra: str, day: str = TODAY, **env: str) -> dict[str, Any]:
    os.environ.update({"HYLO_MEMORY_BASE_URL": llm.base_url, "OPENAI_API_KEY": "k", **env})
    try:
        done = hylo("refresh", "--vault", vault, "--today", day, "--json", "--quiet", *extra)
    finally:
        for key in ("HYLO_MEMORY_BASE_URL", "OPENAI_API_KEY", *env):
            os.environ.pop(key, None)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def prefix(body: Any) -> str:
    """The request's text up to the existing items: the instructions, then the author profile."""
    text = body["messages"][0]["content"] + body["messages"][1]["content"]
    return text[:text.index("Existing items")]


def test_the_prompts_prefix_is_the_same_bytes_across_two_runs(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path, ("2026-11-29", "I love long walks by the river."))
    refresh(vault, llm, "--intro", "I'm Sam, a data engineer.")
    (vault / "_shorts" / "2026-11-30.md").write_text("---\ncreated: 2026-11-30\n---\nI hate cold brew.\n",
                                                     encoding="utf-8")
    refresh(vault, llm)
    first, second = (r.body for r in llm.chat_requests)
    assert prefix(first) == prefix(second) and len(prefix(first)) > 2000
    assert first["messages"][1]["content"] != second["messages"][1]["content"]  # the sources come after it


def test_cached_tokens_the_server_reports_are_counted(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path, ("2026-11-29", "I love long walks by the river."))
    refresh(vault, llm)
    (vault / "_shorts" / "2026-11-30.md").write_text("---\ncreated: 2026-11-30\n---\nI hate cold brew.\n",
                                                     encoding="utf-8")
    summary = refresh(vault, llm)
    assert 256 <= summary["usage"]["cached_tokens"] <= summary["usage"]["prompt_tokens"]


def test_without_prices_no_cost_is_shown(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path, ("2026-11-29", "I love long walks by the river."))
    assert refresh(vault, llm)["cost"] is None


def test_with_prices_the_summary_gives_the_estimated_cost_and_the_uncached_one(tmp_path: Path,
                                                                              llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path, ("2026-11-29", "I love long walks by the river."))
    prices = {"HYLO_MEMORY_PRICE_INPUT": "2.5", "HYLO_MEMORY_PRICE_OUTPUT": "10"}
    summary = refresh(vault, llm, **prices)
    usage = summary["usage"]
    assert summary["cost"]["estimated"] == pytest.approx((usage["prompt_tokens"] * 2.5
                                                          + usage["completion_tokens"] * 10) / 1e6, abs=1e-6)


def test_cached_tokens_are_billed_at_the_cached_price() -> None:
    usage = Usage(requests=2, prompt_tokens=10_000, cached_tokens=8_000, completion_tokens=1_000)
    cost = cost_of(usage, Prices(input=2.0, cached_input=0.5, output=8.0))
    assert cost is not None
    assert (cost.estimated, cost.uncached) == (pytest.approx(0.016), pytest.approx(0.028))
    assert cost.line() == "estimated cost $0.0160 (direct and uncached: $0.0280)"


def test_no_cached_price_bills_cached_tokens_as_any_other() -> None:
    cost = cost_of(Usage(requests=1, prompt_tokens=1_000, cached_tokens=1_000), Prices(input=1.0, output=1.0))
    assert cost is not None and cost.estimated == cost.uncached == pytest.approx(0.001)


def test_status_shows_each_runs_tokens_and_costs_sums_the_last_30_days(tmp_path: Path, llm: FakeOpenAI,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    vault = vault_with(tmp_path, ("2026-11-29", "I love long walks by the river."))
    refresh(vault, llm)
    monkeypatch.setenv("HYLO_MEMORY_PRICE_INPUT", "2.5")
    monkeypatch.setenv("HYLO_MEMORY_PRICE_OUTPUT", "10")
    shown = hylo("status", "--vault", vault, "--today", TODAY, "--costs").stdout
    assert "       LLM: 1 request, " in shown and "; estimated cost $" in shown
    assert "The last 30 days: 1 run, 1 request, " in shown
    report = json.loads(hylo("status", "--vault", vault, "--today", TODAY, "--costs", "--json").stdout)
    assert report["costs"]["usage"]["requests"] == 1 and report["costs"]["cost"]["estimated"] > 0


def test_status_costs_without_prices_says_how_to_see_them(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path, ("2026-11-29", "I love long walks by the river."))
    refresh(vault, llm)
    shown = hylo("status", "--vault", vault, "--today", TODAY, "--costs").stdout
    assert "set price_input and price_output to see what they cost" in shown


def test_batched_requests_are_billed_at_the_batch_discount_and_the_direct_cost_stands_beside() -> None:
    usage = Usage(requests=2, batched=2, prompt_tokens=1_000_000, completion_tokens=100_000)
    cost = cost_of(usage, Prices(input=0.15, output=0.60, batch_discount=0.5))
    assert cost is not None and (cost.estimated, cost.uncached) == (0.105, 0.21)


def test_status_costs_with_prices_and_no_request_says_there_is_nothing_to_pay(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = vault_with(tmp_path, ("2026-11-29", "I love long walks by the river."))
    monkeypatch.setenv("HYLO_MEMORY_PRICE_INPUT", "2.5")
    monkeypatch.setenv("HYLO_MEMORY_PRICE_OUTPUT", "10")
    shown = hylo("status", "--vault", vault, "--today", TODAY, "--costs").stdout
    assert "0 requests" in shown and "nothing to pay" in shown and "set price_input" not in shown
