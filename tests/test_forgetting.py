"""Tombstones (docs/spec.md §8 "Forget") and sources read again, in the rules: one behaviour per test.

Evidence matching a tombstone of its dimension by §3's matching is never applied; a source
already recorded as supporting an item is not a new sighting of it. Files are `preferences`
files with a 90-day window unless a test says otherwise; `today` is 2026-11-30.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable

import pytest
from engine_helpers import FROZEN_DAY, ago, ev, item_line, memory_text, section_of

from hylo_memory.decay import Dimension, Evidence, Item, MemoryFile, Tombstone, apply_rules, parse, plan_updates
from hylo_memory.decay.match import normalise
from hylo_memory.decay.rules import FileChanges
from hylo_memory.domain.dimensions import ACTIVE, FADING

LOVES = "Loves cold brew"
DISLIKES = "Dislikes cold brew now"
NOTE = "_shorts/note-1.md"
OTHER_NOTE = "_shorts/note-2.md"


@pytest.fixture
def today() -> dt.date:
    return dt.date.fromisoformat(FROZEN_DAY)


def stone(text: str, today: dt.date, dimension: Dimension = Dimension.preferences) -> Tombstone:
    return Tombstone(dimension=dimension, text=text, forgotten_on=ago(today, 3))


def run(text: str | MemoryFile, evidence: Iterable[Evidence], today: dt.date,
        forgotten: Iterable[Tombstone] = (), known: Collection[tuple[str, str]] = frozenset(),
        dimension: Dimension = Dimension.preferences) -> tuple[MemoryFile, FileChanges]:
    """The rules once, with tombstones and the (source, item) pairs already recorded."""
    memory = parse(text, dimension) if isinstance(text, str) else text
    return apply_rules(memory, list(evidence), today, forgotten=forgotten, known=known)


def empty(dimension: Dimension = Dimension.preferences) -> MemoryFile:
    return MemoryFile.new(dimension)


# Tombstones keep evidence out


@pytest.mark.parametrize("wording", [LOVES, "loves cold brew.", "LOVES COLD BREW!", "Lvoes cold brew"],
                         ids=["exact", "case and punctuation folded", "upper case folded", "a typo"])
def test_evidence_matching_a_tombstone_is_not_applied_and_is_listed_as_forgotten(today: dt.date, wording: str) -> None:
    after, changes = run(empty(), [ev(wording, date=ago(today, 1))], today, forgotten=[stone(LOVES, today)])
    assert after.items == []
    assert (changes.added, changes.applied, changes.forgotten) == ([], [], [wording])


def test_evidence_restating_a_forgotten_fact_through_matches_is_not_applied(today: dt.date) -> None:
    after, changes = run(empty(), [ev("Cold brew is the best", matches=LOVES)], today, forgotten=[stone(LOVES, today)])
    assert after.items == []
    assert changes.forgotten == ["Cold brew is the best"]


def test_evidence_matching_a_tombstone_does_not_refresh_an_item_written_again_by_hand(today: dt.date) -> None:
    text = memory_text(active=[item_line(LOVES, ago(today, 30), seen=2)])
    after, changes = run(text, [ev(LOVES, date=ago(today, 1))], today, forgotten=[stone(LOVES, today)])
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 30), seen=2))
    assert (changes.refreshed, changes.forgotten) == ([], [LOVES])


def test_a_tombstone_alone_changes_no_item(today: dt.date) -> None:
    text = memory_text(active=[item_line(LOVES, ago(today, 30), seen=2)], last_updated=ago(today, 30))
    after, changes = run(text, [], today, forgotten=[stone(LOVES, today)])
    assert after == parse(text, Dimension.preferences)
    assert (changes.deleted, changes.forgotten) == ([], [])


def test_only_the_evidence_a_tombstone_matches_is_kept_out(today: dt.date) -> None:
    evidence = [ev(LOVES, source=NOTE), ev("Vegetarian", source=NOTE), ev("loves cold brew!", source=OTHER_NOTE)]
    after, changes = run(empty(), evidence, today, forgotten=[stone(LOVES, today)])
    assert [i.text for i in after.items] == ["Vegetarian"]
    assert changes.forgotten == [LOVES, "loves cold brew!"]
    assert [a.wording for a in changes.applied] == ["Vegetarian"]


def test_a_tombstone_of_another_dimension_blocks_nothing(today: dt.date) -> None:
    after, changes = run(empty(), [ev(LOVES, date=ago(today, 1))], today,
                         forgotten=[stone(LOVES, today, dimension=Dimension.state)])
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 1), seen=1))
    assert changes.forgotten == []


def test_a_tombstone_does_not_block_a_near_duplicate_naming_another_place(today: dt.date) -> None:
    goals = Dimension.goals
    evidence = [ev("Wants to visit Australia", dimension=goals)]
    after, changes = run(empty(goals), evidence, today, forgotten=[stone("Wants to visit Austria", today, goals)],
                         dimension=goals)
    assert [i.text for i in after.items] == ["Wants to visit Australia"]
    assert changes.forgotten == []


def test_a_tombstone_does_not_block_a_near_duplicate_with_another_number(today: dt.date) -> None:
    identity = Dimension.identity
    after, changes = run(empty(identity), [ev("Is 43", dimension=identity)], today,
                         forgotten=[stone("Is 34", today, identity)], dimension=identity)
    assert [i.text for i in after.items] == ["Is 43"]
    assert changes.forgotten == []


def test_forgotten_superseding_evidence_fades_nothing(today: dt.date) -> None:
    text = memory_text(active=[item_line(LOVES, ago(today, 10), seen=4)])
    replacing = ev(DISLIKES, date=ago(today, 2)).model_copy(update={"supersedes": LOVES})
    after, changes = run(text, [replacing], today, forgotten=[stone(DISLIKES, today)])
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 10), seen=4))
    assert section_of(after, DISLIKES) is None
    assert (changes.superseded, changes.forgotten) == ([], [DISLIKES])


def test_forgotten_superseding_evidence_reports_no_conflict_with_a_pinned_item(today: dt.date) -> None:
    text = memory_text(active=[item_line(LOVES, ago(today, 10), seen=4, pinned=True)])
    replacing = ev(DISLIKES, date=ago(today, 2)).model_copy(update={"supersedes": LOVES})
    _, changes = run(text, [replacing], today, forgotten=[stone(DISLIKES, today)])
    assert changes.conflicts == []


def test_tombstones_reach_only_their_own_dimension_through_plan_updates(today: dt.date) -> None:
    evidence = [ev(LOVES, dimension=Dimension.preferences), ev(LOVES, dimension=Dimension.state)]
    updates = {u.dimension: u for u in plan_updates({}, evidence, today, forgotten=[stone(LOVES, today, Dimension.state)])}
    assert [i.text for i in updates[Dimension.preferences].after.items] == [LOVES]
    assert updates[Dimension.state].after.items == []
    assert updates[Dimension.state].changes.forgotten == [LOVES]
    assert updates[Dimension.preferences].changes.forgotten == []


# A source read again is not a new sighting


def test_a_source_already_recorded_for_an_item_adds_nothing_to_seen_and_does_not_move_last(today: dt.date) -> None:
    text = memory_text(active=[item_line(LOVES, ago(today, 30), seen=3)])
    after, changes = run(text, [ev(LOVES, source=NOTE, date=ago(today, 1))], today, known={(NOTE, normalise(LOVES))})
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 30), seen=3))
    assert (changes.refreshed, changes.applied) == ([], [])


def test_a_source_read_again_in_other_words_is_still_not_a_new_sighting(today: dt.date) -> None:
    text = memory_text(active=[item_line(LOVES, ago(today, 30), seen=3)])
    after, _ = run(text, [ev("loves cold brw!", source=NOTE, date=ago(today, 1))], today,
                   known={(NOTE, normalise(LOVES))})
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 30), seen=3))


def test_a_new_source_for_the_item_counts_while_the_one_read_again_does_not(today: dt.date) -> None:
    text = memory_text(active=[item_line(LOVES, ago(today, 30), seen=3)])
    evidence = [ev(LOVES, source=NOTE, date=ago(today, 1)), ev(LOVES, source=OTHER_NOTE, date=ago(today, 5))]
    after, changes = run(text, evidence, today, known={(NOTE, normalise(LOVES))})
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 5), seen=4))
    assert [a.source for a in changes.applied] == [OTHER_NOTE]


def test_a_source_recorded_for_another_item_is_a_new_sighting_of_this_one(today: dt.date) -> None:
    text = memory_text(active=[item_line(LOVES, ago(today, 30), seen=3)])
    after, _ = run(text, [ev(LOVES, source=NOTE, date=ago(today, 1))], today, known={(NOTE, normalise("Vegetarian"))})
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 1), seen=4))


def test_a_fading_item_whose_source_is_read_again_stays_fading(today: dt.date) -> None:
    text = memory_text(fading=[item_line(LOVES, ago(today, 120), seen=3)])
    after, _ = run(text, [ev(LOVES, source=NOTE, date=ago(today, 1))], today, known={(NOTE, normalise(LOVES))})
    assert section_of(after, LOVES) == (FADING, Item(text=LOVES, last=ago(today, 120), seen=3))


def test_a_known_source_still_adds_an_item_that_is_not_in_the_file(today: dt.date) -> None:
    after, changes = run(empty(), [ev(LOVES, source=NOTE, date=ago(today, 1))], today,
                         known={(NOTE, normalise(LOVES))})
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 1), seen=1))
    assert changes.added == [LOVES]


def test_known_pairs_reach_only_their_own_dimension_through_plan_updates(today: dt.date) -> None:
    line = item_line(LOVES, ago(today, 30), seen=3)
    files = {d: parse(memory_text(active=[line]), d) for d in (Dimension.preferences, Dimension.beliefs)}
    evidence = [ev(LOVES, source=NOTE, date=ago(today, 1), dimension=d) for d in files]
    updates = {u.dimension: u for u in plan_updates(files, evidence, today,
                                                      known={Dimension.preferences: {(NOTE, normalise(LOVES))}})}
    assert section_of(updates[Dimension.preferences].after, LOVES)[1].seen == 3
    assert section_of(updates[Dimension.beliefs].after, LOVES)[1].seen == 4


def test_a_source_read_again_that_supports_an_item_after_the_fact_replacing_it_keeps_it_active(today: dt.date) -> None:
    # Rule H does nothing when evidence in the same run dated on or after the replacing fact
    # supports the item, even when that evidence is no new sighting.
    text = memory_text(active=[item_line(LOVES, ago(today, 5), seen=3)])
    evidence = [ev(DISLIKES, source=NOTE, date=ago(today, 10)).model_copy(update={"supersedes": LOVES}),
                ev(LOVES, source=OTHER_NOTE, date=ago(today, 5))]
    after, changes = run(text, evidence, today, known={(OTHER_NOTE, normalise(LOVES))})
    assert section_of(after, LOVES) == (ACTIVE, Item(text=LOVES, last=ago(today, 5), seen=3))
    assert changes.superseded == []
