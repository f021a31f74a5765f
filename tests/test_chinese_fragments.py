"""Fragments and non-facts from real vaults: what 我是/我想/我觉得 (and "I want to") must not make an item.

Each sentence below, or one of its kind, was kept from a real public vault before these rules: a game
level (我是 14 本滿防), the 是…的 emphasis (我是直接拖到 OneDrive 備份的, "I just dragged them there"),
a 觉得 with no claim (我觉得是两个非常实际的问题), a goal cut at a locative (我想跟老照片中), a
tutorial's "In this post I want to introduce…". The good statements of each kind are kept as before.
"""

from __future__ import annotations

import pytest
from vault_helpers import day

from hylo_memory.decay import Dimension
from hylo_memory.domain.sources import Source, SourceKind
from hylo_memory.extractors.base import AuthorProfile
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.extractors.offline.patterns import statements
from hylo_memory.extractors.offline.standalone import CUT_SHORT, NO_CLAIM, NOT_WHO, TO_A_READER, why_not_alone

I, P, G, B, S = Dimension.identity, Dimension.preferences, Dimension.goals, Dimension.beliefs, Dimension.state


# 我是…: an identity only when what follows is a noun phrase that can describe a person


@pytest.mark.parametrize("sentence", [
    "我是直接拖到 OneDrive 備份的，這裏就不贅述了。", "我是一隻用 Logseq 的轉發機器人存檔的。", "我是无法接受的。",
    "我是在北京出生的。", "我是被朋友推荐的。", "我是开玩笑的。",
])
def test_a_是的_emphasis_after_我是_is_not_an_identity(sentence: str) -> None:
    assert statements(sentence) == []


@pytest.mark.parametrize("sentence", [
    "我是創造了很多項目", "我是先自己在 Logseq 里摸索好用的 Tasks 流程，然后才知道 GTD。", "我是把一行字符串先读入。",
    "我是认识了很多人。", "我是想做一个工具给家人。",
])
def test_a_verb_phrase_after_我是_is_not_an_identity(sentence: str) -> None:
    assert statements(sentence) == []


@pytest.mark.parametrize("sentence", ["我是 14 本滿防", "我是 100 级。", "我是第一次用 Obsidian。", "我是 3 号。"])
def test_a_number_or_a_level_after_我是_is_not_an_identity(sentence: str) -> None:
    assert statements(sentence) == []


@pytest.mark.parametrize("sentence", ["我是指", "我是指，这个问题很难。", "我是說，早點走吧。", "我是因為太累了。",
                                      "我是為了省錢。"])
def test_我是指_and_its_kin_explain_and_say_nothing_of_the_person(sentence: str) -> None:
    assert statements(sentence) == []


@pytest.mark.parametrize("sentence", ["這對我是無法接受的。", "她說我是傻瓜。", "他們給我是最好的。"])
def test_我_after_對_說_給_in_traditional_characters_is_an_object_not_the_author(sentence: str) -> None:
    assert statements(sentence) == []


def test_what_the_person_is_to_you_is_not_an_identity() -> None:
    assert statements("我是你的主人。") == []


@pytest.mark.parametrize(("sentence", "wording"), [
    ("我是一名软件工程师。", "是一名软件工程师"), ("我是上海人。", "是上海人"), ("我是90后。", "是90后"),
    ("我是做设计的。", "是做设计的"), ("大家好，我是杨希杰。", "是杨希杰"), ("大家好，我是 Rudy。", "是Rudy"),
    ("我是从小在农村长大的人。", "是从小在农村长大的人"), ("我是独立开发者。", "是独立开发者"), ("我是INTJ。", "是INTJ"),
    ("我是过敏体质。", "是过敏体质"), ("我是两个孩子的妈妈。", "是两个孩子的妈妈"), ("我是著名作家。", "是著名作家"),
])
def test_a_noun_phrase_for_a_person_after_我是_is_still_an_identity(sentence: str, wording: str) -> None:
    assert statements(sentence) == [(I, wording)]


@pytest.mark.parametrize(("sentence", "wording"), [("我是素食者。", "是素食者"), ("我是吃素的。", "是吃素的")])
def test_a_diet_after_我是_is_still_a_preference(sentence: str, wording: str) -> None:
    assert statements(sentence) == [(P, wording)]


# 我想…: a goal cut off at a locative was cut short


@pytest.mark.parametrize("sentence", ["我想跟老照片中（见下图）", "我想从失败中，", "我想在家里，然后再说。", "我想对世界上"])
def test_a_goal_cut_off_at_a_locative_is_not_kept(sentence: str) -> None:
    assert statements(sentence) == []


@pytest.mark.parametrize(("sentence", "dimension", "wording"), [
    ("我想学日语。", G, "想学日语"), ("我想住在城里。", G, "想住在城里"), ("我想去山里。", G, "想去山里"),
    ("我想把照片放到网上。", G, "想把照片放到网上"), ("我想跟老照片中的自己合影。", G, "想跟老照片中的自己合影"),
    ("我喜欢待在家里。", P, "喜欢待在家里"), ("我喜欢早上和晚上。", P, "喜欢早上和晚上"),
])
def test_a_statement_ending_on_a_whole_place_or_time_is_still_kept(sentence: str, dimension: Dimension,
                                                                   wording: str) -> None:
    assert statements(sentence) == [(dimension, wording)]


# 我觉得…: a belief only with a clause that makes a claim of its own


@pytest.mark.parametrize("sentence", [
    "我觉得是两个非常实际的问题。", "我觉得是最容易上手的。", "我认为是时间问题。", "我觉得应该是数据结构与算法的题目。",
    "我相信也是会有效。",
])
def test_觉得是_with_no_subject_of_its_own_makes_no_claim(sentence: str) -> None:
    assert statements(sentence) == []


@pytest.mark.parametrize("sentence", [
    "其中我觉得比较有意思的几篇 Quad-Net，其中后两篇是end-to-end的。", "这几年我觉得比较有突破性的工作，一个是L2-Net。",
    "我认为人生最重要的三件事。", "我觉得最原始的 GAN 的 Paper，",
])
def test_觉得_with_only_a_noun_phrase_makes_no_claim(sentence: str) -> None:
    assert statements(sentence) == []


@pytest.mark.parametrize("sentence", ["我觉得很有意思。", "我觉得非常惊人喔。", "我觉得就比较单纯。"])
def test_觉得_with_a_degree_and_no_subject_is_a_comment_not_a_belief(sentence: str) -> None:
    assert statements(sentence) == []


@pytest.mark.parametrize(("sentence", "wording"), [
    ("我觉得小团队更有效率。", "觉得小团队更有效率"), ("我觉得教育很重要。", "觉得教育很重要"),
    ("我认为简单的技术更可靠。", "认为简单的技术更可靠"), ("我觉得写代码是最快乐的事。", "觉得写代码是最快乐的事"),
    ("我觉得最重要的是健康。", "觉得最重要的是健康"), ("我觉得是时候换工作了。", "觉得是时候换工作了"),
    ("我认为最好的方法是多练习。", "认为最好的方法是多练习"), ("我觉得很多人不懂得休息。", "觉得很多人不懂得休息"),
    ("我相信努力的力量。", "相信努力的力量"),
])
def test_觉得_with_a_claim_of_its_own_is_still_a_belief(sentence: str, wording: str) -> None:
    assert statements(sentence) == [(B, wording)]


def test_觉得_and_a_mood_is_still_a_state() -> None:
    assert statements("我觉得很疲惫。") == [(S, "觉得很疲惫")]


# Writing to a reader: what a text sets out to do is not a goal of the person's


@pytest.mark.parametrize("sentence", [
    "In this post I want to introduce some basic concepts of Spark.", "In this article, I plan to cover the basics.",
    "Here I want to show how Neovim loads plugins.", "This post will explain why I want to move to Berlin.",
    "Today I want to talk about Raft.", "In this video I want to explain consensus.", "本文我想介绍一下 Spark。",
    "这篇文章里我想学日语的原因都写下来了。",
])
def test_a_sentence_about_the_text_itself_gives_no_goal(sentence: str) -> None:
    assert statements(sentence) == []


@pytest.mark.parametrize("sentence", [
    "I want to introduce some basic concepts of Spark.", "I want to share my Neovim config.",
    "I want to show you how vacuum works.", "I want to walk you through the migration.", "I'd like to show you my setup.",
    "Let me explain how MVCC works.", "I want to thank your parents.", "我想和大家分享一下我的工作流。",
    "我想告诉你一些 Octave 的工具。", "我想讨论机器学习中的一些大思想。", "我希望能帮你成为最优秀的人才。",
])
def test_a_goal_written_to_a_reader_is_not_kept(sentence: str) -> None:
    assert statements(sentence) == []


@pytest.mark.parametrize(("sentence", "wording"), [
    ("I want to run a marathon.", "Wants to run a marathon"),
    ("Today I want to run ten kilometres.", "Wants to run ten kilometres"),
    ("I want to introduce my partner to my parents.", "Wants to introduce their partner to their parents"),
    ("I want to share a flat with Ana.", "Wants to share a flat with Ana"),
    ("我想谈恋爱。", "想谈恋爱"), ("我明年想去日本。", "明年想去日本"),
])
def test_a_goal_of_the_persons_own_is_still_kept(sentence: str, wording: str) -> None:
    assert statements(sentence) == [(G, wording)]


# The same judgements, as the LLM's items meet them


@pytest.mark.parametrize(("text", "reason"), [
    ("是直接拖到OneDrive备份的", NOT_WHO), ("是创造了很多项目", NOT_WHO), ("是14本满防", NOT_WHO),
    ("是指", CUT_SHORT), ("想跟老照片中", CUT_SHORT),
    ("觉得是两个非常实际的问题", NO_CLAIM), ("觉得比较有意思的几篇 Quad-Net", NO_CLAIM),
    ("Wants to introduce some basic concepts of Spark", TO_A_READER), ("Wants to thank your parents", TO_A_READER),
    ("想和大家分享", TO_A_READER),
])
def test_an_llm_item_of_these_kinds_is_dropped_with_its_reason(text: str, reason: str) -> None:
    assert why_not_alone(text) == reason


@pytest.mark.parametrize("text", ["是素食者", "是吃素的", "是一名软件工程师", "住在上海", "想学日语", "觉得小团队更有效率",
                                  "Wants to run a marathon"])
def test_an_llm_item_that_states_a_fact_still_stands(text: str) -> None:
    assert why_not_alone(text) is None


def test_the_extractor_keeps_a_notes_facts_and_drops_its_fragments() -> None:
    note = ("我是素食者。我是直接拖到 OneDrive 備份的。我住在上海。我觉得是两个非常实际的问题。我想学日语。"
            "我想跟老照片中（见下图）。我觉得小团队更有效率。我是 14 本滿防。我是一名软件工程师。"
            "In this post I want to introduce some basic concepts of Spark.")
    unit = Source(path="_shorts/2026-11-29-a.md", kind=SourceKind.short, date=day("2026-11-29"), text=note,
                  content_hash="h")
    evidence = OfflineExtractor().extract([unit], AuthorProfile(), []).evidence
    assert [(e.dimension, e.text) for e in evidence] == [
        (P, "是素食者"), (I, "住在上海"), (G, "想学日语"), (B, "觉得小团队更有效率"), (I, "是一名软件工程师"),
    ]
