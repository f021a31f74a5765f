"""Words that mean one thing across English and Chinese and across other words (docs/spec.md §9.2): a question
shares a term with the item that answers it in other words, by words alone; different things stay apart."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from vault_helpers import memory_body, memory_file, opened

from hylo_memory.decay import Dimension
from hylo_memory.decay.match import same_fact
from hylo_memory.decay.recall import concepts
from hylo_memory.decay.recall.recall import analyse
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.serving.recall import recall

TODAY = dt.date(2026, 12, 1)


def top(vault: Path, question: str) -> list[str]:
    """The top 3 by words alone: no model bridges them."""
    return [i.text for i in recall(opened(vault, Config(vault=str(vault), bundled_embeddings=False)), question, 3, TODAY).items]


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    memory_file(tmp_path, Dimension.identity, memory_body("Lives in Lisbon | 2026-11-01 | 1",
                                                          "Vegetarian since 2019 | 2026-11-01 | 1",
                                                          "在 Tramline 工作了两年 | 2026-11-01 | 1"))
    memory_file(tmp_path, Dimension.people, memory_body("Tomás — partner, a sound engineer | 2026-11-01 | 1",
                                                        "林浩 — 弟弟，在深圳做产品经理 | 2026-11-01 | 1"))
    memory_file(tmp_path, Dimension.preferences, memory_body("Has a dog named Rex | 2026-11-01 | 1",
                                                             "Plays badminton on Sundays | 2026-11-01 | 1"))
    return tmp_path


@pytest.mark.parametrize(("question", "answer"), [
    ("我住在哪里？", "Lives in Lisbon"),
    ("我的伴侣是谁？", "Tomás — partner, a sound engineer"),
    ("who is my brother?", "林浩 — 弟弟，在深圳做产品经理"),
    ("what is my job?", "在 Tramline 工作了两年"),
])
def test_a_question_in_one_language_finds_its_answer_in_the_other_by_words_alone(memory: Path, question: str,
                                                                                  answer: str) -> None:
    assert top(memory, question)[0] == answer


def test_a_question_in_other_words_finds_its_answer_by_words_alone(memory: Path) -> None:
    assert top(memory, "do I eat meat?") == ["Vegetarian since 2019"]


@pytest.mark.parametrize("question", ["what's my cat called?", "which football team do I support?", "我有猫吗？"])
def test_a_concept_never_joins_neighbouring_things(memory: Path, question: str) -> None:
    assert top(memory, question) == []  # a cat is not a dog, football is not badminton


def test_a_concept_is_a_term_after_the_words_that_name_it() -> None:
    assert analyse("Lives in Lisbon").terms == ("live", "in", "lisbon", "~live")
    assert analyse("住在成都").terms == ("住在", "在成", "成都", "~live")
    assert analyse("Lives and lived").terms.count("~live") == 1  # once a text, however often it is named


def test_every_concept_has_words_in_both_languages() -> None:
    assert all(english and chinese for english, chinese in concepts.CONCEPTS.values())


def test_a_shared_concept_never_makes_two_facts_one() -> None:
    # Recall's terms only: the rules' matching (decay/match.py) never reads concepts, so an opposite or a neighbour
    # is never merged or reinforced through one.
    assert not same_fact("Vegetarian since 2019", "Eats meat every day")
    assert not same_fact("Lives in Lisbon", "Lived in Porto")
