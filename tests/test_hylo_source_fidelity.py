"""A Hylo vault by URL against the fake built from Hylo's source (docs/spec.md §10): what the first reading
of that source found wrong, each shown mended."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from hylo_helpers import TODAY, daily, run, two_days

from hylo_memory.testing.fake_hylo import FakeHylo

pytestmark = pytest.mark.slow  # an MCP session a command

OOLONG = "Loves oolong tea"


def refreshed(fake: FakeHylo, today: dt.date = TODAY) -> dict:
    result = run(fake, "refresh", "--json", today=today)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def after_midnight(root: Path) -> None:
    """An entry written at 00:30 on the 29th into the 28th's daily file: its own header says the 29th."""
    daily(root, dt.date(2026, 11, 28), ("22:00:00", "I love long walks by the river."),
          ("2026-11-29 00:30:00", "I love oolong tea."))


def test_an_entry_after_midnight_is_dated_by_itself_by_url_as_on_disk(fake_hylo: FakeHylo, tmp_path: Path) -> None:
    after_midnight(fake_hylo.root)
    refreshed(fake_hylo)
    by_url = (fake_hylo.root / "_memory" / "_preferences.md").read_text()
    on_disk = tmp_path / "on-disk"
    after_midnight(on_disk)
    assert hylo("refresh", "--vault", str(on_disk), "--today", TODAY.isoformat(), "--extractor", "offline").exit_code == 0
    folder = (on_disk / "_memory" / "_preferences.md").read_text()
    assert (f"{OOLONG} `last:2026-11-29" in by_url, f"{OOLONG} `last:2026-11-29" in folder) == (True, True)


def test_a_refresh_that_cannot_write_leaves_every_source_for_the_next(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    fake_hylo.missing.add("create")  # a Hylo that cannot take the memory files
    failed = run(fake_hylo, "refresh", "--json")
    fake_hylo.missing.clear()
    rerun = refreshed(fake_hylo)
    assert (failed.exit_code, "has no tool 'create'" in one_line(failed.stderr), rerun["sources"]["shorts"]) \
        == (2, True, 3)


def test_a_memory_file_edited_in_hylo_during_a_run_is_kept_as_edited(fake_hylo: FakeHylo) -> None:
    run(fake_hylo, "remember", "I'm vegetarian")
    two_days(fake_hylo.root)
    goals = fake_hylo.root / "_memory" / "_goals.md"
    edit = "## Active\n- Run a marathon in spring `last:2026-11-29 seen:1`\n\n## Fading\n"

    def person_edits(tool: str, arguments: dict) -> None:  # while the run reads its window
        if tool == "short_list" and not goals.exists():
            goals.write_text(edit)

    fake_hylo.on_call = person_edits
    assert run(fake_hylo, "refresh").exit_code == 0
    assert "- Run a marathon in spring `last:2026-11-29 seen:1`" in goals.read_text()


def test_the_window_reads_a_day_before_and_three_days_past_today(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    summary = refreshed(fake_hylo)
    asked = [args for tool, args in fake_hylo.calls if tool == "short_list"]
    start = dt.date.fromisoformat(summary["window_start"]) - dt.timedelta(days=1)
    assert {(a["start"], a["end"]) for a in asked} == {(start.isoformat(), "2026-12-03")}


def test_a_note_dated_a_week_ahead_is_not_read_by_url(fake_hylo: FakeHylo) -> None:
    daily(fake_hylo.root, TODAY + dt.timedelta(days=7), ("09:00:00", "I love planning ahead."))
    two_days(fake_hylo.root)
    assert refreshed(fake_hylo)["sources"]["shorts"] == 3


def oolong_unit(root: Path) -> Path:
    """A unit in a domain folder, `_knowledge/tea/oolong.md`, compiled on the 29th."""
    unit = root / "_knowledge" / "tea" / "oolong.md"
    unit.parent.mkdir(parents=True, exist_ok=True)
    unit.write_text("---\nkind: knowledge\ntitle: Oolong\nsource_notes:\n  - /_shorts/2026-11-29.md\n"
                    "last_compiled_at: 2026-11-29\n---\nI love oolong tea.\n")
    compiled = dt.datetime(2026, 11, 29, 12, tzinfo=dt.UTC).timestamp()
    os.utime(unit, (compiled, compiled))  # Hylo lists by the time it was last written
    return unit


def test_units_in_a_domain_folder_are_read(fake_hylo: FakeHylo) -> None:
    """Hylo lists a folder's own notes only: units below `_knowledge/` come from the whole vault's listing."""
    two_days(fake_hylo.root)
    oolong_unit(fake_hylo.root)
    assert refreshed(fake_hylo)["sources"]["knowledge"] == 1


def no_longer_a_unit_when_read(fake: FakeHylo, unit: Path) -> None:
    """Between `knowledge_list` and `knowledge_read`, the note stops being a unit (Hylo reads its kind again)."""
    def edit(tool: str, arguments: dict) -> None:
        if tool == "knowledge_read" and unit.exists():
            unit.write_text(unit.read_text().replace("kind: knowledge", "kind: raw"))
    fake.on_call = edit


def test_a_unit_hylo_will_not_read_is_named_among_the_skipped_with_hylos_words(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    no_longer_a_unit_when_read(fake_hylo, oolong_unit(fake_hylo.root))
    summary = refreshed(fake_hylo)
    assert summary["sources"]["knowledge"] == 0
    assert summary["skipped"] == [{"path": "_knowledge/tea/oolong.md", "reason": "Hylo's knowledge_read refused it: "
                                   '"/_knowledge/tea/oolong.md" is not a knowledge note'}]


def test_a_unit_hylo_will_not_read_is_skipped_in_one_line_of_the_summary(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    no_longer_a_unit_when_read(fake_hylo, oolong_unit(fake_hylo.root))
    result = run(fake_hylo, "refresh")
    assert result.exit_code == 0, result.stderr
    assert ('Skipped _knowledge/tea/oolong.md: Hylo\'s knowledge_read refused it: "/_knowledge/tea/oolong.md" is not '
            "a knowledge note\n") in result.stdout


def test_hylos_words_for_a_refused_unit_are_one_bounded_line(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    oolong_unit(fake_hylo.root)
    fake_hylo.errors["knowledge_read"] = '"/_knowledge/tea/oolong.md" is not a knowledge note:\n' + "why " * 300
    [skipped] = refreshed(fake_hylo)["skipped"]
    reason = skipped["reason"]
    assert "\n" not in reason and len(reason) < 300 and reason.endswith("…")
    assert '"/_knowledge/tea/oolong.md" is not a knowledge note: why why' in reason


def test_a_unit_read_before_and_refused_now_leaves_no_copy_in_the_mirror(fake_hylo: FakeHylo, tmp_path: Path) -> None:
    two_days(fake_hylo.root)
    unit = oolong_unit(fake_hylo.root)
    copy = tmp_path / "state" / "_knowledge" / "tea" / "oolong.md"
    assert refreshed(fake_hylo)["sources"]["knowledge"] == 1 and copy.exists()
    no_longer_a_unit_when_read(fake_hylo, unit)
    assert [s["path"] for s in refreshed(fake_hylo)["skipped"]] == ["_knowledge/tea/oolong.md"]
    assert not copy.exists()  # else a later reading of the mirror would take it for a unit still


def test_a_memory_file_hylo_cannot_write_is_one_line_and_nothing_is_written(fake_hylo: FakeHylo) -> None:
    two_days(fake_hylo.root)
    (fake_hylo.root / "_memory" / "_preferences.md").mkdir(parents=True)  # a folder where the file should be
    result = run(fake_hylo, "refresh")
    assert (result.exit_code, "HTTP 409: path is a directory" in one_line(result.stderr),
            (fake_hylo.root / "_memory" / "_identity.md").exists()) == (2, True, False)


def test_a_memory_file_missing_in_hylo_is_created(fake_hylo: FakeHylo) -> None:
    """`read` of a missing file is `stat "…": HTTP 404: …` (internal/notes/read.go): no file yet, as in a folder."""
    two_days(fake_hylo.root)
    refreshed(fake_hylo)
    (fake_hylo.root / "_memory" / "_preferences.md").unlink()
    assert run(fake_hylo, "remember", "I love green tea").exit_code == 0
    assert "Loves green tea" in (fake_hylo.root / "_memory" / "_preferences.md").read_text()


def test_no_memory_folder_in_hylo_yet_is_no_error(fake_hylo: FakeHylo) -> None:
    """`list "/_memory": HTTP 404: file not found on disk: not found` (the server's list handler): none yet."""
    two_days(fake_hylo.root)
    shutil.rmtree(fake_hylo.root / "_memory", ignore_errors=True)
    assert run(fake_hylo, "status").exit_code == 0


def test_the_hylo_demo_reads_its_vault_on_the_first_run(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Hylo lists notes by their last change: the demo's copy is dated as Hylo would have left it."""
    import sys

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    try:
        import demo_hylo
    finally:
        sys.path.pop(0)
    demo_hylo.run()
    assert "Sources extracted: 47 short notes, 14 knowledge units, 0 extra" in capsys.readouterr().out
