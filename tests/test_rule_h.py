"""Rule H of docs/spec.md §3, one behaviour per test: a newer fact that replaces an item fades it at once.

Files are `preferences` files with a 90-day window unless a test says otherwise, so
"one window" is 90 days and "two windows" 180. `today` is 2026-11-30; the rules never read
the clock, so none is frozen.
"""

from __future__ import annotations

import datetime as dt

import pytest
from engine_helpers import FROZEN_DAY, ago, ev, item_line, memory_text, rerun, run, section_of

from hylo_memory.decay import Dimension, Evidence, Item, MemoryFile, parse, plan_updates
from hylo_memory.decay.rules import Applied, Conflict, Supersession
from hylo_memory.domain.dimensions import ACTIVE, FADING

LOVES = "Loves cold brew"
DISLIKES = "Dislikes cold brew now"
FLAT_WHITES = "Prefers flat whites"  # no opposite of LOVES: it replaces nothing unless it says so
NOTE = "_shorts/note-1.md"
LATER_NOTE = "_shorts/note-2.md"


@pytest.fixture
def today() -> dt.date:
    return dt.date.fromisoformat(FROZEN_DAY)


def replacing(old: str, text: str = DISLIKES, source: str = NOTE, date: dt.date | None = None,
              matches: str | None = None, pinned: bool = False) -> Evidence:
    """Evidence for `text` that supersedes the item `old` names (rule H)."""
    return ev(text, source=source, date=date, matches=matches, pinned=pinned).model_copy(update={"supersedes": old})


def loves(today: dt.date, days: int = 10, seen: int = 4, pinned: bool = False, fading: bool = False) -> str:
    """A file holding LOVES, `days` old, seen `seen` times, Active unless `fading`."""
    line = item_line(LOVES, ago(today, days), seen=seen, pinned=pinned)
    return memory_text(fading=[line]) if fading else memory_text(active=[line])


# The superseded item


def test_a_superseded_active_item_moves_to_fading_at_once_with_last_and_seen_unchanged(today: dt.date) -> None:
    after, changes = run(loves(today), [replacing(LOVES, date=ago(today, 2))], today)
    assert section_of(after, LOVES) == (FADING, Item(text=LOVES, last=ago(today, 10), seen=4))
    assert changes.faded == [] and changes.deleted == []


def test_the_summary_names_the_superseded_item_with_what_replaced_it(today: dt.date) -> None:
    _, changes = run(loves(today), [replacing(LOVES, date=ago(today, 2))], today)
    assert changes.superseded == [Supersession(text=LOVES, by=DISLIKES)]
    assert changes.conflicts == []


def test_the_replacing_fact_is_added_as_usual(today: dt.date) -> None:
    after, changes = run(loves(today), [replacing(LOVES, date=ago(today, 2))], today)
    assert section_of(after, DISLIKES) == (ACTIVE, Item(text=DISLIKES, last=ago(today, 2), seen=1))
    assert changes.added == [DISLIKES]


def test_a_replacing_fact_that_restates_an_item_updates_it_and_the_summary_names_that_item(today: dt.date) -> None:
    text = memory_text(active=[item_line(LOVES, ago(today, 10), seen=4), item_line(DISLIKES, ago(today, 40), seen=2)])
    after, changes = run(text, [replacing(LOVES, text="dislikes cold brew now!", date=ago(today, 2))], today)
    assert section_of(after, DISLIKES) == (ACTIVE, Item(text=DISLIKES, last=ago(today, 2), seen=3))
    assert section_of(after, LOVES)[0] == FADING
    assert changes.superseded == [Supersession(text=LOVES, by=DISLIKES)]


def test_a_near_duplicate_of_the_superseded_items_text_still_finds_it(today: dt.date) -> None:
    after, changes = run(loves(today), [replacing("loves cold brw.", date=ago(today, 2))], today)
    assert section_of(after, LOVES) == (FADING, Item(text=LOVES, last=ago(today, 10), seen=4))
    assert changes.superseded == [Supersession(text=LOVES, by=DISLIKES)]


def test_an_active_item_older_than_its_window_is_named_as_superseded(today: dt.date) -> None:
    after, changes = run(loves(today, days=120), [replacing(LOVES, date=ago(today, 2))], today)
    assert section_of(after, LOVES) == (FADING, Item(text=LOVES, last=ago(today, 120), seen=4))
    assert changes.superseded == [Supersession(text=LOVES, by=DISLIKES)]


# Pinned: never moved, the conflict reported


def test_a_pinned_item_is_never_moved_by_a_replacing_fact(today: dt.date) -> None:
    after, changes = run(loves(today, pinned=True), [replacing(LOVES, date=ago(today, 2))], today)
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 10), seen=4, pinned=True))
    assert changes.superseded == []


def test_a_replacing_fact_for_a_pinned_item_is_reported_as_a_conflict_with_its_source(today: dt.date) -> None:
    after, changes = run(loves(today, pinned=True), [replacing(LOVES, source=LATER_NOTE, date=ago(today, 2))], today)
    assert changes.conflicts == [Conflict(pinned=LOVES, evidence=DISLIKES, source=LATER_NOTE)]
    assert section_of(after, DISLIKES) == (ACTIVE, Item(text=DISLIKES, last=ago(today, 2), seen=1))


def test_a_pinned_item_seen_again_after_the_replacing_fact_is_no_conflict(today: dt.date) -> None:
    evidence = [replacing(LOVES, date=ago(today, 5)), ev(LOVES, source=LATER_NOTE, date=ago(today, 1))]
    _, changes = run(loves(today, pinned=True), evidence, today)
    # The pinned item is the newer fact: it is the replacing one that fades, its opposite (docs/spec.md §3).
    assert changes.conflicts == [] and changes.superseded == [Supersession(text=DISLIKES, by=LOVES)]


# When H does nothing


def test_expired_replacing_evidence_supersedes_nothing(today: dt.date) -> None:
    after, changes = run(loves(today), [replacing(LOVES, date=ago(today, 181))], today)
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 10), seen=4))
    assert section_of(after, DISLIKES) is None
    assert (changes.superseded, changes.expired) == ([], 1)


def test_evidence_that_restates_the_very_item_it_would_supersede_supersedes_nothing(today: dt.date) -> None:
    after, changes = run(loves(today), [replacing(LOVES, text="loves cold brew!", date=ago(today, 2))], today)
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 2), seen=5))
    assert changes.superseded == [] and changes.refreshed == [LOVES]


def test_evidence_that_matches_the_very_item_it_would_supersede_through_matches_supersedes_nothing(
        today: dt.date) -> None:
    evidence = [replacing(LOVES, text="Cold brew is the best", matches=LOVES, date=ago(today, 2))]
    after, changes = run(loves(today), evidence, today)
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 2), seen=5))
    assert changes.superseded == []


def test_a_pinned_item_the_evidence_restates_is_no_conflict(today: dt.date) -> None:
    _, changes = run(loves(today, pinned=True), [replacing(LOVES, text="Loves cold brew.", date=ago(today, 2))], today)
    assert changes.conflicts == []


@pytest.mark.parametrize("days", [5, 3], ids=["the same day", "a later day"])
def test_an_item_seen_in_the_same_run_on_or_after_the_replacing_fact_stays_active(today: dt.date, days: int) -> None:
    evidence = [replacing(LOVES, date=ago(today, 5)), ev(LOVES, source=LATER_NOTE, date=ago(today, days))]
    after, changes = run(loves(today), evidence, today)
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, days), seen=5))
    # Seen later than its opposite, it is the newer fact and replaces it; seen the same day, neither replaces.
    assert changes.superseded == ([Supersession(text=DISLIKES, by=LOVES)] if days < 5 else [])


def test_an_item_seen_in_the_same_run_by_undated_evidence_stays_active(today: dt.date) -> None:
    evidence = [replacing(LOVES, date=ago(today, 5)), ev(LOVES, source="remember", date=None)]
    after, changes = run(loves(today), evidence, today)
    assert section_of(after, LOVES)[0] == ACTIVE and changes.superseded == [Supersession(text=DISLIKES, by=LOVES)]


def test_an_item_seen_in_the_same_run_only_before_the_replacing_fact_still_fades(today: dt.date) -> None:
    evidence = [ev(LOVES, source=LATER_NOTE, date=ago(today, 8)), replacing(LOVES, date=ago(today, 5))]
    after, changes = run(loves(today), evidence, today)
    # A applies the earlier sighting as usual; H then fades the item as it stands.
    assert section_of(after, LOVES) == (FADING, Item(text=LOVES, last=ago(today, 8), seen=5))
    assert changes.superseded == [Supersession(text=LOVES, by=DISLIKES)]


def test_an_item_already_fading_stays_fading_and_is_not_named(today: dt.date) -> None:
    after, changes = run(loves(today, days=100, fading=True), [replacing(LOVES, date=ago(today, 2))], today)
    assert section_of(after, LOVES) == (FADING, Item(text=LOVES, last=ago(today, 100), seen=4))
    assert changes.superseded == [] and changes.conflicts == []


def test_supersedes_naming_no_existing_item_changes_nothing_but_the_new_fact(today: dt.date) -> None:
    after, changes = run(loves(today), [replacing("Enjoys modal jazz", text=FLAT_WHITES, date=ago(today, 2))], today)
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 10), seen=4))
    assert (changes.superseded, changes.conflicts, changes.added) == ([], [], [FLAT_WHITES])


# Afterwards: only E deletes it, B brings it back


def test_a_superseded_item_is_not_deleted_in_the_same_run_however_old(today: dt.date) -> None:
    after, changes = run(loves(today, days=400), [replacing(LOVES, date=ago(today, 2))], today)
    assert section_of(after, LOVES) == (FADING, Item(text=LOVES, last=ago(today, 400), seen=4))
    assert changes.deleted == []


def test_a_very_old_superseded_item_is_deleted_by_e_in_the_next_run(today: dt.date) -> None:
    first, _ = run(loves(today, days=400), [replacing(LOVES, date=ago(today, 2))], today)
    second, changes = rerun(first, today)
    assert section_of(second, LOVES) is None
    assert changes.deleted == [LOVES]


def test_a_superseded_item_stays_in_fading_until_it_is_more_than_two_windows_old(today: dt.date) -> None:
    first, _ = run(loves(today, days=10), [replacing(LOVES, date=ago(today, 2))], today)
    at_two_windows, kept = rerun(first, today + dt.timedelta(days=170))
    assert section_of(at_two_windows, LOVES) == (FADING, Item(text=LOVES, last=ago(today, 10), seen=4))
    assert kept.deleted == []
    past_two_windows, gone = rerun(at_two_windows, today + dt.timedelta(days=171))
    assert section_of(past_two_windows, LOVES) is None
    assert gone.deleted == [LOVES]


def test_a_superseded_item_seen_again_in_a_later_run_returns_to_active(today: dt.date) -> None:
    first, _ = run(loves(today), [replacing(LOVES, date=ago(today, 2))], today)
    tomorrow = today + dt.timedelta(days=1)
    second, changes = rerun(first, tomorrow, (ev(LOVES, source=LATER_NOTE, date=tomorrow),))
    assert section_of(second, LOVES) == (ACTIVE, Item(text=LOVES, last=tomorrow, seen=5))
    # Seen again, it is the newer fact: its opposite is the one that fades now.
    assert changes.refreshed == [LOVES] and changes.superseded == [Supersession(text=DISLIKES, by=LOVES)]


# Through the engine, and provenance


def test_h_applies_through_plan_updates(today: dt.date) -> None:
    files = {Dimension.preferences: parse(loves(today), Dimension.preferences)}
    updates = {u.dimension: u for u in plan_updates(files, [replacing(LOVES, date=ago(today, 2))], today)}
    preferences = updates[Dimension.preferences]
    assert preferences.write
    assert section_of(preferences.after, LOVES) == (FADING, Item(text=LOVES, last=ago(today, 10), seen=4))
    assert preferences.changes.superseded == [Supersession(text=LOVES, by=DISLIKES)]


def test_supersedes_reaches_only_items_of_the_evidences_own_dimension(today: dt.date) -> None:
    files = {Dimension.preferences: parse(loves(today), Dimension.preferences)}
    evidence = [Evidence(dimension=Dimension.state, text=DISLIKES, source=NOTE, date=ago(today, 2), supersedes=LOVES)]
    updates = {u.dimension: u for u in plan_updates(files, evidence, today)}
    assert section_of(updates[Dimension.preferences].after, LOVES)[0] == ACTIVE
    assert all(u.changes.superseded == [] for u in updates.values())


def test_applied_records_the_replacing_evidence_and_not_the_superseded_item(today: dt.date) -> None:
    _, changes = run(loves(today), [replacing(LOVES, date=ago(today, 2))], today)
    assert changes.applied == [Applied(item=DISLIKES, wording=DISLIKES, source=NOTE, date=ago(today, 2), kind="added")]


def test_applied_records_evidence_on_a_merged_item_under_the_text_the_merge_kept(today: dt.date) -> None:
    # F merges the two items into the more seen wording; the evidence matched the wording dropped.
    text = memory_text(active=[item_line("Prefers terse answer", ago(today, 30)),
                               item_line("Prefers terse answers", ago(today, 20), seen=3)])
    after, changes = run(text, [ev("Prefers terse answer", date=ago(today, 2))], today)
    assert [(i.text, i.seen) for i in after.items] == [("Prefers terse answers", 5)]
    assert changes.applied == [Applied(item="Prefers terse answers", wording="Prefers terse answer", source=NOTE,
                                       date=ago(today, 2), kind="refreshed")]


def test_applied_records_every_piece_of_evidence_on_a_new_item_under_its_first_wording(today: dt.date) -> None:
    evidence = [ev("Vegetarian", source="a.md", date=ago(today, 3)), ev("Vegetarians", source="b.md", date=ago(today, 1))]
    _, changes = run(MemoryFile.new(Dimension.preferences), evidence, today)
    assert [(a.item, a.wording, a.source, a.kind) for a in changes.applied] == [
        ("Vegetarian", "Vegetarian", "a.md", "added"), ("Vegetarian", "Vegetarians", "b.md", "added")]


def test_an_older_note_read_late_does_not_supersede_an_item_seen_after_it(today: dt.date) -> None:
    # "A newer fact": a note from before the item's last sighting (a re-read, a new scan path) replaces nothing.
    after, changes = run(loves(today, days=10), [replacing(LOVES, date=ago(today, 30))], today)
    assert section_of(after, LOVES)[0] == ACTIVE and changes.superseded == []


def test_a_fact_dated_the_day_the_item_was_last_seen_still_supersedes_it(today: dt.date) -> None:
    after, _ = run(loves(today, days=10), [replacing(LOVES, date=ago(today, 10))], today)
    assert section_of(after, LOVES)[0] == FADING
