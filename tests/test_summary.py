"""The run summary (docs/spec.md §4.8): the text, the `--json` object, and the copy kept per run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import hylo
from vault_helpers import MEMORY, day, identity, memory_file, run, short, unit, write_file

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.extractors.base import Extraction
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.cli.options import NAMING

TODAY = day("2026-11-30")
SPEC_KEYS = {"mode", "window_days", "today", "sources", "changed_files", "counts", "deleted", "skipped", "status"}


def busy_vault(vault: Path) -> None:
    """Something of everything: notes, a unit, an extra note, a broken note, and decay to do."""
    identity(vault, "Name is Maya Okafor", "Lives in Lisbon")
    memory_file(vault, Dimension.state, "## Active\n- Feeling calm `last:2026-11-01 seen:1`\n\n"
                                        "## Fading\n- Dreading the tax deadline `last:2026-10-01 seen:2`\n")
    short(vault, "2026-11-29", "I live in Lisbon. I love long walks.", slug="walks")
    unit(vault, "take", "I believe small teams ship faster.", "2026-11-29", title="My take", perspective="own")
    write_file(vault, "journal/2026-11-30-evening.md", "My sister Ines called.\n")
    write_file(vault, "_shorts/2026-11-30-broken.md", "---\ncreated: [2026-11-30\n---\n")


class Goals(OfflineExtractor):
    """Reads the first note as `count` goals, dated by the note."""

    def __init__(self, count: int):
        super().__init__()
        self.count = count

    def extract(self, sources, profile, existing, progress=None):  # type: ignore[override]
        return Extraction(evidence=[Evidence(dimension=Dimension.goals, text=f"Goal {n}", source=sources[0].path)
                                    for n in range(1, self.count + 1)])


def refresh_out(vault: Path, *args: str) -> str:
    """What `hylo-memory refresh` (offline, dated 2026-11-30) prints, the command having exited 0."""
    result = hylo("refresh", "--vault", vault, "--today", "2026-11-30", "--extractor", "offline", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.fixture
def text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    busy_vault(tmp_path)
    monkeypatch.setenv("HYLO_MEMORY_EXTRA_SCAN_PATHS", '["journal"]')
    # The broken note is dated 2026-11-30 by its name; the window reaches back to 2026-11-29.
    return refresh_out(tmp_path)


@pytest.fixture
def as_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    busy_vault(tmp_path)
    monkeypatch.setenv("HYLO_MEMORY_EXTRA_SCAN_PATHS", '["journal"]')
    out = refresh_out(tmp_path, "--json")
    assert out.count("\n") == 1  # one JSON object, one line
    return json.loads(out)


# The text


def test_text_names_the_run_mode_and_scan_window(text: str) -> None:
    assert "Mode: incremental run, 2-day window from 2026-11-29" in text


def test_text_counts_items_processed_per_source(text: str) -> None:
    assert "Sources extracted: 1 short note, 1 knowledge unit, 1 extra" in text


def test_text_names_the_changed_memory_files(text: str) -> None:
    assert "Files changed: _identity.md, _preferences.md, _beliefs.md, _people.md, _state.md" in text


def test_text_counts_added_refreshed_faded_and_deleted(text: str) -> None:
    assert "added 3, refreshed 1, faded 1, deleted 1\n" in text


def test_text_counts_expired_evidence_when_there_is_some(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-10", "I feel exhausted.")  # a mood 20 days old: past 2 x 7 days
    assert "added 0, refreshed 0, faded 0, deleted 0, expired 1\n" in run(tmp_path, TODAY).to_text(NAMING)


def test_text_names_each_expired_entry_with_its_dimension_its_date_and_the_date_kept_from(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-10", "I feel exhausted.")  # a mood 20 days old: the state file keeps 14 days
    assert ('Expired, not applied (older than twice their file\'s decay window):\n'
            '  state "Feeling exhausted" (2026-11-10; kept from 2026-11-16)\n') in run(tmp_path, TODAY).to_text(NAMING)


def test_text_lists_the_first_twenty_expired_entries_then_how_many_more(tmp_path: Path) -> None:
    short(tmp_path, "2026-09-15", "A note 76 days old: past the goals file's 60 days.")
    text = run(tmp_path, TODAY, extractor=Goals(22), max_evidence_per_source=22).to_text(NAMING)
    assert 'goals "Goal 20" (2026-09-15; kept from 2026-10-01)\n  and 2 more\n' in text
    assert '"Goal 21"' not in text


def test_an_item_added_from_a_source_older_than_its_window_is_shown_once_as_added_into_fading(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-20", "I feel anxious about the move.")  # 10 days old: past the state file's 7
    text = run(tmp_path, TODAY).to_text(NAMING)
    assert "_state.md (new)\n  + Feeling anxious about the move (into Fading: its source is older than the file's " \
           "window)\nadded 1, refreshed 0, faded 0, deleted 0\n" in text


def test_text_names_each_change_under_its_file(text: str) -> None:
    assert "_identity.md\n  ~ Lives in Lisbon\n_preferences.md (new)\n  + Loves long walks\n" in text


def test_text_names_the_deleted_items_for_checking(text: str) -> None:
    assert "Deleted (check these):\n  _state.md: Dreading the tax deadline\n" in text


def test_text_names_skipped_notes_with_their_reason(text: str) -> None:
    assert "Skipped _shorts/2026-11-30-broken.md: frontmatter is not valid YAML (line 3)" in text


def test_text_ends_with_the_status(text: str) -> None:
    assert text.endswith("Status: ok\n")


def test_text_of_a_run_that_changed_nothing_says_so(tmp_path: Path) -> None:
    summary = run(tmp_path, TODAY)
    assert "Files changed: none" in summary.to_text(NAMING) and "No memory file changed." in summary.to_text(NAMING)


def test_text_of_a_dry_run_says_nothing_was_written(tmp_path: Path) -> None:
    assert "(dry run: nothing written)" in run(tmp_path, TODAY, dry_run=True).to_text(NAMING)


def test_text_of_a_capped_run_says_how_many_sources_wait(tmp_path: Path) -> None:
    for n in range(3):
        short(tmp_path, "2026-11-29", "I love tea.", slug=f"tea-{n}")
    assert "Waiting for the next run: 2 sources" in run(tmp_path, TODAY, per_run_cap=1).to_text(NAMING)


def test_text_counts_sources_already_extracted(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I love tea.")
    run(tmp_path, TODAY)
    assert "Already extracted and unchanged: 1" in run(tmp_path, TODAY).to_text(NAMING)


# The JSON object


def test_json_has_at_least_the_spec_keys(as_json: dict) -> None:
    assert SPEC_KEYS <= set(as_json)


def test_json_mode_window_and_today(as_json: dict) -> None:
    assert (as_json["mode"], as_json["window_days"], as_json["today"]) == ("incremental", 2, "2026-11-30")


def test_json_sources_counts_each_kind_as_integers(as_json: dict) -> None:
    assert as_json["sources"] == {"shorts": 1, "knowledge": 1, "extra": 1}


def test_json_changed_files_is_a_list_of_file_names(as_json: dict) -> None:
    assert as_json["changed_files"] == ["_identity.md", "_preferences.md", "_beliefs.md", "_people.md", "_state.md"]


def test_json_counts_are_integers(as_json: dict) -> None:
    counts = as_json["counts"]
    assert {k: counts[k] for k in ("added", "refreshed", "faded", "deleted", "expired")} == {
        "added": 3, "refreshed": 1, "faded": 1, "deleted": 1, "expired": 0,
    }


def test_json_counts_expired_evidence(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-10", "I feel exhausted.")  # a mood 20 days old: past 2 x 7 days
    assert json.loads(run(tmp_path, TODAY).to_json())["counts"]["expired"] == 1


def test_json_names_each_expired_entry_with_its_file_dimension_source_date_and_the_date_kept_from(
        tmp_path: Path) -> None:
    short(tmp_path, "2026-11-10", "I feel exhausted.")
    assert json.loads(run(tmp_path, TODAY).to_json())["expired"] == [
        {"file": "_state.md", "dimension": "state", "text": "Feeling exhausted", "source": "_shorts/2026-11-10-note.md",
         "date": "2026-11-10", "kept_from": "2026-11-16"},
    ]


def test_json_lists_the_first_twenty_expired_entries_and_counts_them_all(tmp_path: Path) -> None:
    short(tmp_path, "2026-09-15", "A note 76 days old: past the goals file's 60 days.")
    out = json.loads(run(tmp_path, TODAY, extractor=Goals(22), max_evidence_per_source=22).to_json())
    assert ([e["text"] for e in out["expired"]], out["counts"]["expired"]) == ([f"Goal {n}" for n in range(1, 21)], 22)


def test_json_deleted_names_file_and_text(as_json: dict) -> None:
    assert as_json["deleted"] == [{"file": "_state.md", "text": "Dreading the tax deadline"}]


def test_json_skipped_names_path_and_reason(as_json: dict) -> None:
    assert as_json["skipped"] == [
        {"path": "_shorts/2026-11-30-broken.md", "reason": "frontmatter is not valid YAML (line 3)"},
    ]


def test_json_status_is_ok(as_json: dict) -> None:
    assert as_json["status"] == "ok"


def test_json_types_match_the_spec(as_json: dict) -> None:
    types = {k: type(as_json[k]) for k in SPEC_KEYS}
    assert types == {"mode": str, "window_days": int, "today": str, "sources": dict, "changed_files": list,
                     "counts": dict, "deleted": list, "skipped": list, "status": str}


def test_json_of_a_first_run(tmp_path: Path) -> None:
    out = json.loads(refresh_out(tmp_path, "--json"))
    assert (out["mode"], out["window_days"], out["changed_files"], out["deleted"], out["skipped"]) == (
        "first", 90, [], [], [],
    )


def test_json_status_is_partial_when_some_sources_wait_after_a_failure(tmp_path: Path) -> None:
    from hylo_memory.extractors.base import Extraction
    from hylo_memory.extractors.offline.offline import OfflineExtractor

    class HalfFailing(OfflineExtractor):
        def extract(self, sources, profile, existing, progress=None):  # type: ignore[override]
            done = super().extract(sources, profile, existing, progress)
            return Extraction(evidence=done.evidence, failed=[sources[0].path], failures=["batch 1: invalid reply"])

    short(tmp_path, "2026-11-28", "I love tea.", slug="tea")
    short(tmp_path, "2026-11-29", "I love coffee.", slug="coffee")
    summary = json.loads(run(tmp_path, TODAY, extractor=HalfFailing()).to_json())
    assert (summary["status"], summary["sources"]["shorts"], summary["waiting"]) == ("partial", 1, 1)


# Each run's summary is kept


def test_each_run_keeps_its_summary_under_state_runs(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto.")
    run(tmp_path, TODAY)
    run(tmp_path, day("2026-12-01"))
    kept = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((tmp_path / MEMORY / ".state" / "runs").iterdir())]
    assert [(k["today"], k["mode"], k["sources"]["shorts"]) for k in kept] == [
        ("2026-11-30", "first", 1), ("2026-12-01", "incremental", 0),
    ]


def test_kept_summary_has_what_the_json_output_has(tmp_path: Path) -> None:
    short(tmp_path, "2026-11-29", "I live in Porto.")
    summary = run(tmp_path, TODAY)
    [kept] = (tmp_path / MEMORY / ".state" / "runs").iterdir()
    assert json.loads(summary.to_json()).items() <= json.loads(kept.read_text(encoding="utf-8")).items()


def test_a_dry_run_keeps_no_summary(tmp_path: Path) -> None:
    identity(tmp_path)
    run(tmp_path, TODAY, dry_run=True)
    assert not (tmp_path / MEMORY / ".state" / "runs").exists()
