"""Dropped evidence is listed with a few of its wordings whatever the reason (issue 17, point 7a)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vault_helpers import short, unit

from hylo_memory.extractors.base import EXAMPLES, Extraction
from hylo_memory.pipeline.cli.group import main
from hylo_memory.testing import FakeOpenAI, reply

TODAY = "2026-11-28"


def refresh_json(vault: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["refresh", "--vault", str(vault), "--today", TODAY, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def likes(*things: str) -> list[dict]:
    return [{"dimension": "preferences", "text": f"Likes {t}", "source": "S1", "restates": None} for t in things]


def test_evidence_past_the_per_source_cap_is_listed_with_the_first_wordings_dropped(
        llm: FakeOpenAI, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_MAX_EVIDENCE_PER_SOURCE", "2")
    short(tmp_path, "2026-11-28", "I like tea.", slug="tea")
    things = ["tea", "coffee", "oolong", "sencha", "matcha", "rooibos", "chai", "mate", "kombucha", "kefir",
              "lassi", "horchata"]
    llm.enqueue(reply(json.dumps({"evidence": likes(*things)})))
    summary = refresh_json(tmp_path, capsys)
    assert summary["dropped"] == [{"reason": "past the reply's limit (2 a source)", "count": 10,
                                   "examples": ["Likes oolong", "Likes sencha", "Likes matcha"]}]


def test_entries_that_are_not_valid_evidence_are_listed_with_what_they_proposed(
        llm: FakeOpenAI, tmp_path: Path, capsys) -> None:
    short(tmp_path, "2026-11-28", "I like tea.", slug="tea")
    entries = [{"dimension": "hobbies", "text": "Collects stamps", "source": "S1", "restates": None}, 42,
               *likes("tea")]
    llm.enqueue(reply(json.dumps({"evidence": entries})))
    summary = refresh_json(tmp_path, capsys)
    assert summary["dropped"] == [{"reason": "not a valid evidence entry", "count": 1, "examples": ["42"]},
                                  {"reason": "an unknown dimension", "count": 1, "examples": ["Collects stamps"]}]


def test_preferences_past_the_one_a_cluster_limit_are_listed_with_their_wordings(
        llm: FakeOpenAI, tmp_path: Path, capsys) -> None:
    for slug in ("raft", "paxos"):
        unit(tmp_path, slug, "A talk.", "2026-11-27", title=f"{slug} talk", tags=["consensus"],
             perspective="external")
    llm.enqueue(reply(json.dumps({"preferences": [{"cluster": 1, "text": "Fascinated by consensus"},
                                                  {"cluster": 1, "text": "Into distributed agreement"}]})))
    summary = refresh_json(tmp_path, capsys)
    assert {"reason": "past the reply's limit (one a cluster)", "count": 1,
            "examples": ["Into distributed agreement"]} in summary["dropped"]


def test_the_text_summary_shows_the_wordings_dropped_past_the_cap(llm: FakeOpenAI, tmp_path: Path, capsys,
                                                                    monkeypatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_MAX_EVIDENCE_PER_SOURCE", "1")
    short(tmp_path, "2026-11-28", "I like tea.", slug="tea")
    llm.enqueue(reply(json.dumps({"evidence": likes("tea", "coffee")})))
    assert main(["refresh", "--vault", str(tmp_path), "--today", TODAY]) == 0
    assert '"Likes coffee": past the reply\'s limit (1 a source)' in capsys.readouterr().out


def test_a_reason_keeps_at_most_a_few_wordings_however_many_are_dropped() -> None:
    extraction = Extraction()
    extraction.drop("too many", *[f"Likes {i}" for i in range(10)], count=5000)
    extraction.drop("too many", "Likes more")
    [dropped] = extraction.dropped
    assert dropped.count == 5001 and dropped.examples == [f"Likes {i}" for i in range(EXAMPLES)]
