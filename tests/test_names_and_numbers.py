"""Near-duplicates are one fact only when they hold the same numbers and names (docs/spec.md §3), and
every merge is shown in the summary as the wording kept ← the wording dropped.

Each pair that must stay apart is first checked to be a near-duplicate by ratio alone, so the
test shows the names-and-numbers condition at work, not the threshold.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from cli_helpers import hylo
from engine_helpers import ago, ev, item_line, memory_text, run, write_memory
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz
from tiers import examples
from vault_helpers import MEMORY, texts
from vault_helpers import run as refresh_run

from hylo_memory.decay import Dimension
from hylo_memory.decay.match import TextIndex, normalise
from hylo_memory.decay.rules import Merge
from hylo_memory.pipeline.cli.options import NAMING

TODAY = dt.date(2026, 11, 30)
THRESHOLD = 90.0

APART = [
    ("Wants to visit Austria", "Wants to visit Australia"),
    ("Ana — sister", "Ann — sister"),
    ("Ana, my sister", "Ann, my sister"),
    ("Runs 34 km every week", "Runs 43 km every week"),
    ("Reads about topic12", "Reads about topic13"),
    ("我每个星期都跑34公里左右", "我每个星期都跑43公里左右"),  # no capitals in Chinese: numbers still apply
]
TOGETHER = [
    ("Vegetarian", "Vegetarain"),
    ("Inês — sister", "Ines — sister"),
    ("Wants to visit Austria soon", "wants to visit austria, soon"),  # a name in lower case is still held
    ("我每个星期都跑34公里左右", "我每个星期都跑34公里左右吧"),
]


def finds(item: str, query: str) -> bool:
    index = TextIndex(THRESHOLD)
    index.add(0, item)
    return index.find(query) == 0


def near(a: str, b: str) -> bool:
    return fuzz.ratio(normalise(a), normalise(b)) >= THRESHOLD


# Matching (decay/match.py)


@pytest.mark.parametrize(("item", "query"), APART)
def test_near_duplicates_holding_different_numbers_or_names_do_not_match(item: str, query: str) -> None:
    assert near(item, query)
    assert not finds(item, query)


@pytest.mark.parametrize(("item", "query"), TOGETHER)
def test_near_duplicates_holding_the_same_numbers_and_names_match(item: str, query: str) -> None:
    assert near(item, query)
    assert finds(item, query)


def test_a_wording_equal_but_for_case_matches_although_only_one_capitalises_the_name() -> None:
    assert finds("Ana — sister", "ana — sister.")


def test_a_near_duplicate_with_other_names_gives_way_to_a_less_similar_one_with_the_same_names() -> None:
    index = TextIndex(THRESHOLD)
    index.add(0, "Wants to visit Australia in the spring")
    index.add(1, "Wants to visit Austria in the sprnig")
    assert index.find("Wants to visit Austria in the spring") == 1


WORDS = st.lists(st.sampled_from(["likes", "tea", "runs", "every", "week", "green", "early", "reads", "walks"]),
                 min_size=3, max_size=7)


@settings(max_examples=examples(200), deadline=None)
@given(words=WORDS, at=st.integers(min_value=0, max_value=7), numbers=st.lists(
    st.integers(min_value=0, max_value=10**6), min_size=2, max_size=2, unique=True))
def test_two_texts_that_differ_in_a_number_never_match_fuzzily(words: list[str], at: int, numbers: list[int]) -> None:
    first, second = ([*words[:at], str(n), *words[at:]] for n in numbers)
    assert not finds(" ".join(first), " ".join(second))


@settings(max_examples=examples(200), deadline=None)
@given(words=WORDS, name=st.sampled_from(["", "Ana", "Inês", "Lisbon"]), number=st.sampled_from(["", "34", "2026"]),
       which=st.integers(min_value=0), where=st.integers(min_value=0),
       letter=st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
def test_a_text_and_its_one_typo_variant_with_the_same_numbers_and_names_match_when_near(
        words: list[str], name: str, number: str, which: int, where: int, letter: str) -> None:
    word = words[which % len(words)]
    assume(len(word) >= 5)  # docs/spec.md §3: a typo is a slip in a word of five letters or more
    spot = where % len(word)
    typo = [*words]
    typo[which % len(words)] = word[:spot] + letter + word[spot + 1:]
    tail = [w for w in (name, number) if w]
    text, variant = " ".join([*words, *tail]), " ".join([*typo, *tail])
    assume(normalise(text) != normalise(variant) and near(text, variant))
    assert finds(text, variant)


# The rules (decay/rules.py)


@pytest.mark.parametrize(("first", "second"), APART)
def test_two_items_holding_different_numbers_or_names_stay_two_items(first: str, second: str) -> None:
    after, changes = run(memory_text(active=[item_line(first, ago(TODAY, 3)), item_line(second, ago(TODAY, 2))]),
                         [], TODAY)
    assert [i.text for i in after.items] == [first, second]
    assert changes.merged == []


@pytest.mark.parametrize(("item", "evidence"), APART)
def test_evidence_holding_other_numbers_or_names_than_its_near_duplicate_is_a_new_item(item: str, evidence: str) -> None:
    after, changes = run(memory_text(active=[item_line(item, ago(TODAY, 3))]), [ev(evidence)], TODAY)
    assert changes.added == [evidence]
    assert {i.text for i in after.items} == {item, evidence}


def test_evidence_with_a_typo_refreshes_the_item() -> None:
    after, changes = run(memory_text(active=[item_line("Vegetarian", ago(TODAY, 3))]), [ev("Vegetarain")], TODAY)
    assert changes.refreshed == ["Vegetarian"]
    assert [(i.text, i.seen) for i in after.items] == [("Vegetarian", 2)]


def test_evidence_the_extractor_says_restates_an_item_matches_it_whatever_its_names() -> None:
    item = "Wants to visit Austria"
    after, changes = run(memory_text(active=[item_line(item, ago(TODAY, 3))]),
                         [ev("Wants to visit Australia", matches=item)], TODAY)
    assert changes.refreshed == [item]
    assert [i.text for i in after.items] == [item]


def test_a_merge_records_the_wording_kept_and_the_wording_dropped() -> None:
    after, changes = run(memory_text(active=[item_line("Vegetarian", ago(TODAY, 3), seen=3),
                                             item_line("Vegetarain", ago(TODAY, 2))]), [], TODAY)
    assert [i.text for i in after.items] == ["Vegetarian"]
    assert changes.merged == [Merge(kept="Vegetarian", dropped="Vegetarain")]


def test_a_chain_of_merges_records_each_dropped_wording_against_the_wording_that_stays() -> None:
    lines = [item_line("Likes green teas", ago(TODAY, 3)), item_line("Likes green tea", ago(TODAY, 3)),
             item_line("Likes greeen tea", ago(TODAY, 3), seen=5)]
    after, changes = run(memory_text(active=lines), [], TODAY)
    assert [i.text for i in after.items] == ["Likes greeen tea"]
    assert changes.merged == [Merge(kept="Likes greeen tea", dropped="Likes green tea"),
                              Merge(kept="Likes greeen tea", dropped="Likes green teas")]


# What the person sees: `apply` and a refresh's summary


def test_apply_keeps_a_near_duplicate_with_another_name_as_its_own_item(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.people, memory_text(active=[item_line("Ana — sister", ago(TODAY, 3))]))
    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text(json.dumps({"dimension": "people", "text": "Ann — sister", "source": "_shorts/a.md"}) + "\n",
                        encoding="utf-8")
    result = hylo("apply", "--vault", tmp_path, "--evidence", evidence, "--today", TODAY.isoformat())
    assert result.exit_code == 0
    assert "  + Ann — sister\n" in result.stdout
    assert texts(tmp_path, Dimension.people) == {"Ana — sister", "Ann — sister"}


def test_apply_shows_each_merge_as_the_wording_kept_and_the_wording_dropped(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.preferences, memory_text(
        active=[item_line("Vegetarian", ago(TODAY, 3), seen=3), item_line("Vegetarain", ago(TODAY, 2))]))
    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text("", encoding="utf-8")
    result = hylo("apply", "--vault", tmp_path, "--evidence", evidence, "--today", TODAY.isoformat())
    assert result.exit_code == 0
    assert "_preferences.md\n  = merged: Vegetarian ← Vegetarain\n" in result.stdout
    assert result.stdout.endswith(", merged 1\n")


def test_a_refresh_summary_shows_each_merge_and_counts_it(tmp_path: Path) -> None:
    write_memory(tmp_path / MEMORY, Dimension.preferences, memory_text(
        active=[item_line("Vegetarian", ago(TODAY, 3), seen=3), item_line("Vegetarain", ago(TODAY, 2))]))
    summary = refresh_run(tmp_path, TODAY)
    assert "  = merged: Vegetarian ← Vegetarain\n" in summary.to_text(NAMING)
    assert summary.counts.merged == 1


@pytest.mark.parametrize(("one", "other"), [
    ("在上海的一家公司当软件工程师", "在上海的一家公司当硬件工程师"),
    ("欧阳娜娜 — 女朋友", "欧阳娜娜 — 男朋友"),
    ("喜欢《三体》第一部", "喜欢《三体》第二部"),
    ("喜欢游泳和滑雪", "喜欢游泳和滑冰"),
])
def test_chinese_texts_one_character_apart_are_different_facts(one: str, other: str) -> None:
    index = TextIndex(90.0)
    index.add(1, one)
    assert index.find(other) is None


def test_a_chinese_text_with_other_punctuation_is_the_same_fact() -> None:
    index = TextIndex(90.0)
    index.add(1, "喜欢游泳，和滑雪")
    assert index.find("喜欢游泳和滑雪。") == 1
