"""`hylo-memory forget`, `unforget` and `forget --list` (docs/spec.md §8 Forget): an item removed for good,
and evidence of it kept out of every later change until the person lets it back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import hylo, one_line
from click.testing import Result
from engine_helpers import item_line, memory_text
from trust_helpers import TODAY, ago, apply, fact, forget, ok, refresh, refresh_json, remember
from vault_helpers import MEMORY, items, memory_file, short, snapshot, texts, write_file

from hylo_memory.decay import Dimension
from hylo_memory.testing import FakeOpenAI
from hylo_memory.testing.fake_replies import classify_reply

LISBON = "Lives in Lisbon"


def unforget(vault: Path, text: str, *args: str) -> Result:
    return hylo("unforget", text, "--vault", vault, *args)


def listing(vault: Path, *args: str) -> Result:
    return hylo("forget", "--list", "--vault", vault, *args)


def preferences(vault: Path, active: list[str] = (), fading: list[str] = ()) -> Path:
    return write_file(vault, f"{MEMORY}/_preferences.md",
                      memory_text(active=list(active), fading=list(fading), last_updated=ago(5)))


def lisbon(vault: Path) -> None:
    """The identity file holds "Lives in Lisbon" (from a note of ten days ago) and one other fact."""
    ok(apply(vault, fact("identity", LISBON, source="_shorts/a.md", date=ago(10)),
             fact("identity", "Works as a nurse", source="_shorts/a.md", date=ago(10))))


# forget removes the item


@pytest.mark.parametrize(("section", "pinned"), [("Active", False), ("Active", True), ("Fading", False),
                                                  ("Fading", True)])
def test_forget_removes_the_item_wherever_it_is_pinned_or_not(tmp_path: Path, section: str, pinned: bool) -> None:
    line = item_line("Loves cold brew", ago(100 if section == "Fading" else 5), seen=3, pinned=pinned)
    other = item_line("Loves modal jazz", ago(5))
    preferences(tmp_path, active=[other] + ([line] if section == "Active" else []),
                fading=[line] if section == "Fading" else [])
    result = ok(forget(tmp_path, "Loves cold brew"))
    assert one_line(result.stdout).startswith(f'Forgot "Loves cold brew" (_preferences.md, {section}): removed')
    assert items(tmp_path, Dimension.preferences) == {"Loves modal jazz": ("Active", 1, False)}


def test_forget_takes_the_items_nested_lines_and_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    path = preferences(tmp_path, active=["<!-- mine -->", item_line("Loves Italian food", ago(5), 2),
                                         "  - especially Sicilian", "    - caponata", item_line("Vegetarian", ago(3))])
    ok(forget(tmp_path, "Loves Italian food"))
    assert path.read_text(encoding="utf-8") == memory_text(active=["<!-- mine -->", item_line("Vegetarian", ago(3))],
                                                           last_updated=TODAY)


def test_forget_finds_the_item_by_a_near_duplicate_of_its_text(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, "lives in lisbon."))
    assert texts(tmp_path, Dimension.identity) == {"Works as a nurse"}


def test_forget_keeps_a_tombstone_with_the_items_text_and_date(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, "lives in lisbon"))
    assert json.loads(ok(listing(tmp_path, "--json")).stdout) == {
        "tombstones": [{"dimension": "identity", "text": LISBON, "forgotten_on": str(TODAY)}]}


def test_forget_is_a_change_in_the_history(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, LISBON))
    latest = json.loads(ok(hylo("history", "--vault", tmp_path, "--json")).stdout)[0]
    assert (latest["command"], latest["detail"], latest["files"], latest["counts"]) == (
        "forget", LISBON, ["identity"], {"forgotten": 1})


# A tombstone keeps evidence out: apply, refresh, remember, refresh --reextract


def test_a_tombstone_keeps_matching_evidence_out_of_apply_and_its_report_says_so(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, LISBON))
    out = ok(apply(tmp_path, fact("identity", "Lives in Lisbon.", source="_shorts/b.md"))).stdout
    assert "  x not kept (forgotten): Lives in Lisbon.\n" in out
    assert out.endswith(", forgotten 1\n")
    assert texts(tmp_path, Dimension.identity) == {"Works as a nurse"}


def test_a_tombstone_keeps_a_near_duplicate_out_too(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, LISBON))
    ok(apply(tmp_path, fact("identity", "Lievs in Lisbon", source="_shorts/b.md")))
    assert texts(tmp_path, Dimension.identity) == {"Works as a nurse"}


def test_a_tombstone_keeps_out_evidence_that_says_it_restates_the_forgotten_item(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, LISBON))
    ok(apply(tmp_path, fact("identity", "Has a flat in the Alfama", source="_shorts/b.md", matches=LISBON)))
    assert texts(tmp_path, Dimension.identity) == {"Works as a nurse"}


def test_a_tombstone_does_not_keep_out_another_fact_with_other_names(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("goals", "Wants to visit Austria")))
    ok(forget(tmp_path, "Wants to visit Austria"))
    ok(apply(tmp_path, fact("goals", "Wants to visit Australia")))
    assert texts(tmp_path, Dimension.goals) == {"Wants to visit Australia"}


def test_a_tombstone_keeps_evidence_out_of_its_own_dimension_only(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("goals", "Running")))
    ok(forget(tmp_path, "Running"))
    ok(apply(tmp_path, fact("preferences", "Running")))
    assert texts(tmp_path, Dimension.preferences) == {"Running"}


def test_a_tombstone_keeps_matching_evidence_out_of_refresh(tmp_path: Path) -> None:
    short(tmp_path, ago(20), "I live in Lisbon.", slug="old")
    ok(refresh(tmp_path, today=ago(15)))
    ok(forget(tmp_path, LISBON, today=ago(15)))
    short(tmp_path, ago(1), "I live in Lisbon. I love long walks.", slug="new")
    summary = refresh_json(tmp_path)
    assert summary["counts"]["forgotten"] == 1
    assert summary["forgotten"] == [{"file": "_identity.md", "text": LISBON}]
    assert LISBON not in texts(tmp_path, Dimension.identity)
    assert texts(tmp_path, Dimension.preferences) == {"Loves long walks"}


def test_a_refresh_summary_in_text_counts_the_forgotten_evidence(tmp_path: Path) -> None:
    short(tmp_path, ago(20), "I live in Lisbon.", slug="old")
    ok(refresh(tmp_path, today=ago(15)))
    ok(forget(tmp_path, LISBON, today=ago(15)))
    short(tmp_path, ago(1), "I live in Lisbon. I love long walks.", slug="new")
    out = ok(refresh(tmp_path)).stdout
    assert "  x not kept (forgotten): Lives in Lisbon\n" in out and ", forgotten 1" in out


def test_a_tombstone_refuses_remember_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Is vegetarian"), fact("preferences", "Loves modal jazz")))
    ok(forget(tmp_path, "Is vegetarian"))
    before = snapshot(tmp_path / MEMORY)
    result = remember(tmp_path, "remember that I'm vegetarian")
    assert result.exit_code == 1 and result.stdout == ""
    line = one_line(result.stderr)
    assert "you asked to forget" in line and "unforget" in line
    assert snapshot(tmp_path / MEMORY) == before


def test_a_tombstone_keeps_evidence_out_of_refresh_reextract(tmp_path: Path, llm: FakeOpenAI) -> None:
    short(tmp_path, ago(1), "I live in Lisbon. I love long walks.")
    ok(refresh(tmp_path, "--extractor", "offline"))
    ok(forget(tmp_path, LISBON))
    summary = refresh_json(tmp_path, "--extractor", "openai", "--reextract")
    assert (summary["reextracted"], len(llm.chat_requests)) == (1, 1)  # the note was read again
    assert summary["forgotten"] == [{"file": "_identity.md", "text": LISBON}]
    assert LISBON not in texts(tmp_path, Dimension.identity)


# unforget


def test_unforget_lets_the_fact_be_kept_again(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, LISBON))
    out = one_line(ok(unforget(tmp_path, "lives in lisbon")).stdout)
    assert out.startswith(f'Unforgot "{LISBON}" (identity)')
    ok(apply(tmp_path, fact("identity", LISBON, source="_shorts/b.md")))
    assert items(tmp_path, Dimension.identity)[LISBON] == ("Active", 1, False)


def test_unforget_lets_remember_keep_the_fact_again(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Is vegetarian")))
    ok(forget(tmp_path, "Is vegetarian"))
    ok(unforget(tmp_path, "Is vegetarian"))
    ok(remember(tmp_path, "I'm vegetarian"))
    assert texts(tmp_path, Dimension.preferences) == {"Is vegetarian"}


def test_unforget_removes_the_tombstone_from_the_list(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, LISBON))
    ok(forget(tmp_path, "Works as a nurse"))
    ok(unforget(tmp_path, LISBON))
    assert ok(listing(tmp_path)).stdout == f"{TODAY}  identity: Works as a nurse\n"


def test_unforget_of_nothing_forgotten_is_one_line_naming_what_is(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, LISBON))
    result = unforget(tmp_path, "Loves cold brew")
    assert result.exit_code == 1
    assert f'forgotten: "{LISBON}" (identity)' in one_line(result.stderr)


def test_unforget_writes_no_memory_file(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, LISBON))
    before = {k: v for k, v in snapshot(tmp_path / MEMORY).items() if not k.startswith(".")}
    ok(unforget(tmp_path, LISBON))
    assert {k: v for k, v in snapshot(tmp_path / MEMORY).items() if not k.startswith(".")} == before


# forget --list


def test_forget_list_shows_each_tombstone_with_its_date_and_dimension(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(apply(tmp_path, fact("preferences", "Loves cold brew")))
    ok(forget(tmp_path, LISBON, today=ago(2)))
    ok(forget(tmp_path, "Loves cold brew"))
    assert ok(listing(tmp_path)).stdout == f"{ago(2)}  identity: {LISBON}\n{TODAY}  preferences: Loves cold brew\n"


def test_forget_list_json_lists_the_tombstones(tmp_path: Path) -> None:
    lisbon(tmp_path)
    ok(forget(tmp_path, LISBON))
    assert json.loads(ok(listing(tmp_path, "--json")).stdout)["tombstones"] == [
        {"dimension": "identity", "text": LISBON, "forgotten_on": str(TODAY)}]


def test_forget_list_with_nothing_forgotten_says_so(tmp_path: Path) -> None:
    assert ok(listing(tmp_path)).stdout == "Nothing forgotten.\n"
    assert json.loads(ok(listing(tmp_path, "--json")).stdout) == {"tombstones": []}


# What forget refuses


def test_forget_with_no_match_is_one_line_naming_the_closest_items_and_exit_1(tmp_path: Path) -> None:
    lisbon(tmp_path)
    before = snapshot(tmp_path / MEMORY)
    result = forget(tmp_path, "Lives in Porto")
    assert result.exit_code == 1 and result.stdout == ""
    line = one_line(result.stderr)
    assert "no item matches 'Lives in Porto'" in line and f'"{LISBON}" (identity)' in line
    assert snapshot(tmp_path / MEMORY) == before


def test_forget_of_text_in_two_files_without_dimension_asks_for_it_and_writes_nothing(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Running"), fact("goals", "Running")))
    before = snapshot(tmp_path / MEMORY)
    result = forget(tmp_path, "Running")
    assert result.exit_code == 1
    line = one_line(result.stderr)
    assert "--dimension" in line and "(preferences)" in line and "(goals)" in line
    assert snapshot(tmp_path / MEMORY) == before


def test_forget_with_dimension_removes_the_item_of_that_file_only(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Running"), fact("goals", "Running")))
    ok(forget(tmp_path, "Running", "--dimension", "goals"))
    assert (texts(tmp_path, Dimension.goals), texts(tmp_path, Dimension.preferences)) == (set(), {"Running"})


def test_forget_with_neither_text_nor_list_is_a_usage_error(tmp_path: Path) -> None:
    result = hylo("forget", "--vault", tmp_path)
    assert result.exit_code == 2
    assert "--list" in one_line(result.stderr)


def test_forget_with_both_text_and_list_is_a_usage_error(tmp_path: Path) -> None:
    lisbon(tmp_path)
    result = hylo("forget", LISBON, "--list", "--vault", tmp_path)
    assert result.exit_code == 2
    one_line(result.stderr)
    assert LISBON in texts(tmp_path, Dimension.identity)


def test_unforget_of_text_forgotten_in_two_files_without_dimension_asks_for_it(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Running"), fact("goals", "Running"), fact("goals", "Ship the beta")))
    ok(forget(tmp_path, "Running", "--dimension", "goals"))
    ok(forget(tmp_path, "Running"))
    result = unforget(tmp_path, "running")
    assert result.exit_code == 1
    line = one_line(result.stderr)
    assert "--dimension" in line and "(goals)" in line and "(preferences)" in line
    assert len(json.loads(ok(listing(tmp_path, "--json")).stdout)["tombstones"]) == 2


def test_unforget_with_dimension_lets_back_that_files_fact_only(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Running"), fact("goals", "Running"), fact("goals", "Ship the beta")))
    ok(forget(tmp_path, "Running", "--dimension", "goals"))
    ok(forget(tmp_path, "Running"))
    ok(unforget(tmp_path, "Running", "--dimension", "goals"))
    assert ok(listing(tmp_path)).stdout == f"{TODAY}  preferences: Running\n"


def test_forget_with_dimension_of_a_file_without_items_says_that_file_has_none(tmp_path: Path) -> None:
    lisbon(tmp_path)
    result = forget(tmp_path, LISBON, "--dimension", "beliefs")
    assert result.exit_code == 1
    assert one_line(result.stderr).endswith("no item matches 'Lives in Lisbon'; _beliefs.md has no items\n")


def test_a_fact_forgotten_then_kept_again_has_only_its_new_sources(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves grilled sardines", source="_shorts/old.md", date=ago(20))))
    ok(forget(tmp_path, "Loves grilled sardines"))
    ok(hylo("unforget", "Loves grilled sardines", "--vault", str(tmp_path)))
    ok(apply(tmp_path, fact("preferences", "Loves grilled sardines", source="_shorts/new.md", date=ago(1))))
    report = json.loads(ok(hylo("why", "Loves grilled sardines", "--vault", str(tmp_path), "--json")).stdout)
    assert [s["source"] for s in report["sources"]] == ["_shorts/new.md"]


def test_forget_works_in_one_file_while_another_cannot_be_read(tmp_path: Path) -> None:
    ok(remember(tmp_path, "I love green tea", "--dimension", "preferences"))
    broken = memory_file(tmp_path, Dimension.people, "## Active\n- Ines — sister `last:2026-11-01 seen:x`\n")
    text = broken.read_bytes()
    ok(forget(tmp_path, "Loves green tea"))
    assert texts(tmp_path, Dimension.preferences) == set() and broken.read_bytes() == text


def test_remember_refuses_a_forgotten_fact_in_the_persons_words_whatever_the_model_words_it(
        tmp_path: Path, llm: FakeOpenAI) -> None:
    ok(apply(tmp_path, fact("preferences", "I use Neovim")))
    ok(forget(tmp_path, "I use Neovim"))
    llm.enqueue(classify_reply("preferences", "Edits code in Neovim daily", True))
    result = remember(tmp_path, "I use Neovim")
    assert result.exit_code == 1 and "a fact you asked to forget" in one_line(result.stderr)
    assert texts(tmp_path, Dimension.preferences) == set()
