"""A refresh over MCP with the assistant's own model, lent through MCP sampling (docs/spec.md §9.5): used when no
model is configured and the client offers it, with the model's prompts and checks; a refusal leaves the notes
waiting, in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import McpServer, text
from mcp_types import CreateMessageRequestParams, CreateMessageResult, ErrorData, TextContent
from proc_helpers import cli_env, copy_example_vault

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)

TODAY = "2026-11-30"
asked: list[CreateMessageRequestParams] = []


async def lend(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
    """The assistant's model: a fact a note it is shown, as the instructions and the schema in the prompt ask."""
    asked.append(params)
    prompt = text_of(params)
    if "Clusters:" in prompt:  # a theme to word, one trait a cluster
        themes = [{"cluster": int(n), "text": "Curious about how things are made"} for n in re.findall(r"^(\d+)\. tags:",
                                                                                            prompt, re.M)]
        return reply({"preferences": themes})
    entries = [{"dimension": "preferences", "text": f"Keeps a note called “{title}”", "source": sid, "restates": None}
               for sid, title in re.findall(r'<source id="(S\d+)"[^>]*>\nTitle: (.*)\n', prompt)]
    return reply({"evidence": entries})


def reply(answer: dict[str, Any]) -> CreateMessageResult:
    return CreateMessageResult(role="assistant", content=TextContent(text=json.dumps(answer)), model="lent-model",
                               stop_reason="endTurn")


async def decline(context: Any, params: CreateMessageRequestParams) -> ErrorData:
    return ErrorData(code=-1, message="User rejected sampling request")


def serve(vault: Path, tmp_path: Path, sampling: Any) -> McpServer:
    return McpServer(["mcp", "--vault", str(vault), "--today", TODAY], cli_env(tmp_path / "home"),
                     tmp_path / "mcp.log", "lending-client", sampling)


def test_a_refresh_over_mcp_uses_the_clients_model_when_none_is_configured(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    asked.clear()
    with serve(vault, tmp_path, lend) as server:
        result = server.call("refresh")
    summary = text(result)
    assert not result.is_error, summary
    assert "Extractor: sampling (lending-client)" in summary and "Keeps a note called" in summary
    assert asked and asked[0].system_prompt and asked[0].system_prompt.startswith("You keep a person's long-term")
    assert "matching this JSON schema" in text_of(asked[0])  # the schema travels in the prompt


def text_of(params: CreateMessageRequestParams) -> str:
    return "\n".join(m.content.text for m in params.messages if isinstance(m.content, TextContent))


def test_a_client_that_declines_leaves_the_notes_waiting_with_one_line_that_says_so(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    with serve(vault, tmp_path, decline) as server:
        result = server.call("refresh")
        status = text(server.call("status"))
    first = text(result).splitlines()[0]
    assert result.is_error and "did not lend its model" in first and "wait for the next run" in first
    assert "Sources waiting: " in status and not (vault / "_memory" / "_preferences.md").exists()


def test_a_client_without_sampling_gets_the_offline_patterns(tmp_path: Path) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    with serve(vault, tmp_path, None) as server:
        assert "Extractor: offline" in text(server.call("refresh"))
