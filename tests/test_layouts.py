"""Layouts as people have them (SPEC §1): the short-note and knowledge folders as lists, `"."` for the
whole vault, the vault's own `.hylo-memory.toml`, `vault` in the configuration, and the hint a vault
with none of the configured folders gets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import hylo
from vault_helpers import day, write_note

from hylo_memory.errors import ConfigError
from hylo_memory.extractors.base import Source, SourceKind
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.vault import FolderVault

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
