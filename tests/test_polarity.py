"""Polarity is part of a fact (docs/spec.md §3): opposite facts never match, by any route; the newer supersedes
the older (rule H) with every extractor, a pinned one is a conflict; forgetting one side never blocks the other."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from cli_helpers import hylo
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples
from trust_helpers import TODAY, ago, apply, fact, forget, ok, refresh_json, remember
from vault_helpers import items, short

from hylo_memory.decay import Dimension, Evidence, Tombstone
from hylo_memory.decay.forgetting import screen
from hylo_memory.decay.match import TextIndex
from hylo_memory.decay.polarity import opposed, opposite

# One side, the other: a negation on one side only, or opposite likings of the same thing.
OPPOSITES = [
    ("Loves working from the office on Mondays", "Hates working from the office on Mondays"),
    ("Likes running early in the morning", "Dislikes running early in the morning"),
    ("Enjoys long dinners", "Avoids long dinners"),
    ("Prefers window seats", "Can't stand window seats"),
    ("Is into cold brew", "Is tired of cold brew"),
    ("Eats meat", "Doesn't eat meat"),
    ("Eats meat", "Does not eat meat"),
    ("Eats meat", "Never eats meat"),
    ("Eats meat", "No longer eats meat"),
    ("Drinks coffee", "Don't drink coffee"),
    ("Is vegan", "Isn't vegan"),
    ("Can drive", "Can't drive"),
    ("Will fly again", "Won't fly again"),
    ("喜欢吃意大利面", "不喜欢吃意大利面"),
    ("喜欢吃意大利面", "讨厌吃意大利面"),
    ("爱喝咖啡", "讨厌喝咖啡"),
    ("吃肉", "不吃肉"),
    ("吃肉", "没吃肉"),
    ("吃肉", "不再吃肉"),
    ("吃肉", "并不吃肉"),
    ("有车", "没有车"),
]


@pytest.mark.parametrize(("one", "other"), OPPOSITES)
def test_texts_of_opposite_polarity_are_opposite_facts(one: str, other: str) -> None:
    assert opposed(one, other) and opposite(one, other)


@pytest.mark.parametrize(("one", "other"), OPPOSITES)
def test_texts_of_opposite_polarity_never_match(one: str, other: str) -> None:
    index = TextIndex(0.0)
    index.add(0, one)
    assert index.find(other) is None


def test_words_that_only_hold_a_negation_negate_nothing() -> None:
    assert not opposed("觉得这家店不错", "觉得这家店很好")


@pytest.mark.parametrize(("one", "other"), OPPOSITES)
def test_an_extractors_restates_never_joins_opposite_facts(one: str, other: str) -> None:
    tombstones = [Tombstone(dimension=Dimension.preferences, text=one, forgotten_on=TODAY)]
    evidence = Evidence(dimension=Dimension.preferences, text=other, source="n.md", matches=one)
    kept, blocked = screen([evidence], tombstones, 90.0)
    assert kept == [evidence] and blocked == []


THINGS = st.sampled_from(["jazz", "cold brew", "working from the office on Mondays", "window seats",
                          "running early in the morning", "spicy food", "long dinners with friends"])
LIKINGS = st.sampled_from([("Loves", "Hates"), ("Likes", "Dislikes"), ("Enjoys", "Avoids"), ("Prefers", "Can't stand"),
                           ("Loves", "No longer loves"), ("Likes", "Doesn't like"), ("Is into", "Is tired of")])


@settings(max_examples=examples(200), deadline=None)
@given(thing=THINGS, liking=LIKINGS, flip=st.booleans())
def test_no_text_matches_its_opposite_and_forgetting_one_never_blocks_the_other(
        thing: str, liking: tuple[str, str], flip: bool) -> None:
    t, t_prime = (f"{verb} {thing}" for verb in (liking[::-1] if flip else liking))
    index = TextIndex(0.0)
    index.add(0, t)
    assert index.find(t_prime) is None
    stone = Tombstone(dimension=Dimension.preferences, text=t, forgotten_on=TODAY)
    kept, _ = screen([Evidence(dimension=Dimension.preferences, text=t_prime, source="n.md")], [stone], 90.0)
    assert len(kept) == 1


# Through the commands


def test_remember_of_the_opposite_of_a_pinned_fact_is_a_conflict_naming_the_command_that_settles_it(
        tmp_path: Path) -> None:
    ok(remember(tmp_path, "I love working from the office on Mondays", today=ago(5)))
    line = ok(remember(tmp_path, "I hate working from the office on Mondays")).stdout
    assert line.startswith('Kept "Dislikes working from the office on Mondays"')
    assert ("`hylo-memory forget 'Loves working from the office on Mondays' --dimension preferences`"
            in line)
    kept = items(tmp_path, Dimension.preferences)
    assert kept["Loves working from the office on Mondays"] == ("Active", 1, True)


def test_remember_of_the_opposite_of_an_unpinned_fact_supersedes_it(tmp_path: Path) -> None:
    ok(remember(tmp_path, "I love working from the office on Mondays", "--no-pin", today=ago(5)))
    line = ok(remember(tmp_path, "I hate working from the office on Mondays", "--no-pin")).stdout
    assert 'it replaces "Loves working from the office on Mondays" (now fading)' in line
    kept = items(tmp_path, Dimension.preferences)
    assert kept["Loves working from the office on Mondays"] == ("Fading", 1, False)
    assert kept["Dislikes working from the office on Mondays"] == ("Active", 1, False)


def test_remember_in_chinese_of_the_opposite_supersedes_it(tmp_path: Path) -> None:
    ok(remember(tmp_path, "我喜欢吃意大利面", "--no-pin", today=ago(5)))
    line = ok(remember(tmp_path, "我不喜欢吃意大利面", "--no-pin")).stdout
    assert "it replaces" in line and "(now fading)" in line
    kept = items(tmp_path, Dimension.preferences)
    assert [s for s, _, _ in kept.values()].count("Active") == 1 and len(kept) == 2


@pytest.mark.parametrize(("older", "newer", "faded", "active"), [
    ("I love running early in the morning.", "I dislike running early in the morning.",
     "Loves running early in the morning", "Dislikes running early in the morning"),
    ("我喜欢吃意大利面。", "我不喜欢吃意大利面。", "喜欢吃意大利面", "不喜欢吃意大利面"),
])
def test_a_refresh_lets_the_newer_of_two_opposite_notes_supersede_the_older(
        tmp_path: Path, older: str, newer: str, faded: str, active: str) -> None:
    short(tmp_path, ago(6), older, slug="a")
    short(tmp_path, ago(2), newer, slug="b")
    summary = refresh_json(tmp_path)
    assert summary["superseded"] == [{"file": "_preferences.md", "text": faded, "by": active}]
    kept = items(tmp_path, Dimension.preferences)
    assert kept[faded][0] == "Fading" and kept[active] == ("Active", 1, False)


def test_a_later_refresh_supersedes_an_item_by_its_opposite(tmp_path: Path) -> None:
    short(tmp_path, ago(20), "I love cold brew.", slug="a")
    refresh_json(tmp_path, today=ago(19))
    short(tmp_path, ago(1), "I hate cold brew.", slug="b")
    summary = refresh_json(tmp_path)
    assert summary["superseded"] == [{"file": "_preferences.md", "text": "Loves cold brew", "by": "Dislikes cold brew"}]
    assert summary["counts"]["refreshed"] == 0


def test_apply_of_the_opposite_supersedes_and_never_reinforces(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves jazz", date=ago(10))))
    result = ok(apply(tmp_path, fact("preferences", "Hates jazz", date=ago(1)), name="b.jsonl"))
    assert "  > superseded: Loves jazz (by: Hates jazz)\n" in result.stdout
    assert items(tmp_path, Dimension.preferences) == {"Loves jazz": ("Fading", 1, False),
                                                      "Hates jazz": ("Active", 1, False)}


def test_apply_ignores_matches_that_would_join_opposite_facts(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves jazz", date=ago(10))))
    ok(apply(tmp_path, fact("preferences", "Hates jazz", matches="Loves jazz", date=ago(1)), name="b.jsonl"))
    assert items(tmp_path, Dimension.preferences)["Loves jazz"] == ("Fading", 1, False)


def test_after_forgetting_one_side_the_other_is_kept(tmp_path: Path) -> None:
    ok(remember(tmp_path, "I love working from the office on Mondays", today=ago(5)))
    ok(forget(tmp_path, "Loves working from the office on Mondays"))
    line = ok(remember(tmp_path, "I hate working from the office on Mondays")).stdout
    assert line.startswith('Kept "Dislikes working from the office on Mondays"')


def test_forgetting_one_side_still_blocks_that_side(tmp_path: Path) -> None:
    ok(remember(tmp_path, "I love working from the office on Mondays", today=ago(5)))
    ok(forget(tmp_path, "Loves working from the office on Mondays"))
    result = remember(tmp_path, "I love working from the office on Mondays", today=TODAY + dt.timedelta(days=1))
    assert result.exit_code != 0 and "a fact you asked to forget" in result.stderr


# One word apart, 90 and more alike in letters: only polarity keeps them apart.
OFFICE, HATES_OFFICE = "Loves working from the office on Mondays", "Hates working from the office on Mondays"


def test_why_never_names_an_item_by_its_opposite(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", OFFICE, date=ago(10))))
    result = hylo("why", HATES_OFFICE, "--vault", str(tmp_path))
    assert result.exit_code == 1 and "no item matches 'Hates working from the office on Mondays'" in result.stderr


def test_forget_of_an_opposite_removes_nothing(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", OFFICE, date=ago(10))))
    assert forget(tmp_path, HATES_OFFICE).exit_code == 1
    assert items(tmp_path, Dimension.preferences) == {OFFICE: ("Active", 1, False)}


def test_unforget_lifts_the_tombstone_of_the_side_it_names_only(tmp_path: Path) -> None:
    ok(remember(tmp_path, "I love working from the office on Mondays", today=ago(5)))
    ok(forget(tmp_path, OFFICE))
    assert hylo("unforget", "Dislikes working from the office on Mondays", "--vault", str(tmp_path)).exit_code == 1
    listed = ok(hylo("forget", "--list", "--vault", str(tmp_path))).stdout
    assert OFFICE in listed
