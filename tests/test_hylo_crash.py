"""A refresh on a Hylo vault killed (SIGKILL) while it sends the memory files, then run again, leaves Hylo with what a
clean run leaves (docs/spec.md §10): the mirror's journal and its record of Hylo's files send what was not sent."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from hylo_helpers import TODAY, run, two_days
from proc_helpers import cli_env

from hylo_memory.testing.fake_hylo import KEY, FakeHylo

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)


def texts(root: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((root / "_memory").glob("*.md"))}


def clean_run(root: Path, state: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("HYLO_MEMORY_STATE_DIR", str(state))
    with FakeHylo(root) as fake:
        assert run(fake, "refresh").exit_code == 0
    return texts(root)


@pytest.mark.slow
@pytest.mark.parametrize("kill_at", [1, 2, 3])
def test_a_run_killed_while_writing_to_hylo_then_run_again_equals_a_clean_run(
        kill_at: int, fake_hylo: FakeHylo, tmp_path: Path, processes: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    two_days(fake_hylo.root)
    shutil.copytree(fake_hylo.root, tmp_path / "clean")
    arrived, release, seen = threading.Event(), threading.Event(), []

    def stall(path: str, content: str) -> None:  # the kill_at-th create waits, unanswered, for the kill
        seen.append(path)
        if len(seen) == kill_at:
            arrived.set()
            release.wait(30)

    fake_hylo.before_create = stall
    env = cli_env(tmp_path / "home", HYLO_API_KEY=KEY, HYLO_MEMORY_STATE_DIR=os.environ["HYLO_MEMORY_STATE_DIR"])
    process = processes.start(["refresh", "--vault", fake_hylo.url, "--today", TODAY.isoformat()], env)
    assert arrived.wait(60), "the run never reached its create"
    process.kill()
    process.wait(30)
    fake_hylo.before_create = None
    release.set()
    assert run(fake_hylo, "status").exit_code == 0  # any next command sends what the killed one did not
    assert texts(fake_hylo.root) == clean_run(tmp_path / "clean", tmp_path / "clean-state", monkeypatch)
