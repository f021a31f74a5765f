"""Logseq graphs (docs/spec.md §1, "Other tools' layouts"): journals dated by their names, pages read, `key:: value`
properties as fields, outlines as sentences, open tasks as goals and finished ones never, the `logseq/`
folder with its backups never read, and `init` proposing a graph's journals and pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import hylo
from click.testing import CliRunner
from vault_helpers import day, texts, write_file

from hylo_memory.decay import Dimension
from hylo_memory.domain.sources import Source
from hylo_memory.pipeline.cli.group import PROG, cli
from hylo_memory.pipeline.notes.logseq import read_outline
from hylo_memory.pipeline.operations.init import propose, survey
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.vaults.folder import FolderVault

TODAY = day("2026-11-30")
WIDE = Window(mode="first", start=day("2026-01-01"), today=TODAY)
CLONED = day("2026-11-30")  # a graph cloned today: every file's mtime is today


def graph(root: Path) -> Path:
    """A Logseq graph: `logseq/config.edn`, as Logseq writes it when it opens the folder."""
    write_file(root, "logseq/config.edn", "{:meta/version 1}\n")
    return root


def journal(root: Path, date: str, body: str) -> Path:
    """A journal page `journals/YYYY_MM_DD.md`, its mtime today (cloned), not its date."""
    return write_file(root, f"journals/{date.replace('-', '_')}.md", body, mtime=CLONED)


def page(root: Path, name: str, body: str) -> Path:
    return write_file(root, f"pages/{name}.md", body, mtime=day("2026-11-20"))


def sources(root: Path, window: Window = WIDE) -> dict[str, Source]:
    """What a graph configured as `init` proposes (journals short notes, pages extra) yields, by path."""
    found = FolderVault(root, ["pages"], "_memory", 1_000_000, ["journals"]).sources(window)
    return {s.path: s for s in found if isinstance(s, Source)}


def refresh(root: Path) -> None:
    """A refresh of the graph through the command line, with the offline extractor."""
    write_file(root, ".hylo-memory.toml", 'shorts_paths = ["journals"]\nextra_scan_paths = ["pages"]\n')
    result = hylo("refresh", "--vault", root, "--extractor", "offline", "--json", "--today", TODAY.isoformat())
    assert result.exit_code == 0, result.stderr


# Journals and pages


def test_a_journal_is_dated_by_its_file_name_not_its_mtime(tmp_path: Path) -> None:
    journal(graph(tmp_path), "2026-09-01", "- I walked to the river.\n")
    source = sources(tmp_path)["journals/2026_09_01.md"]
    assert source.date == day("2026-09-01") and not source.undated


def test_a_journal_outside_the_window_is_not_read_whatever_its_mtime(tmp_path: Path) -> None:
    journal(graph(tmp_path), "2025-03-01", "- I walked to the river.\n")
    assert "journals/2025_03_01.md" not in sources(tmp_path)


def test_a_journal_inside_the_window_is_read_whatever_its_mtime(tmp_path: Path) -> None:
    path = journal(graph(tmp_path), "2026-11-25", "- I walked to the river.\n")
    write_file(tmp_path, "journals/2026_11_25.md", path.read_text(), mtime=day("2025-01-01"))
    narrow = Window(mode="incremental", start=day("2026-11-20"), today=TODAY)
    assert "journals/2026_11_25.md" in sources(tmp_path, narrow)


def test_an_impossible_journal_name_is_no_date(tmp_path: Path) -> None:
    journal(graph(tmp_path), "2026-02-30", "- I walked to the river.\n")
    source = sources(tmp_path)["journals/2026_02_30.md"]
    assert source.date == CLONED and source.undated


def test_pages_are_read_as_the_persons_notes(tmp_path: Path) -> None:
    page(graph(tmp_path), "Kyoto", "- I love the temples of Kyoto.\n")
    assert sources(tmp_path)["pages/Kyoto.md"].text == "- I love the temples of Kyoto."


# Properties


PROPERTIES = ("title:: Kyoto trip\ntags:: travel, [[Old Capitals]], #japan\ndate:: [[Sep 1st, 2026]]\n\n"
              "- I love the temples of Kyoto.\n")


def test_page_properties_are_read_as_fields() -> None:
    fields, _ = read_outline(PROPERTIES)
    assert fields == {"title": "Kyoto trip", "tags": ["travel", "Old Capitals", "japan"],
                      "date": "[[Sep 1st, 2026]]"}


def test_page_properties_are_not_read_as_text(tmp_path: Path) -> None:
    page(graph(tmp_path), "Kyoto", PROPERTIES)
    assert sources(tmp_path)["pages/Kyoto.md"].text == "- I love the temples of Kyoto."


@pytest.mark.parametrize("written", ["[[Sep 1st, 2026]]", "2026-09-01", "Sep 1st, 2026"])
def test_a_date_property_dates_the_page(tmp_path: Path, written: str) -> None:
    page(graph(tmp_path), "Kyoto", f"date:: {written}\n- I love the temples of Kyoto.\n")
    assert sources(tmp_path)["pages/Kyoto.md"].date == day("2026-09-01")


def test_page_properties_give_a_knowledge_unit_its_title_and_tags(tmp_path: Path) -> None:
    page(graph(tmp_path), "kyoto-trip", PROPERTIES)
    found = FolderVault(tmp_path, [], "_memory", 1_000_000, [], ["pages"]).sources(WIDE)
    unit = next(s for s in found if isinstance(s, Source))
    assert (unit.title, unit.tags) == ("Kyoto trip", ["travel", "old capitals", "japan"])


def test_frontmatter_wins_over_a_property_giving_the_same_field(tmp_path: Path) -> None:
    page(graph(tmp_path), "Kyoto", "---\ndate: 2026-10-01\n---\ndate:: 2026-09-01\n- I love tea.\n")
    assert sources(tmp_path)["pages/Kyoto.md"].date == day("2026-10-01")


def test_block_properties_are_not_read_as_text(tmp_path: Path) -> None:
    body = "- I love the temples of Kyoto.\n  id:: 6512a1b2-0000-4000-8000-000000000000\n  collapsed:: true\n"
    journal(graph(tmp_path), "2026-11-01", body)
    assert sources(tmp_path)["journals/2026_11_01.md"].text == "- I love the temples of Kyoto."


def test_a_property_after_the_first_block_is_not_a_page_field() -> None:
    fields, _ = read_outline("- I love tea.\ntitle:: Not the page's\n")
    assert fields == {}


def test_logseqs_own_markup_is_not_read_as_text(tmp_path: Path) -> None:
    body = ("- I love tea ((6512a1b2-0000-4000-8000-000000000000)) {{embed [[Kyoto]]}} #[[green tea]]\n"
            "  SCHEDULED: <2026-11-02 Mon>\n  :LOGBOOK:\n  CLOCK: [2026-11-01 Sun 10:00]\n  :END:\n")
    journal(graph(tmp_path), "2026-11-01", body)
    assert sources(tmp_path)["journals/2026_11_01.md"].text == "- I love tea green tea"


# Outlines and tasks


def test_outline_bullets_nested_with_tabs_read_as_sentences(tmp_path: Path) -> None:
    journal(graph(tmp_path), "2026-11-01", "- I love tea.\n\t- I love Kyoto.\n\t\t- I live in Porto.\n")
    assert sources(tmp_path)["journals/2026_11_01.md"].text.splitlines() == [
        "- I love tea.", "  - I love Kyoto.", "    - I live in Porto."]


@pytest.mark.parametrize("marker", ["TODO", "DOING", "LATER", "NOW"])
def test_an_open_task_is_a_goal_without_its_marker(tmp_path: Path, marker: str) -> None:
    journal(graph(tmp_path), "2026-11-01", f"- {marker} I want to run a marathon\n")
    refresh(tmp_path)
    goals = texts(tmp_path, Dimension.goals)
    assert any("marathon" in g for g in goals) and not any(marker in g for g in goals)


@pytest.mark.parametrize("marker", ["DONE", "CANCELED", "CANCELLED"])
def test_a_finished_or_cancelled_task_is_never_a_goal(tmp_path: Path, marker: str) -> None:
    journal(graph(tmp_path), "2026-11-01", f"- {marker} I want to run a marathon\n\t- I want to buy shoes\n"
                                           "- I want to learn Go\n")
    refresh(tmp_path)
    goals = texts(tmp_path, Dimension.goals)
    assert any("Go" in g for g in goals)
    assert not any("marathon" in g or "shoes" in g for g in goals)


def test_a_task_with_a_priority_keeps_its_words_only(tmp_path: Path) -> None:
    journal(graph(tmp_path), "2026-11-01", "- LATER [#A] I want to visit Nara\n")
    assert sources(tmp_path)["journals/2026_11_01.md"].text == "- I want to visit Nara"


# The logseq/ folder


@pytest.mark.parametrize("backup", ["logseq/bak/journals/2026_11_01/2026-11-02T10_00_00.000Z.Desktop.md",
                                    "logseq/version-files/base/journals/2026_11_01.md"])
def test_a_backup_does_not_bring_back_a_deleted_line(tmp_path: Path, backup: str) -> None:
    journal(graph(tmp_path), "2026-11-01", "- I love tea.\n")
    write_file(tmp_path, backup, "- I love tea.\n- I want to run a marathon\n", mtime=day("2026-11-02"))
    write_file(tmp_path, ".hylo-memory.toml", 'shorts_paths = ["."]\n')
    result = hylo("refresh", "--vault", tmp_path, "--extractor", "offline", "--json", "--today", TODAY.isoformat())
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["sources"]["shorts"] == 1
    assert not any("marathon" in g for g in texts(tmp_path, Dimension.goals))


def test_the_logseq_folder_is_not_read_from_a_dot_scan_path(tmp_path: Path) -> None:
    journal(graph(tmp_path), "2026-11-01", "- I love tea.\n")
    write_file(tmp_path, "logseq/bak/pages/Kyoto/2026-11-02.md", "- I love Kyoto.\n", mtime=day("2026-11-02"))
    found = FolderVault(tmp_path, ["."], "_memory", 1_000_000, []).sources(WIDE)
    assert [s.path for s in found if isinstance(s, Source)] == ["journals/2026_11_01.md"]


def test_a_scan_path_inside_the_logseq_folder_is_named_not_read(tmp_path: Path) -> None:
    write_file(graph(tmp_path), "logseq/bak/pages/Kyoto.md", "- I love Kyoto.\n", mtime=day("2026-11-02"))
    found = list(FolderVault(tmp_path, ["logseq/bak"], "_memory", 1_000_000, []).sources(WIDE))
    assert [(s.path, "Logseq" in s.reason) for s in found if not isinstance(s, Source)] == [("logseq/bak", True)]
    assert not any(isinstance(s, Source) for s in found)


def test_a_backup_does_not_make_a_link_to_its_page_ambiguous(tmp_path: Path) -> None:
    page(graph(tmp_path), "Kyoto", "- I love Kyoto.\n")
    write_file(tmp_path, "logseq/bak/pages/Kyoto.md", "- I love Kyoto.\n")
    assert FolderVault(tmp_path, ["pages"], "_memory", 1_000_000, []).resolve("[[Kyoto]]") == "pages/Kyoto.md"


def test_a_folder_named_logseq_holding_only_notes_is_read(tmp_path: Path) -> None:
    write_file(tmp_path, "Tools/logseq/tips.md", "I love outlines.\n", mtime=day("2026-11-20"))
    found = FolderVault(tmp_path, ["Tools"], "_memory", 1_000_000, []).sources(WIDE)
    assert [s.path for s in found if isinstance(s, Source)] == ["Tools/logseq/tips.md"]


# init


def logseq_graph(root: Path) -> Path:
    journal(graph(root), "2026-11-01", "- I love tea.\n")
    journal(root, "2026-11-20", "- I walked.\n")
    page(root, "Kyoto", "- I love Kyoto.\n")
    write_file(root, "logseq/bak/pages/Kyoto.md", "- I love Kyoto.\n")
    return root


def test_init_proposes_a_logseq_graphs_journals_and_pages_as_the_persons_notes(tmp_path: Path) -> None:
    chosen = propose(survey(logseq_graph(tmp_path), "_memory"))
    assert (chosen.shorts_paths, chosen.knowledge_paths, chosen.extra_scan_paths) == (["journals"], [], ["pages"])


def test_init_says_it_is_a_logseq_graph_and_dates_journals_by_name(tmp_path: Path) -> None:
    out = CliRunner().invoke(cli, ["init", "--vault", str(logseq_graph(tmp_path))], input="n\n", prog_name=PROG).stdout
    assert "Logseq graph: logseq/config.edn" in out
    assert "2 notes  2026-11-01 … 2026-11-20" in out and "Logseq's journals" in out
    assert "Logseq's own folder (its settings and backups): not read" in out


def test_init_on_a_logseq_graph_writes_a_config_a_refresh_reads(tmp_path: Path) -> None:
    assert hylo("init", "--vault", logseq_graph(tmp_path), "--yes").exit_code == 0
    result = hylo("refresh", "--vault", tmp_path, "--extractor", "offline", "--json", "--today", TODAY.isoformat())
    counts = json.loads(result.stdout)["sources"]
    assert (counts["shorts"], counts["extra"]) == (2, 1)


def test_a_query_block_is_never_read() -> None:
    page = ("- Went climbing with Ana.\n- #+BEGIN_QUERY\n  {:title \"Open tasks\" :query (task TODO)}\n"
            "  #+END_QUERY\n- Booked the train.")
    assert read_outline(page)[1] == "- Went climbing with Ana.\n- Booked the train."


def test_a_note_block_keeps_its_text_without_its_markers() -> None:
    page = "- #+BEGIN_NOTE\n  I want to learn Go this winter.\n  #+END_NOTE"
    assert read_outline(page)[1] == "  I want to learn Go this winter."


def test_an_unclosed_query_block_runs_to_the_pages_end() -> None:
    assert read_outline("- Slept well.\n- #+BEGIN_QUERY\n  (task TODO)\n- still the query")[1] == "- Slept well."
