"""A refresh run end to end (docs/spec.md §4): collection and its cap, dry runs, bad notes, the CLI."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from cli_helpers import hylo
from click.testing import Result
from freezegun import freeze_time
from vault_helpers import MEMORY, day, identity, items, run, short, snapshot, texts, unit, write_file

from hylo_memory.decay import Dimension
from hylo_memory.domain.sources import Source
from hylo_memory.extractors.base import AuthorProfile, Candidate, Extraction, Progress
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.cli.options import NAMING

TODAY = day("2026-11-30")


def days_ago(n: int) -> dt.date:
    return TODAY - dt.timedelta(days=n)


def refresh(vault: Path, *args: str) -> Result:
    """`hylo-memory refresh` on the vault with the offline extractor, in-process."""
    return hylo("refresh", "--vault", vault, "--extractor", "offline", *args)


class FailingExtractor(OfflineExtractor):
    """An extractor whose every batch fails, as an LLM that is down would."""

    def extract(self, sources: list[Source], profile: AuthorProfile, existing: list[Candidate],
                progress: Progress | None = None) -> Extraction:
        return Extraction(failed=[s.path for s in sources], failures=["the model is down"])


def five_notes(vault: Path) -> None:
    """Five notes spread over the first window, oldest first, each with one fact."""
    for age, place in zip((80, 60, 40, 20, 5), ("Porto", "Braga", "Faro", "Evora", "Lisbon"), strict=True):
        short(vault, days_ago(age), f"I moved to {place}.", slug=place.lower())


# Collection, and the per-run cap


def test_run_extracts_every_note_in_the_window(tmp_path: Path) -> None:
    five_notes(tmp_path)
    assert run(tmp_path, TODAY).sources.shorts == 5


def test_run_counts_sources_per_kind(tmp_path: Path) -> None:
    short(tmp_path, days_ago(1), "I live in Porto.")
    unit(tmp_path, "mine", "I believe tests are specifications.", days_ago(3), title="Mine")
    write_file(tmp_path, "journal/2026-11-28-evening.md", "I love long walks.\n")
    summary = run(tmp_path, TODAY, extra_scan_paths=["journal"])
    assert summary.sources.model_dump() == {"shorts": 1, "knowledge": 1, "extra": 1}


def test_per_run_cap_extracts_only_that_many_sources(tmp_path: Path) -> None:
    five_notes(tmp_path)
    assert run(tmp_path, TODAY, per_run_cap=2).sources.shorts == 2


def test_per_run_cap_takes_the_newest_sources_first(tmp_path: Path) -> None:
    five_notes(tmp_path)
    run(tmp_path, TODAY, per_run_cap=2)
    assert texts(tmp_path, Dimension.identity) == {"Lives in Evora", "Lives in Lisbon"}


def test_summary_says_how_many_sources_wait_for_the_next_run(tmp_path: Path) -> None:
    five_notes(tmp_path)
    summary = run(tmp_path, TODAY, per_run_cap=2)
    assert (summary.waiting, "Waiting for the next run: 3 sources" in summary.to_text(NAMING)) == (3, True)


def test_next_run_takes_the_sources_that_waited(tmp_path: Path) -> None:
    five_notes(tmp_path)
    run(tmp_path, TODAY, per_run_cap=2)
    summary = run(tmp_path, TODAY + dt.timedelta(days=1), per_run_cap=3)
    assert (summary.sources.shorts, summary.waiting) == (3, 0)


def test_sources_that_waited_reach_memory_on_the_next_run(tmp_path: Path) -> None:
    five_notes(tmp_path)
    run(tmp_path, TODAY, per_run_cap=2)
    run(tmp_path, TODAY + dt.timedelta(days=1), per_run_cap=3)
    assert texts(tmp_path, Dimension.identity) == {"Lives in Porto", "Lives in Braga", "Lives in Faro",
                                                   "Lives in Evora", "Lives in Lisbon"}


def test_backlog_drains_over_several_capped_runs(tmp_path: Path) -> None:
    five_notes(tmp_path)
    extracted = [run(tmp_path, TODAY + dt.timedelta(days=d), per_run_cap=2).sources.shorts for d in range(4)]
    assert extracted == [2, 2, 1, 0]


def test_incremental_window_reaches_back_to_a_run_that_left_sources_waiting(tmp_path: Path) -> None:
    identity(tmp_path)
    short(tmp_path, days_ago(4), "I love long walks.", slug="walks")
    short(tmp_path, days_ago(3), "I love the sea.", slug="sea")
    run(tmp_path, days_ago(3), per_run_cap=1)  # 2-day window from days_ago(4); one source waits
    summary = run(tmp_path, TODAY)
    assert (summary.window_start, summary.sources.shorts) == (days_ago(4), 1)


def test_incremental_window_reaches_back_to_a_failed_run(tmp_path: Path) -> None:
    identity(tmp_path)
    short(tmp_path, days_ago(4), "I love long walks.", slug="walks")
    run(tmp_path, days_ago(3), extractor=FailingExtractor())
    summary = run(tmp_path, TODAY)
    assert (summary.window_start, summary.sources.shorts) == (days_ago(4), 1)


def test_a_complete_run_after_a_waiting_one_ends_the_reach_back(tmp_path: Path) -> None:
    identity(tmp_path)
    short(tmp_path, days_ago(10), "I love long walks.", slug="walks")
    short(tmp_path, days_ago(10), "I love the sea.", slug="sea")
    run(tmp_path, days_ago(9), per_run_cap=1)
    run(tmp_path, days_ago(5))  # takes the waiting one: complete
    assert run(tmp_path, TODAY).window_start == days_ago(5)


# Bad input does not stop a run


def test_malformed_note_does_not_stop_the_run(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-28-broken.md", "---\ncreated: [2026-11-20\ntags: [x\n---\nI live in Braga.\n")
    short(tmp_path, days_ago(1), "I live in Porto.")
    summary = run(tmp_path, TODAY)
    assert (summary.status, summary.sources.shorts, [s.path for s in summary.skipped]) == (
        "ok", 1, ["_shorts/2026-11-28-broken.md"],
    )


def test_malformed_note_is_not_marked_extracted_and_is_read_once_fixed(tmp_path: Path) -> None:
    broken = write_file(tmp_path, "_shorts/2026-11-29-broken.md", "---\ncreated: [2026-11-29\n---\nI live in Braga.\n")
    run(tmp_path, TODAY)
    broken.write_text("---\ncreated: 2026-11-29\n---\nI live in Braga.\n", encoding="utf-8")
    assert run(tmp_path, TODAY).sources.shorts == 1


def test_every_kind_of_unreadable_note_together_does_not_stop_the_run(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-a.md", "---\nx: [1\n---\n")
    write_file(tmp_path, "_shorts/2026-11-29-b.md", "Caf\xe9".encode("latin-1"))
    write_file(tmp_path, "_shorts/2026-11-29-c.md", b"\x00\x00\x00")
    write_file(tmp_path, "_shorts/2026-11-29-d.md", "I live in Braga. " * 100)
    write_file(tmp_path, "_shorts/2026-11-29-e.md", "---\ncreated: 2026-13-01\n---\n")
    short(tmp_path, days_ago(1), "I live in Porto.")
    summary = run(tmp_path, TODAY, max_note_bytes=500)
    assert (summary.status, len(summary.skipped), texts(tmp_path, Dimension.identity)) == ("ok", 5, {"Lives in Porto"})


def test_run_exits_0_with_a_skipped_note(tmp_path: Path) -> None:
    write_file(tmp_path, "_shorts/2026-11-29-broken.md", "---\ncreated: [2026-11-29\n---\n")
    result = refresh(tmp_path, "--today", "2026-11-30")
    assert result.exit_code == 0, result.stderr


# Decay runs even with nothing new


def test_decay_runs_on_a_night_with_no_new_notes(tmp_path: Path) -> None:
    short(tmp_path, days_ago(3), "I feel exhausted.")
    run(tmp_path, TODAY)
    run(tmp_path, TODAY + dt.timedelta(days=10))
    assert items(tmp_path, Dimension.state)["Feeling exhausted"][0] == "Fading"


# The author profile reaches the run: --intro


def test_intro_makes_a_unit_from_the_authors_own_project_their_own(tmp_path: Path) -> None:
    unit(tmp_path, "episode-3", "I believe podcasts should be short.", days_ago(2), title="Episode 3",
         source_notes=["projects/small-data/ep3.md"])
    run(tmp_path, TODAY, intro="I'm Maya. I host the podcast Small Data.")
    assert texts(tmp_path, Dimension.beliefs) == {"Believes podcasts should be short"}


def test_without_intro_a_unit_from_an_unknown_project_is_external(tmp_path: Path) -> None:
    unit(tmp_path, "episode-3", "I believe podcasts should be short.", days_ago(2), title="Episode 3",
         source_notes=["projects/small-data/ep3.md"])
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.beliefs) == set()


def test_intro_is_taken_from_the_command_line(tmp_path: Path) -> None:
    unit(tmp_path, "episode-3", "I believe podcasts should be short.", days_ago(2), title="Episode 3",
         source_notes=["projects/small-data/ep3.md"])
    assert refresh(tmp_path, "--today", "2026-11-30", "--intro", "I host the podcast Small Data.").exit_code == 0
    assert texts(tmp_path, Dimension.beliefs) == {"Believes podcasts should be short"}


# --dry-run


def test_dry_run_prints_a_diff_of_each_file_it_would_create(tmp_path: Path) -> None:
    short(tmp_path, days_ago(1), "I live in Porto.")
    out = refresh(tmp_path, "--today", "2026-11-30", "--dry-run").stdout
    assert "--- /dev/null" in out and f"+++ {tmp_path / MEMORY / '_identity.md'}" in out and "+- Lives in Porto" in out


def test_dry_run_prints_a_diff_of_each_file_it_would_change(tmp_path: Path) -> None:
    short(tmp_path, days_ago(1), "I live in Porto.")
    run(tmp_path, TODAY)
    short(tmp_path, TODAY, "I love long walks.", slug="walks")
    out = refresh(tmp_path, "--today", "2026-11-30", "--dry-run").stdout
    assert "+- Loves long walks `last:2026-11-30 seen:1`" in out and "_identity.md" not in out.split("hylo-memory refresh")[0]


def test_dry_run_on_a_new_vault_creates_no_file_or_folder(tmp_path: Path) -> None:
    short(tmp_path, days_ago(1), "I live in Porto.")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert refresh(tmp_path, "--today", "2026-11-30", "--dry-run").exit_code == 0
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_dry_run_leaves_every_file_as_it_was(tmp_path: Path) -> None:
    short(tmp_path, days_ago(5), "I live in Porto. I feel exhausted.")
    run(tmp_path, days_ago(4))
    short(tmp_path, days_ago(1), "I love long walks.", slug="walks")
    before = snapshot(tmp_path)
    assert refresh(tmp_path, "--today", "2026-11-30", "--dry-run").exit_code == 0
    assert snapshot(tmp_path) == before


def test_dry_run_creates_no_ledger_lock_or_state_file(tmp_path: Path) -> None:
    identity(tmp_path)
    short(tmp_path, days_ago(1), "I live in Porto.")
    assert refresh(tmp_path, "--today", "2026-11-30", "--dry-run").exit_code == 0
    assert not (tmp_path / MEMORY / ".state").exists()


def test_dry_run_json_says_it_is_a_dry_run(tmp_path: Path) -> None:
    short(tmp_path, days_ago(1), "I live in Porto.")
    out = json.loads(refresh(tmp_path, "--today", "2026-11-30", "--dry-run", "--json").stdout)
    assert (out["dry_run"], out["changed_files"]) == (True, ["_identity.md"])


def test_dry_run_reports_what_a_real_run_then_does(tmp_path: Path) -> None:
    short(tmp_path, days_ago(1), "I live in Porto. I love long walks.")
    dry = run(tmp_path, TODAY, dry_run=True)
    real = run(tmp_path, TODAY)
    assert (dry.changed_files, dry.counts) == (real.changed_files, real.counts)


def test_dry_run_works_on_a_vault_whose_path_has_url_characters(tmp_path: Path) -> None:
    vault = tmp_path / "notes #1 ?draft% 100"
    short(vault, days_ago(1), "I live in Porto.")
    run(vault, TODAY)
    short(vault, TODAY, "I love long walks.", slug="walks")
    assert run(vault, TODAY, dry_run=True).sources.shorts == 1


# Run records and today


def test_each_run_keeps_its_summary_under_state_runs(tmp_path: Path) -> None:
    short(tmp_path, days_ago(1), "I live in Porto.")
    run(tmp_path, TODAY)
    run(tmp_path, TODAY + dt.timedelta(days=1))
    runs = sorted((tmp_path / MEMORY / ".state" / "runs").glob("*.json"))
    kept = [json.loads(p.read_text(encoding="utf-8")) for p in runs]
    assert [(k["today"], k["mode"]) for k in kept] == [("2026-11-30", "first"), ("2026-12-01", "incremental")]


@freeze_time("2026-11-30 10:00:00")
def test_without_today_the_run_uses_the_real_date(tmp_path: Path) -> None:
    short(tmp_path, days_ago(1), "I live in Porto.")
    assert json.loads(refresh(tmp_path, "--json").stdout)["today"] == "2026-11-30"


def test_memory_files_are_written_private(tmp_path: Path) -> None:
    short(tmp_path, days_ago(1), "I live in Porto.")
    run(tmp_path, TODAY)
    assert (tmp_path / MEMORY / "_identity.md").stat().st_mode & 0o777 == 0o600
