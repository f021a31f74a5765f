"""A review's answer read pair by pair (docs/spec.md §3.1): what is kept, what is refused and why, and every pair
judged; an answer that is not the JSON asked for is no answer."""

from __future__ import annotations

import datetime as dt

import pytest

from hylo_memory.decay import Dimension
from hylo_memory.extractors.llm.llm_errors import InvalidReply
from hylo_memory.extractors.llm.review import Judgement, ReviewItem, read_review, review_handout

DAY = dt.date(2026, 11, 30)
STUDENT = ReviewItem(dimension=Dimension.identity, text="Student at the University of Chicago", last=DAY)
SENIOR = ReviewItem(dimension=Dimension.identity, text="Rising senior at the University of Chicago", last=DAY)
LOVES = ReviewItem(dimension=Dimension.preferences, text="Loves cold brew", last=DAY)
HATES = ReviewItem(dimension=Dimension.preferences, text="Hates cold brew", last=DAY)
HANDOUT = review_handout([(STUDENT, SENIOR), (LOVES, HATES)])  # numbered 1, 2 (identity), 3, 4 (preferences)


def refused(judgement: Judgement) -> dict[str, str]:
    return {r.entry: r.reason for r in judgement.refused}


def test_the_items_are_numbered_dimension_by_dimension_and_the_pairs_by_them() -> None:
    assert [(i.number, i.text) for i in HANDOUT.items] == [(1, STUDENT.text), (2, SENIOR.text), (3, LOVES.text),
                                                           (4, HATES.text)]
    assert HANDOUT.pairs == [(1, 2), (3, 4)]


def test_a_same_and_a_contradicts_are_kept_by_their_texts() -> None:
    judgement = read_review(HANDOUT, {"same": [[1, 2]], "contradicts": [[4, 3]]})
    assert [(j.first, j.second) for j in judgement.same] == [(STUDENT.text, SENIOR.text)]
    assert [(j.first, j.second, j.dimension) for j in judgement.contradicts] == [(HATES.text, LOVES.text,
                                                                                  Dimension.preferences)]
    assert judgement.refused == []


def test_a_pair_across_dimensions_is_refused() -> None:
    judgement = read_review(HANDOUT, {"same": [[1, 3]]})
    assert refused(judgement) == {"[1, 3]": "item 1 is in identity, item 3 in preferences: a pair is within one "
                                            "dimension"}


def test_a_pair_given_both_ways_is_refused_both_times() -> None:
    judgement = read_review(HANDOUT, {"same": [[1, 2]], "contradicts": [[2, 1]]})
    assert judgement.same == [] and judgement.contradicts == []
    assert [r.verdict for r in judgement.refused] == ["same", "contradicts"]


@pytest.mark.parametrize(("entry", "reason"), [
    ([1], "not a pair of two item numbers"), ([1, "2"], "not a pair of two item numbers"),
    ([1, True], "not a pair of two item numbers"), ([1, 7], "no item 7 in this batch"),
    ([2, 2], "a pair of item 2 with itself"),
])
def test_an_entry_that_names_no_pair_of_the_batch_is_refused(entry: list[object], reason: str) -> None:
    judgement = read_review(HANDOUT, {"same": [entry, [1, 2]]})
    assert list(refused(judgement).values()) == [reason] and len(judgement.same) == 1


def test_every_pair_shown_and_every_pair_named_is_judged() -> None:
    judgement = read_review(HANDOUT, {"same": [[3, 4]], "contradicts": []})
    assert set(judgement.judged) == {(Dimension.identity, SENIOR.text, STUDENT.text),
                                     (Dimension.preferences, HATES.text, LOVES.text)}


@pytest.mark.parametrize("answer", ['{"same": [[1, 2]]}', '```json\n{"same": [[1, 2]], "contradicts": []}\n```'])
def test_the_answer_may_be_json_as_text(answer: str) -> None:
    assert len(read_review(HANDOUT, answer).same) == 1


@pytest.mark.parametrize("answer", [[], {}, {"same": [], "contradicts": []}, {"preferences": []}])
def test_an_empty_answer_judges_every_pair_two_facts(answer: object) -> None:
    judgement = read_review(HANDOUT, answer)
    assert judgement.same == judgement.contradicts == judgement.refused == [] and len(judgement.judged) == 2


@pytest.mark.parametrize("answer", ["not json", [[1, 2]], {"evidence": [{"text": "x"}]}, {"same": "1, 2"}])
def test_an_answer_that_is_not_a_review_is_no_answer(answer: object) -> None:
    with pytest.raises(InvalidReply):
        read_review(HANDOUT, answer)
