"""`refresh --intro` is kept for the profile (issue 18, point 5): `context` names the person from then on,
until the identity file says otherwise; a dry run keeps nothing; the intro's limit is the MCP tool's."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import hylo
from vault_helpers import short

from hylo_memory.pipeline.mcp import tools as mcp_tools
from hylo_memory.pipeline.run import profile

INTRO = "I'm Sam Rivera, a nurse in Porto. I run the Night Shift podcast."


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    short(tmp_path, "2026-12-01", "I really love sourdough baking.")
    return tmp_path


def heading(vault: Path) -> str:
    result = hylo("context", "--vault", vault, "--today", "2026-12-02")
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()[0]


def refresh(vault: Path, *args: str) -> None:
    result = hylo("refresh", "--vault", vault, "--today", "2026-12-02", "--quiet", *args)
    assert result.exit_code == 0, result.stderr


def test_before_any_intro_the_heading_names_no_one(vault: Path) -> None:
    refresh(vault)
    assert heading(vault) == "# About the user"


def test_an_intro_names_the_person_in_contexts_heading_from_then_on(vault: Path) -> None:
    refresh(vault, "--intro", INTRO)
    assert heading(vault) == "# About Sam Rivera"
    refresh(vault)  # a later run without --intro: the kept one still holds
    assert heading(vault) == "# About Sam Rivera"


def test_a_later_intro_replaces_the_kept_one(vault: Path) -> None:
    refresh(vault, "--intro", INTRO)
    refresh(vault, "--intro", "I am Alex Moreau, a teacher.")
    assert heading(vault) == "# About Alex Moreau"


def test_the_identity_file_has_the_last_word(vault: Path) -> None:
    refresh(vault, "--intro", INTRO)
    assert hylo("remember", "My name is Samantha Rivera", "--vault", vault, "--today", "2026-12-02").exit_code == 0
    assert heading(vault) == "# About Samantha Rivera"


def test_a_dry_run_keeps_no_intro(vault: Path) -> None:
    refresh(vault)
    refresh(vault, "--dry-run", "--intro", INTRO)
    assert heading(vault) == "# About the user"
    assert not (vault / "_memory" / ".state" / profile.INTRO_FILE).exists()


def test_an_intro_over_the_limit_is_a_usage_mistake(vault: Path) -> None:
    result = hylo("refresh", "--vault", vault, "--intro", "x" * (profile.MAX_INTRO + 1))
    assert result.exit_code == 2 and f"--intro is at most {profile.MAX_INTRO:,} characters" in result.stderr
    assert not (vault / "_memory").exists()


def test_the_mcp_tools_intro_limit_is_the_commands() -> None:
    assert mcp_tools.MAX_INTRO == profile.MAX_INTRO


def test_a_chinese_name_in_the_identity_file_heads_the_context(vault: Path) -> None:
    assert hylo("remember", "我叫李明", "--vault", vault, "--today", "2026-12-02").exit_code == 0
    assert heading(vault) == "# About 李明"
