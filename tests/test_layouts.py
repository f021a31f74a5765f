"""Layouts as people have them (docs/spec.md §1): the short-note and knowledge folders as lists, `"."` for the
whole vault, the vault's own `.hylo-memory.toml`, `vault` in the configuration, and the hint a vault
with none of the configured folders gets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from vault_helpers import day, write_file, write_note

from hylo_memory.domain.sources import Source, SourceKind
from hylo_memory.errors import ConfigError
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.vaults.folder import FolderVault

TODAY = day("2026-11-30")
WIDE = Window(mode="first", start=day("2026-01-01"), today=TODAY)


def kinds(root: Path, shorts: list[str] | None = None, knowledge: list[str] | None = None,
          extra: list[str] | None = None, memory_dir: str = "_memory") -> dict[str, SourceKind]:
    """Every note the vault yields in a wide window, by path, with the kind it was read as."""
    vault = FolderVault(root, extra or [], memory_dir, 1_000_000, shorts, knowledge)
    return {s.path: s.kind for s in vault.sources(WIDE) if isinstance(s, Source)}


def note(root: Path, rel: str, body: str = "I walked to the river today.", **meta: object) -> Path:
    return write_note(root, rel, body, mtime=day("2026-11-20"), **meta)


def refresh_json(*args: str | Path) -> dict:
    result = hylo("refresh", "--extractor", "offline", "--json", "--today", TODAY.isoformat(), *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def sources_of(summary: dict) -> tuple[int, int, int]:
    counts = summary["sources"]
    return counts["shorts"], counts["knowledge"], counts["extra"]


# The folders, as lists


def test_short_notes_are_read_from_every_configured_shorts_path(tmp_path: Path) -> None:
    note(tmp_path, "Daily/2026-11-20.md")
    note(tmp_path, "Journal/evening.md")
    assert kinds(tmp_path, shorts=["Daily", "Journal"]) == {
        "Daily/2026-11-20.md": SourceKind.short, "Journal/evening.md": SourceKind.short}


def test_knowledge_units_are_read_from_every_configured_knowledge_path(tmp_path: Path) -> None:
    note(tmp_path, "Zettelkasten/testing.md", "Tests are specifications.", title="Testing", created="2026-11-20")
    assert kinds(tmp_path, knowledge=["Zettelkasten"]) == {"Zettelkasten/testing.md": SourceKind.knowledge}


def test_the_default_folders_are_not_read_once_others_are_configured(tmp_path: Path) -> None:
    note(tmp_path, "_shorts/2026-11-20-a.md")
    note(tmp_path, "Daily/2026-11-20.md")
    assert set(kinds(tmp_path, shorts=["Daily"])) == {"Daily/2026-11-20.md"}


def test_the_lists_come_from_the_environment_and_reach_a_refresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    note(tmp_path, "Daily/2026-11-20.md")
    note(tmp_path, "Zettel/testing.md", "Tests are specifications.", title="Testing", created="2026-11-20")
    monkeypatch.setenv("HYLO_MEMORY_SHORTS_PATHS", '["Daily"]')
    monkeypatch.setenv("HYLO_MEMORY_KNOWLEDGE_PATHS", '["Zettel"]')
    assert sources_of(refresh_json("--vault", tmp_path)) == (1, 1, 0)


# "." : the whole vault


def test_dot_as_a_shorts_path_reads_notes_anywhere_in_the_vault(tmp_path: Path) -> None:
    note(tmp_path, "inbox.md")
    note(tmp_path, "Projects/Hylo/2026-11-20-plan.md")
    assert kinds(tmp_path, shorts=["."]) == {"inbox.md": SourceKind.short,
                                              "Projects/Hylo/2026-11-20-plan.md": SourceKind.short}


def test_dot_leaves_out_the_hidden_folders(tmp_path: Path) -> None:
    note(tmp_path, ".obsidian/templates/daily.md")
    note(tmp_path, ".trash/2026-11-20-old.md")
    note(tmp_path, "kept.md")
    assert set(kinds(tmp_path, shorts=["."])) == {"kept.md"}


def test_dot_leaves_out_the_memory_folder_even_nested(tmp_path: Path) -> None:
    note(tmp_path, "hylo/memory/_identity.md", "- Lives in Porto")
    note(tmp_path, "kept.md")
    assert set(kinds(tmp_path, shorts=["."], memory_dir="hylo/memory")) == {"kept.md"}


def test_dot_reads_the_knowledge_folders_as_knowledge_not_as_short_notes(tmp_path: Path) -> None:
    note(tmp_path, "_knowledge/testing.md", "Tests are specifications.", title="Testing", created="2026-11-20")
    note(tmp_path, "kept.md")
    assert kinds(tmp_path, shorts=["."]) == {"kept.md": SourceKind.short, "_knowledge/testing.md": SourceKind.knowledge}


def test_dot_as_an_extra_scan_path_reads_what_the_shorts_folders_do_not(tmp_path: Path) -> None:
    note(tmp_path, "_shorts/2026-11-20-a.md")
    note(tmp_path, "Areas/health.md")
    assert kinds(tmp_path, extra=["."]) == {"_shorts/2026-11-20-a.md": SourceKind.short,
                                             "Areas/health.md": SourceKind.extra}


def test_dot_with_the_default_memory_folder_is_accepted() -> None:
    assert load_config(shorts_paths=["."], extra_scan_paths=["./"]).shorts_paths == ["."]


def test_dot_does_not_read_the_memory_files_in_a_refresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    note(tmp_path, "2026-11-20-walk.md", "I live in Porto.")
    monkeypatch.setenv("HYLO_MEMORY_SHORTS_PATHS", '["."]')
    first = refresh_json("--vault", tmp_path)
    second = refresh_json("--vault", tmp_path, "--today", "2026-12-01")
    assert (sources_of(first), sources_of(second)) == ((1, 0, 0), (0, 0, 0))


# Scan paths and the memory folder


@pytest.mark.parametrize(("setting", "label"), [("shorts_paths", "shorts path"), ("knowledge_paths", "knowledge path"),
                                                 ("extra_scan_paths", "extra scan path")])
def test_a_scan_path_inside_the_memory_folder_is_refused(setting: str, label: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_config(**{setting: ["_memory/notes"]})
    assert f"{label} '_memory/notes' overlaps memory_dir '_memory'" in str(refused.value)


@pytest.mark.parametrize("setting", ["shorts_paths", "knowledge_paths"])
def test_a_memory_folder_inside_a_configured_notes_folder_is_refused(setting: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_config(**{setting: ["Notes"]}, memory_dir="Notes/memory")
    assert "memory_dir 'Notes/memory' is inside a folder of notes" in str(refused.value)


def test_a_memory_folder_named_like_a_default_folder_no_longer_read_is_accepted() -> None:
    assert load_config(shorts_paths=["Daily"], memory_dir="_shorts").memory_dir == "_shorts"


# The vault's own file, `.hylo-memory.toml`, and precedence


def vault_toml(vault: Path, text: str) -> Path:
    return write_file(vault, ".hylo-memory.toml", text)


def user_toml(folder: Path, text: str) -> Path:
    return write_file(folder, "config.toml", text)


def test_the_vault_file_chooses_the_folders_a_refresh_reads(tmp_path: Path) -> None:
    note(tmp_path, "Daily/2026-11-20.md")
    vault_toml(tmp_path, 'shorts_paths = ["Daily"]\n')
    assert sources_of(refresh_json("--vault", tmp_path)) == (1, 0, 0)


def test_the_vault_file_wins_over_the_user_config_file(tmp_path: Path) -> None:
    vault_toml(tmp_path, "first_run_days = 10\n")
    user = user_toml(tmp_path / "home", "first_run_days = 20\n")
    assert load_config(user, vault=str(tmp_path)).first_run_days == 10


def test_the_user_config_file_still_sets_what_the_vault_file_does_not(tmp_path: Path) -> None:
    vault_toml(tmp_path, "first_run_days = 10\n")
    user = user_toml(tmp_path / "home", "pool_days = 30\n")
    assert (load_config(user, vault=str(tmp_path)).pool_days, load_config(user).first_run_days) == (30, 90)


def test_the_environment_wins_over_the_vault_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault_toml(tmp_path, "first_run_days = 10\n")
    monkeypatch.setenv("HYLO_MEMORY_FIRST_RUN_DAYS", "30")
    assert load_config(vault=str(tmp_path)).first_run_days == 30


def test_an_option_wins_over_the_vault_file(tmp_path: Path) -> None:
    vault_toml(tmp_path, 'extractor = "openai"\n')
    assert load_config(vault=str(tmp_path), extractor="offline").extractor == "offline"


def test_the_vault_file_of_the_vault_named_in_the_user_config_is_read(tmp_path: Path) -> None:
    vault_toml(tmp_path / "notes", "first_run_days = 10\n")
    user = user_toml(tmp_path, f"vault = {json.dumps(str(tmp_path / 'notes'))}\n")
    assert load_config(user).first_run_days == 10


def test_a_vault_file_that_is_not_valid_toml_is_refused_with_one_line_naming_it(tmp_path: Path) -> None:
    path = vault_toml(tmp_path, "shorts_paths = [\n")
    result = hylo("status", "--vault", tmp_path)
    assert result.exit_code == 1
    assert one_line(result.stderr).startswith(f"hylo-memory: {path}: not valid TOML: ")


def test_an_unknown_key_in_the_vault_file_is_refused_with_one_line_naming_file_and_key(tmp_path: Path) -> None:
    path = vault_toml(tmp_path, 'short_paths = ["Daily"]\n')
    result = hylo("refresh", "--vault", tmp_path, "--extractor", "offline")
    assert (result.exit_code, one_line(result.stderr)) == (1, f"hylo-memory: {path}: unknown setting 'short_paths'\n")
    assert not (tmp_path / "_memory").exists()


def test_a_value_out_of_range_in_the_vault_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = vault_toml(tmp_path, "first_run_days = 0\n")
    with pytest.raises(ConfigError) as refused:
        load_config(vault=str(tmp_path))
    assert str(path) in str(refused.value) and "first_run_days" in str(refused.value)


@pytest.mark.parametrize("key", ["base_url", "api_key", "vault"])
def test_the_vault_file_may_not_say_where_the_notes_are_sent(tmp_path: Path, key: str) -> None:
    path = vault_toml(tmp_path, f'{key} = "http://elsewhere.example"\n')
    with pytest.raises(ConfigError) as refused:
        load_config(vault=str(tmp_path))
    assert str(refused.value).startswith(f"{path}: {key!r} is not read from a vault's own file")


# `vault` in the configuration: --vault optional


def test_vault_in_the_user_config_makes_the_vault_option_optional(tmp_path: Path) -> None:
    note(tmp_path / "notes", "_shorts/2026-11-20-a.md")
    user = user_toml(tmp_path, f"vault = {json.dumps(str(tmp_path / 'notes'))}\n")
    assert sources_of(refresh_json("--config", user)) == (1, 0, 0)


def test_hylo_memory_vault_makes_the_vault_option_optional(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    note(tmp_path, "_shorts/2026-11-20-a.md")
    monkeypatch.setenv("HYLO_MEMORY_VAULT", str(tmp_path))
    assert sources_of(refresh_json()) == (1, 0, 0)


def test_the_vault_option_wins_over_hylo_memory_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    note(tmp_path / "mine", "_shorts/2026-11-20-a.md")
    (tmp_path / "other").mkdir()
    monkeypatch.setenv("HYLO_MEMORY_VAULT", str(tmp_path / "other"))
    assert sources_of(refresh_json("--vault", tmp_path / "mine")) == (1, 0, 0)


def test_a_command_with_no_vault_anywhere_is_a_one_line_usage_error() -> None:
    result = hylo("status")
    assert result.exit_code == 2
    assert one_line(result.stderr) == ("hylo-memory status: no vault: give --vault PATH, or set `vault` in the "
                                       "config file or HYLO_MEMORY_VAULT (see --help)\n")


def test_with_the_whole_vault_as_short_notes_a_unit_citing_any_note_is_the_authors_own() -> None:
    from hylo_memory.extractors.base import AuthorProfile
    from hylo_memory.pipeline.run.profile import is_own_path

    assert is_own_path("Journal/2026-11-01.md", AuthorProfile(note_folders=["."]))
    assert not is_own_path("Journal/2026-11-01.md", AuthorProfile(note_folders=["_shorts"]))
