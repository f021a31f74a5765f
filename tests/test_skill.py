"""`hylo-memory skill` (docs/spec.md §9.6): the SKILL.md that makes the person's assistant the memory's reader,
printed or installed where Claude Code, Hylo, Codex, Gemini CLI and Cursor look, never over a file it did not write."""

from __future__ import annotations

import re
from pathlib import Path

import frontmatter
import pytest
from click.testing import CliRunner, Result

from hylo_memory.pipeline.cli.group import PROG, cli
from hylo_memory.pipeline.operations.skill import PLACES, install, skill_text

TRIGGERS = ("update my memory", "refresh my memory from my notes", "remember that I", "记住我")


def skill(home: Path, *args: str) -> Result:
    return CliRunner(env={"HOME": str(home)}).invoke(cli, ["skill", *args], prog_name=PROG, catch_exceptions=False)


def test_the_skill_has_the_frontmatter_agent_skills_are_written_with(tmp_path: Path) -> None:
    printed = skill(tmp_path)
    meta = frontmatter.loads(printed.stdout).metadata
    assert meta["name"] == "hylo-memory"
    assert all(trigger in str(meta["description"]) for trigger in TRIGGERS)


def test_the_frontmatter_keeps_the_agent_skills_limits(tmp_path: Path) -> None:
    meta = frontmatter.loads(skill(tmp_path).stdout).metadata
    assert set(meta) <= {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", str(meta["name"])) and len(str(meta["name"])) <= 64
    assert 0 < len(str(meta["description"])) <= 1024


def test_the_skill_tells_the_assistant_the_loop_over_mcp_and_over_commands(tmp_path: Path) -> None:
    text = skill(tmp_path).stdout
    assert "`notes_to_read`" in text and "`propose_memories`" in text and "`remember`" in text
    assert "hylo-memory pending --json" in text and "hylo-memory apply --lease" in text


def test_a_vault_given_is_named_in_the_skills_commands(tmp_path: Path) -> None:
    assert "hylo-memory pending --json --vault '/my notes'" in skill(tmp_path, "--vault", "/my notes").stdout


@pytest.mark.parametrize(("target", "place"), [("claude", ".claude/skills/hylo-memory/SKILL.md"),
                                                ("hylo", ".hylo/skills/hylo-memory/SKILL.md"),
                                                ("codex", ".agents/skills/hylo-memory/SKILL.md"),
                                                ("gemini", ".agents/skills/hylo-memory/SKILL.md"),
                                                ("cursor", ".cursor/skills/hylo-memory/SKILL.md")])
def test_install_writes_the_skill_where_the_assistant_looks(tmp_path: Path, target: str, place: str) -> None:
    done = skill(tmp_path, "--install", target)
    assert done.exit_code == 0 and done.stdout == f"Wrote {tmp_path / place}\n"
    assert (tmp_path / place).read_text(encoding="utf-8") == skill(tmp_path).stdout
    assert (tmp_path / place).stat().st_mode & 0o077 == 0
    # The agent skills format: a skill's `name` is its folder's.
    assert frontmatter.loads(skill(tmp_path).stdout).metadata["name"] == (tmp_path / place).parent.name


@pytest.mark.parametrize("target", ["claude", "hylo", "codex", "gemini", "cursor"])
def test_install_writes_under_the_home_it_is_given(tmp_path: Path, target: str) -> None:
    done = install(target, skill_text("hylo-memory skill"), "hylo-memory skill", home=str(tmp_path / "someone"))
    assert done.wrote and done.path == tmp_path / "someone" / PLACES[target][2:]
    assert not (tmp_path / PLACES[target][2:]).exists()


def test_codex_and_gemini_share_one_skill_and_the_second_install_writes_nothing(tmp_path: Path) -> None:
    skill(tmp_path, "--install", "codex")
    assert "already says this: nothing written" in skill(tmp_path, "--install", "gemini").stdout


def test_install_never_overwrites_a_skill_it_did_not_write(tmp_path: Path) -> None:
    theirs = tmp_path / ".hylo/skills/hylo-memory/SKILL.md"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("---\nname: hylo-memory\ndescription: Hylo's own\n---\nmine\n", encoding="utf-8")
    done = skill(tmp_path, "--install", "hylo")
    assert done.exit_code == 1 and "was not written by `hylo-memory skill`" in done.stderr
    assert theirs.read_text(encoding="utf-8").endswith("mine\n")


def test_install_never_overwrites_its_own_skill_once_edited_but_force_does(tmp_path: Path) -> None:
    skill(tmp_path, "--install", "claude")
    path = tmp_path / ".claude/skills/hylo-memory/SKILL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Two jobs", "My two jobs"), encoding="utf-8")
    assert skill(tmp_path, "--install", "claude").exit_code == 1
    assert skill(tmp_path, "--install", "claude", "--force").exit_code == 0
    assert path.read_text(encoding="utf-8") == skill(tmp_path).stdout


def test_install_replaces_its_own_unedited_skill_with_a_newer_one(tmp_path: Path) -> None:
    skill(tmp_path, "--install", "claude", "--vault", "/old")
    assert skill(tmp_path, "--install", "claude", "--vault", "/new").exit_code == 0
    assert "--vault /new" in (tmp_path / ".claude/skills/hylo-memory/SKILL.md").read_text(encoding="utf-8")


def test_install_again_says_nothing_was_written(tmp_path: Path) -> None:
    skill(tmp_path, "--install", "claude")
    assert "already says this: nothing written" in skill(tmp_path, "--install", "claude").stdout


def test_install_never_replaces_a_symbolic_link_even_a_dangling_one(tmp_path: Path) -> None:
    link = tmp_path / ".claude/skills/hylo-memory/SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(tmp_path / "my-skills" / "SKILL.md")
    done = skill(tmp_path, "--install", "claude")
    assert done.exit_code == 1 and "is a symbolic link" in done.stderr and link.is_symlink()
