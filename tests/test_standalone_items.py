"""Items that stand alone: an item must make sense without its note, offline and from the LLM alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from vault_helpers import short, texts

from hylo_memory.decay import Dimension
from hylo_memory.extractors.llm.llm import LLMExtractor
from hylo_memory.extractors.offline.patterns import statements
from hylo_memory.extractors.offline.standalone import CUT_SHORT, PRONOUN_ONLY, why_not_alone
from hylo_memory.pipeline.cli.group import main
from hylo_memory.pipeline.config import load_config
from hylo_memory.testing import FakeOpenAI, reply

P, G, B, I, PE, S = (Dimension.preferences, Dimension.goals, Dimension.beliefs, Dimension.identity,
                     Dimension.people, Dimension.state)

# Offline: the first-person patterns

PRONOUN_OBJECTS = [
    "I love this book.", "I prefer it to Clean Code.", "I want to finish it before Christmas.", "I love both.",
    "I love that.", "I like them.", "I love these.", "I hate those.", "I want to go there.", "I'm working on it.",
    "我喜欢它。", "我喜欢这个。", "我喜欢那个。", "我喜欢这些。", "我讨厌那些。", "我喜欢这。", "我想要那。",
    "我想读完这本书。", "我想在圣诞节前读完它。", "我爱他。",
]


@pytest.mark.parametrize("sentence", PRONOUN_OBJECTS)
def test_a_statement_whose_object_is_only_a_pronoun_is_not_kept(sentence: str) -> None:
    assert statements(sentence) == []


CUT_OFF = [
    ("I believe in small, boring teams.", "a bare adjective where its noun should follow"),
    ("I love small, quiet cafés.", "a bare adjective after a liking"),
    ("Called my brother today.", "a verb taken for a name: 'Called — brother'"),
    ("I love working in a team of", "ends on a preposition"),
    ("I want to move to Porto and", "ends on a conjunction"),
    ("I love the.", "ends on an article"),
    ("我想说，今天很好。", "想说: a verb with nothing after it"),
    ("我觉得，嗯。", "觉得 with nothing after it"),
]


@pytest.mark.parametrize(("sentence", "why"), CUT_OFF, ids=[c[1] for c in CUT_OFF])
def test_a_statement_cut_short_is_not_kept(sentence: str, why: str) -> None:
    assert statements(sentence) == []


KEPT = [
    ("I love it when it rains.", P, "Loves it when it rains"),
    ("I hate it when meetings run late.", P, "Dislikes it when meetings run late"),
    ("I believe that small teams win.", B, "Believes small teams win"),
    ("I love staying in.", P, "Loves staying in"),
    ("I want to move on.", G, "Wants to move on"),
    ("I'm stressed about it.", S, "Feeling stressed"),
    ("I'm stressed about the cutover.", S, "Feeling stressed about the cutover"),
    ("I love both cats and dogs.", P, "Loves both cats and dogs"),
    ("Ines, my sister, called.", PE, "Ines — sister"),
    ("Yesterday Ines my sister called.", PE, "Ines — sister"),
    ("我最近在学吉他。", G, "最近在学吉他"),
    ("这周我有点焦虑。", S, "这周有点焦虑"),
    ("我想谈恋爱。", G, "想谈恋爱"),
    ("我喜欢下雨的时候。", P, "喜欢下雨的时候"),
]


@pytest.mark.parametrize(("sentence", "dimension", "wording"), KEPT, ids=[k[0] for k in KEPT])
def test_a_statement_that_stands_alone_is_still_kept(sentence: str, dimension: Dimension, wording: str) -> None:
    assert statements(sentence) == [(dimension, wording)]


# The one judgement, as both extractors use it


@pytest.mark.parametrize("text", ["Loves this book", "Prefers it to Clean Code", "Wants to finish it before Christmas",
                                  "Loves both", "Loves that", "Likes them", "Is tired of it", "Loves her",
                                  "喜欢它", "喜欢这个", "爱那些", "想读完这本书"])
def test_a_text_naming_its_object_only_by_a_pronoun_does_not_stand_alone(text: str) -> None:
    assert why_not_alone(text) == PRONOUN_ONLY


@pytest.mark.parametrize("text", ["Believes in small", "Called — brother", "Wants to", "Loves the", "Is working on",
                                  "Prefers tabs over", "Thinks so", "Feels", "想说", "希望从 升级为", "很喜欢"])
def test_a_text_cut_short_does_not_stand_alone(text: str) -> None:
    assert why_not_alone(text) == CUT_SHORT


@pytest.mark.parametrize("text", ["Painted a sunset inspired by a beach visit", "Loves the feeling",
                                  "Gave the recipe a try", "Remembers their last visit", "Planned a visit",
                                  "Bought figurines that remind her of family love"])
def test_a_verb_after_a_determiner_is_a_noun_and_the_text_stands(text: str) -> None:
    assert why_not_alone(text) is None


@pytest.mark.parametrize("text", ["Wants the kids to visit", "Hopes to visit", "Plans to try"])
def test_a_verb_with_no_determiner_before_it_still_needs_its_object(text: str) -> None:
    assert why_not_alone(text) == CUT_SHORT


@pytest.mark.parametrize("text", ["Loves it when it rains", "Believes that small teams win",
                                  "Loves that she calls on Sundays", "Likes those who read", "Moved to Porto with them",
                                  "Believes it is important to rest", "Believes in doing what you love",
                                  "Loves her job", "Ines — sister", "Name is Maya Okafor", "Is 34",
                                  "Prefers tabs over “spaces”", "Loves “It”", "最近这段时间压力很大", "觉得健康很重要",
                                  "在写小说", "很内向", "希望从“旧版”升级为“新版”"])
def test_a_text_that_makes_sense_without_its_note_stands_alone(text: str) -> None:
    assert why_not_alone(text) is None


# The LLM: replies whose items do not stand alone are dropped with the reason, through the real client

TODAY = "2026-11-28"


def refresh_json(vault: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["refresh", "--vault", str(vault), "--today", TODAY, "--json"]) == 0
    summary: dict[str, Any] = json.loads(capsys.readouterr().out)
    return summary


def evidence(*entries: tuple[str, str]) -> str:
    return json.dumps({"evidence": [{"dimension": d, "text": t, "source": "S1", "restates": None, "supersedes": None}
                                    for d, t in entries]})


def test_llm_items_naming_their_object_only_by_a_pronoun_are_dropped_with_the_reason(
        llm: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    short(tmp_path, "2026-11-27", "Finished the first chapter of The Dispossessed. I love this book.", slug="book")
    llm.enqueue(reply(evidence(("preferences", "Loves this book"), ("goals", "Wants to finish it before Christmas"),
                               ("preferences", "喜欢这个"), ("preferences", "Loves “The Dispossessed”"))))
    summary = refresh_json(tmp_path, capsys)
    assert texts(tmp_path, P) == {"Loves “The Dispossessed”"} and texts(tmp_path, G) == set()
    reasons = {d["reason"]: (d["count"], d["examples"]) for d in summary["dropped"]}
    assert reasons[PRONOUN_ONLY] == (3, ["Loves this book", "Wants to finish it before Christmas", "喜欢这个"])


def test_llm_items_cut_short_are_dropped_with_the_reason(llm: FakeOpenAI, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    short(tmp_path, "2026-11-27", "I believe in small, boring teams. 我想说，今天很好。", slug="teams")
    llm.enqueue(reply(evidence(("beliefs", "Believes in small"), ("goals", "想说"),
                               ("beliefs", "Believes in small, boring teams"))))
    summary = refresh_json(tmp_path, capsys)
    assert texts(tmp_path, B) == {"Believes in small, boring teams"} and texts(tmp_path, G) == set()
    reasons = {d["reason"]: (d["count"], d["examples"]) for d in summary["dropped"]}
    assert reasons[CUT_SHORT] == (2, ["Believes in small", "想说"])


def test_llm_items_that_stand_alone_are_kept(llm: FakeOpenAI, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    short(tmp_path, "2026-11-27", "I love it when it rains. I prefer tabs over “spaces”.", slug="rain")
    summary = refresh_json(tmp_path, capsys)  # the careful fake model answers
    assert texts(tmp_path, P) == {"Loves it when it rains", "Prefers tabs over “spaces”"}
    assert summary["dropped_evidence"] == 0


def test_the_prompts_ask_for_wording_that_stands_alone(llm: FakeOpenAI, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    short(tmp_path, "2026-11-27", "I love this book.", slug="book")
    refresh_json(tmp_path, capsys)
    LLMExtractor(load_config()).classify("I love it", None, None)
    extract, classify = (r.body["messages"][0]["content"] for r in llm.chat_requests)
    assert "must make sense on its own" in extract and "must make sense on its own" in classify


def test_remember_keeps_the_persons_words_when_the_models_wording_does_not_stand_alone(llm: FakeOpenAI) -> None:
    llm.enqueue(reply(json.dumps({"dimension": "preferences", "text": "Loves it", "pinned": True,
                                  "supersedes": None})))
    decision = LLMExtractor(load_config()).classify("I love cold brew, I love it", None, None)
    assert decision.text == "I love cold brew, I love it"
    assert f'the model\'s "Loves it" is {PRONOUN_ONLY}' in (decision.reason or "")
