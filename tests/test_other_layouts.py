"""Other tools' layouts (docs/spec.md §1): Zettelkasten ids as dates, Obsidian's templates folder never read wherever it
sits, and a note reached twice (a symlink, a hard link, two scan paths) read as one source."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from vault_helpers import day, set_mtime, write_file, write_note

from hylo_memory.domain.sources import Source
from hylo_memory.pipeline.notes.dates import name_day
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.vaults.folder import FolderVault

TODAY = day("2026-11-30")
WIDE = Window(mode="first", start=day("2025-01-01"), today=TODAY)
NARROW = Window(mode="incremental", start=day("2026-11-20"), today=TODAY)


def sources(root: Path, extra: list[str], window: Window = WIDE, shorts: list[str] | None = None) -> list[Source]:
    found = FolderVault(root, extra, "_memory", 1_000_000, shorts or []).sources(window)
    return [s for s in found if isinstance(s, Source)]


def paths(root: Path, extra: list[str], window: Window = WIDE, shorts: list[str] | None = None) -> list[str]:
    return [s.path for s in sources(root, extra, window, shorts)]


# Zettelkasten ids


@pytest.mark.parametrize("name", ["202509242210.md", "202509242210 My idea.md", "20250924221059 My idea.md"])
def test_a_zettelkasten_id_dates_the_note(tmp_path: Path, name: str) -> None:
    write_note(tmp_path, f"Zettel/{name}", "Small notes compound.", mtime=TODAY)
    (source,) = sources(tmp_path, ["Zettel"])
    assert source.date == day("2025-09-24") and not source.undated


@pytest.mark.parametrize("name", ["2026-11-01.md", "2026-11-01 Sunday.md", "2026_11_01.md", "202611011230 idea.md"])
def test_a_name_starting_with_a_date_or_an_id_is_dated_by_it(name: str) -> None:
    assert name_day(name) == day("2026-11-01")


@pytest.mark.parametrize("name", ["2026-W44-7.md", "2026-11_01.md", "2026_11-01.md", "\uff12\uff10\uff12\uff16-11-01.md",
                                  "20261101.md", "Idea 202611011230.md"])
def test_a_name_not_starting_with_a_date_is_not_dated_by_it(name: str) -> None:
    assert name_day(name) is None


@pytest.mark.parametrize("name", ["202502302210.md", "202509242510.md", "202509242261 idea.md", "2025092422101.md"])
def test_an_impossible_zettelkasten_id_is_no_date(name: str) -> None:
    assert name_day(name) is None


def test_a_note_with_an_impossible_id_is_dated_by_its_mtime(tmp_path: Path) -> None:
    write_note(tmp_path, "Zettel/202513012210 idea.md", "Small notes compound.", mtime=day("2026-11-25"))
    (source,) = sources(tmp_path, ["Zettel"])
    assert source.date == day("2026-11-25") and source.undated


def test_an_old_zettel_in_an_old_folder_is_passed_over_by_its_name(tmp_path: Path) -> None:
    write_note(tmp_path, "Zettel/202509242210 idea.md", "Small notes compound.", mtime=TODAY)
    set_mtime(tmp_path / "Zettel", day("2025-10-01"))
    assert paths(tmp_path, [], NARROW, shorts=["Zettel"]) == []


def test_a_zettel_named_in_the_window_is_read_whatever_its_mtime(tmp_path: Path) -> None:
    write_note(tmp_path, "Zettel/202611251200 idea.md", "Small notes compound.", mtime=day("2025-01-01"))
    set_mtime(tmp_path / "Zettel", day("2025-10-01"))
    assert paths(tmp_path, [], NARROW, shorts=["Zettel"]) == ["Zettel/202611251200 idea.md"]


def test_an_impossible_id_in_an_old_folder_is_still_read_when_modified_in_the_window(tmp_path: Path) -> None:
    write_note(tmp_path, "Zettel/201013992210 idea.md", "Small notes compound.", mtime=day("2026-11-25"))
    set_mtime(tmp_path / "Zettel", day("2025-10-01"))
    assert paths(tmp_path, [], NARROW, shorts=["Zettel"]) == ["Zettel/201013992210 idea.md"]


# Obsidian's templates folder


def templated(root: Path) -> Path:
    """A vault with a note of the person's and a template nested in `Resources/Templates`."""
    write_note(root, "Notes/tea.md", "I love tea.", mtime=day("2026-11-20"))
    write_note(root, "Resources/Templates/Daily.md", "I love <% tp.date.now() %>.", mtime=day("2026-11-20"))
    write_note(root, "Resources/Templates/Weekly/plan.md", "I want to plan.", mtime=day("2026-11-20"))
    write_note(root, "Resources/reading.md", "I love books.", mtime=day("2026-11-20"))
    return root


def test_the_templates_folder_of_templates_json_is_never_read_even_nested(tmp_path: Path) -> None:
    write_file(templated(tmp_path), ".obsidian/templates.json", json.dumps({"folder": "Resources/Templates"}))
    assert paths(tmp_path, ["."]) == ["Notes/tea.md", "Resources/reading.md"]


def test_the_templater_plugins_folder_is_never_read_even_nested(tmp_path: Path) -> None:
    write_file(templated(tmp_path), ".obsidian/plugins/templater-obsidian/data.json",
               json.dumps({"templates_folder": "/Resources/Templates/", "trigger_on_file_creation": True}))
    assert paths(tmp_path, ["."]) == ["Notes/tea.md", "Resources/reading.md"]


def test_a_scan_path_inside_the_templates_folder_is_named_not_read(tmp_path: Path) -> None:
    write_file(templated(tmp_path), ".obsidian/templates.json", json.dumps({"folder": "Resources/Templates"}))
    found = list(FolderVault(tmp_path, ["Resources/Templates/Weekly"], "_memory", 1_000_000, []).sources(WIDE))
    assert [(s.path, "templates" in s.reason) for s in found if not isinstance(s, Source)] == [
        ("Resources/Templates/Weekly", True)]
    assert not any(isinstance(s, Source) for s in found)


@pytest.mark.parametrize("settings", ["{not json", "[1, 2]", '{"folder": 3}', '{"folder": null}', "", "\xff"])
def test_a_broken_templates_setting_is_ignored(tmp_path: Path, settings: str) -> None:
    write_file(templated(tmp_path), ".obsidian/templates.json", settings.encode("latin-1"))
    assert "Resources/Templates/Daily.md" in paths(tmp_path, ["."])


@pytest.mark.parametrize("folder", ["", "/", ".", "..", "../elsewhere"])
def test_a_templates_setting_naming_the_vault_or_outside_it_leaves_out_nothing(tmp_path: Path, folder: str) -> None:
    write_file(templated(tmp_path), ".obsidian/templates.json", json.dumps({"folder": folder}))
    assert len(paths(tmp_path, ["."])) == 4


def test_a_templates_settings_file_that_is_a_folder_is_ignored(tmp_path: Path) -> None:
    (templated(tmp_path) / ".obsidian" / "templates.json").mkdir(parents=True)
    assert len(paths(tmp_path, ["."])) == 4


# A note reached twice


def test_a_symlinked_note_is_one_source(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026-11-20-tea.md", "I love tea.")
    (tmp_path / "Notes").mkdir()
    os.symlink(tmp_path / "_shorts/2026-11-20-tea.md", tmp_path / "Notes/tea.md")
    assert paths(tmp_path, ["Notes"], shorts=["_shorts"]) == ["_shorts/2026-11-20-tea.md"]


def test_a_symlink_met_first_is_the_one_read(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026-11-20-tea.md", "I love tea.")
    (tmp_path / "Inbox").mkdir()
    os.symlink(tmp_path / "_shorts/2026-11-20-tea.md", tmp_path / "Inbox/2026-11-20-tea.md")
    assert paths(tmp_path, [], shorts=["Inbox", "_shorts"]) == ["Inbox/2026-11-20-tea.md"]


def test_a_hard_linked_note_is_one_source(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026-11-20-tea.md", "I love tea.")
    (tmp_path / "Notes").mkdir()
    os.link(tmp_path / "_shorts/2026-11-20-tea.md", tmp_path / "Notes/tea copy.md")
    assert paths(tmp_path, ["Notes"], shorts=["_shorts"]) == ["_shorts/2026-11-20-tea.md"]


def test_a_note_under_two_scan_paths_is_one_source(tmp_path: Path) -> None:
    write_note(tmp_path, "Notes/Daily/2026-11-20.md", "I love tea.")
    assert paths(tmp_path, ["Notes/Daily", "Notes"]) == ["Notes/Daily/2026-11-20.md"]


def test_a_file_scan_path_and_a_symlink_to_it_are_one_source(tmp_path: Path) -> None:
    write_note(tmp_path, "Notes/2026-11-20 tea.md", "I love tea.")
    os.symlink(tmp_path / "Notes/2026-11-20 tea.md", tmp_path / "2026-11-20 link.md")
    assert paths(tmp_path, ["Notes/2026-11-20 tea.md", "."]) == ["Notes/2026-11-20 tea.md"]


def test_two_notes_with_the_same_words_are_two_sources(tmp_path: Path) -> None:
    write_note(tmp_path, "Notes/2026-11-20 a.md", "I love tea.")
    write_note(tmp_path, "Notes/2026-11-20 b.md", "I love tea.")
    assert len(paths(tmp_path, ["Notes"])) == 2
