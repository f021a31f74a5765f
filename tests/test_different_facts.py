"""Near-duplicates are typos, never different words (docs/spec.md §3): the wrong merges found on real vaults stay
apart, typos and plurals still merge, and every merge — by any command — is shown as kept ← dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from tiers import examples
from trust_helpers import apply, fact, ok, refresh_json, remember
from vault_helpers import identity, items, short, texts

from hylo_memory.decay import Dimension
from hylo_memory.decay.match import TextIndex, is_inflection, is_typo, same_fact
from hylo_memory.decay.words import fold

# Each pair was one item before: one or two letters apart, `fuzz.ratio` ≥ 90 or nearly.
APART = [
    ("Tim Smith — friend", "Tom Smith — friend"),
    ("Dara Rossi — cousin", "Hana Rossi — cousin"),
    ("Maria is my sister", "Marta is my sister"),
    ("Lena — friend from school", "Lina — friend from school"),
    ("Is allergic to pecans", "Is allergic to peanuts"),
    ("Loves running by the river", "Loves rowing by the river"),
    ("Walks with my son every evening", "Walks with my dog every evening"),
    ("Works from the office on Mondays", "Works from the office on Fridays"),
    ("Wants to visit Austria next year", "Wants to visit Australia next year"),
    ("Is 34", "Is 43"),
    ("Likes the lime tree", "Likes the like tree"),  # four-letter words a letter apart
    ("Runs a small shop", "Rune a small shop"),
    ("Lives with Maria", "Lives with Mara"),  # a name with a letter dropped
    ("Lives at number 12345", "Lives at number 1245"),  # a number with a digit dropped
    ("Drinks green tea every morning", "Drinks green tea every single morning"),  # an added word
    ("在上海的一家公司当软件工程师", "在上海的一家公司当硬件工程师"),
]
TOGETHER = [
    ("Is vegetarian", "Is vegetarain"),  # two letters swapped
    ("Prefers the colour blue", "Prefers the color blue"),  # a letter dropped
    ("Lives in Tallinn", "Livs in Tallinn"),  # a letter dropped from a five-letter word
    ("Loves grilled sardines", "Loves grilled sardine"),  # an inflection
    ("Inês — sister", "Ines — sister"),  # accents folded
    ("每天跑步五公里左右", "每天跑步五公里左右吧"),  # CJK: a character added
]


@pytest.mark.parametrize(("one", "other"), APART)
def test_texts_differing_by_a_word_are_different_facts(one: str, other: str) -> None:
    assert not same_fact(one, other)
    index = TextIndex(50.0)  # however low the candidate threshold
    index.add(0, one)
    assert index.find(other) is None


@pytest.mark.parametrize(("one", "other"), TOGETHER)
def test_typos_and_inflections_are_the_same_fact(one: str, other: str) -> None:
    index = TextIndex(90.0)
    index.add(0, one)
    assert index.find(other) == 0


def test_a_name_is_never_a_typo_however_long() -> None:
    assert not same_fact("Valentina — colleague", "Valentine — colleague")
    assert not same_fact("Works with Valentina", "Works with Valentine")


def test_a_first_word_that_is_not_a_name_may_have_a_typo() -> None:
    assert same_fact("Vegetarian since 2019", "Vegetarain since 2019")


# docs/spec.md §3: the longer of two words is measured against five letters.
@pytest.mark.parametrize(("one", "other"), [("lives", "livs"), ("livs", "lives"), ("green", "gren")])
def test_a_letter_dropped_from_a_five_letter_word_is_a_typo(one: str, other: str) -> None:
    assert is_typo(one, other)


@pytest.mark.parametrize(("one", "other"), [("like", "lime"), ("runs", "rune"), ("lvie", "live")])
def test_four_letter_words_a_letter_changed_or_swapped_are_not_typos(one: str, other: str) -> None:
    assert not is_typo(one, other)


@pytest.mark.parametrize(("one", "other"), [("cat", "cart"), ("cats", "cat"), ("run", "runs")])
def test_a_letter_added_to_a_three_letter_word_is_not_a_typo(one: str, other: str) -> None:
    assert not is_typo(one, other)


def test_a_short_word_and_its_plural_are_an_inflection() -> None:
    assert is_inflection("cats", "cat")
    assert same_fact("Has two cats", "Has two cat")


def test_a_five_letter_word_with_a_digit_is_never_a_typo() -> None:
    assert not is_typo("flat5", "flat")


@pytest.mark.parametrize(("one", "other"), APART)
def test_apply_keeps_each_of_two_close_wordings_as_its_own_item(tmp_path: Path, one: str, other: str) -> None:
    dimension = "people" if "—" in one or "sister" in one else "preferences"
    result = ok(apply(tmp_path, fact(dimension, one, "_shorts/a.md"), fact(dimension, other, "_shorts/b.md")))
    assert texts(tmp_path, Dimension(dimension)) == {one, other}
    assert "merged" not in result.stdout


def test_remember_keeps_a_one_letter_other_name_as_another_person(tmp_path: Path) -> None:
    ok(remember(tmp_path, "Tom Smith is my friend"))
    line = ok(remember(tmp_path, "Tim Smith is my friend")).stdout
    assert line.startswith('Kept "Tim Smith is my friend"')
    assert texts(tmp_path, Dimension.people) == {"Tom Smith is my friend", "Tim Smith is my friend"}


def test_remember_says_which_wording_its_fact_was_merged_into(tmp_path: Path) -> None:
    ok(remember(tmp_path, "I love grilled sardines"))
    line = ok(remember(tmp_path, "I love grilled sardine")).stdout
    assert line.startswith('Refreshed "Loves grilled sardines"')
    assert '"Loves grilled sardines" ← "Loves grilled sardine"' in line


def test_remember_merges_a_letter_dropped_from_a_five_letter_word(tmp_path: Path) -> None:
    # Filed by hand: "Lives in" is identity, a misspelt "Livs in" no cue reads (the merge is what is tested).
    ok(remember(tmp_path, "Lives in Tallinn", "--dimension", "identity"))
    line = ok(remember(tmp_path, "Livs in Tallinn", "--dimension", "identity")).stdout
    assert line.startswith('Refreshed "Lives in Tallinn"')
    assert '"Lives in Tallinn" ← "Livs in Tallinn"' in line


def test_a_refresh_merges_a_note_into_an_item_with_a_letter_dropped(tmp_path: Path) -> None:
    identity(tmp_path, "Livs in Tallinn")
    short(tmp_path, "2026-11-29", "I live in Tallinn.")
    summary = refresh_json(tmp_path)
    assert summary["merged"] == [{"file": "_identity.md", "kept": "Livs in Tallinn", "dropped": "Lives in Tallinn"}]
    assert items(tmp_path, Dimension.identity) == {"Livs in Tallinn": ("Active", 2, False)}


def test_apply_shows_evidence_merged_into_an_item_in_other_words(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Is vegetarian", "_shorts/a.md")))
    result = ok(apply(tmp_path, fact("preferences", "Is vegetarain", "_shorts/b.md"), name="second.jsonl"))
    assert "  = merged: Is vegetarian ← Is vegetarain\n" in result.stdout
    assert "merged 1" in result.stdout


def test_apply_shows_two_pieces_of_evidence_merged_into_one_new_item(tmp_path: Path) -> None:
    result = ok(apply(tmp_path, fact("preferences", "Loves grilled sardines", "_shorts/a.md"),
                      fact("preferences", "Loves grilled sardine", "_shorts/b.md")))
    assert "  = merged: Loves grilled sardines ← Loves grilled sardine\n" in result.stdout
    assert items(tmp_path, Dimension.preferences) == {"Loves grilled sardines": ("Active", 2, False)}


def test_a_refresh_lists_every_merge_in_its_json(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-28", "I love grilled sardines.", slug="a")
    short(tmp_path, "2026-11-29", "I love grilled sardine.", slug="b")
    summary = refresh_json(tmp_path)
    assert summary["merged"] == [{"file": "_preferences.md", "kept": "Loves grilled sardines",
                                  "dropped": "Loves grilled sardine"}]
    assert summary["counts"]["merged"] == 1


def _people(count: int) -> list[str]:
    """`count` different people, many one letter apart from another: Tim/Tom, Dara/Hana, Maria/Marta."""
    firsts = ["Tim", "Tom", "Dara", "Hana", "Maria", "Marta", "Lena", "Lina", "Ana", "Ann", "Jon", "Jan", "Ben",
              "Ken", "Rosa", "Rosi", "Ivo", "Ivan", "Eva", "Ava"]
    lasts = ["Smith", "Smyth", "Rossi", "Rossa", "Costa", "Costa-Lima", "Silva", "Sylva", "Lopes", "Lopez",
             "Moreau", "Moreno", "Berg", "Borg", "Klein", "Kline", "Novak", "Nowak", "Ortiz", "Ortega", "Weber",
             "Webber", "Young", "Yung", "Zhou", "Zhao"]
    relations = ["friend", "cousin", "colleague"]
    people = [f"{f} {la} — {r}" for r in relations for la in lasts for f in firsts]
    return people[:count]


def test_a_two_thousand_item_apply_keeps_520_distinct_people_as_520_items(tmp_path: Path) -> None:
    people = _people(520)
    assert len(set(people)) == 520
    lines = [fact("people", p, f"_shorts/p{i}.md") for i, p in enumerate(people)]
    lines += [fact("goals", f"Wants to finish chapter {n} of the thesis", f"_shorts/g{n}.md") for n in range(1480)]
    ok(apply(tmp_path, *lines))
    assert texts(tmp_path, Dimension.people) == set(people)
    assert len(texts(tmp_path, Dimension.goals)) == 1480


WORDS = ["likes", "walks", "green", "river", "every", "morning", "coffee", "visits", "friends", "reads", "novels",
         "plays", "guitar", "cooks", "dinner", "weekends", "teaches", "running", "rowing", "pecans", "peanuts",
         "mondays", "fridays", "son", "dog", "cat", "tea", "in", "the", "with"]


@settings(max_examples=examples(300), deadline=None)
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=8), at=st.integers(min_value=0),
       other=st.sampled_from(WORDS))
def test_replacing_any_one_word_by_another_that_is_no_typo_or_inflection_of_it_never_matches(
        words: list[str], at: int, other: str) -> None:
    at %= len(words)
    old = fold(words[at])
    assume(other != old and not is_typo(old, other) and not is_inflection(old, other))
    changed = [*words]
    changed[at] = other
    index = TextIndex(0.0)  # no candidate cut-off at all: only the rule decides
    index.add(0, " ".join(words))
    assert index.find(" ".join(changed)) is None

