"""A provider's batch is this vault's and no one else's (docs/spec.md §4.9): each request's `custom_id` carries the
batch's lease, an answer line under any other id is passed over, and a batch whose creation is answered in words no
one can read is looked for by its tag and cancelled before the run asks directly, so it is never billed twice."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import openai
import pytest
from batch_helpers import direct, handler, memory, refresh, run, vault_with

from hylo_memory.pipeline.state.ledger import LEDGER_FILE
from hylo_memory.testing import FakeOpenAI


def ledger(vault: Path) -> sqlite3.Connection:
    return sqlite3.connect(vault / "_memory" / ".state" / LEDGER_FILE)


def leases(vault: Path) -> list[tuple[str, dict[str, object]]]:
    with ledger(vault) as db:
        return [(token, json.loads(request)) for token, request in db.execute("SELECT token, request FROM leases")]


def sent_ids(llm: FakeOpenAI, batch_id: str) -> list[str]:
    """The custom_ids of the file the batch was created from, as the server has it (read with the real client)."""
    with openai.OpenAI(api_key="k", base_url=llm.base_url) as client:
        data = client.files.content(client.batches.retrieve(batch_id).input_file_id).read()
    return [json.loads(line)["custom_id"] for line in data.splitlines()]


def bare(custom_id: str) -> str:
    """`r1`: the id an earlier version numbered its requests by, with no lease in it."""
    return custom_id.rsplit("-", 1)[1]


def anothers(custom_id: str) -> str:
    return f"L-AnotherLease0000-{bare(custom_id)}"


def test_each_requests_custom_id_carries_the_batchs_lease_and_its_number(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler) as llm:
        vault = vault_with(tmp_path)
        refresh(vault, llm, "--batch")
        [(token, request)] = leases(vault)
        assert sent_ids(llm, llm.batch_ids[0]) == [f"{token}-r1"]
        assert [r["custom_id"] for r in request["requests"]] == [f"{token}-r1"]  # type: ignore[index]


@pytest.mark.parametrize("renamed", [bare, anothers], ids=["an earlier version's id", "another lease's id"])
def test_answer_lines_under_ids_not_the_batchs_own_are_passed_over_and_nothing_applied(
        tmp_path: Path, renamed: Callable[[str], str]) -> None:
    with FakeOpenAI(handler=handler, batch_answer_ids=renamed) as llm:
        vault = vault_with(tmp_path)
        refresh(vault, llm, "--batch")
        done = run(vault, llm, "refresh", "--collect", "--json")
        [batch] = json.loads(done.stdout)["batches"]
        assert (batch["state"], batch["read"], batch["failed"]) == ("collected", 0, 3)
        assert set(memory(vault).values()) == {None}
        [line] = [x for x in done.stderr.splitlines() if "passed over" in x]
        assert f"batch {llm.batch_ids[0]}: 1 line(s) of its output answer none of its requests" in line
        llm.batch_answer_ids = None
        assert refresh(vault, llm, "--no-batch")["sources"]["shorts"] == 3  # its notes waited: read now


def test_a_batch_an_earlier_version_sent_is_read_by_the_bare_ids_its_record_holds(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, batch_answer_ids=bare) as llm:
        vault = vault_with(tmp_path)
        refresh(vault, llm, "--batch")
        [(token, request)] = leases(vault)
        for r in request["requests"]:  # type: ignore[attr-defined]
            r["custom_id"] = bare(r["custom_id"])  # as the earlier version recorded it
        with ledger(vault) as db:
            db.execute("UPDATE leases SET request = ? WHERE token = ?", (json.dumps(request), token))
        [batch] = refresh(vault, llm, "--collect")["batches"]
        assert (batch["state"], batch["read"], batch["failed"]) == ("collected", 3, 0)
        assert memory(vault) == direct(tmp_path, llm)


def test_a_batch_made_though_its_creation_answer_is_unreadable_is_cancelled_and_the_run_asks_directly(
        tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, garble_batch_creation="created", batch_delay=3600) as llm:
        vault = vault_with(tmp_path)
        done = run(vault, llm, "refresh", "--batch", "--quiet", "--json")
        assert done.exit_code == 0, done.stderr
        [made] = llm.batch_ids
        assert llm.batch_status(made) == "cancelled"
        assert f"batch {made}, made all the same, was cancelled: the requests are sent directly" in done.stderr
        assert json.loads(done.stdout)["status"] == "ok" and len(llm.chat_requests) == 1
        assert leases(vault) == [] and memory(vault) == direct(tmp_path, llm)
        assert refresh(vault, llm, "--no-batch")["batches"] == []  # nothing left to collect: never applied twice


def test_an_unreadable_creation_answer_with_no_batch_made_asks_directly(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, garble_batch_creation="not created") as llm:
        vault = vault_with(tmp_path)
        done = run(vault, llm, "refresh", "--batch", "--quiet", "--json")
        assert done.exit_code == 0 and json.loads(done.stdout)["status"] == "ok"
        assert "not what the Batch API answers: the requests are sent directly" in done.stderr
        assert llm.batch_ids == [] and len(llm.chat_requests) == 1 and leases(vault) == []


def test_a_batch_that_finished_before_it_could_be_cancelled_is_kept_and_applied_once(tmp_path: Path) -> None:
    with FakeOpenAI(handler=handler, garble_batch_creation="created") as llm:  # finished when first asked after
        vault = vault_with(tmp_path)
        done = run(vault, llm, "refresh", "--batch", "--quiet", "--json")
        assert json.loads(done.stdout)["status"] == "submitted" and not llm.chat_requests
        assert "made all the same, had finished: the next run applies it" in done.stderr
        assert llm.batch_status(llm.batch_ids[0]) == "completed"  # answered, and paid for: kept, not asked again
        [batch] = refresh(vault, llm, "--collect")["batches"]
        assert (batch["state"], batch["read"]) == ("collected", 3) and memory(vault) == direct(tmp_path, llm)
