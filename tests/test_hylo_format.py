"""Hylo's own vault on disk (docs/spec.md §10): daily aggregation files read as their entries, knowledge units
with `compiled` and vault-absolute `source_notes`, domain indexes never read."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from cli_helpers import hylo
from trust_helpers import TODAY, ok, refresh_json
from vault_helpers import write_file, write_note

from hylo_memory.domain.sources import SourceKind
from hylo_memory.pipeline.notes.hylo_daily import entries, render_daily
from hylo_memory.pipeline.run.window import Window
from hylo_memory.pipeline.vaults.folder import FolderVault
from hylo_memory.testing import FakeOpenAI

DAILY = "_shorts/2026-11-28.md"
MORNING = ("08:05:10", "My name is Maya Okafor. I live in Lisbon.")
NOON = ("12:30:00", "I love long walks by the river.")
EVENING = ("21:15:42", "I believe tests are specifications.")
WIDE = Window(start=dt.date(2026, 1, 1), today=TODAY, mode="first")


def daily(vault: Path, *items: tuple[str, str], rel: str = DAILY) -> Path:
    return write_file(vault, rel, render_daily(dt.date.fromisoformat(Path(rel).stem), items))


def sources(vault: Path, knowledge: list[str] | None = None) -> list:
    return list(FolderVault(vault, [], "_memory", 1_000_000, None, knowledge).sources(WIDE))


def test_a_daily_file_of_three_entries_is_three_sources(tmp_path: Path) -> None:
    daily(tmp_path, MORNING, NOON, EVENING)
    assert [s.path for s in sources(tmp_path)] == [f"{DAILY}#08:05:10", f"{DAILY}#12:30:00", f"{DAILY}#21:15:42"]


def test_an_entrys_text_has_neither_its_header_nor_a_separator(tmp_path: Path) -> None:
    daily(tmp_path, MORNING, NOON)
    assert [s.text.strip() for s in sources(tmp_path)] == [MORNING[1], NOON[1]]


def test_an_entry_is_dated_by_its_own_header(tmp_path: Path) -> None:
    write_file(tmp_path, DAILY, "---\nkind: short\n---\n\n###### Short Note: 2026-11-27 23:59:59\n\nLate.\n")
    assert [s.date for s in sources(tmp_path)] == [dt.date(2026, 11, 27)]


def test_an_entrys_hash_does_not_change_when_another_is_appended(tmp_path: Path) -> None:
    daily(tmp_path, MORNING)
    before = sources(tmp_path)[0].content_hash
    daily(tmp_path, MORNING, NOON)
    assert sources(tmp_path)[0].content_hash == before


def test_two_entries_of_the_same_second_are_two_sources(tmp_path: Path) -> None:
    daily(tmp_path, MORNING, (MORNING[0], "I also like tea."))
    assert [s.path for s in sources(tmp_path)] == [f"{DAILY}#08:05:10", f"{DAILY}#08:05:10~2"]


def test_a_shorts_file_without_kind_short_is_one_note(tmp_path: Path) -> None:
    write_file(tmp_path, DAILY, "###### Short Note: 2026-11-28 08:00:00\n\nOne.\n\n---\n\n"
                                "###### Short Note: 2026-11-28 09:00:00\n\nTwo.\n")
    assert [s.path for s in sources(tmp_path)] == [DAILY]


def test_entries_ignore_text_before_the_first_header() -> None:
    assert [e.text for e in entries("stray line\n\n###### Short Note: 2026-11-28 08:00:00\n\nOne.\n")] == ["One."]


def test_a_knowledge_unit_is_dated_by_compiled_when_it_has_no_updated_or_created(tmp_path: Path) -> None:
    write_note(tmp_path, "_knowledge/tools/neovim.md", "I use Neovim every day.", kind="knowledge",
               title="Neovim", compiled="2026-11-20")
    assert [(s.kind, s.date) for s in sources(tmp_path)] == [(SourceKind.knowledge, dt.date(2026, 11, 20))]


def test_a_vault_absolute_source_note_resolves_to_the_daily_file(tmp_path: Path) -> None:
    daily(tmp_path, MORNING)
    write_note(tmp_path, "_knowledge/home.md", "Lisbon is home.", kind="knowledge", title="Home",
               compiled="2026-11-28", source_notes=[f"/{DAILY}"])
    unit = next(s for s in sources(tmp_path) if s.kind is SourceKind.knowledge)
    assert unit.source_notes == [DAILY]


def test_a_domain_index_is_never_read(tmp_path: Path) -> None:
    write_note(tmp_path, "_knowledge/tools/index.md", "I love indexes.", kind="index", domain="tools")
    assert sources(tmp_path) == []


def llm_refresh(vault: Path) -> dict:
    return refresh_json(vault, "--extractor", "openai")


def sent_sources(llm: FakeOpenAI) -> list[str]:
    """The source ids the model was sent, in every extraction request."""
    return [chunk.split(">", 1)[0] for r in llm.chat_requests for chunk in r.prompt.split("<source id=")[1:]]


def test_an_appended_entry_is_the_only_source_sent_to_the_model(tmp_path: Path, llm: FakeOpenAI) -> None:
    today = f"_shorts/{TODAY.isoformat()}.md"  # inside the next, incremental, run's window
    daily(tmp_path, MORNING, rel=today)
    llm_refresh(tmp_path)
    llm.reset()
    daily(tmp_path, MORNING, NOON, rel=today)
    summary = llm_refresh(tmp_path)
    assert (summary["sources"]["shorts"], len(sent_sources(llm))) == (1, 1)


def test_why_names_the_entry_an_item_came_from(tmp_path: Path) -> None:
    daily(tmp_path, MORNING, NOON)
    refresh_json(tmp_path)
    out = ok(hylo("why", "Loves long walks by the river", "--vault", tmp_path, "--json")).stdout
    assert f"{DAILY}#12:30:00" in json.dumps(json.loads(out))
