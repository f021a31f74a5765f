"""Real Obsidian vaults (docs/spec.md §1): text not markup, dates and links as people write them."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from cli_helpers import hylo
from obsidian_vault import SHORTS, obsidian_vault
from vault_helpers import day, run, set_mtime, texts, write_file, write_note

from hylo_memory.decay import Dimension
from hylo_memory.domain.sources import Perspective, Source
from hylo_memory.pipeline.run.profile import build_profile, judge_perspective
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.vaults.folder import FolderVault

TODAY = day("2026-11-30")
WIDE = Window(mode="first", start=day("2019-01-01"), today=TODAY)


def sources(root: Path, window: Window = WIDE) -> dict[str, Source]:
    found = FolderVault(root, [], "_memory", 1_000_000, ["_shorts", "Daily"]).sources(window)
    return {s.path: s for s in found if isinstance(s, Source)}


# ---- dates as people write them ----


@pytest.mark.parametrize("written", [
    dt.date(2026, 11, 1), dt.datetime(2026, 11, 1, 9, 30), "2026-11-01", "2026-11-01T09:30:00+01:00",
    "2026-11-01 09:30", "2026/11/01", "[[2026-11-01]]", "[[Daily/2026-11-01|Sunday]]", "Nov 1, 2026",
    "November 1st, 2026", "1 November 2026", "1 Nov 2026", "Sunday, November 1, 2026", "Sun, 1 Nov 2026",
    "Nov 1, 2026 9:30 AM",
])
@pytest.mark.parametrize("field", ["created", "date"])
def test_a_date_as_people_write_it_dates_the_note(tmp_path: Path, written: object, field: str) -> None:
    write_note(tmp_path, "_shorts/a note.md", "I love tea", mtime=TODAY, **{field: written})
    source = sources(tmp_path)["_shorts/a note.md"]
    assert source.date == day("2026-11-01") and not source.undated


@pytest.mark.parametrize("unreadable", ["<% tp.date.now() %>", "<% tp.file.creation_date('YYYY-MM-DD') %>",
                                        "01.05.2019", "tomorrow", "2026-13-45", 20261101])
def test_an_unreadable_date_falls_back_to_the_file_name_and_is_named(tmp_path: Path, unreadable: object) -> None:
    write_note(tmp_path, "Daily/2026-10-05.md", "I love tea", mtime=TODAY, created=unreadable)
    source = sources(tmp_path)["Daily/2026-10-05.md"]
    assert source.date == day("2026-10-05") and source.undated


def test_an_unreadable_date_with_no_name_date_falls_back_to_mtime_and_is_named(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/thoughts.md", "I love tea", mtime=day("2026-11-20"), created="01.05.2019")
    source = sources(tmp_path)["_shorts/thoughts.md"]
    assert source.date == day("2026-11-20") and source.undated


def test_a_note_dated_only_by_its_mtime_is_named_and_one_dated_by_name_is_not(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/loose.md", "I love tea", mtime=day("2026-11-20"))
    write_note(tmp_path, "Daily/2026-11-02.md", "I love tea", mtime=TODAY)
    write_note(tmp_path, "Daily/Nov 3, 2026.md", "I love tea", mtime=TODAY)
    found = sources(tmp_path)
    assert found["_shorts/loose.md"].undated
    assert (found["Daily/2026-11-02.md"].date, found["Daily/2026-11-02.md"].undated) == (day("2026-11-02"), False)
    assert (found["Daily/Nov 3, 2026.md"].date, found["Daily/Nov 3, 2026.md"].undated) == (day("2026-11-03"), False)


def test_a_2019_note_copied_today_is_not_current(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/old.md", "I love 2019 things", mtime=TODAY, created="May 1, 2019")
    source = sources(tmp_path)["_shorts/old.md"]
    assert source.date == day("2019-05-01") and not source.undated
    recent = Window(mode="incremental", start=day("2026-11-28"), today=TODAY)
    assert "_shorts/old.md" not in sources(tmp_path, recent)


def test_a_unit_with_an_unreadable_updated_keeps_its_readable_created(tmp_path: Path) -> None:
    write_note(tmp_path, "_knowledge/u.md", "I love tea", mtime=TODAY, created="2026/10/01", updated="<% tp.date.now() %>")
    write_note(tmp_path, "_knowledge/v.md", "I love tea", mtime=day("2026-11-21"), updated="<% tp.date.now() %>")
    found = sources(tmp_path)
    assert (found["_knowledge/u.md"].date, found["_knowledge/u.md"].undated) == (day("2026-10-01"), False)
    assert (found["_knowledge/v.md"].date, found["_knowledge/v.md"].undated) == (day("2026-11-21"), True)


def test_the_summary_names_undated_notes_in_json_and_text(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026-11-25-a.md", "I love green tea.", mtime=TODAY, created="<% tp.date.now() %>")
    write_note(tmp_path, "_shorts/2026-11-26-b.md", "I love black tea.", mtime=TODAY, created="2026-11-26")
    summary = run(tmp_path, TODAY, dry_run=True)
    assert summary.undated == ["_shorts/2026-11-25-a.md"]
    result = hylo("refresh", "--vault", tmp_path, "--today", "2026-11-30", "--dry-run", "--json")
    assert json.loads(result.stdout)["undated"] == ["_shorts/2026-11-25-a.md"]
    text = hylo("refresh", "--vault", tmp_path, "--today", "2026-11-30", "--dry-run").stdout
    assert "Undated" in text and "_shorts/2026-11-25-a.md" in text


def test_undated_notes_are_named_once_not_on_every_run(tmp_path: Path) -> None:
    path = write_file(tmp_path, "_shorts/loose.md", "I love green tea.\n")
    set_mtime(path, day("2026-11-29"))
    assert run(tmp_path, TODAY).undated == ["_shorts/loose.md"]
    assert run(tmp_path, TODAY).undated == []  # already extracted, unchanged


# ---- links as people write them ----


@pytest.mark.parametrize("link, path", [
    ("_shorts/2026-10-01-a.md", "_shorts/2026-10-01-a.md"),
    ("_shorts/2026-10-01-a", "_shorts/2026-10-01-a.md"),
    ("./_shorts/2026-10-01-a.md", "_shorts/2026-10-01-a.md"),
    ("/_shorts/2026-10-01-a", "_shorts/2026-10-01-a.md"),
    ("[[2026-10-01-a]]", "_shorts/2026-10-01-a.md"),
    ("[[2026-10-01-a.md]]", "_shorts/2026-10-01-a.md"),
    ("[[_shorts/2026-10-01-a|alias]]", "_shorts/2026-10-01-a.md"),
    ("[[2026-10-01-a#Morning|alias]]", "_shorts/2026-10-01-a.md"),
    ("[[Kyoto Trip]]", "Notes/Kyoto Trip.md"),
    ("[[kyoto trip]]", "Notes/Kyoto Trip.md"),
    ("[[Trip/Kyoto Trip]]", "Trip/Kyoto Trip"),  # no such note: kept as written
    ("[[Same]]", "Same"),  # two notes of that name: not resolved by name
    ("[[A/Same]]", "A/Same.md"),
    ("clippings/rents.md", "clippings/rents.md"),
])
def test_source_notes_resolve_as_obsidian_resolves_links(tmp_path: Path, link: str, path: str) -> None:
    for rel in ("_shorts/2026-10-01-a.md", "Notes/Kyoto Trip.md", "A/Same.md", "B/Same.md"):
        write_note(tmp_path, rel, "x", mtime=TODAY)
    write_note(tmp_path, "_knowledge/u.md", "x", mtime=TODAY, created="2026-11-01", source_notes=[link])
    assert sources(tmp_path)["_knowledge/u.md"].source_notes == [path]


def test_a_relative_link_resolves_from_the_unit(tmp_path: Path) -> None:
    write_note(tmp_path, "_knowledge/talks/notes.md", "x", mtime=TODAY)
    write_note(tmp_path, "_knowledge/talks/u.md", "x", mtime=TODAY, created="2026-11-01", source_notes=["./notes"])
    assert sources(tmp_path)["_knowledge/talks/u.md"].source_notes == ["_knowledge/talks/notes.md"]


def test_source_notes_written_as_one_string_or_unquoted_links(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026-10-01-a.md", "x", mtime=TODAY)
    write_note(tmp_path, "Notes/Kyoto Trip.md", "x", mtime=TODAY)
    write_file(tmp_path, "_knowledge/u.md", '---\ncreated: 2026-11-01\nsource_notes: "[[2026-10-01-a]], [[Kyoto Trip]]"\n---\nx\n')
    write_file(tmp_path, "_knowledge/v.md", "---\ncreated: 2026-11-01\nsource_notes:\n  - [[2026-10-01-a]]\n---\nx\n")
    found = sources(tmp_path)
    assert found["_knowledge/u.md"].source_notes == ["_shorts/2026-10-01-a.md", "Notes/Kyoto Trip.md"]
    assert found["_knowledge/v.md"].source_notes == ["_shorts/2026-10-01-a.md"]


def test_a_unit_whose_wiki_links_lead_to_the_authors_notes_is_own(tmp_path: Path) -> None:
    write_note(tmp_path, "_shorts/2026-10-01-a.md", "x", mtime=TODAY)
    write_note(tmp_path, "_knowledge/u.md", "x", mtime=TODAY, created="2026-11-01",
               source_notes=["[[2026-10-01-a]]", "[[_shorts/2026-10-01-a|alias]]"])
    unit_ = sources(tmp_path)["_knowledge/u.md"]
    assert judge_perspective(unit_, build_profile(None, None, None)) is Perspective.own
    # Read as written by a backend that does not resolve them: the folder still tells.
    assert judge_perspective(unit_.model_copy(update={"source_notes": ["[[_shorts/2026-10-01-a|alias]]", "./_shorts/b"]}),
                             build_profile(None, None, None)) is Perspective.own


# ---- the whole vault, refreshed ----

FORBIDDEN = ("[[", "]]", "**", "%%", "<!--", "-->", "`", "://", "www.", "<%", "%>")
NEVER_READ = ("anxious", "queue", "python", "great", "secret", "hidden", "tax", "block comment", "not this",
              "speaker", "whiteboard", "journal", "2019")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return obsidian_vault(tmp_path)


def test_a_refreshed_obsidian_vault_holds_text_not_markup(vault: Path) -> None:
    summary = run(vault, TODAY, shorts_paths=SHORTS, extra_scan_paths=["Notes"])
    assert summary.status == "ok" and not summary.skipped
    assert summary.sources.shorts == 6 and summary.sources.knowledge == 1
    held = {d: texts(vault, d) for d in Dimension}
    every = [t for found in held.values() for t in found]
    assert every, "the notes say plenty in the first person"
    for text in every:
        assert not any(mark in text for mark in FORBIDDEN), text
        assert not any(word in text.lower() for word in NEVER_READ), text
    assert {"Loves the old capital", "Loves matcha lattes", "Loves long walks by the river",
            "Loves tea from Kyoto", "Loves rainy afternoons", "Loves html islands", "Loves old temples",
            "Loves sencha in the afternoon"} <= held[Dimension.preferences]
    assert any("marathon" in t for t in held[Dimension.goals])


def test_an_obsidian_vault_is_dated_as_its_notes_say_and_the_undated_are_named(vault: Path) -> None:
    found = FolderVault(vault, ["Notes"], "_memory", 1_000_000, SHORTS).sources(WIDE)
    dates = {s.path: s.date for s in found if isinstance(s, Source)}
    assert dates["Daily/2026-11-10.md"] == day("2026-11-10")
    assert dates["Daily/2026-11-15.md"] == day("2026-11-15")  # edited today: its date wins
    assert dates["Daily/2026-11-20.md"] == day("2026-11-20")  # placeholder: by name
    assert dates["Daily/2026-11-22.md"] == day("2026-11-22") and dates["Daily/2026-11-25.md"] == day("2026-11-25")
    assert dates["Notes/Kyoto.md"] == day("2026-11-28")  # unreadable, no name date: by mtime
    assert dates["Notes/Copied old note.md"] == day("2019-05-01")
    summary = run(vault, TODAY, shorts_paths=SHORTS, extra_scan_paths=["Notes"])
    assert summary.undated == ["Daily/2026-11-20.md", "Notes/Kyoto Trip.md", "Notes/Kyoto.md"]
    assert summary.sources.extra == 2  # the 2019 note is not in the window


def test_the_unit_with_wiki_link_sources_is_judged_own(vault: Path) -> None:
    found = FolderVault(vault, ["Notes"], "_memory", 1_000_000, SHORTS).sources(WIDE)
    unit_ = next(s for s in found if isinstance(s, Source) and s.path == "_knowledge/tea-notes.md")
    assert unit_.source_notes == ["Daily/2026-11-01.md", "Daily/2026-11-22.md"]
    assert judge_perspective(unit_, build_profile(None, None, None, SHORTS)) is Perspective.own


def test_init_yes_on_the_obsidian_vault_makes_refresh_read_its_daily_notes_as_text(vault: Path) -> None:
    from cli_helpers import hylo

    init = hylo("init", "--vault", vault, "--yes")
    assert init.exit_code == 0, init.stderr
    assert 'shorts_paths = ["Daily"' in (vault / ".hylo-memory.toml").read_text()
    refreshed = hylo("refresh", "--vault", vault, "--today", TODAY.isoformat(), "--json")
    assert refreshed.exit_code == 0, refreshed.stderr
    summary = json.loads(refreshed.stdout)
    assert summary["sources"]["shorts"] >= 6 and not summary["hints"]
    items = [line for path in (vault / "_memory").glob("_*.md") for line in path.read_text().splitlines()
             if line.startswith("- ")]
    assert items and not [line for line in items for mark in FORBIDDEN if mark in line.split(" `last:")[0]]
