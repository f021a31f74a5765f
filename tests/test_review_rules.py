"""A reader's review of the memory, the pure part (docs/spec.md §3.1): which pairs are asked about, and what a
judgement does — `same` merges by rule F, `contradicts` supersedes by rule H, and what the rules never allow is
refused pair by pair."""

from __future__ import annotations

import datetime as dt

import pytest
from engine_helpers import FROZEN_DAY, ago, item_line, memory_text, section_of

from hylo_memory.decay import Dimension, MemoryFile, parse, render
from hylo_memory.decay.alike import alike_pairs
from hylo_memory.decay.review import apply_review
from hylo_memory.domain.dimensions import ACTIVE, FADING

STUDENT = "Student at the University of Chicago"
SENIOR = "Rising senior at the University of Chicago"
STUDIES = "Studies Economics and Psychology at the University of Chicago"
READER = "assistant (tester)"


@pytest.fixture
def today() -> dt.date:
    return dt.date.fromisoformat(FROZEN_DAY)


def identity(*lines: str, fading: tuple[str, ...] = ()) -> MemoryFile:
    return parse(memory_text(active=list(lines), fading=list(fading), window=365), Dimension.identity)


def pairs_of(texts: list[str]) -> set[frozenset[str]]:
    return {frozenset((texts[p.first], texts[p.second])) for p in alike_pairs(texts)}


# Which pairs are asked about


def test_rewordings_sharing_their_rarer_words_are_asked_about() -> None:
    texts = [STUDENT, SENIOR, STUDIES, "Plays the piano", "Owns a dog"]
    assert {frozenset((STUDENT, SENIOR)), frozenset((STUDENT, STUDIES))} <= pairs_of(texts)


def test_opposites_are_asked_about() -> None:
    assert frozenset(("Loves cold brew", "Hates cold brew")) in pairs_of(["Loves cold brew", "Hates cold brew",
                                                                          "Plays the piano"])


def test_unrelated_items_are_not_asked_about() -> None:
    assert pairs_of(["Plays the piano", "Owns a dog", "Lives in Lisbon", "Works as a nurse"]) == set()


def test_one_word_shared_of_two_or_more_makes_no_pair() -> None:
    assert pairs_of(["Likes jazz", "Likes tea", "Likes hiking", "Lives in Lisbon", "Lives in Porto"]) == set()


def test_a_word_most_items_hold_does_not_count() -> None:
    likings = [f"Likes {thing} music" for thing in ("jazz", "rock")] + [f"Likes {thing}" for thing in
                                                                        ("tea", "chess", "hiking", "baking", "kayaking",
                                                                         "sushi", "opera", "cycling")]
    assert pairs_of(likings) == set()
    assert pairs_of(likings[:2] + ["Owns a dog"]) == {frozenset(likings[:2])}


def test_a_pair_alike_by_meaning_alone_is_asked_about_when_the_model_says_so() -> None:
    texts = ["Prefers terse, factual answers", "Likes short direct replies", "Owns a dog"]
    assert alike_pairs(texts) == []
    found = alike_pairs(texts, {(0, 1): 0.891})
    assert [(p.first, p.second) for p in found] == [(0, 1)]


def test_the_most_alike_pairs_come_first() -> None:
    texts = ["Uses Obsidian for notes", "Writes notes in Obsidian", STUDENT, SENIOR]
    found = alike_pairs(texts, {(2, 3): 0.93})
    assert [(p.first, p.second) for p in found] == [(2, 3), (0, 1)]


# same: rule F


def test_same_merges_two_items_seen_summed_the_later_last_active_if_either_was(today: dt.date) -> None:
    memory = identity(item_line(STUDENT, ago(today, 40), seen=3), fading=(item_line(SENIOR, ago(today, 400), seen=2),))
    after, changes, refused = apply_review(memory, [(STUDENT, SENIOR)], [], today, READER)
    assert refused == []
    assert section_of(after, SENIOR) == (ACTIVE, after.active[0]) and len(after.items) == 1
    kept = after.active[0]
    assert (kept.seen, kept.last, kept.pinned) == (5, ago(today, 40), False)
    assert [(m.kept, m.dropped) for m in changes.merged] == [(SENIOR, STUDENT)]


def test_same_keeps_the_fuller_wording_though_the_other_is_more_seen(today: dt.date) -> None:
    memory = identity(item_line(STUDENT, ago(today, 5), seen=9), item_line(STUDIES, ago(today, 50), seen=1))
    after, changes, _ = apply_review(memory, [(STUDENT, STUDIES)], [], today, READER)
    assert [i.text for i in after.items] == [STUDIES]
    assert [(m.kept, m.dropped) for m in changes.merged] == [(STUDIES, STUDENT)]


def test_same_keeps_a_pinned_items_wording_and_the_pin(today: dt.date) -> None:
    memory = identity(item_line(STUDENT, ago(today, 5), pinned=True), item_line(STUDIES, ago(today, 1)))
    after, _, _ = apply_review(memory, [(STUDIES, STUDENT)], [], today, READER)
    assert [(i.text, i.pinned, i.last) for i in after.items] == [(STUDENT, True, ago(today, 1))]


def test_three_wordings_judged_in_two_pairs_become_one_item(today: dt.date) -> None:
    memory = identity(*(item_line(t, ago(today, 10)) for t in (STUDENT, SENIOR, STUDIES)))
    after, changes, refused = apply_review(memory, [(STUDENT, SENIOR), (STUDENT, STUDIES), (SENIOR, STUDIES)], [],
                                           today, READER)
    assert [(i.text, i.seen) for i in after.items] == [(STUDIES, 3)] and refused == []
    assert {m.dropped for m in changes.merged} == {STUDENT, SENIOR} and {m.kept for m in changes.merged} == {STUDIES}


def test_a_merged_file_is_dated_today_and_a_second_review_of_it_changes_nothing(today: dt.date) -> None:
    memory = identity(item_line(STUDENT, ago(today, 10)), item_line(SENIOR, ago(today, 10)))
    after, _, _ = apply_review(memory, [(STUDENT, SENIOR)], [], today, READER)
    assert after.last_updated == today
    again, changes, refused = apply_review(parse(render(after), Dimension.identity), [(STUDENT, SENIOR)], [], today,
                                           READER)
    assert render(again) == render(after) and changes.merged == [] and refused[0].reason.startswith("no longer")


# What `same` refuses


@pytest.mark.parametrize(("first", "second", "reason"), [
    ("Loves cold brew", "Hates cold brew", "polarity"),
    ("Eats meat", "No longer eats meat", "polarity"),
    ("Sister Maria is a doctor", "Sister Marta is a doctor", "different names"),
    ("Is 34 years old", "Is 43 years old", "different names"),
])
def test_same_refuses_two_texts_the_rules_never_take_as_one_fact(today: dt.date, first: str, second: str,
                                                                 reason: str) -> None:
    memory = identity(item_line(first, ago(today, 10)), item_line(second, ago(today, 5)))
    after, changes, refused = apply_review(memory, [(first, second)], [], today, READER)
    assert render(after) == render(memory) and changes.merged == []
    assert [(r.verdict, r.first, r.second) for r in refused] == [("same", first, second)]
    assert reason in refused[0].reason


def test_same_allows_a_wording_that_adds_a_name(today: dt.date) -> None:
    memory = identity(item_line(STUDENT, ago(today, 10)), item_line(STUDIES, ago(today, 5)))
    _, changes, refused = apply_review(memory, [(STUDENT, STUDIES)], [], today, READER)
    assert refused == [] and len(changes.merged) == 1


# contradicts: rule H


def test_contradicts_fades_the_older_at_once_last_and_seen_unchanged(today: dt.date) -> None:
    memory = identity(item_line("Lives in Lisbon", ago(today, 60), seen=4), item_line("Moved to Porto", ago(today, 3)))
    after, changes, refused = apply_review(memory, [], [("Moved to Porto", "Lives in Lisbon")], today, READER)
    assert refused == []
    assert section_of(after, "Lives in Lisbon") == (FADING, after.fading[0])
    assert (after.fading[0].seen, after.fading[0].last) == (4, ago(today, 60))
    assert [(s.text, s.by) for s in changes.superseded] == [("Lives in Lisbon", "Moved to Porto")]


def test_contradicts_never_moves_a_pinned_item_and_reports_the_conflict(today: dt.date) -> None:
    memory = identity(item_line("Lives in Lisbon", ago(today, 60), pinned=True), item_line("Moved to Porto", ago(today, 3)))
    after, changes, _ = apply_review(memory, [], [("Moved to Porto", "Lives in Lisbon")], today, READER)
    assert section_of(after, "Lives in Lisbon") == (ACTIVE, after.active[0]) and changes.superseded == []
    assert [(c.pinned, c.evidence, c.source) for c in changes.conflicts] == [
        ("Lives in Lisbon", "Moved to Porto", READER)]


def test_contradicts_refuses_an_older_item_seen_after_the_newer(today: dt.date) -> None:
    memory = identity(item_line("Lives in Lisbon", ago(today, 2)), item_line("Moved to Porto", ago(today, 30)))
    after, changes, refused = apply_review(memory, [], [("Moved to Porto", "Lives in Lisbon")], today, READER)
    assert render(after) == render(memory) and changes.superseded == []
    assert "seen after the newer" in refused[0].reason


def test_a_pair_naming_an_item_no_longer_in_the_file_is_refused(today: dt.date) -> None:
    memory = identity(item_line(STUDENT, ago(today, 10)))
    _, _, refused = apply_review(memory, [(STUDENT, SENIOR)], [("Moved to Porto", STUDENT)], today, READER)
    assert [r.verdict for r in refused] == ["same", "contradicts"]
    assert all(r.reason.startswith("no longer in the file") for r in refused)


def test_an_item_is_paired_with_its_closest_few_not_with_every_item_alike() -> None:
    from hylo_memory.decay.alike import PER_ITEM, alike_pairs

    texts = [f"Enjoys {n} mornings" for n in range(30)]
    close = {(i, j): 0.9 for i in range(30) for j in range(i + 1, 30)}  # all alike to the model's eye
    pairs = alike_pairs(texts, close)
    assert len(pairs) <= PER_ITEM * len(texts)
    assert all(sum(i in (p.first, p.second) for p in pairs) >= 1 for i in range(30))


def test_two_people_items_naming_different_people_are_never_asked_about() -> None:
    from hylo_memory.decay import Dimension
    from hylo_memory.decay.review import other_people

    assert other_people(Dimension.people, "Matthew Yockney — pool friend", "Jason Wohnseidler — pool friend")
    assert not other_people(Dimension.people, "Ines — sister", "Ines — younger sister, lives in Porto")
    assert not other_people(Dimension.identity, "Lives in Lisbon", "Lives in Porto")  # these may contradict
