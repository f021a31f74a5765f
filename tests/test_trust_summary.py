"""The summary keys rule H and tombstones add (docs/spec.md §4.8): `counts.superseded`, `counts.forgotten`,
`superseded`, `conflicts` and `forgotten`, in a refresh's JSON and in what `apply` prints."""

from __future__ import annotations

import json
from pathlib import Path

from engine_helpers import item_line, memory_text
from trust_helpers import ago, apply, fact, forget, ok, refresh, refresh_json
from vault_helpers import MEMORY, identity, items, short, write_file

from hylo_memory.decay import Dimension

COLD_BREW = "Loves cold brew"
REPLACED_BY = "No longer likes cold brew"


def cold_brew(vault: Path, pinned: bool = False) -> None:
    """An incremental vault whose preferences hold "Loves cold brew", and yesterday's note that reverses it."""
    identity(vault, last=str(ago(30)))
    write_file(vault, f"{MEMORY}/_preferences.md",
               memory_text(active=[item_line(COLD_BREW, ago(20), 3, pinned=pinned)], last_updated=ago(20)))
    short(vault, ago(1), "I stopped liking cold brew.", slug="coffee")


def test_every_refresh_summary_carries_the_trust_keys_even_when_empty(tmp_path: Path) -> None:
    short(tmp_path, ago(1), "I love long walks.")
    summary = refresh_json(tmp_path)
    assert (summary["counts"]["superseded"], summary["counts"]["forgotten"]) == (0, 0)
    assert (summary["superseded"], summary["conflicts"], summary["forgotten"]) == ([], [], [])


def test_a_refresh_that_supersedes_an_item_lists_it_with_what_replaced_it(tmp_path: Path) -> None:
    cold_brew(tmp_path)
    summary = refresh_json(tmp_path)
    assert summary["counts"]["superseded"] == 1
    assert summary["superseded"] == [{"file": "_preferences.md", "text": COLD_BREW, "by": REPLACED_BY}]
    assert summary["counts"]["faded"] == 0  # superseded, not faded by age
    assert items(tmp_path, Dimension.preferences)[COLD_BREW] == ("Fading", 3, False)


def test_a_refresh_that_would_supersede_a_pinned_item_reports_the_conflict(tmp_path: Path) -> None:
    cold_brew(tmp_path, pinned=True)
    summary = refresh_json(tmp_path)
    assert summary["conflicts"] == [{"file": "_preferences.md", "pinned": COLD_BREW, "evidence": REPLACED_BY,
                                     "source": f"_shorts/{ago(1)}-coffee.md"}]
    assert (summary["counts"]["superseded"], summary["superseded"]) == (0, [])
    assert items(tmp_path, Dimension.preferences)[COLD_BREW] == ("Active", 3, True)


def test_a_refresh_text_summary_names_superseded_items_and_conflicts(tmp_path: Path) -> None:
    cold_brew(tmp_path)
    out = ok(refresh(tmp_path)).stdout
    assert f"Superseded (faded at once by a newer fact):\n  _preferences.md: {COLD_BREW} → {REPLACED_BY}\n" in out
    pinned = tmp_path / "pinned"
    cold_brew(pinned, pinned=True)
    out = ok(refresh(pinned)).stdout
    assert (f'Conflicts with pinned items (kept as they are: forget the one that no longer holds with `hylo-memory forget`, or edit the file):\n  _preferences.md: pinned '
            f'"{COLD_BREW}" vs "{REPLACED_BY}" (_shorts/{ago(1)}-coffee.md)\n') in out


def test_the_saved_run_summary_carries_the_trust_lists(tmp_path: Path) -> None:
    cold_brew(tmp_path)
    printed = refresh_json(tmp_path)
    (saved,) = (tmp_path / MEMORY / ".state" / "runs").glob("*.json")
    kept = json.loads(saved.read_text(encoding="utf-8"))
    assert (kept["superseded"], kept["counts"]["superseded"]) == (printed["superseded"], 1)


def test_a_refresh_with_forgotten_evidence_counts_and_lists_it(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("preferences", "Loves long walks"), fact("identity", "Name is Maya")))
    ok(forget(tmp_path, "Loves long walks"))
    short(tmp_path, ago(1), "I love long walks.")
    summary = refresh_json(tmp_path)
    assert (summary["counts"]["forgotten"], summary["forgotten"]) == (
        1, [{"file": "_preferences.md", "text": "Loves long walks"}])


def test_apply_with_supersedes_prints_the_superseded_item_and_counts_it(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Lives in Lisbon", date=ago(40)), today=ago(40)))
    out = ok(apply(tmp_path, fact("identity", "Lives in Porto", date=ago(1), supersedes="Lives in Lisbon"))).stdout
    assert "  > superseded: Lives in Lisbon (by: Lives in Porto)\n" in out
    assert out.endswith("added 1, refreshed 0, faded 0, deleted 0, superseded 1\n")
    assert items(tmp_path, Dimension.identity)["Lives in Lisbon"] == ("Fading", 1, False)


def test_apply_against_a_pinned_item_prints_the_conflict(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Lives in Lisbon", date=ago(40), pinned=True), today=ago(40)))
    out = ok(apply(tmp_path, fact("identity", "Lives in Porto", source="_shorts/p.md", date=ago(1),
                                  supersedes="Lives in Lisbon"))).stdout
    assert '  ! conflict: pinned "Lives in Lisbon" vs "Lives in Porto" (_shorts/p.md)' in out
    assert items(tmp_path, Dimension.identity)["Lives in Lisbon"] == ("Active", 1, True)


def test_apply_with_forgotten_evidence_prints_it_and_counts_it(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Lives in Lisbon"), fact("identity", "Works as a nurse")))
    ok(forget(tmp_path, "Lives in Lisbon"))
    out = ok(apply(tmp_path, fact("identity", "Lives in Lisbon", source="_shorts/b.md"))).stdout
    assert "  x not kept (forgotten): Lives in Lisbon\n" in out and out.endswith(", forgotten 1\n")


def test_forgotten_superseding_evidence_supersedes_nothing(tmp_path: Path) -> None:
    ok(apply(tmp_path, fact("identity", "Lives in Lisbon", date=ago(40)), fact("identity", "Lives in Porto",
                                                                               date=ago(40)), today=ago(40)))
    ok(forget(tmp_path, "Lives in Porto", today=ago(39)))
    out = ok(apply(tmp_path, fact("identity", "Lives in Porto", date=ago(1), supersedes="Lives in Lisbon"))).stdout
    assert "superseded" not in out
    assert items(tmp_path, Dimension.identity) == {"Lives in Lisbon": ("Active", 1, False)}
