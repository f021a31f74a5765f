"""`remember` without a model, on a labelled set written for the test (docs/spec.md §5, issue 38.10): the fact is
worded in the third person as the memory files word items ("my sister Chloe …" → "Sister Chloe …"), filed where
it belongs, and pinned only when it is a standing fact or preference, never when it is tied to a time ("this fall",
"today", 最近, 下个月)."""

from __future__ import annotations

import pytest

from hylo_memory.decay import Dimension
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.remember import decide

I, P, G, B, PE, S = (Dimension.identity, Dimension.preferences, Dimension.goals, Dimension.beliefs,
                     Dimension.people, Dimension.state)

# (what the person says, the acceptable wordings, the file, pinned)
LABELLED: list[tuple[str, tuple[str, ...], Dimension, bool]] = [
    # English: standing facts and preferences, pinned
    ("I'm vegetarian", ("Is vegetarian", "Vegetarian"), P, True),
    ("I love cold brew", ("Loves cold brew",), P, True),
    ("I work at Acme as a designer", ("Works at Acme as a designer", "Works as a designer at Acme"), I, True),
    ("I don't drink", ("Doesn't drink",), P, True),
    ("please remember I live in Porto", ("Lives in Porto",), I, True),
    ("Please remember that I prefer terse answers", ("Prefers terse answers",), P, True),
    ("I'm allergic to peanuts", ("Is allergic to peanuts", "Allergic to peanuts"), I, True),
    ("I have two kids", ("Has two kids",), I, True),
    ("I believe kindness matters more than being right", ("Believes kindness matters more than being right",), B,
     True),
    ("I think that remote work is here to stay", ("Thinks remote work is here to stay",), B, True),
    ("My name is Sam Rivera", ("Name is Sam Rivera",), I, True),
    ("I'm from Lagos", ("Is from Lagos",), I, True),
    ("I speak Portuguese and French", ("Speaks French and Portuguese", "Speaks Portuguese and French"), I, True),
    ("My partner Alex is a nurse", ("Partner Alex is a nurse",), PE, True),
    ("I usually work late at night", ("Usually works late at night",), P, True),
    ("I never eat breakfast", ("Never eats breakfast",), P, True),
    ("I've been a teacher for ten years", ("Has been a teacher for ten years",), I, True),
    ("I can't stand loud restaurants", ("Dislikes loud restaurants", "Can't stand loud restaurants"), P, True),
    ("Always answer in English", ("Always answer in English",), P, True),
    ("I'm a night owl", ("Is a night owl",), P, True),
    ("My dog Biscuit is a golden retriever", ("Dog Biscuit is a golden retriever",), PE, True),
    ("I moved to Berlin last year", ("Moved to Berlin last year",), I, True),
    ("I don't like cilantro", ("Doesn't like cilantro", "Dislikes cilantro"), P, True),
    ("I'd rather get answers in bullet points", ("Would rather get answers in bullet points",), P, True),
    ("My brother lives in Toronto", ("Brother lives in Toronto",), PE, True),
    ("I use Neovim for everything", ("Uses Neovim for everything",), P, True),
    ("I hate being interrupted", ("Dislikes being interrupted", "Hates being interrupted"), P, True),
    ("I value honesty above everything", ("Values honesty above everything",), B, True),
    ("Please remember: I'm not a morning person", ("Is not a morning person", "Isn't a morning person"), P, True),
    # English: goals and what is tied to a time, not pinned
    ("Remember that my sister Chloe is starting at Brown this fall",
     ("Sister Chloe is starting at Brown this fall",), PE, False),
    ("my goal is to run a marathon", ("Goal: run a marathon", "Wants to run a marathon"), G, False),
    ("I want to learn Japanese", ("Wants to learn Japanese",), G, False),
    ("I'm exhausted this week", ("Feeling exhausted this week", "Exhausted this week", "Is exhausted this week"), S,
     False),
    ("I'm feeling anxious about the move right now", ("Feeling anxious about the move right now",), S, False),
    ("I'm flying to Tokyo tomorrow", ("Flying to Tokyo tomorrow", "Is flying to Tokyo tomorrow"), S, False),
    ("I started running last month", ("Started running last month",), S, False),
    ("I'm training for the Berlin marathon next month", ("Training for the Berlin marathon next month",), G, False),
    ("I'm working on a novel at the moment", ("Working on a novel at the moment",), G, False),
    ("I'm currently between jobs", ("Currently between jobs", "Is currently between jobs"), S, False),
    ("I have a dentist appointment today", ("Has a dentist appointment today",), S, False),
    ("Today I'm really stressed about the deadline",
     ("Feeling really stressed about the deadline today", "Really stressed about the deadline today"), S, False),
    ("I'm learning to play the cello", ("Learning to play the cello", "Is learning to play the cello"), G, False),
    ("I feel burned out lately", ("Feeling burned out lately", "Feels burned out lately"), S, False),
    ("I'm going to quit my job next month", ("Going to quit their job next month",), G, False),
    ("I'm obsessed with Wordle right now", ("Is obsessed with Wordle right now", "Obsessed with Wordle right now"), S,
     False),
    ("I'm reading Dune at the moment", ("Reading Dune at the moment",), S, False),
    # Chinese: standing facts and preferences, pinned
    ("我是素食者", ("是素食者", "素食者"), P, True),
    ("我喜欢冷萃咖啡", ("喜欢冷萃咖啡",), P, True),
    ("记住我不喝酒", ("不喝酒",), P, True),
    ("请记住我住在杭州", ("住在杭州",), I, True),
    ("我在一家设计公司工作", ("在一家设计公司工作",), I, True),
    ("我觉得每个人都应该学会做饭", ("觉得每个人都应该学会做饭",), B, True),
    ("我的猫叫Milo", ("猫叫Milo",), PE, True),
    ("我不吃辣", ("不吃辣",), P, True),
    ("我讨厌早起", ("讨厌早起",), P, True),
    ("我有两个孩子", ("有两个孩子",), I, True),
    ("我是一名护士", ("是一名护士",), I, True),
    ("我相信努力会有回报", ("相信努力会有回报",), B, True),
    ("请记住，我的哥哥张伟在深圳工作", ("哥哥张伟在深圳工作",), PE, True),
    ("我喜欢简短的回答", ("喜欢简短的回答",), P, True),
    # Chinese: goals and what is tied to a time, not pinned
    ("我妹妹Chloe今年秋天去布朗大学", ("妹妹Chloe今年秋天去布朗大学",), PE, False),
    ("帮我记一下，我的目标是跑完一场马拉松", ("目标是跑完一场马拉松",), G, False),
    ("我今天很累", ("今天很累",), S, False),
    ("我这周在准备考试", ("这周在准备考试",), G, False),
    ("我最近在学吉他", ("最近在学吉他",), G, False),
    ("我下个月要搬到上海", ("下个月要搬到上海",), G, False),
    ("我现在心情很好", ("现在心情很好",), S, False),
    ("我明天要去北京出差", ("明天要去北京出差",), S, False),
    ("我想在三十岁之前买房", ("想在三十岁之前买房",), G, False),
    ("今天我去了医院", ("今天去了医院",), S, False),
    ("我目前在找工作", ("目前在找工作",), G, False),
]

OFFLINE = Config(extractor="offline")


def wrong_answers() -> list[str]:
    """Each labelled statement `remember` gets wrong offline, with what it did."""
    wrong = []
    for said, wordings, dimension, pinned in LABELLED:
        got = decide(said, None, None, OFFLINE)
        if (got.text, got.dimension, got.pinned) not in {(w, dimension, pinned) for w in wordings}:
            wrong.append(f"{said!r}: {got.text!r} {got.dimension.value} {'pinned' if got.pinned else 'not pinned'}"
                         f" (want {wordings[0]!r} {dimension.value} {'pinned' if pinned else 'not pinned'})")
    return wrong


def test_remember_offline_words_files_and_pins_the_labelled_set() -> None:
    wrong = wrong_answers()
    right = 1 - len(wrong) / len(LABELLED)
    print(f"\nremember offline, labelled set: {right:.0%} fully right ({len(LABELLED) - len(wrong)}/{len(LABELLED)})")
    assert right >= 0.9, "\n".join(wrong)


def test_the_labelled_set_is_large_and_in_both_languages() -> None:
    chinese = [said for said, *_ in LABELLED if any("\u4e00" <= ch <= "\u9fff" for ch in said)]
    assert len(LABELLED) >= 40 and 15 <= len(chinese) <= len(LABELLED) - 15
    assert {d for *_, d, _ in LABELLED} == set(Dimension)


@pytest.mark.parametrize(("said", "wording"), [
    ("Remember that my sister Chloe is starting at Brown this fall", "Sister Chloe is starting at Brown this fall"),
    ("我妹妹Chloe今年秋天去布朗大学", "妹妹Chloe今年秋天去布朗大学"),
])
def test_the_trial_fact_is_worded_in_the_third_person_and_not_pinned(said: str, wording: str) -> None:
    got = decide(said, None, None, OFFLINE)
    assert (got.text, got.pinned) == (wording, False)
