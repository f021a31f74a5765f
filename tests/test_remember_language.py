"""The person's language (docs/spec.md §5, issue 10.7): `remember` and a refresh keep Chinese as Chinese and English as
English, offline; the request around a fact is not the fact; status and the summary read well with CJK text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from vault_helpers import MEMORY, items, short

from hylo_memory.decay import Dimension
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.operations.remember import the_fact

TODAY = "2026-11-30"
I, P, G, B, PE, S = (Dimension.identity, Dimension.preferences, Dimension.goals, Dimension.beliefs, Dimension.people,
                     Dimension.state)


def remember(vault: Path, text: str) -> str:
    result = hylo("remember", text, "--vault", vault, "--today", TODAY)
    assert result.exit_code == 0, result.stderr
    return one_line(result.stdout)


# Each case of issue 10.7, through the command line: (said, file's dimension, wording kept, pinned)
CASES = [
    ("我是素食者", P, "是素食者", True),
    ("记住我是素食者", P, "是素食者", True),
    ("请记住：我是素食者", P, "是素食者", True),
    ("记得我住在北京", I, "住在北京", True),
    ("我最近压力很大", S, "最近压力很大", False),
    ("我今天很开心。", S, "今天很开心", False),
    ("我的目标是明年学会游泳", G, "目标是明年学会游泳", False),
    ("我想学会游泳", G, "想学会游泳", False),
    ("张伟是我的哥哥", PE, "张伟 — 哥哥", True),
    ("我的妹妹小红", PE, "小红 — 妹妹", True),
    ("我觉得教育很重要", B, "觉得教育很重要", True),
    ("我在腾讯工作", I, "在腾讯工作", True),
    ("我喜欢喝茶", P, "喜欢喝茶", True),
    ("I'm vegetarian", P, "Is vegetarian", True),
    ("Remember that I'm vegetarian", P, "Is vegetarian", True),
    ("please remember: I'm vegetarian", P, "Is vegetarian", True),
    ("I work in Beijing as a software engineer", I, "Works as a software engineer in Beijing", True),
    ("I live in Lisbon", I, "Lives in Lisbon", True),
    ("my sister Ines", PE, "Ines — sister", True),
    # not read whole by a pattern: the person's own words stand in the third person, filed where the pattern files them
    ("我的妹妹小红住在上海", PE, "妹妹小红住在上海", True),
    ("My sister Ines lives in Porto", PE, "Sister Ines lives in Porto", True),
    ("I'm so tired this week", S, "Feeling so tired this week", False),
    ("我今天去了医院", S, "今天去了医院", False),
    # tied to a time: not pinned (issue 38.10)
    ("Remember that my sister Chloe is starting at Brown this fall", PE, "Sister Chloe is starting at Brown this fall",
     False),
    ("帮我记一下，我下个月要搬到上海", G, "下个月要搬到上海", False),
    ("Always answer in English", P, "Always answer in English", True),
    ("总是用中文回答", P, "总是用中文回答", True),
]


@pytest.mark.parametrize(("said", "dimension", "wording", "pinned"), CASES, ids=[c[0] for c in CASES])
def test_remember_files_the_fact_in_its_language(
        tmp_path: Path, said: str, dimension: Dimension, wording: str, pinned: bool) -> None:
    out = remember(tmp_path, said)
    assert f'"{wording}" in {dimension.filename}' in out
    assert ("(seen 1, pinned)" if pinned else "(seen 1, not pinned, it will fade)") in out and "offline" in out
    assert items(tmp_path, dimension) == {wording: ("Active", 1, pinned)}
    # no other file was written
    assert [p.name for p in (tmp_path / MEMORY).glob("_*.md")] == [dimension.filename]


@pytest.mark.parametrize(("asked", "stated"), [
    ("记住我是素食者", "我是素食者"),
    ("请记住我是素食者", "我是素食者"),
    ("Remember that I'm vegetarian", "I'm vegetarian"),
    ("please remember: I'm vegetarian", "I'm vegetarian"),
])
def test_asking_and_stating_are_one_item(tmp_path: Path, asked: str, stated: str) -> None:
    remember(tmp_path, asked)
    assert "Refreshed" in remember(tmp_path, stated)
    [(text, (_, seen, _))] = items(tmp_path, P).items()
    assert seen == 2 and "emember" not in text and "记" not in text


@pytest.mark.parametrize(("said", "fact"), [
    ("please remember:I'm vegetarian", "I'm vegetarian"),
    ("remember：我是素食者", "我是素食者"),
    ("记住，我是素食者", "我是素食者"),
    ("Please remember that 我是素食者", "我是素食者"),
    ("Note-taking is fun", "Note-taking is fun"),
])
def test_the_request_is_stripped_in_either_language_and_punctuation(said: str, fact: str) -> None:
    assert the_fact(said) == fact


def test_stating_a_fact_in_a_note_and_to_remember_is_one_item(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "我是素食者。我住在北京。")
    assert hylo("refresh", "--vault", tmp_path, "--extractor", "offline", "--today", TODAY).exit_code == 0
    assert "Refreshed" in remember(tmp_path, "记住我是素食者")
    assert items(tmp_path, P) == {"是素食者": ("Active", 2, True)}


@pytest.mark.parametrize(("text", "dimension"), [
    ("我最近压力很大", S), ("我的目标是明年学会游泳", G), ("张伟是我的哥哥", PE), ("我觉得教育很重要", B),
    ("我住在北京", I), ("我喜欢喝茶", P),
    # by keywords, when no pattern reads the fact
    ("今天去了医院", S), ("明年学会游泳", G), ("价值观很重要", B), ("母语是粤语", I),
    ("I work in Beijing as a software engineer", I),
])
def test_classify_files_chinese_and_english(text: str, dimension: Dimension) -> None:
    assert OfflineExtractor().classify(text, None, None).dimension is dimension


def test_classify_keeps_the_persons_words_in_the_third_person_when_told_another_dimension() -> None:
    decision = OfflineExtractor().classify("I'm vegetarian for ethical reasons", Dimension.identity, None)
    assert (decision.dimension, decision.text) == (I, "Is vegetarian for ethical reasons")
    decision = OfflineExtractor().classify("我是素食者", Dimension.identity, None)
    assert (decision.dimension, decision.text) == (I, "是素食者")


# A refresh over Chinese short notes


NOTES = {
    "identity": "我叫李娜。我住在北京，我在腾讯工作。",
    "likes": "我很喜欢跑步，但是不喜欢游泳。我讨厌开会！",
    "goals": "我的目标是明年学会游泳。我打算换工作。",
    "beliefs": "我觉得教育很重要。我们觉得这家餐厅不错。",
    "people": "张伟是我的哥哥。我的妹妹小红住在上海。",
    "mood": "我最近压力很大。她说“我很开心”。我是不是太累了？",
    "mixed": "I live in Lisbon. 我是素食者。",
}


def chinese_vault(root: Path) -> Path:
    for slug, body in NOTES.items():
        short(root, "2026-11-28", body, slug=slug)
    return root


def test_a_refresh_writes_chinese_items_into_the_right_files(tmp_path: Path) -> None:
    result = hylo("refresh", "--vault", chinese_vault(tmp_path), "--extractor", "offline", "--today", TODAY)
    assert result.exit_code == 0, result.stderr
    found = {d: set(items(tmp_path, d)) for d in Dimension}
    assert found == {
        I: {"叫李娜", "住在北京", "在腾讯工作", "Lives in Lisbon"},
        P: {"喜欢跑步", "讨厌开会", "是素食者"},
        G: {"目标是明年学会游泳", "打算换工作"},
        B: {"觉得教育很重要"},
        PE: {"张伟 — 哥哥", "小红 — 妹妹"},
        S: {"最近压力很大"},
    }
    text = (tmp_path / MEMORY / "_people.md").read_text(encoding="utf-8")
    assert "- 张伟 — 哥哥 `last:2026-11-28 seen:1`" in text


def test_the_summary_lists_chinese_items_whole(tmp_path: Path) -> None:
    out = hylo("refresh", "--vault", chinese_vault(tmp_path), "--extractor", "offline", "--today", TODAY).stdout
    for line in ("  + 张伟 — 哥哥", "  + 最近压力很大", "  + 目标是明年学会游泳", "  + Lives in Lisbon"):
        assert line + "\n" in out
    summary = json.loads(hylo("refresh", "--vault", tmp_path, "--extractor", "offline", "--today", TODAY,
                              "--dry-run", "--json").stdout)
    assert summary["status"] == "ok"


def test_status_columns_line_up_in_a_vault_with_chinese_items_and_path(tmp_path: Path) -> None:
    vault = chinese_vault(tmp_path / "笔记")
    assert hylo("refresh", "--vault", vault, "--extractor", "offline", "--today", TODAY).exit_code == 0
    result = hylo("status", "--vault", vault, "--today", TODAY)
    assert result.exit_code == 0, result.stderr
    assert "笔记" in result.stdout
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("Memory files:"))
    rows = lines[header + 1: header + 7]
    # Each row's counts end in the header's last column: file names are fixed ASCII, counts are numbers.
    assert [r.split()[0] for r in rows] == [d.filename for d in Dimension]
    assert {len(r) for r in rows} == {len(lines[header])}
    assert rows[[d.filename for d in Dimension].index("_identity.md")].split()[1:] == ["4", "0", "0"]
