"""An LLM's `restates` never joins opposite facts: the link is not followed, the fact kept as its own (docs/spec.md §3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from vault_helpers import items, memory_file, short

from hylo_memory.decay import Dimension
from hylo_memory.extractors.llm.evidence_reply import OPPOSITE_RESTATES
from hylo_memory.pipeline.cli.group import main
from hylo_memory.testing import FakeOpenAI, reply

P = Dimension.preferences
LOVES = "Loves working from the office on Mondays"
HATES = "Hates working from the office on Mondays"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    memory_file(tmp_path, P, f"## Active\n- {LOVES} `last:2026-11-01 seen:1`\n\n## Fading\n")
    short(tmp_path, "2026-11-27", "I hate working from the office on Mondays.", slug="office")
    return tmp_path


def refresh_json(vault: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["refresh", "--vault", str(vault), "--today", "2026-11-28", "--json"]) == 0
    summary: dict[str, Any] = json.loads(capsys.readouterr().out)
    return summary


def restating(text: str, supersedes: int | None = None) -> str:
    return json.dumps({"evidence": [{"dimension": "preferences", "text": text, "source": "S1", "restates": 1,
                                     "supersedes": supersedes}]})


def test_restating_an_item_of_the_opposite_polarity_keeps_the_evidence_as_its_own_fact(
        llm: FakeOpenAI, vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    llm.enqueue(reply(restating(HATES)))
    summary = refresh_json(vault, capsys)
    prefs = items(vault, P)
    assert HATES in prefs and prefs[HATES][1] == 1
    assert prefs[LOVES][1] == 1  # never reinforced by its opposite
    reasons = {d["reason"]: (d["count"], d["examples"]) for d in summary["unlinked"]}
    assert reasons[OPPOSITE_RESTATES] == (1, [HATES])


def test_evidence_kept_as_its_own_fact_is_not_counted_as_dropped(
        llm: FakeOpenAI, vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    llm.enqueue(reply(restating(HATES)))
    summary = refresh_json(vault, capsys)
    assert (summary["dropped_evidence"], summary["dropped"], summary["dropped_entries"]) == (0, [], [])


def test_an_opposite_fact_that_supersedes_the_item_it_claimed_to_restate_still_supersedes_it(
        llm: FakeOpenAI, vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    llm.enqueue(reply(restating(HATES, supersedes=1)))
    refresh_json(vault, capsys)
    prefs = items(vault, P)
    assert prefs[HATES][0] == "Active" and prefs[LOVES][0] == "Fading"


def test_restating_an_item_of_the_same_polarity_still_joins_it(llm: FakeOpenAI, vault: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    llm.enqueue(reply(restating("Really into working from the office on Mondays")))
    summary = refresh_json(vault, capsys)
    assert items(vault, P)[LOVES][1] == 2
    assert summary["unlinked"] == [] and summary["dropped"] == []
