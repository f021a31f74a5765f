"""`make demo`: examples/demo.py runs a first and an incremental run on a copy of the sample vault."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo.py"
SAMPLE = DEMO.parent / "vault"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    """The demo, run once as `make demo` runs it, its temporary vault kept inside pytest's folder."""
    tmp = tmp_path_factory.mktemp("demo")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HYLO_MEMORY_", "OPENAI_"))}
    env |= {"TMPDIR": str(tmp), "HOME": str(tmp)}
    return subprocess.run([sys.executable, str(DEMO)], capture_output=True, text=True, env=env, timeout=120)


def test_demo_exits_0(demo: subprocess.CompletedProcess[str]) -> None:
    assert demo.returncode == 0, demo.stderr


def test_demo_shows_a_first_run_over_90_days(demo: subprocess.CompletedProcess[str]) -> None:
    assert "Mode: first run, 90-day window from 2026-08-31" in demo.stdout


def test_demo_shows_an_incremental_run_reaching_back_to_the_first(demo: subprocess.CompletedProcess[str]) -> None:
    assert "Mode: incremental run, 6-day window from 2026-11-28" in demo.stdout


def test_demo_incremental_run_reads_only_the_two_new_notes(demo: subprocess.CompletedProcess[str]) -> None:
    incremental = demo.stdout.split("Mode: incremental run")[1]
    assert "Sources extracted: 2 short notes, 0 knowledge units, 0 extra" in incremental


def test_demo_names_the_malformed_sample_note(demo: subprocess.CompletedProcess[str]) -> None:
    assert "Skipped _shorts/2026-11-20-broken.md: frontmatter is not valid YAML" in demo.stdout


def test_demo_synthesises_preferences_from_the_external_clusters(demo: subprocess.CompletedProcess[str]) -> None:
    first = demo.stdout.split("Mode: incremental run")[0]
    assert first.count("Keeps coming back to") == 2


def test_demo_leaves_the_sample_vault_untouched(demo: subprocess.CompletedProcess[str]) -> None:
    assert not (SAMPLE / "_memory").exists()


def test_demo_prints_the_memory_files(demo: subprocess.CompletedProcess[str]) -> None:
    assert all(f"--- _{d}.md" in demo.stdout for d in ("identity", "preferences", "goals", "beliefs", "people", "state"))


def test_demo_explains_an_item_with_its_sources(demo: subprocess.CompletedProcess[str]) -> None:
    assert "First: added on 2026-11-28 by refresh (run 1, first)" in demo.stdout


def test_demo_shows_the_history_newest_first(demo: subprocess.CompletedProcess[str]) -> None:
    changes = [line.split()[0] for line in demo.stdout.splitlines() if line.startswith("#") and " UTC  " in line]
    assert changes == ["#3", "#2", "#1"]


def test_demo_prints_a_context_block_within_its_budget(demo: subprocess.CompletedProcess[str]) -> None:
    assert "# About Maya Okafor" in demo.stdout and "to fit the budget of 300 tokens" in demo.stdout


def test_demo_says_where_its_own_copy_lives_and_how_to_put_the_command_on_path(
        demo: subprocess.CompletedProcess[str]) -> None:
    assert f"the clone's own copy, {Path(sys.executable).parent / 'hylo-memory'}" in demo.stdout
    assert "pipx install ." in demo.stdout and "uv tool install ." in demo.stdout
