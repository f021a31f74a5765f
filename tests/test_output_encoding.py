"""Output never breaks a command: text goes out in the output's encoding with what it cannot show escaped,
the exit code and what was written unchanged (a Latin-1 locale, a Windows redirect)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from proc_helpers import HYLO, cli_env
from vault_helpers import short


def latin1(args: list[str], home: Path) -> subprocess.CompletedProcess[bytes]:
    env = cli_env(home, PYTHONIOENCODING="latin-1")
    return subprocess.run([HYLO, *args], env=env, capture_output=True, timeout=60)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    short(root, "2026-11-29", "我喜欢喝乌龙茶。我是素食者。", slug="zh")
    return root


@pytest.mark.slow
def test_refresh_context_recall_and_remember_print_chinese_escaped_on_a_latin1_output(
        vault: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    for args in (["refresh", "--vault", str(vault), "--today", "2026-11-30"],
                 ["remember", "记住我住在上海", "--vault", str(vault), "--today", "2026-11-30"],
                 ["context", "--vault", str(vault)],
                 ["recall", "乌龙茶", "--vault", str(vault)]):
        done = latin1(args, home)
        assert done.returncode == 0, done.stderr
        assert b"Traceback" not in done.stderr and b"\\u" in done.stdout
    assert "乌龙茶" in (vault / "_memory" / "_preferences.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_an_error_naming_chinese_text_is_one_escaped_line_on_a_latin1_output(vault: Path, tmp_path: Path) -> None:
    done = latin1(["why", "完全不存在的事实", "--vault", str(vault)], tmp_path / "home")
    assert done.returncode == 1
    assert done.stderr.count(b"\n") == 1 and b"\\u" in done.stderr and b"Traceback" not in done.stderr
