"""Runs through the provider's batch endpoint (docs/spec.md §4.9): submitted, collected the next run, applied as a
direct run would apply the same replies; a batch in flight, expired, cancelled or half failed; a run killed
between its steps; a server without the endpoint."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_helpers import DAY, direct, env_of, handler, memory, refresh, run, vault_with
from proc_helpers import cli_env
from vault_helpers import opened

from hylo_memory.decay import Dimension
from hylo_memory.extractors.llm.batch_api import answers
from hylo_memory.pipeline.state.ledger import LEDGER_FILE
from hylo_memory.pipeline.state.read_memo import digest, memo_path
from hylo_memory.testing import FakeOpenAI
from hylo_memory.testing.fake_replies import error


@pytest.fixture
def llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(handler=handler, cache_prefixes=256) as fake:
        yield fake


def test_a_batch_run_uploads_its_requests_and_ends_submitted(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path)
    summary = refresh(vault, llm, "--batch")
    assert summary["status"] == "submitted"
    [batch] = summary["batches"]
    assert (batch["state"], batch["sources"], batch["id"]) == ("submitted", 3, llm.batch_ids[0])
    assert not llm.chat_requests  # nothing asked directly
    assert set(memory(vault).values()) == {None}  # nothing applied yet


def test_the_next_run_collects_the_batch_and_keeps_what_a_direct_run_keeps(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path)
    refresh(vault, llm, "--batch")
    batched_bodies = llm.batch_lines  # not answered yet: asked when the next run collects
    assert batched_bodies == []
    summary = refresh(vault, llm, "--batch")
    [batch] = summary["batches"]
    assert (batch["state"], batch["read"], batch["failed"]) == ("collected", 3, 0)
    assert batch["counts"]["added"] >= 3
    expected = direct(tmp_path, llm)
    assert memory(vault) == expected and "Works as a nurse in Leeds" in str(expected)  # a short key mangles nothing
    [asked] = [r.body for r in llm.chat_requests]  # the direct run's one request is the batch's, byte for byte
    assert llm.batch_lines == [asked]


def test_the_batch_setting_makes_every_command_line_run_a_batch_run(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path)
    os.environ["HYLO_MEMORY_BATCH"] = "true"
    try:
        assert refresh(vault, llm)["status"] == "submitted"
    finally:
        os.environ.pop("HYLO_MEMORY_BATCH")
    assert len(llm.batch_ids) == 1 and not llm.chat_requests


def test_cached_tokens_a_batch_reports_are_counted(tmp_path: Path, llm: FakeOpenAI) -> None:
    refresh(vault_with(tmp_path / "first"), llm, "--no-batch")  # the prefix seen once
    vault = vault_with(tmp_path / "second", {"chess": "I play chess on Sundays."})
    refresh(vault, llm, "--batch")
    collected = refresh(vault, llm, "--collect")  # the collected run's usage is in the ledger
    status = json.loads(run(vault, llm, "status", "--json").stdout)["runs"][0]["usage"]
    assert collected["batches"][0]["state"] == "collected"
    assert 256 <= status["cached_tokens"] <= status["prompt_tokens"] and status["batched"] == 1


def test_a_collected_run_counts_its_requests_as_batched(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path)
    refresh(vault, llm, "--batch")
    refresh(vault, llm, "--collect")
    status = json.loads(run(vault, llm, "status", "--json").stdout)
    applied = status["runs"][0]
    assert applied["usage"]["requests"] == applied["usage"]["batched"] == 1


def test_collect_alone_reads_nothing_new(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path)
    refresh(vault, llm, "--batch")
    later = DAY - dt.timedelta(hours=1)
    (vault / "_shorts" / "later.md").write_text(f"---\ncreated: {later:%Y-%m-%d}\n---\nI play chess.\n",
                                                encoding="utf-8")
    done = run(vault, llm, "refresh", "--collect")
    assert done.exit_code == 0 and "collected, 3 note(s) in 1 request(s)" in done.stdout
    assert not llm.chat_requests and "chess" not in str(memory(vault))


def test_collect_alone_keeps_the_read_memo_of_what_it_applied(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path)
    refresh(vault, llm, "--batch")
    memo = memo_path(vault / "_memory")
    memo.unlink(missing_ok=True)
    assert run(vault, llm, "refresh", "--collect").exit_code == 0
    kept = json.loads(memo.read_bytes())["files"]
    on_disk = {d.value: digest(p.read_bytes()) if (p := vault / "_memory" / d.filename).exists() else None
               for d in Dimension}
    assert {name: f and f["digest"] for name, f in kept.items()} == on_disk  # the files as the batch left them


def test_a_batch_still_in_progress_is_named_and_its_notes_are_not_read_again(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, batch_delay=3600) as llm:
        vault = vault_with(tmp_path)
        refresh(vault, llm, "--batch")
        summary = refresh(vault, llm, "--no-batch")
        assert [b["state"] for b in summary["batches"]] == ["in progress"]
        assert summary["waiting"] == 0 and not llm.chat_requests  # held by the batch: neither read nor waiting
        status = run(vault, llm, "status").stdout
        assert f"Batch {llm.batch_ids[0]}: submitted, 3 note(s)" in status


@pytest.mark.parametrize("ending", ["expired", "cancelled"])
def test_a_batch_that_ends_unanswered_puts_its_notes_back_to_waiting(tmp_path: Path, ending: str) -> None:
    with FakeOpenAI(handler=handler, batch_delay=3600 if ending == "cancelled" else 0,
                    batch_expire=ending == "expired") as llm:
        vault = vault_with(tmp_path)
        refresh(vault, llm, "--batch")
        if ending == "cancelled":
            llm.cancel_batch(llm.batch_ids[0])
        summary = refresh(vault, llm, "--collect", "--json")
        [batch] = summary["batches"]
        assert (batch["state"], batch["read"], batch["failed"]) == ("collected", 0, 3)
        assert set(memory(vault).values()) == {None}
        again = refresh(vault, llm, "--no-batch")  # the notes waited: read now, asked directly
        assert again["sources"]["shorts"] == 3 and memory(vault) == direct(tmp_path, llm)


FILLER = "The bus was late again and the sky stayed grey all day. " * 40
LONG_NOTES = {str(n): f"I love {word}.\n\n{FILLER}" for n, word in enumerate(["tea", "jazz", "chess", "rain"])}
A_REQUEST_A_NOTE = {"HYLO_MEMORY_REQUEST_TOKEN_BUDGET": "3000"}


def test_requests_in_the_error_file_put_only_their_notes_back_to_waiting(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler) as llm:
        llm.when("jazz", error(500, "the model fell over"), times=1)
        vault = vault_with(tmp_path, LONG_NOTES)
        os.environ.update(A_REQUEST_A_NOTE)  # a request fails alone
        try:
            refresh(vault, llm, "--batch")
            [batch] = refresh(vault, llm, "--collect")["batches"]
        finally:
            os.environ.pop("HYLO_MEMORY_REQUEST_TOKEN_BUDGET")
        assert batch["requests"] == 4 and batch["read"] >= 1 and batch["read"] + batch["failed"] == 4
        assert "jazz" not in str(memory(vault))
        again = refresh(vault, llm, "--no-batch")  # the failed request's notes, and only they, wait
        assert again["sources"]["shorts"] == batch["failed"] and "jazz" in str(memory(vault))


def test_a_batch_stops_at_the_runs_token_ceiling_and_the_rest_wait(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path, LONG_NOTES)
    os.environ.update({**A_REQUEST_A_NOTE, "HYLO_MEMORY_RUN_TOKEN_CEILING": "5000"})
    try:
        summary = refresh(vault, llm, "--batch")
    finally:
        for key in (*A_REQUEST_A_NOTE, "HYLO_MEMORY_RUN_TOKEN_CEILING"):
            os.environ.pop(key)
    [batch] = summary["batches"]
    assert 1 <= batch["requests"] == batch["sources"] < 4 and summary["waiting"] == 4 - batch["sources"]
    assert refresh(vault, llm, "--no-batch")["sources"]["shorts"] == 4 - batch["sources"]  # read directly now


def test_a_server_without_the_batch_endpoint_is_asked_directly_with_one_line(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, batches=False) as llm:
        vault = vault_with(tmp_path)
        done = run(vault, llm, "refresh", "--batch", "--quiet")
        assert done.exit_code == 0, done.stderr
        assert done.stderr.count("\n") == 1 and "no batch endpoint" in done.stderr and "directly" in done.stderr
        assert len(llm.chat_requests) == 1 and memory(vault) == direct(tmp_path, llm)


def test_a_run_dated_in_the_past_asks_directly_and_says_so(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path)
    yesterday = DAY - dt.timedelta(days=1)
    done = run(vault, llm, "refresh", "--batch", "--today", str(yesterday), "--json", "--quiet")
    assert json.loads(done.stdout)["status"] != "submitted" and not llm.batch_ids
    assert "--batch: a run dated before today" in done.stderr and "directly" in done.stderr


def test_a_batch_past_its_window_and_a_day_is_given_up_and_its_notes_wait(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, batch_delay=3600) as llm:
        vault = vault_with(tmp_path)
        refresh(vault, llm, "--batch")
        age_the_batch(vault, 49)  # sent two days and an hour ago
        summary = refresh(vault, llm, "--no-batch")
        assert [b["state"] for b in summary["batches"]] == ["given up"]
        assert summary["sources"]["shorts"] == 3 and memory(vault) == direct(tmp_path, llm)


def age_the_batch(vault: Path, hours: float) -> None:
    with sqlite3.connect(vault / "_memory" / ".state" / LEDGER_FILE) as db:
        db.execute("UPDATE leases SET created_at = created_at - ?, expires_at = expires_at - ?",
                   (hours * 3600, hours * 3600))


def test_a_batch_finished_past_its_window_and_a_day_is_still_applied(tmp_path: Path, llm: FakeOpenAI) -> None:
    vault = vault_with(tmp_path)
    refresh(vault, llm, "--batch")
    age_the_batch(vault, 72)  # the computer was off for a weekend; the batch finished long ago, and is paid for
    [batch] = refresh(vault, llm, "--no-batch")["batches"]
    assert (batch["state"], batch["read"]) == ("collected", 3) and memory(vault) == direct(tmp_path, llm)


def test_a_given_up_batchs_notes_are_read_though_complete_runs_came_between(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, batch_delay=3600) as llm:
        vault = vault_with(tmp_path)
        refresh(vault, llm, "--batch")
        later = refresh(vault, llm, "--no-batch", "--today", str(DAY + dt.timedelta(days=5)))
        assert later["status"] == "ok" and later["sources"]["shorts"] == 0  # held by the batch meanwhile
        age_the_batch(vault, 49)
        summary = refresh(vault, llm, "--no-batch", "--today", str(DAY + dt.timedelta(days=6)))
        assert [b["state"] for b in summary["batches"]] == ["given up"]
        assert summary["sources"]["shorts"] == 3  # the window reached back to them


def test_a_batch_whose_creation_answer_is_lost_is_found_by_its_tag_and_applied_once(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, lose_batch_creation=True) as llm:
        vault = vault_with(tmp_path)
        done = run(vault, llm, "refresh", "--batch", "--quiet", "--json")
        assert done.exit_code == 0 and "looks for the batch" in done.stderr
        assert json.loads(done.stdout)["status"] == "submitted" and not llm.chat_requests
        llm.lose_batch_creation = False
        [batch] = refresh(vault, llm, "--no-batch")["batches"]
        assert (batch["state"], batch["id"]) == ("collected", llm.batch_ids[0]) and len(llm.batch_ids) == 1
        assert memory(vault) == direct(tmp_path, llm)


def test_a_batch_the_server_no_longer_knows_is_given_up_and_its_notes_read(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, batch_delay=3600) as first:
        vault = vault_with(tmp_path)
        refresh(vault, first, "--batch")
    with FakeOpenAI(handler=handler) as second:  # the server was reset: it knows no batch of that id
        summary = refresh(vault, second, "--no-batch")
        [batch] = summary["batches"]
        assert batch["state"] == "given up" and "knows no batch" in batch["said"]
        assert summary["sources"]["shorts"] == 3


def test_another_vaults_batch_of_the_same_id_is_never_applied(tmp_path: Path, llm: FakeOpenAI) -> None:
    mine = vault_with(tmp_path / "mine")
    theirs = vault_with(tmp_path / "theirs", {"tea": "I love green tea."})
    refresh(mine, llm, "--batch")
    refresh(theirs, llm, "--batch")
    with sqlite3.connect(mine / "_memory" / ".state" / LEDGER_FILE) as db:  # as a server reset could number it
        request = json.loads(db.execute("SELECT request FROM leases").fetchone()[0])
        db.execute("UPDATE leases SET request = ?", (json.dumps({**request, "batch_id": llm.batch_ids[1]}),))
    [batch] = refresh(mine, llm, "--collect")["batches"]
    assert batch["state"] == "given up" and "not the one this vault sent" in batch["said"]
    assert "tea" not in str(memory(mine)).lower()


def test_lines_of_an_output_file_that_are_not_answers_are_passed_over() -> None:
    good = {"custom_id": "r1", "response": {"status_code": 200, "body": {"id": "x"}}, "error": None}
    output = b"\n".join([b"[" * 100_000, b"not json", b'{"custom_id": 5}', b'"a string"',
                          json.dumps(good).encode(), json.dumps(good).encode()])
    found = answers(output, b'{"custom_id": "r2", "response": {"status_code": 429}, "error": null}', {"r1", "r2"})
    assert list(found.replies) == ["r1"] and found.unreadable == 5
    assert found.errors == {"r2": "HTTP 429: no answer"}


def test_collect_is_refused_beside_options_that_would_do_more(tmp_path: Path, llm: FakeOpenAI) -> None:
    done = run(vault_with(tmp_path), llm, "refresh", "--collect", "--dry-run")
    assert done.exit_code == 2 and "--collect" in done.stderr and "--dry-run" in done.stderr


# Killed between its steps: a real process, SIGKILLed by itself at a chosen point; the rerun ends as a clean run.

KILLER = """
import os, signal, sys
from hylo_memory.pipeline.run import batch
from hylo_memory.pipeline.state import leases

def die(*a, **k):
    os.kill(os.getpid(), signal.SIGKILL)

if os.environ["KILL_AT"] == "after the upload":
    leases.Leases.set_request = die  # the batch created on the server, its id not yet recorded
else:
    batch.refresh = die  # the answers read, not yet applied

from hylo_memory.pipeline.cli.group import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("point", ["after the upload", "after the collect"])
@pytest.mark.slow
def test_a_run_killed_between_its_steps_ends_as_a_clean_run_after_a_rerun(tmp_path: Path, llm: FakeOpenAI,
                                                                        point: str) -> None:
    vault = vault_with(tmp_path)
    env = {**cli_env(tmp_path / "home", **env_of(llm), HYLO_MEMORY_EXTRACTOR="auto"), "KILL_AT": point}
    if point == "after the collect":
        refresh(vault, llm, "--batch")
    args = ["refresh", "--vault", str(vault), "--quiet"] + (["--batch"] if point == "after the upload" else [])
    killed = subprocess.run([sys.executable, "-c", KILLER, *args], env=env, capture_output=True, text=True,
                            timeout=60)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    summary = refresh(vault, llm, "--no-batch")  # adopts the batch by its tag, or collects again
    assert [b["state"] for b in summary["batches"]] == ["collected"]
    assert len(llm.batch_ids) == 1 and not llm.chat_requests  # nothing sent twice
    assert memory(vault) == direct(tmp_path, llm)
    assert refresh(vault, llm, "--no-batch")["sources"] == {"shorts": 0, "knowledge": 0, "extra": 0}


def test_the_assistant_is_told_the_unread_notes_are_in_a_batch_not_asked_to_wait(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, batch_delay=3600) as llm:
        vault = vault_with(tmp_path)
        refresh(vault, llm, "--batch")
        done = run(vault, llm, "pending")
        assert done.exit_code == 0 and "the 3 unread note(s) are in a batch" in done.stdout
        assert "Ask again" not in done.stdout


def test_the_refresh_operation_the_mcp_tool_calls_asks_directly_whatever_the_setting(
        tmp_path: Path, llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    from hylo_memory.pipeline.config import load_config
    from hylo_memory.pipeline.operations.refresh import refresh_memory
    from hylo_memory.pipeline.run.options import RunOptions

    vault = vault_with(tmp_path)
    for key, value in {**env_of(llm), "HYLO_MEMORY_BATCH": "true"}.items():
        monkeypatch.setenv(key, value)
    config = load_config()
    assert config.batch
    summary, _ = refresh_memory(opened(vault, config), RunOptions(DAY))  # as pipeline/mcp/tools.py calls it: no `batch`
    assert summary.status == "ok" and not llm.batch_ids and len(llm.chat_requests) == 1
