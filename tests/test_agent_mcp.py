"""The person's assistant as the extractor over MCP (docs/spec.md §9.5), through the SDK's real client: a
scripted assistant reads each batch's text, answers with `propose_memories`, and loops until nothing remains."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import hylo
from mcp_helpers import McpServer, failed, ok, text
from mcp_types import CallToolResult
from proc_helpers import cli_env, copy_example_vault, memory_texts
from vault_helpers import opened

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.reading.apply import apply_evidence
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.state.read_memo import digest, memo_path

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)

TODAY = "2026-11-30"
SOURCE = re.compile(r'<source id="(S\d+)"[^>]*>\n(?:Title: (.*)\n)?')


def serve(vault: Path, tmp_path: Path, client: str, **env: str) -> McpServer:
    home = cli_env(tmp_path / "home", HYLO_MEMORY_ASSISTANT_BATCH_CHARS="1000", **env)
    return McpServer(["mcp", "--vault", str(vault), "--today", TODAY], home, tmp_path / f"{client}.log", client)


def answer_for(batch: str) -> list[dict[str, Any]]:
    """What the scripted assistant finds in a batch's text: one fact a note, named by its title or its id."""
    return [{"dimension": "state", "text": f"Wrote “{title or sid}”", "source": sid, "restates": None}
            for sid, title in SOURCE.findall(batch)]


def structured(result: CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def loop(server: McpServer, given: list[Evidence] | None = None) -> list[dict[str, Any]]:
    """notes_to_read → propose_memories until nothing remains; the batches' structured content."""
    batches = []
    while (handed := server.call("notes_to_read")) and structured(handed)["status"] == "batch":
        batch = structured(handed)
        batches.append(batch)
        answer = answer_for(ok(handed)) if batch["kind"] == "extract" else []
        if given is not None:
            by_id = {s["id"]: s for s in batch.get("sources", [])}
            given += [Evidence(dimension=Dimension.state, text=a["text"], source=by_id[a["source"]]["path"],
                               date=dt.date.fromisoformat(by_id[a["source"]]["date"])) for a in answer]
        key = "evidence" if batch["kind"] == "extract" else "preferences"
        ok(server.call("propose_memories", {"lease": batch["lease"], "evidence": {key: answer}}))
    assert structured(handed)["status"] == "done", text(handed)
    return batches


def test_the_whole_loop_reads_every_source_and_keeps_what_apply_keeps(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    given: list[Evidence] = []
    with serve(vault, tmp_path, "scripted-agent") as server:
        batches = loop(server, given)
        assert "Nothing to read" in ok(server.call("notes_to_read"))
    assert len(batches) >= 3 and given
    with Ledger.for_memory_dir(vault / "_memory", readonly=True) as ledger:
        readers = {ledger.extracted_by(s["path"]) for b in batches for s in b.get("sources", [])}
    assert readers == {"assistant (scripted-agent)"}
    applied = copy_example_vault(tmp_path / "applied")
    config = Config(vault=str(applied))
    apply_evidence(opened(applied, config), given, dt.date.fromisoformat(TODAY))
    lines = {name: set((text or "").splitlines()) for name, text in memory_texts(vault / "_memory").items()}
    assert lines == {name: set((text or "").splitlines()) for name, text in memory_texts(applied / "_memory").items()}


def test_propose_memories_keeps_the_read_memo_of_what_it_wrote_as_apply_lease_does(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    memo = memo_path(vault / "_memory")
    with serve(vault, tmp_path, "scripted-agent") as server:
        handed = server.call("notes_to_read")
        memo.unlink(missing_ok=True)  # whatever kept one before: the answer's write must keep its own
        ok(server.call("propose_memories", {"lease": structured(handed)["lease"],
                                            "evidence": {"evidence": answer_for(ok(handed))}}))
        kept = json.loads(memo.read_bytes())
    on_disk = {d.value: digest(p.read_bytes()) if (p := vault / "_memory" / d.filename).exists() else None
               for d in Dimension}
    assert {d: f and f["digest"] for d, f in kept["files"].items()} == on_disk  # the files as the answer left them
    assert answer_for(ok(handed))[0]["text"] in {fact[0] for fact in kept["files"]["state"]["active"]}


def test_propose_memories_and_apply_lease_leave_the_same_after_write_effects(tmp_path: Path) -> None:
    # The after-write step is the operation's, not a door's (docs/spec.md §9.4): one answer, through either door,
    # leaves the same memory files and the same read memo.
    by_mcp, by_cli = copy_example_vault(tmp_path / "mcp"), copy_example_vault(tmp_path / "cli")
    with serve(by_mcp, tmp_path, "scripted-agent") as server:
        handed = server.call("notes_to_read")
        ok(server.call("propose_memories", {"lease": structured(handed)["lease"],
                                            "evidence": {"evidence": answer_for(ok(handed))}}))
    batch = json.loads(hylo("pending", "--vault", by_cli, "--today", TODAY, "--json", "--max-chars", "1000",
                            "--client", "scripted-agent").stdout)
    assert [s["path"] for s in batch["sources"]] == [s["path"] for s in structured(handed)["sources"]]
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"evidence": answer_for(batch["request"])}), encoding="utf-8")
    done = hylo("apply", "--vault", by_cli, "--lease", batch["lease"], "--evidence", answer)
    assert done.exit_code == 0, done.stderr
    assert memory_texts(by_mcp / "_memory") == memory_texts(by_cli / "_memory")
    assert memo_path(by_mcp / "_memory").read_bytes() == memo_path(by_cli / "_memory").read_bytes()


def test_the_tools_are_listed_and_take_an_answer_the_schema_does_not_judge(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    with serve(vault, tmp_path, "scripted-agent") as server:
        tools = server.tools()
        assert {"notes_to_read", "propose_memories"} <= set(tools)
        batch = structured(server.call("notes_to_read"))
        odd = {"evidence": [{"dimension": "hobbies", "text": "Knits", "source": batch["sources"][0]["id"]},
                            {"dimension": "preferences", "text": "Likes groceries", "source": batch["sources"][0]["id"],
                             "restates": None}]}
        result = ok(server.call("propose_memories", {"lease": batch["lease"], "evidence": odd}))
    assert "1 × an unknown dimension" in result and "added 1" in result


def test_a_late_answer_is_refused_in_one_line_and_its_sources_are_handed_out_again(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    with serve(vault, tmp_path, "scripted-agent", HYLO_MEMORY_LEASE_MINUTES="0.02") as server:  # 1.2 seconds
        first = server.call("notes_to_read")
        time.sleep(1.5)
        line = failed(server.call("propose_memories", {"lease": structured(first)["lease"],
                                                        "evidence": {"evidence": answer_for(ok(first))}}))
        again = structured(server.call("notes_to_read"))
    assert "expired at" in line and "wait for the next batch" in line
    assert [s["path"] for s in again["sources"]] == [s["path"] for s in structured(first)["sources"]]
    assert not (vault / "_memory" / "_state.md").exists()


def test_two_assistants_at_once_never_get_the_same_source(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    with serve(vault, tmp_path, "one") as one, serve(vault, tmp_path, "two") as two:
        held: dict[str, str] = {}
        for server, name in [(one, "one"), (two, "two")] * 50:
            batch = structured(server.call("notes_to_read"))
            if batch["status"] != "batch":
                break
            paths = {s["path"] for s in batch["sources"]}
            assert not paths & held.keys(), f"{name} was handed a source another holds"
            held |= dict.fromkeys(paths, name)
        assert batch["status"] == "wait" and set(held.values()) == {"one", "two"}


def _server_pid(vault: Path) -> int:
    """The `hylo-memory mcp` process serving `vault`: the SDK's client does not say which it started."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                args = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"mcp" in args and str(vault).encode() in args:
                return int(entry.name)
    raise AssertionError("no server process found")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the server's process in /proc")
def test_a_server_killed_in_the_middle_of_an_answer_then_run_again_ends_as_a_clean_run(tmp_path: Path) -> None:
    clean = copy_example_vault(tmp_path / "clean")
    with serve(clean, tmp_path, "scripted-agent") as server:
        loop(server)
    reference = memory_texts(clean / "_memory")
    rng = random.Random(30)
    for attempt in range(3):
        vault = copy_example_vault(tmp_path / f"killed{attempt}")
        with serve(vault, tmp_path, "scripted-agent") as server:
            handed = server.call("notes_to_read")
            batch = structured(handed)
            arguments = {"lease": batch["lease"], "evidence": {"evidence": answer_for(ok(handed))}}
            server.call_soon("propose_memories", arguments)
            time.sleep(rng.uniform(0.0, 0.6))
            os.kill(_server_pid(vault), signal.SIGKILL)
        with serve(vault, tmp_path, "scripted-agent") as server:
            again = server.call("propose_memories", arguments)  # the lease still holds, or it was answered
            assert not again.is_error or "answered already" in text(again), text(again)
            loop(server)
        assert memory_texts(vault / "_memory") == reference, f"attempt {attempt}"
        assert json.loads(json.dumps(reference))  # the reference is a memory, not six absent files
        assert any(reference.values())


def test_an_answer_with_no_entry_kept_is_a_tool_error_and_the_lease_still_holds(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    with serve(vault, tmp_path, "stale-agent") as server:
        batch = structured(server.call("notes_to_read"))
        stale = [{"dimension": "state", "text": "Tired", "source": "S999", "restates": None}]
        line = failed(server.call("propose_memories", {"lease": batch["lease"], "evidence": {"evidence": stale}}))
        kept = server.call("propose_memories", {"lease": batch["lease"], "evidence": {"evidence": []}})
    assert "no entry of the answer could be kept" in line and "'Tired': an unknown source id" in line
    assert not kept.is_error
