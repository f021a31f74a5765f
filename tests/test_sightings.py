"""Promotion after sightings (docs/spec.md §3.2): with `min_sightings = 2` a new inferred fact waits as a candidate
until a second source within its window proposes it; `candidates`, `promote`, `reject`; every item's actor."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from cli_helpers import hylo
from click.testing import Result
from freezegun import freeze_time
from trust_helpers import TODAY, ago, apply, fact, ledger_rows, ok, refresh, refresh_json, remember
from vault_helpers import items, short

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.decay.sightings import Candidate, Sighting, gate

SARDINES = "Loves grilled sardines"


def vault(tmp_path: Path, min_sightings: int = 2) -> Path:
    (tmp_path / ".hylo-memory.toml").write_text(f"min_sightings = {min_sightings}\n", encoding="utf-8")
    return tmp_path


def seen_once(tmp_path: Path, text: str = SARDINES, dimension: str = "preferences", days_ago: int = 5) -> Path:
    root = vault(tmp_path)
    ok(apply(root, fact(dimension, text, source="_shorts/a.md", date=ago(days_ago)), name="a.jsonl"))
    return root


def waiting(root: Path) -> list[dict]:
    return json.loads(ok(hylo("candidates", "--vault", root, "--json")).stdout)["candidates"]


def command(name: str, root: Path, *args: str, today: dt.date = TODAY) -> Result:
    return hylo(name, *args, "--vault", root, "--today", today.isoformat())


def test_one_mention_makes_an_item_by_default(tmp_path: Path) -> None:
    root = vault(tmp_path, min_sightings=1)
    ok(apply(root, fact("preferences", SARDINES, date=ago(5))))
    assert items(root, Dimension.preferences) == {SARDINES: ("Active", 1, False)}
    assert waiting(root) == []


def test_a_fact_seen_once_waits_in_the_ledger_not_in_its_file(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    assert items(root, Dimension.preferences) == {}
    assert ledger_rows(root, "SELECT dimension, text FROM candidates") == [("preferences", SARDINES)]


def test_candidates_lists_text_dimension_sightings_dates_and_sources(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    [listed] = waiting(root)
    assert {k: listed[k] for k in ("text", "dimension", "sightings", "first", "last", "expires_after")} == {
        "text": SARDINES, "dimension": "preferences", "sightings": 1, "first": str(ago(5)), "last": str(ago(5)),
        "expires_after": str(ago(5) + dt.timedelta(days=90))}
    assert [(s["source"], s["actor"]) for s in listed["sources"]] == [("_shorts/a.md", "apply")]


def test_a_second_sighting_within_the_window_writes_it_with_seen_summed(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(apply(root, fact("preferences", SARDINES, source="_shorts/b.md", date=ago(2)), name="b.jsonl"))
    assert items(root, Dimension.preferences) == {SARDINES: ("Active", 2, False)}
    assert waiting(root) == []


def test_the_same_source_again_is_not_a_second_sighting(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(apply(root, fact("preferences", SARDINES, source="_shorts/a.md", date=ago(5)), name="again.jsonl"))
    assert items(root, Dimension.preferences) == {}
    assert waiting(root)[0]["sightings"] == 1


def test_sightings_are_matched_as_the_rules_match_not_by_exact_text(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(apply(root, fact("preferences", "loves grilled sardine.", source="_shorts/b.md", date=ago(2)), name="b.jsonl"))
    assert items(root, Dimension.preferences) == {SARDINES: ("Active", 2, False)}  # the first wording stays


def test_an_opposite_is_never_a_sighting_of_a_candidate(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(apply(root, fact("preferences", "Hates grilled sardines", source="_shorts/b.md", date=ago(2)), name="b.jsonl"))
    assert items(root, Dimension.preferences) == {}
    assert sorted(c["text"] for c in waiting(root)) == ["Hates grilled sardines", SARDINES]


def test_a_second_sighting_after_the_window_starts_the_candidate_again(tmp_path: Path) -> None:
    root = seen_once(tmp_path, "Tired after the move", dimension="state", days_ago=12)  # the state window: 7 days
    ok(apply(root, fact("state", "Tired after the move", source="_shorts/b.md", date=ago(1)), name="b.jsonl"))
    assert items(root, Dimension.state) == {}
    assert [(c["first"], c["sightings"]) for c in waiting(root)] == [(str(ago(1)), 1)]


def test_a_candidate_whose_window_passed_expires_without_being_written(tmp_path: Path) -> None:
    root = seen_once(tmp_path, "Tired after the move", dimension="state", days_ago=2)
    summary = refresh_json(root, today=TODAY + dt.timedelta(days=10))
    assert summary["candidates"]["expired"] == 1 and summary["candidates"]["waiting"] == 0
    assert waiting(root) == [] and items(root, Dimension.state) == {}


def test_evidence_for_a_kept_item_refreshes_it_without_waiting(tmp_path: Path) -> None:
    root = vault(tmp_path)
    ok(remember(root, "I love grilled sardines", "--dimension", "preferences", today=ago(10)))
    ok(apply(root, fact("preferences", SARDINES, source="_shorts/b.md", date=ago(2))))
    assert items(root, Dimension.preferences)[SARDINES][1] == 2


def test_a_pinned_fact_never_waits(tmp_path: Path) -> None:
    root = vault(tmp_path)
    ok(apply(root, fact("identity", "Vegetarian", pinned=True, date=ago(2))))
    assert items(root, Dimension.identity) == {"Vegetarian": ("Active", 1, True)}


def test_remember_never_waits_and_takes_a_waiting_candidate_with_it(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(remember(root, "I love grilled sardines", "--dimension", "preferences", "--no-pin"))
    assert items(root, Dimension.preferences) == {SARDINES: ("Active", 2, False)}
    assert waiting(root) == []


def test_promote_writes_a_candidate_now_approved_by_you(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    out = ok(command("promote", root, "sardines")).stdout
    assert out.startswith(f'Promoted "{SARDINES}" to _preferences.md (1 sighting, approved by you)')
    assert items(root, Dimension.preferences) == {SARDINES: ("Active", 1, False)}
    assert ledger_rows(root, "SELECT actor, approved FROM provenance") == [("apply", "you")]


def test_why_says_who_proposed_and_who_approved_a_promoted_item(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(command("promote", root, "sardines"))
    out = ok(hylo("why", "sardines", "--vault", root)).stdout
    assert ", approved by you after 1 sighting (proposed by apply)" in out.splitlines()[1]
    assert out.splitlines()[-1].endswith("[by apply, approved by you]")


def test_an_automatic_promotion_is_never_recorded_as_you(tmp_path: Path) -> None:
    root = vault(tmp_path)
    short(root, ago(6), "I love grilled sardines.", slug="a")
    ok(refresh(root, today=ago(5)))
    short(root, ago(1), "Lunch by the sea. I love grilled sardines.", slug="b")  # another note, not a copy
    ok(refresh(root))
    assert set(ledger_rows(root, "SELECT actor, approved FROM provenance")) == {("offline", "offline")}
    first = ok(hylo("why", "sardines", "--vault", root)).stdout.splitlines()[1]
    assert first.endswith("promoted after 2 sightings, approved by offline (not by you)")


def test_why_says_a_remember_took_a_waiting_candidate_with_it(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(remember(root, "I love grilled sardines", "--dimension", "preferences"))
    first = ok(hylo("why", "sardines", "--vault", root)).stdout.splitlines()[1]
    assert first.endswith(", approved by you after 1 sighting (proposed by apply)")


def test_remember_is_recorded_as_you(tmp_path: Path) -> None:
    root = vault(tmp_path)
    ok(remember(root, "I love grilled sardines", "--dimension", "preferences"))
    assert ledger_rows(root, "SELECT actor, approved FROM provenance") == [("you", "you")]


def test_reject_drops_a_candidate_for_good(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(command("reject", root, "sardines"))
    ok(apply(root, fact("preferences", SARDINES, source="_shorts/b.md", date=ago(2)), name="b.jsonl"))
    ok(apply(root, fact("preferences", SARDINES, source="_shorts/c.md", date=ago(1)), name="c.jsonl"))
    assert waiting(root) == [] and items(root, Dimension.preferences) == {}
    assert SARDINES in ok(hylo("forget", "--list", "--vault", root)).stdout


def test_an_ambiguous_text_is_one_line_listing_the_choices(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(apply(root, fact("preferences", "Loves grilled peppers", source="_shorts/b.md", date=ago(2)), name="b.jsonl"))
    result = command("promote", root, "loves grilled")
    assert result.exit_code != 0
    assert result.stderr.count("\n") == 1
    assert '"Loves grilled sardines" (preferences)' in result.stderr and '"Loves grilled peppers"' in result.stderr


def test_undo_of_a_promotion_puts_the_candidate_back(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(command("promote", root, "sardines"))
    ok(hylo("undo", "--vault", root))
    assert items(root, Dimension.preferences) == {}
    assert [c["text"] for c in waiting(root)] == [SARDINES]


def test_undo_of_a_rejection_puts_the_candidate_back_and_lifts_its_tombstone(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(command("reject", root, "sardines"))
    ok(hylo("undo", "--vault", root))
    assert [c["text"] for c in waiting(root)] == [SARDINES]
    assert ok(hylo("forget", "--list", "--vault", root)).stdout == "Nothing forgotten.\n"


def test_undo_of_a_run_that_promoted_puts_the_candidate_back_as_it_was(tmp_path: Path) -> None:
    root = seen_once(tmp_path)
    ok(apply(root, fact("preferences", SARDINES, source="_shorts/b.md", date=ago(2)), name="b.jsonl"))
    ok(hylo("undo", "--vault", root))
    assert items(root, Dimension.preferences) == {}
    assert [(c["text"], c["sightings"]) for c in waiting(root)] == [(SARDINES, 1)]


def test_the_run_summary_says_how_many_wait_and_which_were_promoted(tmp_path: Path) -> None:
    root = vault(tmp_path)
    short(root, ago(3), "I love grilled sardines. I live in Lisbon.", slug="a")
    short(root, ago(2), "Lunch by the sea. I love grilled sardines.", slug="b")
    out = ok(refresh(root)).stdout
    assert "Candidates (waiting for another sighting): 1 waiting, 1 new, 1 promoted" in out
    assert f"  promoted: {SARDINES}" in out


@freeze_time("2026-11-30")
def test_the_gate_is_a_pure_function_of_the_candidates_it_is_given() -> None:
    old = Candidate(dimension=Dimension.preferences, text=SARDINES,
                    sightings=[Sighting(text=SARDINES, source="a.md", date=ago(3), actor="openai (m)")])
    new = Evidence(dimension=Dimension.preferences, text=SARDINES, source="b.md", date=ago(1))
    gated = gate({}, [new], [old], dt.date.today(), 2, "offline", 90.0)
    assert [(e.source, e.date) for e in gated.evidence] == [("a.md", ago(3)), ("b.md", ago(1))]
    assert gated.actors == {("a.md", SARDINES): "openai (m)", ("b.md", SARDINES): "offline"}
    assert gated.waiting == 0 and [c.text for c in gated.promoted] == [SARDINES]
