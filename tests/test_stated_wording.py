"""A fact told to `remember` without a model is worded as the memory files word items, in the third person, and
one tied to a time is not standing (docs/spec.md §5, issue 38.10)."""

from __future__ import annotations

import pytest

from hylo_memory.decay import Dimension
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.extractors.offline.stated import third_person, time_bound


@pytest.mark.parametrize(("said", "worded"), [
    ("my sister Chloe is starting at Brown this fall", "Sister Chloe is starting at Brown this fall"),
    ("I don't drink", "Doesn't drink"),
    ("I do not drink", "Does not drink"),
    ("I haven't been to Japan", "Hasn't been to Japan"),
    ("I study at night", "Studies at night"),
    ("I go to the gym on Mondays", "Goes to the gym on Mondays"),
    ("I always take the train", "Always takes the train"),
    ("I moved to Berlin last year", "Moved to Berlin last year"),
    ("I can't swim", "Can't swim"),
    ("I'm allergic to peanuts", "Is allergic to peanuts"),
    ("I'm learning the cello", "Learning the cello"),
    ("I'm so tired this week", "Feeling so tired this week"),
    ("I'd rather get short answers", "Would rather get short answers"),
    ("I've been a teacher for ten years", "Has been a teacher for ten years"),
])
def test_an_english_fact_in_the_first_person_is_worded_verb_first(said: str, worded: str) -> None:
    assert third_person(said) == worded


def test_later_first_person_words_become_the_persons() -> None:
    assert third_person("I'm going to quit my job before I turn forty") == \
        "Going to quit their job before they turn forty"


def test_a_second_clause_in_the_first_person_is_worded_verb_first_too() -> None:
    assert third_person("I love cold brew and I drink it daily") == "Loves cold brew and drinks it daily"


def test_a_leading_time_moves_to_the_end() -> None:
    assert third_person("Today I'm really stressed about the deadline") == \
        "Feeling really stressed about the deadline today"


def test_a_title_in_quotes_keeps_its_words() -> None:
    assert third_person('I want to read "My Struggle" before I travel') == \
        'Wants to read "My Struggle" before they travel'


def test_someone_elses_words_in_quotes_are_left_as_said() -> None:
    assert third_person('My mom always says "I worry about you"') == 'Mom always says "I worry about you"'


@pytest.mark.parametrize("said", ["Always answer in English", "We love Lisbon", "Chloe is starting at Brown",
                                  "My wife and I live in Lisbon", "I'm Sam Rivera", "我们下周去日本"])
def test_a_fact_not_about_the_person_alone_is_left_in_their_words(said: str) -> None:
    assert third_person(said) == said


@pytest.mark.parametrize(("said", "worded"), [
    ("我妹妹Chloe今年秋天去布朗大学", "妹妹Chloe今年秋天去布朗大学"),
    ("我的哥哥张伟在深圳工作", "哥哥张伟在深圳工作"),
    ("我不喝酒。", "不喝酒"),
    ("今天我去了医院", "今天去了医院"),
    ("我很爱我的工作", "很爱自己的工作"),
])
def test_a_chinese_fact_loses_its_leading_wo(said: str, worded: str) -> None:
    assert third_person(said) == worded


@pytest.mark.parametrize(("said", "when"), [
    ("I'm flying to Tokyo tomorrow", "near"), ("I'm reading Dune at the moment", "near"),
    ("I currently live in Berlin", "near"), ("I started running last month", "past"), ("我最近在学吉他", "near"),
    ("I went to Paris recently", "past"), ("我上周去了杭州", "past"),
    ("我今天很累", "near"), ("my sister is starting at Brown this fall", "ahead"),
    ("I'm running a marathon next month", "ahead"), ("我下个月要搬到上海", "ahead"), ("我妹妹今年秋天去布朗大学", "ahead"),
    ("I'm vegetarian", None), ("I moved to Berlin last year", None), ("I never work on Sundays", None),
    ("我是素食者", None),
])
def test_a_fact_tied_to_a_time_is_near_ahead_or_past(said: str, when: str | None) -> None:
    assert time_bound(said) == when


@pytest.mark.parametrize(("said", "dimension"), [
    ("I'm flying to Tokyo tomorrow", Dimension.state), ("I currently work at Acme", Dimension.state),
    ("I'm taking a pottery class this fall", Dimension.goals), ("我明年要搬到上海", Dimension.goals),
])
def test_a_fact_tied_to_a_time_is_filed_under_goals_or_state_and_not_pinned(said: str, dimension: Dimension) -> None:
    decision = OfflineExtractor().classify(said, None, None)
    assert (decision.dimension, decision.pinned) == (dimension, False)


@pytest.mark.parametrize(("said", "dimension"), [
    ("I started a new job as a financial analyst at Acme last week", Dimension.identity),
    ("I was exhausted yesterday", Dimension.state),
])
def test_a_fact_of_a_time_just_past_stays_where_its_words_file_it_and_is_not_pinned(said: str,
                                                                                   dimension: Dimension) -> None:
    decision = OfflineExtractor().classify(said, None, None)
    assert (decision.dimension, decision.pinned) == (dimension, False)


def test_a_fact_tied_to_a_time_under_a_given_dimension_is_not_pinned_unless_asked() -> None:
    said = "My sister Chloe is starting at Brown this fall"
    assert OfflineExtractor().classify(said, Dimension.people, None).pinned is False
    assert OfflineExtractor().classify(said, Dimension.people, True).pinned is True
