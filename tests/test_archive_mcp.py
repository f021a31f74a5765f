"""The notes as the archive over MCP (docs/spec.md §9.7), through the SDK's real client: `recall` with
`notes: true` answers with the notes' passages as `recall --notes` does; `context` falls back to them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_helpers import McpServer, ok
from proc_helpers import cli_env, run
from vault_helpers import short, write_note

pytestmark = pytest.mark.slow  # real processes

TODAY = "2026-12-01"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return cli_env(tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    root = tmp_path_factory.mktemp("archive") / "vault"
    short(root, "2021-03-14", "Ana took me climbing at the bouldering gym after work.", slug="gym")
    short(root, "2024-05-20", "First outdoor climbing trip of the year, sunny and dry.", slug="trip")
    write_note(root, "_shorts/chat.md", "## User\nHow should I tape my fingers?\n\n## ChatGPT\nWrap an H-tape "
               "around the joint.", source="chatgpt", created="2026-11-02")
    done = run(["refresh", "--vault", str(root), "--today", TODAY, "--quiet"], env)
    assert done.returncode in (0, 2), done.stderr
    return root


@pytest.fixture(scope="module")
def server(vault: Path, env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    log = tmp_path_factory.mktemp("log") / "stderr.log"
    with McpServer(["mcp", "--vault", str(vault), "--today", TODAY], env, log) as started:
        yield started


def test_recall_takes_a_notes_flag(server: McpServer) -> None:
    notes = server.tools()["recall"].input_schema["properties"]["notes"]
    assert notes["type"] == "boolean" and notes["default"] is False


def test_recall_with_notes_answers_with_passages_as_the_command_line_does(server: McpServer, vault: Path,
                                                                          env: dict[str, str]) -> None:
    result = server.call("recall", {"query": "when did I first go climbing?", "notes": True})
    text = ok(result)
    assert text.splitlines()[:2] == ["1. 2021-03-14  _shorts/2021-03-14-gym.md",
                                     "   Ana took me climbing at the bouldering gym after work."]
    data = result.structured_content
    assert data is not None and [p["date"] for p in data["passages"]] == ["2021-03-14", "2024-05-20"]
    done = run(["recall", "when did I first go climbing?", "--notes", "--json", "--vault", str(vault)], env)
    assert json.loads(done.stdout) == data


def test_recall_with_notes_marks_an_ai_chats_turns(server: McpServer) -> None:
    text = ok(server.call("recall", {"query": "tape", "notes": True, "limit": 5}))
    assert "_shorts/chat.md  (an AI chat: your turn)" in text
    assert "_shorts/chat.md  (an AI chat: the AI's words)" in text


def test_context_falls_back_to_the_notes_when_the_memory_has_no_answer(server: McpServer) -> None:
    block = ok(server.call("context", {"query": "bouldering gym"}))
    assert "## From your notes" in block
    assert "- 2021-03-14, _shorts/2021-03-14-gym.md: Ana took me climbing at the bouldering gym after work." in block
