"""Rules A–G of docs/spec.md §3, one behaviour per test. `today` is the frozen clock's date (2026-11-30).

Files are `preferences` files with a 90-day window unless a test says otherwise, so
"one window" is 90 days and "two windows" 180.
"""

from __future__ import annotations

import datetime as dt

import pytest
from engine_helpers import FROZEN_DAY, ago, ev, item_line, memory_text, rerun, run, section_of

from hylo_memory.decay import Dimension, Item, MemoryFile, apply_rules, parse, plan_updates, render
from hylo_memory.domain.dimensions import ACTIVE, FADING

TERSE = "Prefers terse answers"


@pytest.fixture
def today() -> dt.date:
    """The run's date: the rules never read the clock, so none is frozen."""
    return dt.date.fromisoformat(FROZEN_DAY)


# A — evidence matches an Active item


def test_evidence_for_an_active_item_sets_last_to_the_source_date_and_adds_one_for_one_source(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30), seen=3)])
    after, changes = run(text, [ev(TERSE, date=ago(today, 2))], today)
    assert section_of(after, TERSE) == (ACTIVE, Item(text=TERSE, last=ago(today, 2), seen=4))
    assert changes.refreshed == [TERSE]


def test_two_evidence_lines_from_one_source_count_once(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30), seen=3)])
    evidence = [ev(TERSE, source="_shorts/a.md"), ev(TERSE.lower() + ".", source="_shorts/a.md")]
    after, _ = run(text, evidence, today)
    assert section_of(after, TERSE)[1].seen == 4


def test_each_distinct_source_adds_one_to_seen(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30), seen=3)])
    evidence = [ev(TERSE, source=f"_shorts/{name}.md") for name in ("a", "b", "c")]
    after, _ = run(text, evidence, today)
    assert section_of(after, TERSE)[1].seen == 6


def test_last_is_the_date_of_the_newest_source_supporting_the_item(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30))])
    evidence = [ev(TERSE, source="_shorts/a.md", date=ago(today, 3)), ev(TERSE, source="_shorts/b.md", date=ago(today, 10))]
    after, _ = run(text, evidence, today)
    assert section_of(after, TERSE)[1].last == ago(today, 3)


def test_last_never_moves_backwards_when_the_evidence_is_older_than_the_item(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 5), seen=2)])
    after, _ = run(text, [ev(TERSE, date=ago(today, 20))], today)
    assert section_of(after, TERSE) == (ACTIVE, Item(text=TERSE, last=ago(today, 5), seen=3))


def test_evidence_without_a_date_is_seen_today(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30))])
    after, _ = run(text, [ev(TERSE, date=None)], today)
    assert section_of(after, TERSE)[1].last == today


# B — evidence matches a Fading item


def test_evidence_for_a_fading_item_returns_it_to_active(today: dt.date) -> None:
    text = memory_text(fading=[item_line(TERSE, ago(today, 120), seen=2)])
    after, changes = run(text, [ev(TERSE, date=ago(today, 1))], today)
    assert section_of(after, TERSE) == (ACTIVE, Item(text=TERSE, last=ago(today, 1), seen=3))
    assert after.fading == []
    assert changes.refreshed == [TERSE]


def test_a_very_old_fading_item_with_new_evidence_returns_to_active_with_last_the_evidence_date(today: dt.date) -> None:
    text = memory_text(fading=[item_line(TERSE, ago(today, 3650), seen=2)])
    after, changes = run(text, [ev(TERSE, date=ago(today, 1))], today)
    assert section_of(after, TERSE) == (ACTIVE, Item(text=TERSE, last=ago(today, 1), seen=3))
    assert changes.deleted == []


# C — evidence matches no item


def test_evidence_matching_no_item_adds_an_active_item_dated_by_its_source_with_seen_1(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30))])
    after, changes = run(text, [ev("Vegetarian", date=ago(today, 4))], today)
    assert section_of(after, "Vegetarian") == (ACTIVE, Item(text="Vegetarian", last=ago(today, 4), seen=1))
    assert changes.added == ["Vegetarian"]


def test_a_new_fact_from_three_sources_starts_with_seen_3(today: dt.date) -> None:
    evidence = [ev("Vegetarian", source=f"_shorts/{name}.md") for name in ("a", "b", "c")]
    after, _ = run(MemoryFile.new(Dimension.preferences), evidence, today)
    assert section_of(after, "Vegetarian")[1].seen == 3


def test_a_new_item_is_written_after_the_last_active_item(today: dt.date) -> None:
    old = item_line(TERSE, ago(today, 30))
    faded = item_line("Enjoys modal jazz", ago(today, 100))
    text = memory_text(active=[old], fading=[faded], last_updated=ago(today, 30))
    after, _ = run(text, [ev("Vegetarian")], today)
    assert render(after) == memory_text(
        active=[old, item_line("Vegetarian", today)], fading=[faded], last_updated=today
    )


# D — an Active item older than the window fades


def test_an_active_item_exactly_one_window_old_stays_active(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 90), seen=2)])
    after, changes = run(text, [], today)
    assert section_of(after, TERSE) == (ACTIVE, Item(text=TERSE, last=ago(today, 90), seen=2))
    assert changes.faded == []


def test_an_active_item_one_day_past_its_window_moves_to_fading_with_last_and_seen_unchanged(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 91), seen=2)])
    after, changes = run(text, [], today)
    assert section_of(after, TERSE) == (FADING, Item(text=TERSE, last=ago(today, 91), seen=2))
    assert changes.faded == [TERSE]


def test_decay_uses_the_window_written_in_the_file(today: dt.date) -> None:
    text = memory_text(active=[item_line("Ten days old", ago(today, 10)), item_line("Eleven days old", ago(today, 11))],
                       window=10)
    after, _ = run(text, [], today)
    assert section_of(after, "Ten days old")[0] == ACTIVE
    assert section_of(after, "Eleven days old")[0] == FADING


def test_evidence_from_an_old_source_does_not_make_an_item_current(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 150), seen=2)])
    after, changes = run(text, [ev(TERSE, date=ago(today, 100))], today)
    assert section_of(after, TERSE) == (FADING, Item(text=TERSE, last=ago(today, 100), seen=3))
    assert changes.refreshed == [TERSE]
    assert changes.faded == [TERSE]


def test_a_new_fact_from_a_source_older_than_the_window_is_added_into_fading_and_not_faded(today: dt.date) -> None:
    after, changes = run(MemoryFile.new(Dimension.preferences), [ev("Vegetarian", date=ago(today, 100))], today)
    assert section_of(after, "Vegetarian") == (FADING, Item(text="Vegetarian", last=ago(today, 100), seen=1))
    assert (changes.added, changes.into_fading, changes.faded) == (["Vegetarian"], ["Vegetarian"], [])


def test_a_fading_item_seen_in_a_source_older_than_the_window_stays_in_fading_and_is_not_faded(today: dt.date) -> None:
    text = memory_text(fading=[item_line(TERSE, ago(today, 150), seen=2)])
    after, changes = run(text, [ev(TERSE, date=ago(today, 100))], today)
    assert section_of(after, TERSE) == (FADING, Item(text=TERSE, last=ago(today, 100), seen=3))
    assert (changes.refreshed, changes.into_fading, changes.faded) == ([TERSE], [TERSE], [])


# E — a Fading item older than two windows is deleted


def test_a_fading_item_exactly_two_windows_old_stays(today: dt.date) -> None:
    text = memory_text(fading=[item_line(TERSE, ago(today, 180))])
    after, changes = run(text, [], today)
    assert section_of(after, TERSE) == (FADING, Item(text=TERSE, last=ago(today, 180), seen=1))
    assert changes.deleted == []


def test_a_fading_item_one_day_past_two_windows_is_deleted_and_named(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarian", ago(today, 1))], fading=[item_line(TERSE, ago(today, 181))])
    after, changes = run(text, [], today)
    assert section_of(after, TERSE) is None
    assert changes.deleted == [TERSE]


def test_an_active_item_three_windows_old_fades_and_is_not_deleted_in_the_same_run(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 270))])
    after, changes = run(text, [], today)
    assert section_of(after, TERSE) == (FADING, Item(text=TERSE, last=ago(today, 270), seen=1))
    assert changes.faded == [TERSE]
    assert changes.deleted == []


def test_a_second_run_the_same_day_deletes_an_item_the_first_faded_at_three_windows_old(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarian", ago(today, 1)), item_line(TERSE, ago(today, 270))])
    first, _ = run(text, [], today)
    second, changes = rerun(first, today)
    assert section_of(second, TERSE) is None
    assert changes.deleted == [TERSE]


def test_an_item_merged_from_active_and_fading_duplicates_fades_but_is_not_deleted(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 270))], fading=[item_line(TERSE + ".", ago(today, 271))])
    after, changes = run(text, [], today)
    assert [(i.text.rstrip("."), i.seen) for i in after.fading] == [(TERSE, 2)]
    assert changes.deleted == []


# G — pinned items


def test_a_pinned_active_item_ten_years_old_never_fades(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarian", ago(today, 3650), pinned=True)])
    after, changes = run(text, [], today)
    assert section_of(after, "Vegetarian") == (ACTIVE, Item(text="Vegetarian", last=ago(today, 3650), seen=1, pinned=True))
    assert changes.faded == []


def test_a_pinned_fading_item_ten_years_old_is_never_deleted(today: dt.date) -> None:
    text = memory_text(fading=[item_line("Vegetarian", ago(today, 3650), pinned=True)])
    after, changes = run(text, [], today)
    assert section_of(after, "Vegetarian") == (FADING, Item(text="Vegetarian", last=ago(today, 3650), seen=1, pinned=True))
    assert changes.deleted == []


def test_a_pinned_item_keeps_pinned_when_updated_by_unpinned_evidence(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarian", ago(today, 3650), seen=2, pinned=True)])
    after, _ = run(text, [ev("Vegetarian", pinned=False)], today)
    assert section_of(after, "Vegetarian") == (ACTIVE, Item(text="Vegetarian", last=today, seen=3, pinned=True))


def test_pinned_evidence_pins_the_item_it_updates(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarian", ago(today, 30))])
    after, _ = run(text, [ev("Vegetarian", pinned=True)], today)
    assert section_of(after, "Vegetarian")[1].pinned


def test_pinned_evidence_for_a_new_fact_adds_a_pinned_item(today: dt.date) -> None:
    after, _ = run(MemoryFile.new(Dimension.preferences), [ev("Vegetarian", pinned=True)], today)
    assert section_of(after, "Vegetarian") == (ACTIVE, Item(text="Vegetarian", last=today, seen=1, pinned=True))


# Matching: which item a piece of evidence is about


def test_evidence_restating_an_item_through_matches_updates_that_item_in_its_own_words(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30), seen=3)])
    after, changes = run(text, [ev("Likes replies kept short", matches=TERSE)], today)
    assert [i.text for i in after.items] == [TERSE]
    assert section_of(after, TERSE)[1].seen == 4
    assert changes.added == []


def test_matching_folds_case_white_space_and_trailing_punctuation(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30), seen=3)])
    after, changes = run(text, [ev("  prefers   TERSE answers!! ")], today)
    assert [i.text for i in after.items] == [TERSE]
    assert changes.refreshed == [TERSE]


def test_a_near_duplicate_at_exactly_the_threshold_matches(today: dt.date) -> None:
    # fuzz.ratio("vegetarian", "vegetarain") is exactly 90.0
    text = memory_text(active=[item_line("Vegetarian", ago(today, 30))])
    after, changes = run(text, [ev("Vegetarain")], today)
    assert [i.text for i in after.items] == ["Vegetarian"]
    assert changes.refreshed == ["Vegetarian"]


def test_a_text_just_below_the_threshold_is_a_new_fact(today: dt.date) -> None:
    # fuzz.ratio of the two is 89.47
    text = memory_text(active=[item_line("Walks the dog daily", ago(today, 30))])
    after, changes = run(text, [ev("Walks his dog daily")], today)
    assert [i.text for i in after.items] == ["Walks the dog daily", "Walks his dog daily"]
    assert changes.added == ["Walks his dog daily"]


def test_the_plural_of_a_one_word_item_is_the_same_fact(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarian", ago(today, 30))])
    after, _ = run(text, [ev("Vegetarians")], today)
    assert [(i.text, i.seen) for i in after.items] == [("Vegetarian", 2)]


def test_a_near_duplicate_with_every_word_respelled_is_the_same_fact(today: dt.date) -> None:
    text = memory_text(active=[item_line("Favourite colour", ago(today, 30))])
    after, _ = run(text, [ev("favorite color")], today)
    assert [(i.text, i.seen) for i in after.items] == [("Favourite colour", 2)]


def test_a_threshold_above_the_similarity_keeps_the_texts_apart(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarian", ago(today, 30))])
    after, _ = run(text, [ev("Vegetarain")], today, threshold=90.5)
    assert [i.text for i in after.items] == ["Vegetarian", "Vegetarain"]


def test_a_threshold_below_the_similarity_makes_a_typo_one_fact(today: dt.date) -> None:
    text = memory_text(active=[item_line("Is vegetarian", ago(today, 30))])
    after, _ = run(text, [ev("Is vegetarain")], today, threshold=92)
    assert [(i.text, i.seen) for i in after.items] == [("Is vegetarian", 2)]


def test_no_threshold_makes_a_different_word_one_fact(today: dt.date) -> None:
    text = memory_text(active=[item_line("Walks the dog daily", ago(today, 30))])
    after, _ = run(text, [ev("Walks his dog daily")], today, threshold=50)
    assert [(i.text, i.seen) for i in after.items] == [("Walks the dog daily", 1), ("Walks his dog daily", 1)]


def test_evidence_only_matches_items_of_its_own_dimension(today: dt.date) -> None:
    files = {Dimension.preferences: parse(memory_text(active=[item_line("Vegetarian", ago(today, 30))]),
                                          Dimension.preferences)}
    updates = {u.dimension: u for u in plan_updates(files, [ev("Vegetarian", dimension=Dimension.identity)], today)}
    assert updates[Dimension.preferences].write is False
    assert [i.text for i in updates[Dimension.identity].after.items] == ["Vegetarian"]


# Expired evidence


def test_evidence_older_than_two_windows_is_not_applied_and_is_counted_expired(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30), seen=3)], last_updated=ago(today, 30))
    before = parse(text, Dimension.preferences)
    after, changes = run(text, [ev(TERSE, date=ago(today, 181)), ev("Vegetarian", date=ago(today, 400))], today)
    assert after == before
    assert changes.expired == 2
    assert changes.added == changes.refreshed == []


def test_each_expired_piece_of_evidence_is_named_with_its_date_and_the_date_evidence_is_kept_from(
        today: dt.date) -> None:
    _, changes = run(MemoryFile.new(Dimension.preferences),
                     [ev("Vegetarian", source="_shorts/old.md", date=ago(today, 181))], today)
    assert [e.model_dump() for e in changes.expired_entries] == [
        {"text": "Vegetarian", "source": "_shorts/old.md", "date": ago(today, 181), "kept_from": ago(today, 180)},
    ]


def test_evidence_exactly_two_windows_old_is_applied(today: dt.date) -> None:
    after, changes = run(MemoryFile.new(Dimension.preferences), [ev("Vegetarian", date=ago(today, 180))], today)
    assert section_of(after, "Vegetarian") == (FADING, Item(text="Vegetarian", last=ago(today, 180), seen=1))
    assert changes.expired == 0


# F — the same fact in different wording becomes one item


def test_two_items_with_the_same_fact_become_one_with_seen_summed_and_the_later_last(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30), seen=3), item_line("prefers terse answers.", ago(today, 5), seen=2)])
    after, changes = run(text, [], today)
    [merged] = after.items
    assert merged.text == TERSE  # the more seen wording is the clearer
    assert (merged.last, merged.seen) == (ago(today, 5), 5)
    assert [(m.kept, m.dropped) for m in changes.merged] == [(TERSE, "prefers terse answers.")]


def test_two_near_duplicate_items_merge(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarian", ago(today, 30), seen=3), item_line("Vegetarians", ago(today, 5), seen=2)])
    after, _ = run(text, [], today)
    assert [(i.last, i.seen) for i in after.items] == [(ago(today, 5), 5)]


def test_a_merged_item_is_pinned_if_either_was(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarian", ago(today, 30), seen=3), item_line("Vegetarians", ago(today, 5), pinned=True)])
    after, _ = run(text, [], today)
    assert [(i.seen, i.pinned) for i in after.items] == [(4, True)]


def test_a_merged_item_is_active_if_either_was(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarians", ago(today, 5))], fading=[item_line("Vegetarian", ago(today, 120), seen=4)])
    after, _ = run(text, [], today)
    assert [(i.last, i.seen) for i in after.active] == [(ago(today, 5), 5)]
    assert after.fading == []


def test_two_pieces_of_evidence_in_different_words_add_one_item(today: dt.date) -> None:
    evidence = [ev("Vegetarian", source="_shorts/a.md", date=ago(today, 3)),
                ev("Vegetarians", source="_shorts/b.md", date=ago(today, 1))]
    after, changes = run(MemoryFile.new(Dimension.preferences), evidence, today)
    assert [(i.last, i.seen) for i in after.items] == [(ago(today, 1), 2)]
    assert len(changes.added) == 1


# last_updated and the engine over all six files


def test_last_updated_is_kept_when_nothing_changes(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30))], fading=[item_line("Vegetarian", ago(today, 100))],
                       last_updated=ago(today, 30))
    after, _ = run(text, [], today)
    assert render(after) == text


def test_last_updated_becomes_today_when_the_content_changes(today: dt.date) -> None:
    text = memory_text(active=[item_line(TERSE, ago(today, 30))], last_updated=ago(today, 30))
    after, _ = run(text, [ev(TERSE)], today)
    assert after.last_updated == today


def test_decay_runs_on_a_file_without_evidence(today: dt.date) -> None:
    goals = parse(memory_text(active=[item_line("Ship the beta", ago(today, 31))], window=30), Dimension.goals)
    updates = {u.dimension: u for u in plan_updates({Dimension.goals: goals}, [], today)}
    assert updates[Dimension.goals].write
    assert [i.text for i in updates[Dimension.goals].after.fading] == ["Ship the beta"]


def test_a_file_that_would_have_no_items_is_not_created(today: dt.date) -> None:
    updates = plan_updates({d: None for d in Dimension}, [], today)
    assert [u.dimension for u in updates if u.write] == []


def test_new_files_start_with_the_default_decay_windows(today: dt.date) -> None:
    spec_windows = {"identity": 365, "preferences": 90, "goals": 30, "beliefs": 90, "people": 90, "state": 7}
    evidence = [ev(f"A fact about {d.value}", dimension=d) for d in Dimension]
    updates = plan_updates({d: None for d in Dimension}, evidence, today)
    assert {u.dimension.value: u.after.decay_window for u in updates if u.write} == spec_windows
    assert all(render(u.after).startswith(f"---\ndecay_window: {spec_windows[u.dimension.value]}d\n") for u in updates)


def test_a_merge_keeps_the_pinned_wording_over_the_more_seen(today: dt.date) -> None:
    text = memory_text(active=[item_line("Vegetarian", ago(today, 30), seen=7), item_line("vegetarian!", ago(today, 5), pinned=True)])
    after, _ = run(text, [], today)
    assert [i.text for i in after.items] == ["vegetarian!"]


def test_a_new_fact_keeps_the_first_wording_it_was_seen_in(today: dt.date) -> None:
    after, _ = run(memory_text(), [ev("Vegetarian", source="a.md"), ev("Vegetarians", source="b.md"),
                                   ev("vegetarian!!", source="c.md")], today)
    assert [(i.text, i.seen) for i in after.items] == [("Vegetarian", 3)]


def test_evidence_keeps_an_existing_items_wording(today: dt.date) -> None:
    text = memory_text(active=[item_line("Likes jazz", ago(today, 3))])
    after, _ = run(text, [ev("Likes jazz a great deal!", matches="Likes jazz")], today)
    assert [(i.text, i.seen) for i in after.items] == [("Likes jazz", 2)]


def test_without_decay_an_old_item_is_left_where_it_is(today: dt.date) -> None:
    text = memory_text(active=[item_line("Old project", ago(today, 400))], fading=[item_line("Older", ago(today, 900))])
    after, changes = apply_rules(parse(text, Dimension.goals), [ev("New fact", dimension=Dimension.goals)], today,
                                 decay=False)
    assert section_of(after, "Old project")[0] == ACTIVE and section_of(after, "Older")[0] == FADING
    assert (changes.faded, changes.deleted) == ([], [])
