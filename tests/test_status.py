"""`hylo-memory status`: runs, next scheduled run, items per file, sources waiting — and it writes nothing."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import pytest
from cli_helpers import hylo
from freezegun import freeze_time
from proc_helpers import copy_example_vault
from vault_helpers import opened, parse_memory

from hylo_memory.decay import Dimension
from hylo_memory.extractors.base import Decision
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.operations.remember import remember
from hylo_memory.pipeline.operations.serving.status import gather
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.run.refresh import refresh
from hylo_memory.pipeline.state.journal import Journal, journal_path
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.state.locking import RUN_LOCK, hold
from hylo_memory.pipeline.state.writing import open_store

pytestmark = pytest.mark.usefixtures("isolated_env")

TODAY = dt.date(2026, 12, 2)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return copy_example_vault(tmp_path / "vault")


@pytest.fixture
def config():
    return load_config()


def tree(root: Path) -> dict[str, tuple]:
    """Every path under `root` with its kind, size, mtime and content hash."""
    out = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
        out[str(path.relative_to(root))] = (path.is_dir(), st.st_size, st.st_mtime_ns, st.st_mode, digest)
    return out


def status_text(vault: Path, *args: str) -> str:
    """`hylo-memory status` on the vault: its text, the command having exited 0."""
    result = hylo("status", "--vault", vault, *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def status_json(vault: Path, *args: str) -> dict:
    return json.loads(status_text(vault, "--json", *args))


def test_status_of_a_vault_never_run_writes_nothing(vault: Path) -> None:
    before = tree(vault)
    data = status_json(vault, "--today", TODAY.isoformat())
    text = status_text(vault, "--today", TODAY.isoformat())
    assert tree(vault) == before
    assert not (vault / "_memory").exists()

    assert data["runs"] == []
    assert [f["exists"] for f in data["files"]] == [False] * 6
    waiting = data["waiting"]
    assert waiting["mode"] == "first" and waiting["window_days"] == 90
    assert waiting["total"] == waiting["shorts"] + waiting["knowledge"] + waiting["extra"] > 40
    assert waiting["skipped"] == 1  # the example vault's broken note
    assert "Last runs:\n  none yet" in text
    assert "_identity.md       not created yet" in text
    assert f"Sources waiting: {waiting['total']} (" in text


def test_status_after_runs_counts_items_and_writes_nothing(vault: Path, config) -> None:
    refresh(opened(vault, config), OfflineExtractor(), RunOptions(TODAY))
    store = open_store(vault, config)
    remember(opened(vault, config), Decision(dimension=Dimension.preferences, text="Is vegetarian", pinned=True),
             NAMING, TODAY)
    before = tree(vault)
    data = status_json(vault, "--today", TODAY.isoformat())
    assert tree(vault) == before

    for line in data["files"]:
        dimension = Dimension(line["file"][1:-3])
        memory = store.read(dimension)
        assert (line["active"], line["fading"], line["pinned"]) == (
            len(memory.active), len(memory.fading), sum(i.pinned for i in memory.items))
        assert line["decay_window"] == memory.decay_window and line["last_updated"] == str(memory.last_updated)
    assert data["files"][1]["pinned"] == 1  # the remembered fact
    assert [(r["mode"], r["status"]) for r in data["runs"]] == [("first", "ok")]
    assert data["runs"][0]["counts"]["added"] > 0
    assert data["waiting"]["total"] == 0 and data["waiting"]["mode"] == "incremental"

    (vault / "_shorts" / "2026-12-02-new.md").write_text("I really love sourdough baking.\n", encoding="utf-8")
    assert status_json(vault, "--today", TODAY.isoformat())["waiting"]["shorts"] == 1


def test_text_status_lists_runs_files_and_counts(vault: Path, config) -> None:
    refresh(opened(vault, config), OfflineExtractor(), RunOptions(TODAY))
    text = status_text(vault, "--today", TODAY.isoformat())
    preferences = open_store(vault, config).read(Dimension.preferences)
    assert "Memory files:        active  fading  pinned" in text
    assert f"  _preferences.md    {len(preferences.active):6d}  {len(preferences.fading):6d}       0" in text
    assert "  #1  " in text and "first, 90-day window  ok: added " in text
    assert "Sources waiting: 0 (0 short notes, 0 knowledge units, 0 extra)" in text


@freeze_time("2026-12-02 09:00:00+00:00")
def test_next_scheduled_run_uses_the_configured_schedule_and_zone(vault: Path, monkeypatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_SCHEDULE", "30 4 * * 1")  # Mondays 04:30
    monkeypatch.setenv("HYLO_MEMORY_TIMEZONE", "America/New_York")
    data = status_json(vault)
    schedule = data["schedule"]
    assert schedule["cron"] == "30 4 * * 1" and schedule["timezone"] == "America/New_York"
    assert schedule["next_run"] == "2026-12-07T04:30:00-05:00"
    assert schedule["previous_run"] == "2026-11-30T04:30:00-05:00"
    assert schedule["overdue"] is True  # never ran
    text = status_text(vault)
    assert ('Next scheduled run: 2026-12-07 04:30 EST ("30 4 * * 1", America/New_York; the `schedule` setting)'
            in text)
    assert "Overdue: no successful run since 2026-11-30 04:30" in text


def test_a_run_after_the_last_fire_time_is_not_overdue(vault: Path, config) -> None:
    with freeze_time("2026-12-02 03:10:00+00:00"):
        refresh(opened(vault, config), OfflineExtractor(), RunOptions(TODAY))
    with freeze_time("2026-12-02 09:00:00+00:00"):
        status = gather(opened(vault, config.model_copy(update={"timezone": "UTC", "schedule": "0 3 * * *"})), NAMING, TODAY)
    assert status.schedule.overdue is False
    assert status.schedule.next_run == dt.datetime(2026, 12, 3, 3, 0, tzinfo=status.schedule.next_run.tzinfo)
    assert status.last_success == dt.datetime(2026, 12, 2, 3, 10, tzinfo=dt.UTC)


def test_a_bad_schedule_is_shown_not_fatal(vault: Path, monkeypatch) -> None:
    monkeypatch.setenv("HYLO_MEMORY_SCHEDULE", "every night")
    assert status_json(vault)["schedule"]["error"].startswith("schedule 'every night': a cron expression")


def test_a_hand_broken_file_is_reported_and_left_alone(vault: Path) -> None:
    broken = vault / "_memory" / "_state.md"
    broken.parent.mkdir()
    broken.write_text("## Active\n- Tired `last:2026-13-45 seen:1`\n", encoding="utf-8")
    data = status_json(vault, "--today", TODAY.isoformat())
    state = data["files"][5]
    assert state["exists"] and state["error"].endswith("_state.md:2: item date '2026-13-45' is not a valid YYYY-MM-DD date")
    assert "_state.md          refused: " in status_text(vault)
    assert broken.read_text(encoding="utf-8").endswith("`last:2026-13-45 seen:1`\n")


def test_every_hand_broken_file_is_named_on_a_line_of_its_own_with_its_line(vault: Path) -> None:
    (vault / "_memory").mkdir()
    goals, state = vault / "_memory" / "_goals.md", vault / "_memory" / "_state.md"
    goals.write_text("## Active\n- Ship it `last:2026-13-45 seen:1`\n", encoding="utf-8")
    state.write_text("## Active\n- Tired `last:2026-11-01 seen:x`\n", encoding="utf-8")
    refused = [line for line in status_text(vault, "--today", TODAY.isoformat()).splitlines() if "refused: " in line]
    assert len(refused) == 2
    assert f"{goals}:2: " in refused[0] and f"{state}:2: " in refused[1]
    errors = [f["error"] for f in status_json(vault, "--today", TODAY.isoformat())["files"] if f["error"]]
    assert [e.split(": ")[0] for e in errors] == [f"{goals}:2", f"{state}:2"]


def test_a_dead_run_shows_as_interrupted_and_a_live_one_as_running(vault: Path, config) -> None:
    store = open_store(vault, config)
    with Ledger.for_memory_dir(store.folder) as ledger:
        ledger.start_run(TODAY, "first", TODAY - dt.timedelta(days=89), 90)  # a run killed midway
    assert [r.status for r in gather(opened(vault, config), NAMING, TODAY).runs] == ["interrupted"]
    with hold(store.folder / ".state", RUN_LOCK, 1, "test"):
        status = gather(opened(vault, config), NAMING, TODAY)
        assert status.refresh_running and [r.status for r in status.runs] == ["running"]
        with Ledger.for_memory_dir(store.folder) as ledger:
            ledger.start_run(TODAY, "first", TODAY - dt.timedelta(days=89), 90)
        # Only the newest run can be the live one.
        assert [r.status for r in gather(opened(vault, config), NAMING, TODAY).runs] == ["running", "interrupted"]
    out = status_text(vault, "--today", TODAY.isoformat())
    assert "A refresh is running now." not in out and out.count("interrupted") == 2


def test_an_unfinished_journal_is_reported_not_replayed(vault: Path, config) -> None:
    store = open_store(vault, config)
    path = journal_path(store)
    path.parent.mkdir(parents=True)
    path.write_text(Journal(files={Dimension.state: "## Active\n- Tired `last:2026-12-01 seen:1`\n"}).model_dump_json())
    before = tree(vault)
    data = status_json(vault)
    assert data["interrupted_writes"] is True
    assert tree(vault) == before and not store.exists(Dimension.state)
    assert "the next hylo-memory command finishes its writes" in status_text(vault)


def test_json_status_has_the_documented_keys(vault: Path) -> None:
    data = status_json(vault)
    assert set(data) >= {"vault", "memory_dir", "today", "refresh_running", "interrupted_writes", "last_success",
                         "runs", "schedule", "files", "waiting", "problems"}
    assert [f["file"] for f in data["files"]] == [d.filename for d in Dimension]
    assert set(data["waiting"]) >= {"shorts", "knowledge", "extra", "total", "skipped", "window_start"}


def test_the_memory_files_status_reads_are_those_a_run_writes(vault: Path, config) -> None:
    refresh(opened(vault, config), OfflineExtractor(), RunOptions(TODAY))
    path = vault / "_memory" / "_goals.md"
    goals = parse_memory(path, Dimension.goals)
    line = gather(opened(vault, config), NAMING, TODAY).files[2]
    assert (line.file, line.active, line.fading) == ("_goals.md", len(goals.active), len(goals.fading))


# Looking ahead (issue 11, point 6)

def test_status_says_what_the_next_run_will_fade_and_delete_if_nothing_new_is_seen(tmp_path: Path) -> None:
    (tmp_path / "_memory").mkdir()
    (tmp_path / "_memory" / "_state.md").write_text(
        "---\ndecay_window: 7d\nlast_updated: 2026-11-01\n---\n## Active\n- Tired `last:2026-11-20 seen:1`\n"
        "- Calm `last:2026-11-29 seen:1`\n\n## Fading\n- Stressed `last:2026-11-01 seen:2`\n")
    result = hylo("status", "--vault", tmp_path, "--today", "2026-11-30", "--json")
    line = next(f for f in json.loads(result.stdout)["files"] if f["file"] == "_state.md")
    assert (line["will_fade"], line["will_delete"]) == (["Tired"], ["Stressed"])
    text = hylo("status", "--vault", tmp_path, "--today", "2026-11-30").stdout
    assert "next run, if nothing new: 1 fade, 1 deleted" in text
    assert "Tired" in (tmp_path / "_memory" / "_state.md").read_text()  # status writes nothing
