"""`remember` of a fact that replaces a kept one (docs/spec.md §5, rule H): the old item fades, a pinned one is a conflict."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import hylo
from vault_helpers import identity, items, memory_file

from hylo_memory.decay import Dimension
from hylo_memory.testing import FakeOpenAI
from hylo_memory.testing.fake_replies import classify_reply


def test_remember_with_the_llm_fades_the_item_the_new_fact_replaces(llm: FakeOpenAI, tmp_path: Path) -> None:
    identity(tmp_path, "Lives in Lisbon", last="2026-11-20")
    llm.enqueue(classify_reply("identity", "Lives in Porto", True, supersedes=1))
    result = hylo("remember", "I moved to Porto", "--vault", str(tmp_path), "--today", "2026-11-30")
    assert result.exit_code == 0, result.output
    assert 'it replaces "Lives in Lisbon" (now fading)' in result.output
    kept = items(tmp_path, Dimension.identity)
    assert kept["Lives in Lisbon"] == ("Fading", 1, False) and kept["Lives in Porto"][0] == "Active"


def test_remember_shows_the_model_the_kept_items_to_choose_from(llm: FakeOpenAI, tmp_path: Path) -> None:
    identity(tmp_path, "Lives in Lisbon", last="2026-11-20")
    llm.enqueue(classify_reply("identity", "Lives in Porto", True, supersedes=1))
    hylo("remember", "I moved to Porto", "--vault", str(tmp_path), "--today", "2026-11-30")
    assert "Lives in Lisbon" in str(llm.chat_requests[-1].body)


def test_remember_never_moves_a_pinned_item_it_replaces_and_names_the_conflict(llm: FakeOpenAI,
                                                                              tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.identity,
                "## Active\n- Lives in Lisbon `last:2026-11-20 seen:3 pinned`\n\n## Fading\n")
    llm.enqueue(classify_reply("identity", "Lives in Porto", True, supersedes=1))
    result = hylo("remember", "I moved to Porto", "--vault", str(tmp_path), "--today", "2026-11-30")
    assert 'it contradicts pinned "Lives in Lisbon"' in result.output
    assert items(tmp_path, Dimension.identity)["Lives in Lisbon"] == ("Active", 3, True)


def test_remember_offline_fades_the_opposite_liking_of_the_same_thing(tmp_path: Path, isolated_env: None) -> None:
    memory_file(tmp_path, Dimension.preferences, "## Active\n- Loves cold brew `last:2026-11-20 seen:2`\n\n## Fading\n")
    result = hylo("remember", "I don't like cold brew anymore", "--vault", str(tmp_path), "--today", "2026-11-30")
    assert result.exit_code == 0, result.output
    assert items(tmp_path, Dimension.preferences)["Loves cold brew"] == ("Fading", 2, False)
