"""`hylo-memory context` (docs/spec.md §9): the memory as one deterministic markdown block under a token budget."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from hypothesis import given
from hypothesis import strategies as st
from vault_helpers import memory_body, memory_file, opened, snapshot_but_memo

from hylo_memory.decay import Dimension, Item
from hylo_memory.decay.recall.ranking import MIN_BUDGET, BlockRequest, build_block, score
from hylo_memory.domain.dimensions import ACTIVE, FADING
from hylo_memory.domain.items import MemoryFile, Section
from hylo_memory.extractors.llm.batching import estimate_tokens
from hylo_memory.pipeline.cli.options import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.serving.context import build_context

TODAY = dt.date(2026, 11, 30)



@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    memory_file(root, Dimension.identity, memory_body("Name is Ana Silva | 2026-11-01 | 3 | pinned",
                                                 "Lives in Lisbon | 2026-10-01 | 1"))
    memory_file(root, Dimension.preferences, memory_body("Loves to run | 2026-11-28 | 4",
                                                    "Prefers terse answers | 2026-09-15 | 1",
                                                    "Is vegetarian | 2026-03-01 | 1 | pinned",
                                                    fading=("Enjoys modal jazz | 2026-07-01 | 2",)))
    memory_file(root, Dimension.goals, memory_body("Ship the migration | 2026-11-25 | 2"))
    memory_file(root, Dimension.state, memory_body("Tired after the trip | 2026-11-29 | 1"))
    return root


def context(vault: Path, *args: str) -> str:
    result = hylo("context", "--vault", vault, "--today", TODAY.isoformat(), *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_the_same_memory_gives_the_same_bytes(vault: Path) -> None:
    first = context(vault)
    assert context(vault) == first
    assert build_context(opened(vault, Config()), TODAY, NAMING).to_text() == first


def test_the_block_names_the_person_and_has_a_heading_for_each_dimension_in_order(vault: Path) -> None:
    text = context(vault)
    assert text.startswith("# About Ana Silva\n\n")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Identity", "## Preferences", "## Goals", "## State"]


def test_without_a_known_name_the_block_is_about_the_user(tmp_path: Path) -> None:
    memory_file(tmp_path, Dimension.preferences, memory_body("Loves to run | 2026-11-28 | 4"))
    assert context(tmp_path).startswith("# About the user\n\n## Preferences\n- Loves to run\n")


def test_pinned_items_come_first_in_their_dimension(vault: Path) -> None:
    lines = context(vault).splitlines()
    preferences = lines[lines.index("## Preferences") + 1:lines.index("## Goals") - 1]
    # Pinned, though months old, then the rest by score: recent and often seen first.
    assert preferences == ["- Is vegetarian", "- Loves to run", "- Prefers terse answers"]


def test_fading_items_are_left_out(vault: Path) -> None:
    assert "modal jazz" not in context(vault)


def test_the_block_stays_within_the_budget_by_the_batching_estimate(vault: Path) -> None:
    lines = [f"Enjoys the long walk number {n} by the river | 2026-11-{1 + n % 28:02d} | {1 + n % 5}" for n in range(60)]
    memory_file(vault, Dimension.preferences, memory_body(*lines))
    for budget in (100, 150, 400):
        text = context(vault, "--budget", str(budget))
        assert estimate_tokens(text) <= budget
        assert json.loads(context(vault, "--budget", str(budget), "--json"))["tokens"] == estimate_tokens(text)


def test_the_block_ends_with_how_many_items_were_left_out(vault: Path) -> None:
    lines = [f"Enjoys the long walk number {n} by the river | 2026-11-01 | 1" for n in range(40)]
    memory_file(vault, Dimension.beliefs, memory_body(*lines))
    text = context(vault, "--budget", "120")
    shown = sum(1 for line in text.splitlines() if line.startswith("- "))
    left_out = 2 + 3 + 1 + 1 + 40 - shown  # every Active item of the five files
    assert left_out > 0
    assert text.endswith(f"\n\n_{left_out} more items left out to fit the budget of 120 tokens._\n")
    assert "left out" not in context(vault)  # everything fits the default budget: no such line


def test_the_lowest_scored_items_are_the_ones_left_out(vault: Path) -> None:
    # Nine one-off notes of one day and three seen often: the budget keeps those three.
    lines = [f"Enjoys the long walk number {n} by the river | 2026-11-01 | 1" for n in range(9)]
    lines += [f"Reads about the history of city number {n} | 2026-11-01 | 9" for n in range(3)]
    root = vault.parent / "walks"
    memory_file(root, Dimension.beliefs, memory_body(*lines))
    text = context(root, "--budget", "100")
    assert "city number" in text and text.count("city number") == 3
    assert text.count("walk number") < 9


def test_a_query_puts_the_items_relevant_to_it_first_and_keeps_them_under_a_tight_budget(vault: Path) -> None:
    lines = [f"Enjoys the long walk number {n} by the river | 2026-11-29 | 5" for n in range(30)]
    lines.append("Went running once in Porto | 2026-06-01 | 1")
    memory_file(vault, Dimension.beliefs, memory_body(*lines))
    assert "running once" not in context(vault, "--budget", "150")  # old and seen once: the first to go
    text = context(vault, "--budget", "150", "--query", "run")
    assert "- Went running once in Porto" in text
    beliefs = text.split("## Beliefs\n")[1].splitlines()
    assert beliefs[0] == "- Went running once in Porto"
    preferences = text.split("## Preferences\n")[1].splitlines()
    assert preferences[0] == "- Loves to run"  # relevant: before the pinned item of its file


def test_json_gives_the_chosen_items_with_their_scores(vault: Path) -> None:
    found = json.loads(context(vault, "--json", "--query", "run"))
    assert found["budget"] == 1500 and found["left_out"] == 0 and found["name"] == "Ana Silva"
    assert found["tokens"] == estimate_tokens(found["text"])
    by_text = {i["text"]: i for i in found["items"]}
    assert set(by_text) == {"Name is Ana Silva", "Lives in Lisbon", "Loves to run", "Prefers terse answers",
                            "Is vegetarian", "Ship the migration", "Tired after the trip"}
    run = by_text["Loves to run"]
    assert run["dimension"] == "preferences" and run["seen"] == 4 and run["pinned"] is False
    assert 0 < run["score"] <= 1 and run["relevance"] > 0
    assert by_text["Lives in Lisbon"]["relevance"] is None


def test_an_empty_memory_gives_a_short_block(tmp_path: Path) -> None:
    assert context(tmp_path) == "# About the user\n\n_Nothing is known about the user yet._\n"
    found = json.loads(context(tmp_path, "--json"))
    assert found["items"] == [] and found["left_out"] == 0


def test_context_writes_nothing_but_its_read_memo(vault: Path) -> None:
    before = snapshot_but_memo(vault)
    context(vault, "--query", "run")
    assert snapshot_but_memo(vault) == before


@pytest.mark.parametrize("budget", ["0", "-5", "99", "1000000000"])
def test_a_budget_out_of_range_is_a_one_line_usage_error(vault: Path, budget: str) -> None:
    result = hylo("context", "--vault", vault, "--budget", budget)
    assert result.exit_code == 2
    assert "--budget" in one_line(result.stderr)


def test_a_hand_broken_memory_file_is_left_out_and_named_and_the_rest_is_given(vault: Path) -> None:
    memory_file(vault, Dimension.goals, "## Active\n- Ship it `last:2026-13-45 seen:1`\n")
    result = hylo("context", "--vault", vault)
    assert result.exit_code == 0
    assert "- Loves to run" in result.stdout  # one bad line does not take the whole memory from the assistant
    assert "_Left out, it cannot be read: " in result.stdout and "_goals.md:6:" in result.stdout
    assert json.loads(hylo("context", "--vault", vault, "--json").stdout)["refused"][0].startswith(str(vault))


def test_every_hand_broken_memory_file_is_named_on_a_line_of_its_own_with_its_line(vault: Path) -> None:
    goals = memory_file(vault, Dimension.goals, "## Active\n- Ship it `last:2026-13-45 seen:1`\n")
    state = memory_file(vault, Dimension.state, "## Active\n- Tired `last:2026-11-01 seen:x`\n")
    left_out = [line for line in context(vault).splitlines() if line.startswith("_Left out")]
    assert len(left_out) == 2
    assert f"{goals}:6: " in left_out[0] and f"{state}:6: " in left_out[1]


def test_recent_and_often_seen_items_score_higher() -> None:
    def scored(last: str, seen: int) -> float:
        return score(Item(text="x", last=dt.date.fromisoformat(last), seen=seen), 90, TODAY)
    assert scored("2026-11-29", 1) > scored("2026-10-01", 1) > scored("2026-08-01", 1)
    assert scored("2026-10-01", 8) > scored("2026-10-01", 2)
    assert scored("2026-01-01", 1) == scored("2025-01-01", 1)  # past the window, recency counts nothing


_texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=80)
_items = st.builds(Item, text=_texts.filter(str.strip),
                   last=st.dates(dt.date(2025, 1, 1), TODAY) | st.none(),
                   seen=st.integers(1, 50), pinned=st.booleans())


@given(files=st.dictionaries(st.sampled_from(list(Dimension)), st.lists(_items, max_size=30)),
       budget=st.integers(MIN_BUDGET, 2000), name=st.none() | _texts, query=st.none() | _texts)
def test_the_block_never_exceeds_its_budget_and_drops_only_the_lowest(files: dict[Dimension, list[Item]],
                                                                       budget: int, name: str | None,
                                                                       query: str | None) -> None:
    memory = {d: MemoryFile(dimension=d, decay_window=30, sections=[Section(heading=ACTIVE, entries=list(found)),
                                                                      Section(heading=FADING)])
              for d, found in files.items()}
    block = build_block(memory, BlockRequest(TODAY, budget, estimate_tokens, name, query))
    assert estimate_tokens(block.text) == block.tokens <= budget
    active = sum(1 for found in files.values() for i in found if " ".join(i.text.split()))
    assert len(block.items) + block.left_out == active
    assert (f"_{block.left_out:,} more item" in block.text) == (block.left_out > 0)
    assert build_block(memory, BlockRequest(TODAY, budget, estimate_tokens, name, query)) == block
    if query is None:  # every item kept ranks above every item left out: pinned first, then by score
        ranks = sorted(((i.pinned, score(i, 30, TODAY)) for found in files.values() for i in found
                        if " ".join(i.text.split())), reverse=True)
        kept = sorted(((c.pinned, c.score) for c in block.items), reverse=True)
        assert kept == ranks[:len(kept)]


def test_a_command_interrupted_while_writing_is_finished_before_the_block_is_read(vault: Path) -> None:
    from hylo_memory.pipeline.state.journal import Journal

    text = "---\ndecay_window: 30d\n---\n## Active\n- Ship the beta `last:2026-11-29 seen:1`\n\n## Fading\n"
    journal = vault / "_memory" / ".state" / "journal.json"
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text(Journal(files={Dimension.goals: text}).model_dump_json(), encoding="utf-8")
    assert "- Ship the beta" in hylo("context", "--vault", vault).stdout  # not the half-written memory
    assert not journal.exists()
