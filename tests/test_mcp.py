"""`hylo-memory mcp` (docs/spec.md §9): the real server process, driven by the SDK's own client over stdio.

One server serves a copy of the example vault for the whole module, with the fake OpenAI server
as its LLM; each test checks what a call did on disk, and that the server kept answering.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_helpers import McpServer, SwitchableModel, failed, ok, text
from proc_helpers import Lines, cli_env, copy_example_vault, memory_texts, run
from vault_helpers import short

from hylo_memory.decay import Dimension, parse
from hylo_memory.pipeline.state.locking import MEMORY_LOCK, RUN_LOCK, is_held
from hylo_memory.pipeline.state.read_memo import memo_path

pytestmark = pytest.mark.slow  # real processes (docs/development.md: the tiers)

TODAY = "2026-12-02"
YESTERDAY = "2026-12-01"
READ_ONLY = {"status", "recall", "context", "why", "history"}
WRITERS = {"remember", "refresh", "notes_to_read", "propose_memories"}
TOOLS = READ_ONLY | WRITERS | {"forget"}
FILE_URIS = [f"memory://{d.value}" for d in Dimension]


@pytest.fixture(scope="module")
def model() -> Iterator[SwitchableModel]:
    with SwitchableModel() as fake:
        yield fake


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, model: SwitchableModel) -> dict[str, str]:
    return model.env(cli_env(tmp_path_factory.mktemp("home")))


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_example_vault(tmp_path_factory.mktemp("mcp") / "vault")


@pytest.fixture(scope="module")
def server(vault: Path, env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    log = tmp_path_factory.mktemp("log") / "stderr.log"
    with McpServer(["mcp", "--vault", str(vault), "--today", TODAY], env, log) as started:
        yield started


@pytest.fixture(autouse=True)
def model_answers(model: SwitchableModel) -> Iterator[None]:
    """Each test starts, and leaves, with a model that answers."""
    model.failing.clear()
    model.resume()
    yield
    model.failing.clear()
    model.resume()


def items(vault: Path, dimension: Dimension) -> dict[str, bool]:
    """The file's items, each with whether it is pinned."""
    path = vault / "_memory" / dimension.filename
    if not path.exists():
        return {}
    return {i.text: i.pinned for i in parse(path.read_text(encoding="utf-8"), dimension, str(path)).items}


def memory(vault: Path) -> dict[str, str | None]:
    return memory_texts(vault / "_memory")


def cli(args: list[str], vault: Path, env: dict[str, str], today: bool = True) -> tuple[int, str, str]:
    done = run([*args, "--vault", str(vault), *(["--today", TODAY] if today else [])], env)
    return done.returncode, done.stdout, done.stderr


# --- What an assistant sees ---

def test_the_tools_are_listed_with_typed_bounded_arguments_and_hints(server: McpServer) -> None:
    tools = server.tools()
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert tool.description and len(tool.description) > 80, name  # an assistant reads when to call it
        assert tool.input_schema["type"] == "object"
        hints = tool.annotations
        assert hints is not None and hints.open_world_hint is False, name
        assert hints.read_only_hint is (name in READ_ONLY), name
        if name in WRITERS:
            assert hints.destructive_hint is False, name
    forget = tools["forget"].annotations
    assert forget is not None and forget.destructive_hint is True

    remember = tools["remember"]
    assert "something lasting about themselves" in (remember.description or "")
    schema = remember.input_schema
    assert schema["required"] == ["text"]
    assert schema["properties"]["text"]["maxLength"] == 300  # the command's own limit (one item's line)
    assert schema["$defs"]["Dimension"]["enum"] == [d.value for d in Dimension]
    assert {"type": "boolean"} in schema["properties"]["pin"]["anyOf"]
    refresh = tools["refresh"].input_schema["properties"]
    assert refresh["dry_run"]["type"] == "boolean" and refresh["dry_run"]["default"] is False
    assert set(tools["status"].input_schema["properties"]) == {"scope"}  # a scope's memory (docs/spec.md §1.1)
    recall = tools["recall"].input_schema
    assert recall["required"] == ["query"]
    assert (recall["properties"]["limit"]["minimum"], recall["properties"]["limit"]["maximum"]) == (1, 100)
    budget = tools["context"].input_schema["properties"]["budget"]
    assert (budget["default"], budget["minimum"]) == (1500, 100)
    for name in ("why", "forget"):
        assert tools[name].input_schema["required"] == ["text"]
        assert set(tools[name].input_schema["properties"]) == {"text", "dimension", "scope"}
    limit = tools["history"].input_schema["properties"]["limit"]
    assert (limit["default"], limit["minimum"], limit["maximum"]) == (20, 1, 100)

    assert server.initialized is not None
    assert server.initialized.server_info.name == "hylo-memory"
    assert "call `remember`" in (server.initialized.instructions or "")


def test_the_six_memory_files_are_resources_read_as_they_are_on_disk(server: McpServer, vault: Path) -> None:
    resources = server.resources()
    assert list(resources) == [*FILE_URIS, "memory://context"]
    for dimension, uri in zip(Dimension, FILE_URIS, strict=True):
        assert resources[uri].mime_type == "text/markdown"
        read = server.read(uri)
        path = vault / "_memory" / dimension.filename
        assert read.mime_type == "text/markdown"
        assert read.text == (path.read_text(encoding="utf-8") if path.exists() else "")


# --- Each tool, and what it did on disk ---

def test_remember_keeps_the_fact_on_disk_exactly_as_the_command_line_does(server: McpServer, vault: Path,
                                                                         env: dict[str, str], tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(vault, twin)  # the same memory, for the command line to do the same on
    line = ok(server.call("remember", {"text": "Remember that I always take the night train", "pin": True}))
    code, out, err = cli(["remember", "Remember that I always take the night train", "--pin"], twin, env)
    assert code == 0, err
    assert line == out.strip()
    assert line.startswith('Kept "') and "pinned" in line
    assert memory(vault) == memory(twin)
    kept = {text: pinned for d in Dimension for text, pinned in items(vault, d).items()}
    assert any("night train" in t and pinned for t, pinned in kept.items())
    assert not any("Remember that" in t for t in kept)


def test_remember_files_the_fact_under_the_dimension_given_in_any_case(server: McpServer, vault: Path) -> None:
    line = ok(server.call("remember", {"text": "My friend Joana teaches piano", "dimension": " People "}))
    assert "_people.md" in line
    assert any("Joana" in t for t in items(vault, Dimension.people))


def test_status_reports_the_memory_and_writes_nothing(server: McpServer, vault: Path) -> None:
    before = memory(vault)
    result = server.call("status")
    report = ok(result)
    assert report.startswith(f"hylo-memory status {TODAY}")
    data = result.structured_content
    assert data is not None and data["today"] == TODAY and data["vault"] == str(vault.resolve())
    assert [f["file"] for f in data["files"]] == [d.filename for d in Dimension]
    assert memory(vault) == before


def test_refresh_sends_progress_as_it_runs_and_returns_the_summary_as_text_and_json(
        server: McpServer, vault: Path) -> None:
    short(vault, YESTERDAY, "I really love sourdough baking.", slug="mcp-sourdough")
    short(vault, YESTERDAY, "My mentor Ada says hi. I use DuckDB every day.", slug="mcp-ada")
    notices: list[tuple[float, float | None, str | None]] = []
    result = server.call("refresh", {}, progress=lambda *notice: notices.append(notice))
    summary = ok(result)
    assert summary.startswith(f"hylo-memory refresh {TODAY}")
    data = result.structured_content
    assert data is not None and data["status"] == "ok" and data["today"] == TODAY
    assert data["extractor"].startswith("openai")
    assert data["sources"]["shorts"] >= 2

    # Reading, then extracting, then each batch: the progress only grows, and ends whole.
    assert len(notices) >= 3, notices
    assert notices[0][2] == "reading the vault's notes"
    assert notices[1][2] is not None and notices[1][2].startswith("extracting ")
    progress = [n[0] for n in notices]
    assert progress == sorted(set(progress)), notices
    assert notices[-1][0] == notices[-1][1], notices
    assert any(n[2] is not None and n[2].startswith("extracted ") for n in notices), notices

    assert "Loves sourdough baking" in items(vault, Dimension.preferences)
    assert any("Ada" in t for t in items(vault, Dimension.people))
    assert memo_path(vault / "_memory").exists()  # the shell's next `context` answers quickly


def test_a_dry_run_refresh_shows_the_changes_and_writes_nothing(server: McpServer, vault: Path) -> None:
    short(vault, YESTERDAY, "I really love long walks in Sintra.", slug="mcp-sintra")
    before = memory(vault)
    result = server.call("refresh", {"dry_run": True})
    summary = ok(result)
    assert result.structured_content is not None and result.structured_content["dry_run"] is True
    assert "Loves long walks in Sintra" in summary  # the diff after the summary
    assert memory(vault) == before


def test_recall_ranks_the_items_as_the_command_line_does_and_writes_nothing(
        server: McpServer, vault: Path, env: dict[str, str]) -> None:
    ok(server.call("remember", {"text": "I play the bandoneon on Sundays", "dimension": "preferences", "pin": True}))
    before = memory(vault)
    result = server.call("recall", {"query": "bandoneon", "limit": 3})
    found = ok(result)
    assert found.startswith("1. ") and "bandoneon" in found.splitlines()[0]
    data = result.structured_content
    assert data is not None and data["query"] == "bandoneon" and data["limit"] == 3 and len(data["items"]) <= 3
    code, out, err = cli(["recall", "bandoneon", "--limit", "3", "--json"], vault, env)
    assert code == 0, err
    assert json.loads(out) == data
    assert memory(vault) == before


def test_context_is_the_command_lines_block_and_the_context_resource(server: McpServer, vault: Path,
                                                                      env: dict[str, str]) -> None:
    before = memory(vault)
    result = server.call("context", {"budget": 400, "query": "running"})
    block = ok(result)
    code, out, err = cli(["context", "--budget", "400", "--query", "running"], vault, env)
    assert code == 0, err
    assert block == out
    code, out, err = cli(["context", "--budget", "400", "--query", "running", "--json"], vault, env)
    assert json.loads(out) == result.structured_content
    assert server.read("memory://context").text == ok(server.call("context"))
    assert memory(vault) == before


def test_why_tells_where_an_item_came_from_as_the_command_line_does(server: McpServer, vault: Path,
                                                                     env: dict[str, str]) -> None:
    ok(server.call("remember", {"text": "I collect vintage fountain pens", "dimension": "preferences", "pin": True}))
    before = memory(vault)
    result = server.call("why", {"text": "I collect vintage fountain pens", "dimension": "preferences"})
    told = ok(result)
    assert told.startswith("_preferences.md (Active): ") and f"added on {TODAY} by remember" in told
    code, out, err = cli(["why", "I collect vintage fountain pens", "--dimension", "preferences", "--json"], vault, env,
                         today=False)
    assert code == 0, err
    assert json.loads(out) == result.structured_content
    code, _, err = cli(["why", "a fact never kept about submarines"], vault, env, today=False)
    assert code == 1
    assert failed(server.call("why", {"text": "a fact never kept about submarines"})) == err.strip()
    assert memory(vault) == before


def test_forget_removes_the_item_for_good_as_the_command_line_does(server: McpServer, vault: Path,
                                                                    env: dict[str, str], tmp_path: Path) -> None:
    ok(server.call("remember", {"text": "I enjoy karaoke nights", "dimension": "preferences", "pin": True}))
    kept = [t for t in items(vault, Dimension.preferences) if "karaoke" in t]
    assert len(kept) == 1
    twin = tmp_path / "twin"
    shutil.copytree(vault, twin)

    result = server.call("forget", {"text": kept[0]})
    line = ok(result)
    assert line.startswith(f'Forgot "{kept[0]}" (_preferences.md, Active)')
    assert result.structured_content is not None and result.structured_content["command"] == "forget"
    assert not any("karaoke" in t for t in items(vault, Dimension.preferences))
    code, out, err = cli(["forget", kept[0]], twin, env)
    assert code == 0, err
    assert out == line
    assert memory(vault) == memory(twin)

    # Gone for good: remembering it again is refused, and it cannot be forgotten twice.
    refused = failed(server.call("remember", {"text": "I enjoy karaoke nights", "dimension": "preferences", "pin": True}))
    assert refused.startswith('hylo-memory: remember: "Enjoys karaoke nights" is a fact you asked to forget')
    assert not any("karaoke" in t for t in items(vault, Dimension.preferences))
    code, _, err = cli(["forget", kept[0]], twin, env)
    assert code == 1
    assert failed(server.call("forget", {"text": kept[0]})) == err.strip().replace(str(twin), str(vault))


def test_history_lists_the_changes_newest_first_as_the_command_line_does(server: McpServer, vault: Path,
                                                                          env: dict[str, str]) -> None:
    ok(server.call("remember", {"text": "I keep bees on the roof", "dimension": "preferences", "pin": True}))
    before = memory(vault)
    result = server.call("history", {"limit": 3})
    listed = ok(result)
    assert len(listed.splitlines()) == 3
    assert "remember" in listed.splitlines()[0] and "_preferences.md" in listed.splitlines()[0]
    data = result.structured_content
    assert data is not None and len(data["changes"]) == 3 and data["changes"][0]["command"] == "remember"
    code, out, err = cli(["history", "--limit", "3", "--json"], vault, env, today=False)
    assert code == 0, err
    assert json.loads(out) == data["changes"]
    assert memory(vault) == before


# --- Failures: one line each, and the server keeps answering ---

BAD_CALLS = [
    ("remember", {"text": "I like tea", "dimension": "hobbies"},
     "hylo-memory: remember: unknown dimension 'hobbies' (one of identity, preferences, goals, beliefs, people, state)"),
    ("remember", {}, "hylo-memory: remember: missing argument 'text'"),
    ("remember", {"text": "x" * 301}, "hylo-memory: remember: text: String should have at most 300 characters"),
    ("remember", {"text": "I like tea", "pin": "perhaps"}, "hylo-memory: remember: pin: Input should be a valid boolean"),
    ("remember", {"text": "I like tea", "pin": "yes"}, "hylo-memory: remember: pin: Input should be a valid boolean"),
    ("remember", {"text": "I like tea", "dimesion": "preferences"},
     "hylo-memory: remember: unknown argument 'dimesion' (arguments: text, dimension, pin)"),
    ("remember", {"text": "   "}, "hylo-memory: remember: the fact is empty"),
    ("remember", {"text": "!!! ???"}, "hylo-memory: remember: '!!! ???' is not a fact: it has no letters or digits"),
    ("refresh", {"dry_run": "yes please"}, "hylo-memory: refresh: dry_run: Input should be a valid boolean"),
    ("refresh", {"intro": "x" * 4001}, "hylo-memory: refresh: intro: String should have at most 4000 characters"),
    ("memorise", {"text": "I like tea"}, "hylo-memory: no tool 'memorise' (tools: "),
    ("recall", {"query": "  "}, "hylo-memory: the query is blank: give the words to look for"),
    ("recall", {"query": "tea", "limit": 0}, "hylo-memory: recall: limit: Input should be greater than or equal to 1"),
    ("recall", {"query": "tea", "limit": 101}, "hylo-memory: recall: limit: Input should be less than or equal to 100"),
    ("recall", {"query": "q" * 1001}, "hylo-memory: recall: query: String should have at most 1000 characters"),
    ("context", {"budget": 99}, "hylo-memory: context: budget: Input should be greater than or equal to 100"),
    ("context", {"budget": "lots"}, "hylo-memory: context: budget: Input should be a valid integer"),
    ("why", {"text": "tea", "dimension": "hobbies"}, "hylo-memory: why: unknown dimension 'hobbies' (one of "),
    ("why", {"text": "t" * 301}, "hylo-memory: why: text: String should have at most 300 characters"),
    ("forget", {}, "hylo-memory: forget: missing argument 'text'"),
    ("forget", {"text": "tea", "dimension": "moods"}, "hylo-memory: forget: unknown dimension 'moods' (one of "),
    ("history", {"limit": 0}, "hylo-memory: history: limit: Input should be greater than or equal to 1"),
    ("history", {"limit": 101}, "hylo-memory: history: limit: Input should be less than or equal to 100"),
]


@pytest.mark.parametrize(("tool", "arguments", "line"), BAD_CALLS, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(BAD_CALLS)])
def test_a_bad_argument_is_one_line_and_the_server_keeps_answering(server: McpServer, vault: Path, tool: str,
                                                                   arguments: dict[str, object], line: str) -> None:
    before = memory(vault)
    assert failed(server.call(tool, arguments)).startswith(line)
    assert memory(vault) == before
    ok(server.call("status"))


def test_a_command_failure_is_the_command_lines_own_line(server: McpServer, vault: Path, env: dict[str, str]) -> None:
    path = vault / "_memory" / "_goals.md"
    path.parent.mkdir(exist_ok=True)
    original = path.read_text(encoding="utf-8") if path.exists() else None
    path.write_text(BROKEN, encoding="utf-8")  # refused: it cannot be parsed
    try:
        code, _, err = cli(["remember", "Wants to learn Go", "--dimension", "goals"], vault, env)
        assert code == 1
        assert failed(server.call("remember", {"text": "Wants to learn Go", "dimension": "goals"})) == err.strip()
    finally:  # the server and its vault are shared by the module's tests
        if original is None:
            path.unlink()
        else:
            path.write_text(original, encoding="utf-8")


BROKEN = "---\ndecay_window: 90d\nlast_updated: 2026-11-01\n---\n## Active\n- Tests are documentation `last:2026-13-45 seen:1`\n"


def test_a_hand_broken_file_is_refused_by_path_and_line_and_the_server_keeps_answering(
        server: McpServer, vault: Path, env: dict[str, str]) -> None:
    path = vault / "_memory" / Dimension.beliefs.filename
    original = path.read_text(encoding="utf-8") if path.exists() else None
    path.write_text(BROKEN, encoding="utf-8")
    try:
        line = failed(server.call("remember", {"text": "I believe small teams ship faster", "dimension": "beliefs"}))
        assert line.startswith(f"hylo-memory: {path}:6: ")
        code, _, err = cli(["remember", "I believe small teams ship faster", "--dimension", "beliefs"], vault, env)
        assert code == 1 and line == err.strip()

        refreshed = server.call("refresh")
        assert refreshed.is_error and text(refreshed).startswith(f"hylo-memory: {path}:6: ")

        status = server.call("status")  # status reads a broken file too, and names it
        ok(status)
        assert status.structured_content is not None
        broken = [f for f in status.structured_content["files"] if f["file"] == Dimension.beliefs.filename]
        assert broken[0]["error"]
        assert server.read("memory://beliefs").text == BROKEN  # the file as it is: the person's to mend
        # The readers answer with the other files and name the broken one: no memory at all helps no one.
        reason = line.removeprefix("hylo-memory: ")
        assert reason in ok(server.call("context"))
        assert f"Not searched: {reason}" in ok(server.call("recall", {"query": "teams"}))
        assert reason in server.read("memory://context").text
        assert path.read_text(encoding="utf-8") == BROKEN  # never overwritten
    finally:
        if original is None:
            path.unlink()
        else:
            path.write_text(original, encoding="utf-8")
    ok(server.call("remember", {"text": "I believe small teams ship faster", "dimension": "beliefs"}))
    assert "I believe small teams ship faster" in items(vault, Dimension.beliefs) or any(
        "small teams" in t for t in items(vault, Dimension.beliefs))


def test_a_failing_model_is_an_error_result_and_the_server_keeps_answering(server: McpServer, vault: Path,
                                                                          model: SwitchableModel) -> None:
    short(vault, YESTERDAY, "I really love fermenting hot sauce.", slug="mcp-hot-sauce")
    model.failing.set()
    result = server.call("refresh")
    assert result.is_error
    first = text(result).splitlines()[0]
    # failed, or partial when the knowledge units no other test has read yet went to the pool without the model
    assert re.fullmatch(r"hylo-memory: run (failed|partial): \d+ source\(s\) wait for the next run \(.+\)",
                        first), first
    assert result.structured_content is not None and result.structured_content["status"] in ("failed", "partial")
    assert "Loves fermenting hot sauce" not in items(vault, Dimension.preferences)

    # remember does without the model, and says so.
    line = ok(server.call("remember", {"text": "I prefer aisle seats", "dimension": "preferences"}))
    assert "LLM unavailable" in line

    model.failing.clear()
    retried = server.call("refresh")
    ok(retried)
    assert "Loves fermenting hot sauce" in items(vault, Dimension.preferences)


# --- Beside the command line: the same locks ---

def with_new_note(vault: Path, slug: str, body: str) -> Path:
    short(vault, YESTERDAY, body, slug=slug)
    return vault


def extracting(vault: Path) -> bool:
    """A refresh is mid-extraction: it holds the run lock, and the memory lock is free."""
    state = vault / "_memory" / ".state"
    return is_held(state, RUN_LOCK) and not is_held(state, MEMORY_LOCK)


def test_remember_through_mcp_while_a_command_line_refresh_runs_keeps_both(
        server: McpServer, vault: Path, processes, paused_model, tmp_path: Path) -> None:
    with_new_note(vault, "mcp-kombucha", "I really love brewing kombucha.")
    refreshing = processes.start(["refresh", "--vault", str(vault), "--today", TODAY, "--json"],
                                 paused_model.env(tmp_path / "home"))
    paused_model.wait_for_request()  # the command line's refresh waits for its model, mid-run
    assert extracting(vault)
    line = ok(server.call("remember", {"text": "Always answer in English", "dimension": "preferences"}))
    assert "Always answer in English" in line
    assert "Always answer in English" in items(vault, Dimension.preferences)  # written at once
    assert refreshing.poll() is None

    # A refresh asked for meanwhile waits for that one, and says so.
    waiting = threading.Event()

    def progress(done: float, total: float | None, message: str | None) -> None:
        if message == "waiting for the refresh already running to finish":
            waiting.set()

    second = server.call_soon("refresh", {}, progress=progress)
    assert waiting.wait(30)
    assert not second.done() and refreshing.poll() is None

    paused_model.release.set()
    out, err = refreshing.communicate(timeout=60)
    assert refreshing.returncode == 0, err
    assert json.loads(out)["status"] == "ok"
    after = second.result(60)
    ok(after)
    assert after.structured_content is not None
    assert after.structured_content["sources"]["shorts"] == 0  # the first read the new note; no source twice
    kept = items(vault, Dimension.preferences)
    assert "Always answer in English" in kept and "Loves brewing kombucha" in kept


def test_a_command_line_remember_while_an_mcp_refresh_runs_keeps_both_and_the_server_answers_meanwhile(
        server: McpServer, vault: Path, env: dict[str, str], model: SwitchableModel) -> None:
    with_new_note(vault, "mcp-climbing", "I really love bouldering at the gym.")
    model.pause()
    notices: list[tuple[float, float | None, str | None]] = []
    told = threading.Event()

    def progress(*notice: object) -> None:
        notices.append(notice)  # type: ignore[arg-type]
        if len(notices) == 2:
            told.set()

    refreshing = server.call_soon("refresh", {}, progress=progress)
    model.wait_for_request()
    assert extracting(vault)
    assert told.wait(30), notices  # progress arrives while the run is under way
    assert [n[2] for n in notices][:1] == ["reading the vault's notes"]
    assert notices[1][2] is not None and notices[1][2].startswith("extracting ")

    # The server is not blocked by its own refresh: another call is answered meanwhile.
    status = server.call("status")
    assert status.structured_content is not None and status.structured_content["refresh_running"] is True
    # Dimension and pin given: no model asked (the model is held by the refresh).
    code, out, err = cli(["remember", "Prefers window seats on trains", "--dimension", "preferences", "--pin"],
                         vault, env)
    assert code == 0, err
    assert not refreshing.done()

    model.resume()
    result = refreshing.result(60)
    ok(result)
    kept = items(vault, Dimension.preferences)
    assert "Loves bouldering at the gym" in kept and any("window seats" in t for t in kept)


# --- The process itself ---

def test_stdout_carries_only_the_protocol_and_the_log_goes_to_stderr(server: McpServer) -> None:
    failed(server.call("remember", {"text": "I like tea", "dimension": "hobbies"}))
    ok(server.call("status"))
    assert server.stream_errors == []
    log = server.log.read_text(encoding="utf-8")
    assert "Tool 'remember' failed" in log  # the SDK's own log line, on stderr


def test_a_bad_vault_fails_at_start_with_one_line(tmp_path: Path) -> None:
    done = run(["mcp", "--vault", str(tmp_path / "missing")], cli_env(tmp_path / "home"))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == f"hylo-memory: {tmp_path / 'missing'}: vault not found\n"


@pytest.mark.parametrize("address", ["0.0.0.0:8765", "192.168.1.2:8765", "127.0.0.1"])
def test_http_is_refused_on_any_address_but_loopback(tmp_path: Path, address: str) -> None:
    done = run(["mcp", "--vault", str(tmp_path), "--http", address], cli_env(tmp_path / "home"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--http" in done.stderr
    assert done.stdout == ""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_http_on_loopback_serves_the_same_tools(tmp_path: Path, processes) -> None:
    vault = copy_example_vault(tmp_path / "vault")
    port = free_port()
    serving = processes.start(["mcp", "--vault", str(vault), "--today", TODAY, "--http", f"127.0.0.1:{port}"],
                              cli_env(tmp_path / "home"))
    log = Lines(serving.stderr)
    log.wait_for(f"running on http://127.0.0.1:{port}", timeout=60)

    async def session() -> tuple[set[str], str]:
        with anyio.fail_after(60):
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    tools = {t.name for t in (await client.list_tools()).tools}
                    kept = await client.call_tool("remember", {"text": "I'm vegetarian"})
                    return tools, ok(kept)

    tools, line = anyio.run(session)
    assert tools == TOOLS
    assert line.startswith('Kept "Is vegetarian" in _preferences.md')
    assert items(vault, Dimension.preferences) == {"Is vegetarian": True}
    serving.send_signal(signal.SIGINT)  # Ctrl-C: as every command, "interrupted" and 130
    assert serving.wait(timeout=30) == 130
    assert serving.stdout.read() == ""  # uvicorn's log too goes to stderr
    assert log.rest()[-1] == "hylo-memory: interrupted\n"
