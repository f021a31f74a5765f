"""`hylo-memory refresh --reextract [--since DATE]`: notes another extractor read are read again by the
configured one (the real `openai` client against the fake server on 127.0.0.1), and count once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from trust_helpers import TODAY, ago, ok, refresh, refresh_json
from vault_helpers import MEMORY, items, short

from hylo_memory.decay import Dimension
from hylo_memory.testing import FakeOpenAI, answer
from hylo_memory.testing.fake_model import messages_text

MODEL = "openai (test-model)"
QUIET = "Enjoys quiet mornings"


def better(body: dict) -> str:
    """A careful model that also reads what the offline patterns cannot: quiet mornings as a preference."""
    content = json.loads(answer(body))
    if "evidence" in content:
        user = messages_text(body)[1]
        for source, text in ((f"S{n}", chunk) for n, chunk in enumerate(user.split("<source id=")[1:], start=1)):
            if "Quiet mornings" in text:
                content["evidence"].append({"dimension": "preferences", "text": QUIET, "source": source,
                                            "restates": None, "supersedes": None})
    return json.dumps(content)


@pytest.fixture
def llm(llm: FakeOpenAI) -> FakeOpenAI:
    """The configured LLM as the better reader."""
    llm.handler = better
    return llm


def read_offline(vault: Path) -> None:
    """Two notes (yesterday's and one of six weeks ago) read by the offline extractor in a first run."""
    short(vault, ago(1), "I live in Lisbon. Quiet mornings with coffee are the best part of my day.", slug="home")
    short(vault, ago(40), "My name is Maya Okafor. I love long walks.", slug="intro")
    summary = refresh_json(vault, "--extractor", "offline")
    assert (summary["mode"], summary["sources"]["shorts"]) == ("first", 2)


def reextract(vault: Path, *args: str) -> dict:
    return refresh_json(vault, "--extractor", "openai", "--reextract", *args)


def status_json(vault: Path) -> dict:
    return json.loads(ok(hylo("status", "--vault", vault, "--today", TODAY.isoformat(), "--json")).stdout)


def test_reextract_reads_again_the_windows_notes_another_extractor_read(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    summary = reextract(tmp_path)
    assert (summary["extractor"], summary["sources"]["shorts"], summary["reextracted"]) == (MODEL, 1, 1)
    assert len(llm.chat_requests) == 1 and f"_shorts/{ago(1)}" not in json.dumps(llm.chat_requests[0].body)


def test_reextract_does_not_count_a_note_again_for_items_it_already_supports(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    before = (tmp_path / MEMORY / "_identity.md").read_bytes()
    reextract(tmp_path)
    assert items(tmp_path, Dimension.identity)["Lives in Lisbon"] == ("Active", 1, False)
    assert (tmp_path / MEMORY / "_identity.md").read_bytes() == before  # seen and last as they were


def test_reextract_adds_the_new_items_the_better_extractor_finds(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    summary = reextract(tmp_path)
    assert summary["counts"]["added"] == 1 and summary["changed_files"] == ["_preferences.md"]
    assert items(tmp_path, Dimension.preferences)[QUIET] == ("Active", 1, False)
    text = (tmp_path / MEMORY / "_preferences.md").read_text(encoding="utf-8")
    assert f"- {QUIET} `last:{ago(1)} seen:1`" in text


def test_a_reextracted_notes_new_item_has_it_as_its_source(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    reextract(tmp_path)
    why = json.loads(ok(hylo("why", QUIET, "--vault", tmp_path, "--json")).stdout)
    assert [(s["source"], s["date"]) for s in why["sources"]] == [(f"_shorts/{ago(1)}-home.md", str(ago(1)))]


def test_reextract_twice_reads_nothing_the_second_time(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    reextract(tmp_path)
    before = (tmp_path / MEMORY / "_preferences.md").read_bytes()
    again = reextract(tmp_path)
    assert (again["sources"]["shorts"], again["reextracted"], len(llm.chat_requests)) == (0, 0, 1)
    assert (tmp_path / MEMORY / "_preferences.md").read_bytes() == before


def test_without_reextract_nothing_is_read_again(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    summary = refresh_json(tmp_path, "--extractor", "openai")
    assert (summary["sources"]["shorts"], summary["already_extracted"], summary["reextracted"]) == (0, 1, 0)
    assert llm.chat_requests == [] and QUIET not in items(tmp_path, Dimension.preferences)


def test_since_reaches_back_past_the_window(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    summary = reextract(tmp_path, "--since", ago(60).isoformat())
    assert (summary["window_start"], summary["sources"]["shorts"], summary["reextracted"]) == (str(ago(60)), 2, 2)
    assert items(tmp_path, Dimension.preferences)["Loves long walks"] == ("Active", 1, False)
    assert items(tmp_path, Dimension.identity)["Name is Maya Okafor"] == ("Active", 1, False)


def test_since_does_not_widen_a_window_that_already_reaches_further(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    summary = reextract(tmp_path, "--since", TODAY.isoformat())
    assert (summary["window_start"], summary["sources"]["shorts"]) == (str(ago(1)), 1)


def test_a_reextract_summary_in_text_says_how_many_were_read_again(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    out = ok(refresh(tmp_path, "--extractor", "openai", "--reextract")).stdout
    assert "Read again (another extractor had read them): 1 source\n" in out


def test_since_without_reextract_is_a_usage_error(tmp_path: Path) -> None:
    result = refresh(tmp_path, "--since", ago(30).isoformat())
    assert result.exit_code == 2
    assert "--reextract" in one_line(result.stderr)
    assert not (tmp_path / MEMORY).exists()


# status


def test_status_json_counts_the_sources_another_extractor_read(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    status = status_json(tmp_path)
    assert (status["extractor"], status["read_by_others"]) == (MODEL, 2)


def test_status_text_says_how_many_sources_another_extractor_read(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    out = ok(hylo("status", "--vault", tmp_path, "--today", TODAY.isoformat())).stdout
    # The first run's window start: --since it reaches both notes, the one of six weeks ago too.
    assert (f"Read by another extractor than {MODEL}: 2 sources (`hylo-memory refresh --reextract --since "
            f"{ago(89)}` reads them all again)") in out


def test_status_counts_fewer_once_the_configured_extractor_read_them_again(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    reextract(tmp_path)
    assert status_json(tmp_path)["read_by_others"] == 1
    reextract(tmp_path, "--since", ago(60).isoformat())
    assert status_json(tmp_path)["read_by_others"] == 0
    assert "Read by another extractor" not in ok(hylo("status", "--vault", tmp_path, "--today", TODAY.isoformat())).stdout


def test_status_counts_none_when_the_configured_extractor_read_everything(tmp_path: Path) -> None:
    short(tmp_path, ago(1), "I live in Lisbon.")
    ok(refresh(tmp_path))
    assert status_json(tmp_path)["read_by_others"] == 0


# undo


def test_undoing_a_reextract_takes_its_new_items_back(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    before = (tmp_path / MEMORY / "_preferences.md").read_bytes()
    reextract(tmp_path)
    ok(hylo("undo", "--vault", tmp_path))
    assert (tmp_path / MEMORY / "_preferences.md").read_bytes() == before


def test_after_undoing_a_reextract_a_plain_refresh_reads_nothing_again(tmp_path: Path, llm: FakeOpenAI) -> None:
    read_offline(tmp_path)
    reextract(tmp_path)
    ok(hylo("undo", "--vault", tmp_path))
    summary = refresh_json(tmp_path, "--extractor", "openai")
    assert (summary["sources"]["shorts"], summary["already_extracted"]) == (0, 1)
    assert status_json(tmp_path)["read_by_others"] == 2


def test_a_theme_read_again_by_another_extractor_stays_one_item(tmp_path: Path, llm: FakeOpenAI) -> None:
    from vault_helpers import unit

    for slug, day in (("a", ago(3)), ("b", ago(2))):
        unit(tmp_path, slug, "Someone else's talk.", day, title=f"Sourdough {slug}", tags=["baking", "bread"],
             perspective="external")
    refresh_json(tmp_path, "--extractor", "offline")
    before = items(tmp_path, Dimension.preferences)
    reextract(tmp_path, "--since", ago(10).isoformat())
    assert items(tmp_path, Dimension.preferences) == before  # one item, its wording, its seen: nothing new was seen


def test_since_after_the_runs_date_is_a_usage_error(tmp_path: Path) -> None:
    result = hylo("refresh", "--vault", tmp_path, "--today", TODAY.isoformat(), "--reextract", "--since", "2027-01-01")
    assert result.exit_code == 2 and "after the run's date" in one_line(result.stderr)
