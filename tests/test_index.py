"""No reader waits for embeddings (docs/spec.md §9.2): `hylo-memory index` embeds every item not embedded yet, a
refresh does too however long it takes, `remember` within its bound, and the MCP server behind its answers."""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
import time
from pathlib import Path

import pytest
from cli_helpers import hylo
from mcp_helpers import McpServer, ok
from proc_helpers import cli_env
from vault_helpers import memory_body, memory_file

from hylo_memory.decay import Dimension
from hylo_memory.extractors import bundled
from hylo_memory.pipeline.operations.serving import meaning
from hylo_memory.testing.fake_openai import FakeOpenAI
from hylo_memory.testing.fake_replies import delay, error

TODAY = "2026-11-30"
MANY = 2 * bundled.BATCH  # more than one batch: a bounded embedding leaves some to wait


def kept_by_hand(root: Path, count: int = MANY) -> Path:
    """A memory of `count` items no command wrote: none of them embedded."""
    memory_file(root, Dimension.preferences, memory_body(*(f"Grows tomato variety {n} in the garden | 2026-11-01 | 1"
                                                           for n in range(count))))
    return root


def vectors(vault: Path) -> int:
    path = vault / "_memory" / ".state" / "embeddings.sqlite"
    if not path.exists():
        return 0
    with contextlib.closing(sqlite3.connect(path)) as db:
        return int(db.execute("SELECT count(*) FROM vectors").fetchone()[0])


def a_hundred_seconds_each_look_at_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every embedding deadline passes after its first batch, whatever its bound (10 s for `remember`)."""
    ticks = itertools.count(step=100)
    monkeypatch.setattr(meaning, "clock", lambda: float(next(ticks)))


def recalled(vault: Path, query: str = "tomato") -> dict:
    result = hylo("recall", query, "--vault", vault, "--today", TODAY, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.usefixtures("bundled_model")
def test_index_embeds_every_item_and_then_recall_says_none_wait(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    vault = kept_by_hand(tmp_path)
    monkeypatch.setenv("HYLO_MEMORY_INTERACTIVE_EMBEDDING_SECONDS", "0")
    assert recalled(vault)["waiting"] == MANY
    result = hylo("index", "--vault", vault, "--json")
    assert result.exit_code == 0, result.stderr
    step = json.loads(result.stdout)["steps"][0]
    assert (step["step"], step["made"], step["left"], step["total"], step["failed"]) == ("embeddings", MANY, 0, MANY,
                                                                                       False)
    assert vectors(vault) == MANY
    found = recalled(vault)
    assert found["waiting"] == 0 and found["ranking"] == "bm25+embeddings"
    again = hylo("index", "--vault", vault)
    assert again.exit_code == 0  # its first line; the notes' step says its own (tests/test_archive.py)
    assert again.stdout.splitlines()[0] == f"Nothing to embed: all {MANY} item(s) are embedded."


def test_index_with_no_model_to_rank_by_meaning_has_nothing_to_embed(tmp_path: Path) -> None:
    result = hylo("index", "--vault", kept_by_hand(tmp_path))  # the tests' default: bundled_embeddings = false
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Nothing to embed: recall matches words alone (`bundled_embeddings = false`")
    assert vectors(tmp_path) == 0


def test_index_through_a_server_keeps_what_came_before_a_failure_and_fails(
        tmp_path: Path, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = kept_by_hand(tmp_path, 5)
    monkeypatch.setenv("HYLO_MEMORY_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("HYLO_MEMORY_EMBEDDING_MODEL", "fake-embed")
    monkeypatch.setenv("HYLO_MEMORY_EMBEDDING_BATCH", "2")
    fake_openai.enqueue_embeddings(delay(0), error(503, "busy"))  # the first batch, not the second
    failed = hylo("index", "--vault", vault, "--json")
    assert failed.exit_code == 1
    step = json.loads(failed.stdout)["steps"][0]
    assert (step["made"], step["left"], step["failed"]) == (2, 3, True) and "HTTP 503: busy" in step["line"]
    assert vectors(vault) == 2
    done = hylo("index", "--vault", vault)
    assert done.exit_code == 0 and done.stdout.splitlines()[0] == "Embedded 3 item(s): all 5 are embedded."


@pytest.mark.usefixtures("bundled_model")
def test_refresh_embeds_every_item_not_embedded_yet_however_long_it_takes(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    vault = kept_by_hand(tmp_path)
    (vault / "_shorts").mkdir()
    (vault / "_shorts" / "tea.md").write_text("---\ncreated: 2026-11-29\n---\nI love green tea.\n", encoding="utf-8")
    a_hundred_seconds_each_look_at_the_clock(monkeypatch)
    result = hylo("refresh", "--vault", vault, "--today", TODAY, "--extractor", "offline", "--quiet")
    assert result.exit_code == 0, result.stderr
    assert vectors(vault) == MANY + 1  # the tea too
    assert recalled(vault)["waiting"] == 0


@pytest.mark.usefixtures("bundled_model")
def test_remember_embeds_what_it_wrote_first_within_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = kept_by_hand(tmp_path)
    a_hundred_seconds_each_look_at_the_clock(monkeypatch)
    result = hylo("remember", "I play the cello", "--vault", vault, "--dimension", "goals", "--today", TODAY)
    assert result.exit_code == 0, result.stderr
    assert vectors(vault) == bundled.BATCH  # one batch within its 10 s by this clock; the rest wait for `index`
    monkeypatch.setenv("HYLO_MEMORY_INTERACTIVE_EMBEDDING_SECONDS", "0")
    monkeypatch.setattr(bundled, "ANSWER_FLOOR", bundled.FLOOR)  # ranked by resemblance, as a question under it is not
    found = recalled(vault, "music instrument")
    assert found["waiting"] == MANY + 1 - bundled.BATCH
    assert "Plays the cello" in [i["text"] for i in found["items"]]  # ranked by meaning: it was embedded first


@pytest.mark.slow  # a real server process
def test_the_mcp_server_answers_at_once_then_embeds_what_waits_without_another_call(tmp_path: Path) -> None:
    vault = kept_by_hand(tmp_path / "vault")
    env = cli_env(tmp_path / "home", HYLO_MEMORY_BUNDLED_EMBEDDINGS="true")
    with McpServer(["mcp", "--vault", str(vault), "--today", TODAY], env, tmp_path / "stderr.log") as server:
        first = server.call("recall", {"query": "tomato", "limit": 3})
        ok(first)
        assert first.structured_content is not None
        assert first.structured_content["waiting"] == MANY  # nothing embedded before the answer
        assert f"{MANY} items wait to be embedded" in ok(first)
        deadline = time.monotonic() + 120
        while vectors(vault) < MANY and time.monotonic() < deadline:
            time.sleep(0.2)
        assert vectors(vault) == MANY
        later = server.call("recall", {"query": "tomato", "limit": 3})
        assert later.structured_content is not None and later.structured_content["waiting"] == 0
        assert later.structured_content["ranking"] == "bm25+embeddings"
    assert server.stream_errors == []  # the embedding behind the answers wrote nothing but protocol on stdout
    assert "Traceback" not in (tmp_path / "stderr.log").read_text(encoding="utf-8")
