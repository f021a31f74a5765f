"""Locking: refresh, remember and apply on one vault never interleave their writes (docs/spec.md §7)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from proc_helpers import Lines, Processes, cli_env, copy_example_vault, memory_texts, run

from hylo_memory.decay import Dimension, parse
from hylo_memory.pipeline.state.locking import MEMORY_LOCK, RUN_LOCK, hold, is_held

TODAY = "2026-12-02"
WAITING = "waiting for another hylo-memory process"

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)

# A process that takes locks, says so, and holds them until its stdin closes (or it is killed).
HOLDER = """
import sys
from contextlib import ExitStack
from pathlib import Path
from hylo_memory.pipeline.state.locking import hold
with ExitStack() as stack:
    for name in sys.argv[2:]:
        stack.enter_context(hold(Path(sys.argv[1]), name, 5, "test"))
    print("held", flush=True)
    sys.stdin.read()
"""


def holder(processes: Processes, state: Path, *names: str) -> subprocess.Popen[str]:
    process = processes.start(["-c", HOLDER, str(state), *names], None, program=sys.executable,
                              stdin=subprocess.PIPE, stderr=None)
    assert process.stdout.readline() == "held\n"
    return process


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return copy_example_vault(tmp_path / "vault")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return cli_env(tmp_path / "home")


def items(vault: Path, dimension: Dimension) -> dict[str, int]:
    path = vault / "_memory" / dimension.filename
    return {i.text: i.seen for i in parse(path.read_text(encoding="utf-8"), dimension, str(path)).items}


def remember_args(vault: Path, text: str, dimension: str = "preferences") -> list[str]:
    return ["remember", text, "--vault", str(vault), "--dimension", dimension, "--today", TODAY]


def refresh_args(vault: Path, *extra: str) -> list[str]:
    return ["refresh", "--vault", str(vault), "--today", TODAY, *extra]


def test_a_lock_left_by_a_killed_process_is_recovered_without_a_human(processes, vault: Path, env) -> None:
    state = vault / "_memory" / ".state"
    process = holder(processes, state, RUN_LOCK, MEMORY_LOCK)
    assert is_held(state, MEMORY_LOCK) and is_held(state, RUN_LOCK)
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL
    assert not is_held(state, MEMORY_LOCK) and not is_held(state, RUN_LOCK)

    remembered = run(remember_args(vault, "Always answer in English"), env)
    assert remembered.returncode == 0, remembered.stderr
    assert WAITING not in remembered.stderr
    refreshed = run(refresh_args(vault), env)
    assert refreshed.returncode == 0, refreshed.stderr
    assert WAITING not in refreshed.stderr
    assert "Always answer in English" in items(vault, Dimension.preferences)


def test_remember_waits_for_the_memory_lock_says_so_and_then_writes(processes, vault: Path, env) -> None:
    process = holder(processes, vault / "_memory" / ".state", MEMORY_LOCK)
    waiting = processes.start(remember_args(vault, "Always answer in English"), env)
    err = Lines(waiting.stderr)
    assert "(memory files are being written)" in err.wait_for(WAITING, timeout=20)
    assert waiting.poll() is None  # still waiting: nothing written behind the holder's back
    assert not (vault / "_memory" / "_preferences.md").exists()
    process.stdin.close()  # the holder finishes
    assert process.wait() == 0
    assert waiting.wait(timeout=30) == 0
    assert "Always answer in English" in items(vault, Dimension.preferences)


def test_a_writer_that_cannot_wait_refuses_with_one_line(processes, vault: Path, env) -> None:
    process = holder(processes, vault / "_memory" / ".state", MEMORY_LOCK)
    try:
        refused = run(remember_args(vault, "Always answer in English"), {**env, "HYLO_MEMORY_LOCK_TIMEOUT": "0.2"})
    finally:
        process.stdin.close()
        process.wait()
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1
    assert "another hylo-memory process is using this vault" in refused.stderr
    assert not (vault / "_memory" / "_preferences.md").exists()


def test_concurrent_remembers_and_applies_lose_no_update(processes, vault: Path, env, tmp_path: Path) -> None:
    facts = ["Always answer in English", "Is vegetarian", "Prefers window seats", "Drinks oat milk",
             "Types on a split keyboard", "Reads on a Kobo"]
    applied = ["Enjoys hiking in Sintra", "Bakes sourdough on Sundays", "Collects vinyl records"]
    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text("".join(
        json.dumps({"dimension": "preferences", "text": text, "source": f"e{n}"}) + "\n"
        for n, text in enumerate(applied)), encoding="utf-8")
    racing = [processes.start(remember_args(vault, fact), env) for fact in facts]
    racing += [processes.start(["apply", "--vault", str(vault), "--evidence", str(evidence), "--today", TODAY], env)]
    for process in racing:
        assert process.wait(timeout=60) == 0, process.stderr.read()
    kept = items(vault, Dimension.preferences)
    assert {fact: kept.get(fact) for fact in facts} == {fact: 1 for fact in facts}
    assert {text: kept.get(text) for text in applied} == {text: 1 for text in applied}


NEW_NOTE = "2026-12-01-sourdough.md"
NEW_NOTE_TEXT = "I really love sourdough baking. My mentor Ada says hi.\n"


def with_new_note(vault: Path) -> Path:
    (vault / "_shorts" / NEW_NOTE).write_text(NEW_NOTE_TEXT, encoding="utf-8")
    return vault


def extracting(vault: Path) -> bool:
    """A refresh is mid-extraction: it holds the run lock, and the memory lock is free."""
    state = vault / "_memory" / ".state"
    return is_held(state, RUN_LOCK) and not is_held(state, MEMORY_LOCK)


def test_remember_during_a_slow_refresh_is_kept_with_the_refresh_results(processes, vault, env, paused_model,
                                                                         tmp_path):
    llm_env = paused_model.env(tmp_path / "home")
    refreshing = processes.start(refresh_args(with_new_note(vault), "--json"), llm_env)
    paused_model.wait_for_request()  # the refresh is waiting for the model
    assert extracting(vault)
    remembered = run(remember_args(vault, "Always answer in English"), env)
    assert remembered.returncode == 0, remembered.stderr
    assert WAITING not in remembered.stderr  # the memory lock is free while a refresh extracts
    assert "Always answer in English" in items(vault, Dimension.preferences)  # written at once
    assert refreshing.poll() is None
    paused_model.release.set()
    out, err = refreshing.communicate(timeout=60)
    assert refreshing.returncode == 0, err
    summary = json.loads(out)
    assert summary["status"] == "ok" and summary["extractor"].startswith("openai")

    # Both writes landed: the refresh re-read the files under the lock before planning.
    preferences = items(vault, Dimension.preferences)
    assert preferences["Always answer in English"] == 1
    assert preferences["Loves sourdough baking"] == 1
    assert "Ada — mentor" in items(vault, Dimension.people)

    # And the same as the two in the order they wrote.
    expected = with_new_note(copy_example_vault(tmp_path / "expected"))
    assert run(remember_args(expected, "Always answer in English"), env).returncode == 0
    assert run(refresh_args(expected), llm_env).returncode == 0
    assert memory_texts(vault / "_memory") == memory_texts(expected / "_memory")


def test_a_second_refresh_waits_for_the_first_and_counts_no_source_twice(processes, vault, paused_model, tmp_path):
    llm_env = paused_model.env(tmp_path / "home")
    first = processes.start(refresh_args(with_new_note(vault), "--json"), llm_env)
    paused_model.wait_for_request()
    assert extracting(vault)
    second = processes.start(refresh_args(vault, "--json"), llm_env)
    assert "(a refresh is running)" in Lines(second.stderr).wait_for(WAITING, timeout=20)
    assert first.poll() is None and second.poll() is None
    paused_model.release.set()
    first_out, _ = first.communicate(timeout=60)
    second_out = second.stdout.read()
    assert first.returncode == 0 and second.wait(timeout=60) == 0
    assert json.loads(first_out)["sources"]["shorts"] > 0
    assert json.loads(second_out)["sources"] == {"shorts": 0, "knowledge": 0, "extra": 0}

    expected = with_new_note(copy_example_vault(tmp_path / "expected"))
    assert run(refresh_args(expected), llm_env).returncode == 0
    assert memory_texts(vault / "_memory") == memory_texts(expected / "_memory")


def test_is_held_writes_nothing(tmp_path: Path) -> None:
    state = tmp_path / "memory" / ".state"
    assert not is_held(state, MEMORY_LOCK)
    assert not (tmp_path / "memory").exists()
    with hold(state, MEMORY_LOCK, 1, "test"):
        # Another descriptor, as another process would open: flock says "taken".
        assert is_held(state, MEMORY_LOCK)
    assert not is_held(state, MEMORY_LOCK)
    assert oct((tmp_path / "memory").stat().st_mode & 0o777) == "0o700"
