"""A local model with a small context (docs/spec.md §4.5): requests sized to it, halved when refused, a note
too long read in parts, a source that always fails set aside as stuck, a format rejected at once."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from vault_helpers import short, texts

from hylo_memory.decay import Dimension
from hylo_memory.pipeline.cli.group import main
from hylo_memory.testing import FakeOpenAI, answer, delay, reply
from hylo_memory.testing.fake_context import prompt_tokens
from hylo_memory.testing.fixtures import FAKE_KEY

CONTEXT = 2048
HOBBIES = ["archery", "baking", "chess", "diving", "embroidery", "fencing", "gardening", "hiking", "ikebana",
           "juggling", "kayaking", "lacrosse"]
FILLER = "Some words about the weather and the day, nothing to keep. " * 25  # ~1,500 characters


@contextmanager
def serve(monkeypatch: pytest.MonkeyPatch, **options: object) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(handler=answer, **options) as fake:  # type: ignore[arg-type]
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
        monkeypatch.setenv("HYLO_MEMORY_MODEL", "test-model")
        monkeypatch.setenv("HYLO_MEMORY_RETRY_BACKOFF", "0.01")
        yield fake


@pytest.fixture
def llama_cpp(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """llama.cpp's server at --ctx-size 2048: it says so at /props."""
    with serve(monkeypatch, context_tokens=CONTEXT) as fake:
        yield fake


@pytest.fixture
def llama_cpp_python(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """llama-cpp-python's server at --n_ctx 2048: it says nothing until it refuses a request."""
    with serve(monkeypatch, context_tokens=CONTEXT, server="llama-cpp-python") as fake:
        yield fake


def hobby_notes(vault: Path) -> None:
    for i, hobby in enumerate(HOBBIES):
        short(vault, f"2026-11-{10 + i:02d}", f"I love {hobby}.\n\n{FILLER}", slug=hobby)


def refresh(vault: Path, capsys: pytest.CaptureFixture[str], today: str = "2026-11-28", *extra: str) -> dict:
    main(["refresh", "--vault", str(vault), "--today", today, "--json", *extra])
    return json.loads(capsys.readouterr().out)


def held(fake: FakeOpenAI) -> list[int]:
    """The tokens (by the server's count) of each chat request, prompt and reply limit."""
    return [prompt_tokens(r.body) + r.body["max_tokens"] for r in fake.chat_requests]


def loved(vault: Path) -> set[str]:
    return {h for h in HOBBIES if any(h in t for t in texts(vault, Dimension.preferences))}


def test_a_first_run_on_a_small_context_ends_ok_with_refused_batches_halved(llama_cpp_python: FakeOpenAI,
                                                                           tmp_path: Path, capsys) -> None:
    hobby_notes(tmp_path)
    summary = refresh(tmp_path, capsys)
    assert summary["status"] == "ok" and summary["waiting"] == 0 and summary["failures"] == []
    assert loved(tmp_path) == set(HOBBIES)
    sizes = held(llama_cpp_python)
    assert sizes[0] > CONTEXT  # sized for the default context, refused: the refusal names 2048
    # Only the first wave (`concurrency` requests in flight) is sized before the refusal: then all fit.
    assert sum(n > CONTEXT for n in sizes) <= 4 + 4  # the wave, and their first halves
    assert all(n <= CONTEXT for n in sizes[-len(HOBBIES):])


def test_every_request_on_a_stated_small_context_fits(llama_cpp: FakeOpenAI, tmp_path: Path, capsys) -> None:
    hobby_notes(tmp_path)
    summary = refresh(tmp_path, capsys)
    assert summary["status"] == "ok" and loved(tmp_path) == set(HOBBIES)
    assert any(r.path == "/props" for r in llama_cpp.requests)  # asked once, before the first request
    assert all(prompt_tokens(r.body) <= CONTEXT for r in llama_cpp.chat_requests)  # none refused
    assert len(llama_cpp.chat_requests) >= 4  # twelve long notes do not fit in one request


def test_a_note_too_long_for_the_context_is_read_in_parts(llama_cpp: FakeOpenAI, tmp_path: Path, capsys) -> None:
    paragraphs = [FILLER] * 8 + ["I love kayaking."]
    short(tmp_path, "2026-11-20", "\n\n".join(paragraphs), slug="long")
    summary = refresh(tmp_path, capsys)
    assert summary["status"] == "ok"
    pieces = [re.search(r'piece="(\d+) of (\d+)"', r.body["messages"][-1]["content"]) for r in llama_cpp.chat_requests]
    assert all(pieces) and int(pieces[0][2]) >= 2
    assert {int(p[1]) for p in pieces if p} == set(range(1, int(pieces[0][2]) + 1))
    assert loved(tmp_path) == {"kayaking"}


# Stuck sources

def poisoned(fake: FakeOpenAI) -> None:
    """Every request carrying the poisoned note gets a reply that is no JSON, repaired or not."""
    fake.when(lambda body: "POISON" in json.dumps(body), reply("I cannot help with that."))


def three_failed_nights(vault: Path, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    short(vault, "2026-11-20", "I love archery. POISON", slug="poison")
    summaries = []
    for i, today in enumerate(["2026-11-21", "2026-11-22", "2026-11-23"]):
        short(vault, today, f"I love {HOBBIES[i + 1]}.", slug="day")
        summaries.append(refresh(vault, capsys, today))
    return summaries


def test_a_source_that_always_fails_is_stuck_after_three_runs_and_the_others_go_on(
        llama_cpp: FakeOpenAI, tmp_path: Path, capsys) -> None:
    poisoned(llama_cpp)
    first, second, third = three_failed_nights(tmp_path, capsys)
    assert first["status"] in ("failed", "partial") and first["stuck"] == []
    assert second["status"] == "partial" and second["stuck"] == []
    assert third["status"] == "partial"
    assert [(s["path"], s["runs"]) for s in third["stuck"]] == [("_shorts/2026-11-20-poison.md", 3)]
    assert "not valid JSON" in third["stuck"][0]["reason"]
    sent = len(llama_cpp.chat_requests)
    short(tmp_path, "2026-11-24", "I love hiking.", slug="day")
    fourth = refresh(tmp_path, capsys, "2026-11-24")
    assert fourth["status"] == "ok" and fourth["waiting"] == 0
    assert [s["path"] for s in fourth["stuck"]] == ["_shorts/2026-11-20-poison.md"]
    assert not any("POISON" in json.dumps(r.body) for r in llama_cpp.chat_requests[sent:])
    assert {"baking", "chess", "diving", "hiking"} <= loved(tmp_path)


def test_status_names_the_stuck_source_and_its_reason(llama_cpp: FakeOpenAI, tmp_path: Path, capsys) -> None:
    poisoned(llama_cpp)
    three_failed_nights(tmp_path, capsys)
    main(["status", "--vault", str(tmp_path), "--today", "2026-11-23"])
    out = capsys.readouterr().out
    assert "refresh --retry-stuck" in out
    assert re.search(r"_shorts/2026-11-20-poison\.md \(failed 3 runs in a row\): .*not", out)


def test_a_night_the_server_is_down_makes_nothing_stuck(monkeypatch, tmp_path: Path, capsys) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # the discard port: connection refused
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("HYLO_MEMORY_RETRIES", "0")
    short(tmp_path, "2026-11-20", "I love archery.", slug="a")
    for today in ["2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24"]:
        summary = refresh(tmp_path, capsys, today)
    assert summary["status"] == "failed" and summary["stuck"] == [] and summary["waiting"] == 1


def test_retry_stuck_tries_the_stuck_sources_again(llama_cpp: FakeOpenAI, tmp_path: Path, capsys) -> None:
    poisoned(llama_cpp)
    three_failed_nights(tmp_path, capsys)
    llama_cpp.reset()  # the model copes now
    llama_cpp.handler = answer
    summary = refresh(tmp_path, capsys, "2026-11-30", "--retry-stuck")
    assert summary["status"] == "ok" and summary["stuck"] == []
    assert "archery" in loved(tmp_path)


def test_an_edited_stuck_source_is_read_again(llama_cpp: FakeOpenAI, tmp_path: Path, capsys) -> None:
    poisoned(llama_cpp)
    three_failed_nights(tmp_path, capsys)
    short(tmp_path, "2026-11-24", "I love archery.", slug="poison")  # the person rewrote it
    (tmp_path / "_shorts/2026-11-20-poison.md").unlink()
    summary = refresh(tmp_path, capsys, "2026-11-24")
    assert summary["status"] == "ok" and "archery" in loved(tmp_path)


# Response formats

def test_a_json_schema_rejected_with_500_falls_back_at_once(monkeypatch, tmp_path: Path, capsys) -> None:
    with serve(monkeypatch, reject_json_schema=500) as fake:
        short(tmp_path, "2026-11-20", "I love archery.", slug="a")
        summary = refresh(tmp_path, capsys)
        formats = [r.body.get("response_format", {}).get("type") for r in fake.chat_requests]
        assert summary["status"] == "ok" and "archery" in loved(tmp_path)
        assert formats == ["json_schema", "json_object"]  # no retry of the rejected format


# remember's latency budget

def remember(vault: Path, capsys: pytest.CaptureFixture[str], text: str) -> str:
    assert main(["remember", text, "--vault", str(vault), "--today", "2026-11-28"]) == 0
    return capsys.readouterr().out


def test_remember_against_a_hanging_server_answers_within_its_budget(monkeypatch, tmp_path: Path, capsys) -> None:
    monkeypatch.setenv("HYLO_MEMORY_REMEMBER_BUDGET", "1")
    with serve(monkeypatch) as fake:
        fake.handler = lambda body: delay(600)  # never answers
        line = remember(tmp_path, capsys, "I'm vegetarian")
        after = urllib.request.urlopen(f"{fake.base_url}/models", timeout=5).status  # the moment remember was done
        arrivals = [r.at for r in fake.requests]
        assert after == 200
        assert "the model did not answer within 1 s" in line and "vegetarian" in line.lower()
        assert len(fake.chat_requests) == 1  # no retry past the budget
        # By the server's clock: from remember's first request to the next one sent once it had answered.
        assert arrivals[-1] - arrivals[0] < 1 + 3  # the budget, and room for a loaded machine; not 60 s × 3


def test_a_poor_reply_to_remember_is_named_as_one(monkeypatch, tmp_path: Path, capsys) -> None:
    with serve(monkeypatch) as fake:
        fake.handler = lambda body: reply('{"dimension": 5}')
        line = remember(tmp_path, capsys, "I'm vegetarian")
        assert "the model's reply was not usable" in line and "LLM unavailable" not in line
