"""The configured model reviews the memory after a run (docs/spec.md §4.6, §3.1): through the real `openai` client
against the fake server, with the review prompt and the strict schema, within the run's token ceiling; the offline
extractor reviews nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import hylo

from hylo_memory.extractors.llm.replies import strict_schema
from hylo_memory.extractors.llm.review import ReviewReply
from hylo_memory.testing import FakeOpenAI
from hylo_memory.testing.fake_replies import Body, prompt_text

TODAY = "2026-11-30"
STUDENT = "Student at the University of Chicago"
SENIOR = "Rising senior at the University of Chicago"
STUDIES = "Studies Economics and Psychology at the University of Chicago"
REVIEW = "Pairs that look alike"
ITEM = re.compile(r"^(\d+)\. (.+) \(last seen", re.MULTILINE)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    for text in (STUDENT, SENIOR, STUDIES, "Plays the piano"):  # told where and whether pinned: no model asked
        done = hylo("remember", text, "--vault", vault, "--today", TODAY, "--dimension", "identity", "--pin")
        assert done.exit_code == 0, done.stderr
    return vault


def all_the_same(body: Body) -> str:
    """A model that judges every wording of the University of Chicago one fact."""
    numbers = [int(n) for n, text in ITEM.findall(prompt_text(body)) if "University of Chicago" in text]
    return json.dumps({"same": [[numbers[0], n] for n in numbers[1:]], "contradicts": []})


def reviews(llm: FakeOpenAI) -> list[Body]:
    return [r.body for r in llm.chat_requests if REVIEW in prompt_text(r.body)]


def refresh(vault: Path, *extra: str) -> Any:
    done = hylo("refresh", "--vault", vault, "--today", TODAY, *extra)
    assert done.exit_code == 0, done.stderr
    return done


def identity_text(vault: Path) -> str:
    return (vault / "_memory" / "_identity.md").read_text(encoding="utf-8")


def test_a_refresh_with_the_model_reviews_the_memory_and_the_summary_shows_the_merges(llm: FakeOpenAI,
                                                                                      vault: Path) -> None:
    llm.when(REVIEW, all_the_same)
    done = refresh(vault)
    assert len(reviews(llm)) == 1
    assert "Review of the memory: openai (test-model) judged 3 pair(s) of items alike: merged 2" in done.stdout
    assert f"= merged: {STUDIES} ← {STUDENT}" in done.stdout and f"= merged: {STUDIES} ← {SENIOR}" in done.stdout
    assert f"- {STUDIES} `last:{TODAY} seen:3 pinned`" in identity_text(vault) and STUDENT not in identity_text(vault)
    assert "review  by openai (test-model)" in hylo("history", "--vault", vault).stdout


def test_the_review_request_is_its_prompt_with_the_strict_schema(llm: FakeOpenAI, vault: Path) -> None:
    refresh(vault)
    body = reviews(llm)[0]
    system, user = (m["content"] for m in body["messages"])
    assert system.startswith("You keep a person's long-term memory. Below are some of its items")
    assert user.startswith("Items:") and STUDENT in user and "Plays the piano" not in user
    form = body["response_format"]
    assert form["type"] == "json_schema" and form["json_schema"]["strict"] is True
    assert form["json_schema"]["schema"] == strict_schema(ReviewReply)


def test_the_summary_json_has_the_reviews_line_merges_and_tokens(llm: FakeOpenAI, vault: Path) -> None:
    llm.when(REVIEW, all_the_same)
    summary = json.loads(refresh(vault, "--json").stdout)
    assert summary["review"].startswith("openai (test-model) judged 3 pair(s)")
    assert {(m["kept"], m["dropped"]) for m in summary["merged"]} == {(STUDIES, STUDENT), (STUDIES, SENIOR)}
    assert summary["usage"]["requests"] >= 1 and summary["usage"]["prompt_tokens"] > 0


def test_pairs_the_model_judged_are_not_asked_again(llm: FakeOpenAI, vault: Path) -> None:
    refresh(vault)
    refresh(vault)
    assert len(reviews(llm)) == 1


def test_the_review_stops_at_the_runs_token_ceiling(llm: FakeOpenAI, vault: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_RUN_TOKEN_CEILING", "1000")  # a reply's room alone (2,000) passes it
    done = refresh(vault)
    assert reviews(llm) == []
    assert "Review of the memory: not done: the run's token ceiling (1,000) would be passed" in done.stdout
    monkeypatch.delenv("HYLO_MEMORY_RUN_TOKEN_CEILING")
    refresh(vault)  # nothing was judged: the next run asks
    assert len(reviews(llm)) == 1


def test_undo_takes_back_the_models_review_alone(llm: FakeOpenAI, vault: Path) -> None:
    before = identity_text(vault)
    llm.when(REVIEW, all_the_same)
    refresh(vault)
    undone = hylo("undo", "--vault", vault)
    assert "review  by openai (test-model)" in undone.stdout and identity_text(vault) == before


def test_the_offline_extractor_reviews_nothing(vault: Path) -> None:
    done = refresh(vault, "--extractor", "offline")
    assert "Review of the memory" not in done.stdout
    assert " review " not in hylo("history", "--vault", vault).stdout
