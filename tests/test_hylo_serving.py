"""A memory kept in Hylo, served (docs/spec.md §9, §10): our own MCP server and the scheduler on a Hylo URL."""

from __future__ import annotations

import datetime as dt
import signal
from pathlib import Path

import pytest
from hylo_helpers import daily, two_days
from mcp_helpers import McpServer, ok
from proc_helpers import Lines, cli_env

from hylo_memory.testing.fake_hylo import KEY, FakeHylo

pytestmark = pytest.mark.slow  # real processes: the MCP server and the scheduler


def hylo_env(tmp_path: Path) -> dict[str, str]:
    return cli_env(tmp_path / "home", HYLO_API_KEY=KEY, HYLO_MEMORY_STATE_DIR=str(tmp_path / "state"),
                   HYLO_MEMORY_HYLO_TIMEOUT="10")


def test_our_mcp_server_serves_a_memory_kept_in_hylo(fake_hylo: FakeHylo, tmp_path: Path) -> None:
    two_days(fake_hylo.root)
    args = ["mcp", "--vault", fake_hylo.url, "--today", "2026-11-30"]
    with McpServer(args, hylo_env(tmp_path), tmp_path / "mcp.log") as server:
        assert "Loves long walks by the river" in ok(server.call("refresh"))
        ok(server.call("remember", {"text": "I'm vegetarian", "dimension": "preferences"}))
        assert "vegetarian" in ok(server.call("recall", {"query": "vegetarian"}))
        assert "Lisbon" in ok(server.call("context"))
    kept = (fake_hylo.root / "_memory" / "_preferences.md").read_text(encoding="utf-8")
    assert "vegetarian" in kept and "walks by the river" in kept  # written into Hylo with `create`
    assert not (tmp_path / "hylo" / "_memory" / ".state").exists()  # the state stays on this machine


def test_the_scheduler_refreshes_a_hylo_vault_then_stops_on_sigterm(processes, fake_hylo: FakeHylo,
                                                                    tmp_path: Path) -> None:
    yesterday = dt.date.today() - dt.timedelta(days=1)  # a scheduled run reads the real clock
    daily(fake_hylo.root, yesterday, ("09:30:00", "I love long walks by the river."))
    process = processes.start(["schedule", "--vault", fake_hylo.url, "--cron", "0 3 * * *"], hylo_env(tmp_path))
    err = Lines(process.stderr)
    assert "next run now (catching up" in err.wait_for("scheduling refreshes")
    err.wait_for("refresh ok: first run")
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    assert "walks by the river" in (fake_hylo.root / "_memory" / "_preferences.md").read_text(encoding="utf-8")
    assert KEY not in "".join(err.rest())
