"""The small things a newcomer hit (issue 18, point 5), each on its own: schema limits that are the commands',
an extractor line that says what was chosen and why, `apply --dry-run` saying it wrote nothing, usage
mistakes exiting 2, identity statements filed as identity, and a `recall` with no match saying what to try."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from mcp_helpers import McpServer, failed, ok
from proc_helpers import cli_env
from vault_helpers import short

from hylo_memory.decay import Dimension
from hylo_memory.domain.items import MAX_ITEM_TEXT
from hylo_memory.extractors.offline.offline import OfflineExtractor

TODAY = "2026-12-02"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    short(tmp_path / "vault", "2026-12-01", "I really love sourdough baking.")
    return tmp_path / "vault"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    vault = tmp_path_factory.mktemp("mcp") / "vault"
    short(vault, "2026-12-01", "I really love sourdough baking.")
    env = cli_env(tmp_path_factory.mktemp("home"))
    with McpServer(["mcp", "--vault", str(vault), "--today", TODAY], env,
                   tmp_path_factory.mktemp("log") / "stderr.log") as started:
        yield started


# The MCP schema's limits are the commands'

@pytest.mark.slow  # a real server process (the module's)
def test_the_remember_schema_allows_what_the_command_allows_and_no_more(server: McpServer, vault: Path) -> None:
    assert server.tools()["remember"].input_schema["properties"]["text"]["maxLength"] == MAX_ITEM_TEXT
    longest = "I love " + "a" * (MAX_ITEM_TEXT - len("I love "))
    assert "preferences" in ok(server.call("remember", {"text": longest, "dimension": "preferences"}))
    assert hylo("remember", longest, "--vault", vault, "--dimension", "preferences").exit_code == 0
    too_long = longest + "a"
    assert "at most 300 characters" in failed(server.call("remember", {"text": too_long}))
    assert hylo("remember", too_long, "--vault", vault).exit_code == 1


@pytest.mark.slow  # a real server process (the module's)
def test_the_recall_tool_says_what_it_matches_words_and_meanings(server: McpServer) -> None:
    description = server.tools()["recall"].description or ""
    assert "matches words" in description and "and meanings" in description and "Chinese" in description


@pytest.mark.slow  # a real server process (the module's)
def test_a_recall_tool_call_with_no_match_says_what_to_try(server: McpServer) -> None:
    ok(server.call("remember", {"text": "I really love sourdough baking"}))  # a memory with an item, whatever ran before
    text = ok(server.call("recall", {"query": "kubernetes"}))
    assert text.startswith("No item matches 'kubernetes'. Recall matches words, not meanings: try other words")


# The extractor line

def test_the_offline_extractor_line_claims_no_missing_model(vault: Path) -> None:
    result = hylo("refresh", "--vault", vault, "--today", TODAY, "--quiet")
    assert "Extractor: offline (first-person patterns only)\n" in result.stdout
    assert "no LLM configured" not in result.stdout and "Hint: extractor" not in result.stdout


def test_offline_chosen_with_a_model_configured_says_so(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    result = hylo("refresh", "--vault", vault, "--today", TODAY, "--quiet", "--extractor", "offline")
    line = ("extractor: offline (--extractor offline or the `extractor` setting; a model is configured but "
            "not used)")
    assert f"Hint: {line}\n" in result.stdout and f"hylo-memory: hint: {line}\n" in result.stderr


def test_remember_offline_says_no_model_was_asked(vault: Path) -> None:
    line = hylo("remember", "I love green tea", "--vault", vault, "--today", TODAY).stdout
    assert "offline patterns, no model asked" in line and "no LLM" not in line


# apply --dry-run

def test_apply_dry_run_says_it_wrote_nothing(vault: Path, tmp_path: Path) -> None:
    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text(json.dumps({"dimension": "preferences", "text": "Loves tea", "source": "_shorts/x.md",
                                    "date": TODAY}) + "\n", encoding="utf-8")
    result = hylo("apply", "--vault", vault, "--evidence", evidence, "--dry-run", "--today", TODAY)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"hylo-memory apply --dry-run: what {evidence} would change; nothing was written\n")
    assert not (vault / "_memory").exists()


# Usage mistakes exit 2

@pytest.mark.parametrize("args", [
    ["schedule", "--cron", "0 3 31 2 *"],
    ["schedule", "--cron", "every night"],
    ["remember", "   "],
    ["why", ""],
    ["forget", " "],
    ["unforget", ""],
    ["init", "--force"],
    ["refresh", "--intro", "x" * 4001],
])
def test_a_usage_mistake_exits_2_in_one_line(vault: Path, args: list[str]) -> None:
    result = hylo(*args, "--vault", vault)
    assert result.exit_code == 2 and one_line(result.stderr).endswith("(see --help)\n")
    assert not (vault / "_memory").exists()


# Identity statements

@pytest.mark.parametrize(("said", "dimension"), [
    ("I'm Sam", Dimension.identity),
    ("I am Sam Rivera", Dimension.identity),
    ("My name is Sam", Dimension.identity),
    ("我叫萨姆", Dimension.identity),
    ("我是萨姆", Dimension.identity),
    ("I'm a nurse", Dimension.identity),
    ("I'm vegetarian", Dimension.preferences),
    ("我是素食者", Dimension.preferences),
])
def test_who_someone_is_is_filed_as_identity_and_a_diet_as_a_preference(said: str, dimension: Dimension) -> None:
    assert OfflineExtractor().classify(said, None, None).dimension is dimension


def test_remember_im_sam_goes_to_the_identity_file_and_names_the_context(vault: Path) -> None:
    assert hylo("remember", "I'm Sam", "--vault", vault, "--today", TODAY).exit_code == 0
    assert "I'm Sam" in (vault / "_memory" / "_identity.md").read_text(encoding="utf-8")
    assert not (vault / "_memory" / "_preferences.md").exists()
    assert hylo("context", "--vault", vault, "--today", TODAY).stdout.startswith("# About Sam\n")


# recall with no match

def test_recall_with_no_match_suggests_other_words_context_and_embeddings(vault: Path) -> None:
    hylo("refresh", "--vault", vault, "--today", TODAY, "--quiet")
    out = hylo("recall", "diet", "--vault", vault).stdout
    assert "No item matches 'diet'. Recall matches words, not meanings: try other words" in out
    assert "`hylo-memory context` for the whole memory" in out and "`embedding_model` setting" in out
