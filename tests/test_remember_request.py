"""`remember` keeps the fact, not the request around it, in English and Chinese (docs/spec.md §5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import hylo

from hylo_memory.pipeline.operations.remember import the_fact


@pytest.mark.parametrize(("said", "fact"), [
    ("remember that I'm vegetarian", "I'm vegetarian"),
    ("Please remember: I'm vegetarian", "I'm vegetarian"),
    ("Remember I moved to Porto", "I moved to Porto"),
    ("note that I moved to Porto", "I moved to Porto"),
    ("记住我是素食者", "我是素食者"),
    ("请记住：我是素食者", "我是素食者"),
    ("记得我住在北京", "我住在北京"),
    ("帮我记一下，我的目标是跑完马拉松", "我的目标是跑完马拉松"),
    ("请帮我记住我不喝酒", "我不喝酒"),
])
def test_the_request_is_stripped_from_the_fact(said: str, fact: str) -> None:
    assert the_fact(said) == fact


@pytest.mark.parametrize("said", ["I remember the war", "Remembering names is hard", "我记得那天很冷"])
def test_a_fact_about_remembering_is_left_whole(said: str) -> None:
    assert the_fact(said) == said


@pytest.mark.parametrize(("asked", "stated"), [("Remember that I'm vegetarian", "I'm vegetarian"),
                                               ("记住我是素食者", "我是素食者")])
def test_asking_and_stating_keep_one_item(tmp_path: Path, asked: str, stated: str) -> None:
    for text in (asked, stated):
        assert hylo("remember", text, "--vault", tmp_path, "--dimension", "preferences",
                    "--today", "2026-11-30").exit_code == 0
    lines = [line for line in (tmp_path / "_memory" / "_preferences.md").read_text().splitlines()
             if line.startswith("- ")]
    assert len(lines) == 1 and "seen:2" in lines[0] and "emember" not in lines[0] and "记" not in lines[0]


@pytest.mark.parametrize("said", ["remember that", "记住", "please remember:", "Remember this"])
def test_a_request_with_no_fact_after_the_asking_is_refused_in_one_line(tmp_path: Path, said: str) -> None:
    result = hylo("remember", said, "--vault", str(tmp_path))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "the fact is empty" in result.stderr
    assert not (tmp_path / "_memory" / "_preferences.md").exists()


@pytest.mark.parametrize("said", ["\x1b[2J\x1b[H", "\x1b[0m", "\x07\x1b[31m"])
def test_a_fact_made_only_of_escape_sequences_is_refused_in_one_line(tmp_path: Path, said: str) -> None:
    result = hylo("remember", said, "--vault", str(tmp_path))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "Traceback" not in result.output
