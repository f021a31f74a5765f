"""The offline patterns pass over a sentence no rule can match at once: never a rule that does match."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples

from hylo_memory.domain.dimensions import clean_text
from hylo_memory.extractors.offline.patterns import _ANCHOR_LETTERS, RULES, rules_for, statements

FRAGMENTS = ["I", "i", "I'm", "I’m", "I've", "my", "My", "MY", "love", "don't", "like", "want to", "work at", "Acme",
             "sister", "Ana", "live in", "Porto", "feel", "tired", "believe", "that", "think", "prefer", "tea", ",",
             ".", "in", "it", "myself", "我", "我们", "喜欢", "不", "喝茶", "最近", "压力很大", "住在", "上海", "妹妹",
             "王芳", "叫", "是", "的", "觉得", "目标", "今年", "想", "学", "。", "，", "[[", "]]", "**", "#tag", "\n"]


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=14).map(" ".join))
def test_every_rule_that_matches_a_sentence_is_tried_on_it(sentence: str) -> None:
    tried = rules_for(sentence)
    assert [rule for rule in RULES if rule[1].search(sentence)] == [rule for rule in tried if rule[1].search(sentence)]


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(st.sampled_from([*FRAGMENTS, "\x1b[1m", "\x07", "\u0130", "\u0131", "ＩＭ", "\t", " ", " "]), max_size=14).map("".join))
def test_a_sentence_passed_over_before_cleaning_is_tried_by_no_rule_once_cleaned(sentence: str) -> None:
    if not _ANCHOR_LETTERS.search(sentence):
        assert rules_for(clean_text(sentence)) == []


def test_a_sentence_with_no_i_my_or_我_is_tried_by_no_rule() -> None:
    assert rules_for("这是关于数据库的一些想法，记录下来以后再整理") == []
    assert rules_for("The meeting ran long and nobody minded") == []


def test_statements_are_still_found_in_both_languages() -> None:
    found = statements("I love hiking in the Alps. 我喜欢喝茶。My sister Ana lives in Porto. 最近我压力很大。")
    assert [wording for _, wording in found] == ["Loves hiking in the Alps", "喜欢喝茶", "Ana — sister", "最近压力很大"]
