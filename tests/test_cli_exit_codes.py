"""The command line's exit codes and its one-line failures, end to end."""

from __future__ import annotations

import signal
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest
from proc_helpers import HYLO, PausedModel, Processes, cli_env, copy_example_vault

TODAY = "2026-11-30"


@pytest.mark.slow
def test_version_prints_the_installed_version(tmp_path: Path) -> None:
    done = subprocess.run([HYLO, "--version"], env=cli_env(tmp_path), capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, f"hylo-memory {version('hylo-memory')}\n")


@pytest.mark.slow
def test_ctrl_c_during_a_refresh_exits_130_with_one_line_and_writes_no_memory(
        processes: Processes, paused_model: PausedModel, tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    refreshing = processes.start(["refresh", "--vault", str(vault), "--today", TODAY],
                                 paused_model.env(tmp_path / "home"))
    paused_model.wait_for_request()  # extracting: nothing is written yet
    refreshing.send_signal(signal.SIGINT)
    out, err = refreshing.communicate(timeout=60)
    assert refreshing.returncode == 130
    assert err == "hylo-memory: interrupted\n"
    assert not list((vault / "_memory").glob("_*.md"))


@pytest.mark.slow
def test_an_unknown_command_is_a_one_line_usage_error_exiting_2(tmp_path: Path) -> None:
    done = subprocess.run([HYLO, "bogus"], env=cli_env(tmp_path), capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "bogus" in done.stderr


@pytest.mark.slow
def test_a_missing_vault_is_a_one_line_error_exiting_1(tmp_path: Path) -> None:
    done = subprocess.run([HYLO, "status", "--vault", str(tmp_path / "nope")], env=cli_env(tmp_path),
                          capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (1, f"hylo-memory: {tmp_path / 'nope'}: vault not found\n")
