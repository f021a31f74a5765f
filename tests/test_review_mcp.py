"""The review batch over MCP (docs/spec.md §3.1, §9.5), through the SDK's real client: once no note is left,
`notes_to_read` hands out pairs of items alike, and `propose_memories` keeps the judgement."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_helpers import hylo
from mcp_helpers import McpServer, failed, ok
from mcp_types import CallToolResult
from proc_helpers import cli_env

pytestmark = pytest.mark.slow  # a real server process

TODAY = "2026-11-30"
STUDENT = "Student at the University of Chicago"
SENIOR = "Rising senior at the University of Chicago"


def structured(result: CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def test_notes_to_read_hands_out_the_review_and_propose_memories_keeps_it(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for text in (STUDENT, SENIOR, "Plays the piano"):
        assert hylo("remember", text, "--vault", vault, "--today", TODAY, "--dimension", "identity").exit_code == 0
    env = cli_env(tmp_path / "home")
    with McpServer(["mcp", "--vault", str(vault), "--today", TODAY], env, tmp_path / "mcp.log", "my-agent") as server:
        handed = server.call("notes_to_read", {"instructions": False})
        batch = structured(handed)
        assert (batch["status"], batch["kind"]) == ("batch", "review")
        assert "## Instructions" in ok(handed)  # a review's instructions are its own: always given
        number = {i["text"]: i["number"] for i in batch["items"]}
        assert [number[STUDENT], number[SENIOR]] in batch["pairs"]
        refused = failed(server.call("propose_memories", {"lease": batch["lease"], "evidence": "not json"}))
        assert "the answer is not the JSON asked for" in refused
        kept = ok(server.call("propose_memories", {"lease": batch["lease"],
                                                   "evidence": {"same": [[number[STUDENT], number[SENIOR]]]}}))
        assert f"= merged: {SENIOR} ← {STUDENT}" in kept and "Review: assistant (my-agent) judged" in kept
        assert structured(server.call("notes_to_read"))["status"] == "done"
    memory = (vault / "_memory" / "_identity.md").read_text(encoding="utf-8")
    assert SENIOR in memory and STUDENT not in memory
