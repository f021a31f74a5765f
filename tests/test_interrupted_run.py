"""An interrupted run keeps what it paid for: each batch's evidence is kept as it arrives (issue 9, point 6)."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import threading
from pathlib import Path

import pytest
from proc_helpers import MEMORY_FILES, Processes, cli_env, memory_texts, run
from vault_helpers import short

from hylo_memory.testing import FakeOpenAI, answer

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)

TODAY = "2026-11-28"
HOBBIES = ["archery", "baking", "chess", "diving", "embroidery", "fencing"]
STUCK = "I love chess."  # the fourth batch, newest first: the model hangs on it until the test lets go


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    for i, hobby in enumerate(HOBBIES):  # one note a batch (see `llm_env`), read newest first
        short(tmp_path / "vault", f"2026-11-{10 + i}", f"I love {hobby}. " + "Filler words here. " * 80,
              slug=f"n{i}")
    return tmp_path / "vault"


@pytest.fixture
def model() -> FakeOpenAI:
    release = threading.Event()

    def handler(body: dict) -> str:
        if STUCK in json.dumps(body):
            release.wait(30)
        return answer(body)

    with FakeOpenAI(handler=handler) as fake:
        fake.release = release  # type: ignore[attr-defined]
        yield fake
        release.set()


def llm_env(home: Path, fake: FakeOpenAI) -> dict[str, str]:
    # A request holds one note whole and never two: the budget follows the instructions' length (1,650 before they
    # told the model what the person's own _me.md is; 1,750–1,900 all hold one note a request now).
    return {**cli_env(home), "HYLO_MEMORY_EXTRACTOR": "openai", "OPENAI_BASE_URL": fake.base_url,
            "OPENAI_API_KEY": "test", "HYLO_MEMORY_RETRY_BACKOFF": "0", "HYLO_MEMORY_CONCURRENCY": "1",
            "HYLO_MEMORY_REQUEST_TOKEN_BUDGET": "1800", "HYLO_MEMORY_MAX_REPLY_TOKENS": "300"}


def interrupt_at_the_fourth_batch(processes: Processes, vault: Path, env: dict[str, str], fake: FakeOpenAI) -> None:
    refreshing = processes.start(["refresh", "--vault", str(vault), "--today", TODAY], env)
    for _ in range(300):
        if any(STUCK in json.dumps(r.body) for r in fake.chat_requests):
            break
        threading.Event().wait(0.1)
    else:
        pytest.fail("the fourth batch was never sent")
    refreshing.send_signal(signal.SIGINT)
    _, err = refreshing.communicate(timeout=60)
    assert refreshing.returncode == 130, err


def test_ctrl_c_keeps_the_finished_batches_and_writes_no_memory(processes: Processes, vault: Path,
                                                                 model: FakeOpenAI, tmp_path: Path) -> None:
    interrupt_at_the_fourth_batch(processes, vault, llm_env(tmp_path / "home", model), model)
    assert not [f for f in MEMORY_FILES if (vault / "_memory" / f).exists()]
    db = sqlite3.connect(vault / "_memory" / ".state" / "ledger.db")
    kept = sorted(row[0] for row in db.execute("SELECT path FROM kept_evidence"))
    db.close()
    assert kept == [f"_shorts/2026-11-1{i}-n{i}.md" for i in (3, 4, 5)]


def test_the_next_run_sends_only_the_unfinished_batches_and_applies_the_kept_ones_once(
        processes: Processes, vault: Path, model: FakeOpenAI, tmp_path: Path) -> None:
    env = llm_env(tmp_path / "home", model)
    expected = tmp_path / "expected"
    shutil.copytree(vault, expected)
    interrupt_at_the_fourth_batch(processes, vault, env, model)
    model.release.set()  # type: ignore[attr-defined]
    sent_before = len(model.chat_requests)

    rerun = run(["refresh", "--vault", str(vault), "--today", TODAY, "--json"], env)
    assert rerun.returncode == 0, rerun.stderr
    assert len(model.chat_requests) - sent_before == 3  # the fourth (cut off), fifth and sixth batches
    summary = json.loads(rerun.stdout)
    assert summary["sources"]["shorts"] == 6 and summary["resumed"] == 3

    # Exactly what an uninterrupted run gives: the kept evidence applied once, then spent.
    assert run(["refresh", "--vault", str(expected), "--today", TODAY], env).returncode == 0
    assert memory_texts(vault / "_memory") == memory_texts(expected / "_memory")
    db = sqlite3.connect(vault / "_memory" / ".state" / "ledger.db")
    assert db.execute("SELECT count(*) FROM kept_evidence").fetchone()[0] == 0
    db.close()


def test_kept_evidence_this_version_cannot_read_is_dropped_and_its_note_read_again(tmp_path: Path) -> None:
    from hylo_memory.pipeline.state.ledger import Ledger

    with Ledger(tmp_path / "ledger.db") as ledger:
        ledger.db.execute("INSERT INTO kept_evidence VALUES ('a.md', 'h', '[{\"dimension\": \"hobbies\"}]', 'now')")
        assert ledger.kept_evidence({"a.md": "h"}) == {}
        assert ledger.db.execute("SELECT count(*) FROM kept_evidence").fetchone()[0] == 0
