"""Odd items (issue 9, points 12 and 13): text after the metadata span, dates far in the past,
control characters, and one length cap for every item, whichever path brings it."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from engine_helpers import FROZEN_DAY, ago, ev, item_line, memory_text, rerun, run, section_of
from pydantic import ValidationError

from hylo_memory.decay import Dimension, Evidence, parse, render
from hylo_memory.domain.dimensions import ACTIVE, FADING
from hylo_memory.domain.items import MAX_ITEM_TEXT
from hylo_memory.domain.sources import Source, SourceKind
from hylo_memory.errors import InputError
from hylo_memory.extractors.base import AuthorProfile, Cluster
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.operations.reading.evidence_file import read_evidence

TODAY = dt.date.fromisoformat(FROZEN_DAY)  # the rules never read the clock
FRESH = ago(TODAY, 10)
NOTED = f"- Vegetarian `last:{FRESH} seen:3` (since college)"


# 12. Text after the metadata span


def test_an_item_with_text_after_its_span_keeps_its_date_and_count() -> None:
    after, changes = run(memory_text(active=[NOTED]), [], TODAY)
    assert changes.adopted == [] and changes.added == []
    assert section_of(after, "Vegetarian")[1].model_dump(include={"last", "seen", "note"}) == {
        "last": FRESH, "seen": 3, "note": " (since college)"}


def test_text_after_the_span_is_kept_byte_for_byte_while_the_item_is_unchanged() -> None:
    text = memory_text(active=[NOTED])
    assert render(parse(text, Dimension.preferences)) == text


def test_text_after_the_span_stays_attached_when_the_item_is_refreshed() -> None:
    after, _ = run(memory_text(active=[NOTED]), [ev("Vegetarian")], TODAY)
    assert f"\n- Vegetarian `last:{TODAY} seen:4` (since college)\n" in render(after)


def test_an_item_with_text_after_its_span_is_read_the_same_on_the_next_run() -> None:
    first, _ = run(memory_text(active=[NOTED]), [ev("Vegetarian")], TODAY)
    second, changes = rerun(first, TODAY)
    assert render(second) == render(first) and changes.adopted == []


def test_a_backtick_span_that_is_not_metadata_after_the_span_stays_in_the_note() -> None:
    line = f"- Uses vim `last:{FRESH} seen:2` with `nvim` keys"
    item = parse(memory_text(active=[line]), Dimension.preferences).active[0]
    assert (item.text, item.last, item.note) == ("Uses vim", FRESH, " with `nvim` keys")


# 12. No sentinel dates


def test_an_item_dated_0001_01_01_keeps_that_date() -> None:
    old = dt.date(1, 1, 1)
    after, changes = run(memory_text(active=[item_line("Vegetarian", old)]), [], TODAY)
    assert changes.adopted == []
    assert section_of(after, "Vegetarian") == (FADING, section_of(after, "Vegetarian")[1])
    assert section_of(after, "Vegetarian")[1].last == old


def test_a_bullet_without_metadata_has_no_date_until_it_is_adopted() -> None:
    memory = parse(memory_text(active=["- Likes green tea"]), Dimension.preferences)
    assert memory.active[0].last is None
    after, changes = run(memory, [], TODAY)
    assert changes.adopted == ["Likes green tea"] and section_of(after, "Likes green tea")[1].last == TODAY


# 13. Control characters: stripped from every item


def test_ansi_escape_codes_are_stripped_from_evidence_text() -> None:
    assert ev("\x1b[31mLikes\x1b[0m green \x1b[1;4mtea\x1b[m").text == "Likes green tea"


def test_tabs_and_newlines_in_evidence_text_become_spaces() -> None:
    assert ev("Likes\tgreen\r\ntea\n").text == "Likes green tea"


def test_other_control_characters_are_removed_from_evidence_text() -> None:
    assert ev("Likes\x00 green\x07 tea\x7f\x85\x9b2J").text == "Likes green tea"


def test_evidence_of_control_characters_only_is_refused_as_blank() -> None:
    with pytest.raises(ValidationError, match="must not be blank"):
        ev("\x1b[31m\x00\x1b[0m")


def test_an_adopted_bullet_has_control_characters_stripped() -> None:
    after, changes = run(memory_text(active=["- Likes \x1b[32mgreen\x1b[0m\ttea"]), [], TODAY)
    assert changes.adopted == ["Likes green tea"]
    assert f"\n{item_line('Likes green tea', TODAY)}\n" in render(after)


# 13. One length cap for every item


def test_evidence_of_exactly_the_cap_is_accepted() -> None:
    assert len(ev("x" * MAX_ITEM_TEXT).text) == MAX_ITEM_TEXT


def test_evidence_longer_than_the_cap_is_refused_saying_the_cap_and_its_length() -> None:
    with pytest.raises(ValidationError) as refused:
        ev("x" * 200_000)
    error = refused.value.errors()[0]
    assert error["loc"] == ("text",)
    assert error["msg"] == f"an item is one line of at most {MAX_ITEM_TEXT} characters; this one has 200000"


def test_apply_refuses_an_over_long_evidence_line_naming_its_line_number(tmp_path: Path) -> None:
    path = tmp_path / "evidence.jsonl"
    lines = [{"dimension": "preferences", "text": "Likes tea", "source": "a"},
             {"dimension": "preferences", "text": "x" * 200_000, "source": "a"}]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as refused:
        read_evidence(path)
    assert str(refused.value) == (f"{path}:2: text: an item is one line of at most {MAX_ITEM_TEXT} characters; "
                                  "this one has 200000")


def test_a_hand_written_bullet_longer_than_the_cap_is_kept_as_the_persons_line() -> None:
    long = "- " + "word " * 100
    text = memory_text(active=[item_line("Vegetarian", FRESH), long.rstrip()])
    after, changes = run(text, [ev("Vegetarian")], TODAY)
    assert changes.adopted == [] and [i.text for i in after.items] == ["Vegetarian"]
    assert f"\n{long.rstrip()}\n" in render(after)


def test_an_existing_item_longer_than_the_cap_keeps_its_text() -> None:
    # Written before the cap: the person's item is kept, not cut.
    long = "word " * 100
    after, _ = run(memory_text(active=[item_line(long.strip(), FRESH)]), [], TODAY)
    assert section_of(after, long.strip())[0] == ACTIVE


# 13. The offline extractor never builds evidence the validator refuses


def note(text: str) -> Source:
    return Source(path="_shorts/a.md", kind=SourceKind.short, date=FRESH, text=text, content_hash="h")


@pytest.mark.parametrize("sentence", [
    "I love " + "very " * 200 + "jazz.",
    "My name is " + "A" * 400 + ".",
    "I speak " + ", ".join(["Xlang"] * 100) + ".",
    "I work as a cook at " + "Big " * 100 + "Corp.",
    "I live in " + " ".join(["Lisbon"] * 100) + ".",
    "My sister " + "Ana" * 200 + " is here.",
    "I use " + "Vim" * 300 + ".",
], ids=["love", "name", "speak", "work", "live", "sister", "use"])
def test_the_offline_extractor_skips_a_very_long_first_person_statement(sentence: str) -> None:
    extraction = OfflineExtractor().extract([note(sentence)], AuthorProfile(), [])
    assert all(len(e.text) <= MAX_ITEM_TEXT for e in extraction.evidence)


def test_the_offline_extractor_reads_a_statement_through_escape_codes() -> None:
    extraction = OfflineExtractor().extract([note("I live in \x1b[1mLisbon\x1b[0m.")], AuthorProfile(), [])
    assert [(e.dimension, e.text) for e in extraction.evidence] == [(Dimension.identity, "Lives in Lisbon")]


def test_a_trait_from_very_long_tags_is_cut_to_one_item() -> None:
    cluster = Cluster(tags=["a" * 400, "databases"], titles=["x", "y"], sources=["_k/a.md", "_k/b.md"], date=FRESH)
    extraction = OfflineExtractor().synthesise([cluster], AuthorProfile())
    assert extraction.evidence and all(len(e.text) <= MAX_ITEM_TEXT for e in extraction.evidence)
    assert extraction.evidence[0].text.endswith("…")


def test_evidence_is_built_with_the_cap_in_place_so_a_too_long_one_cannot_slip_through() -> None:
    with pytest.raises(ValidationError):
        Evidence(dimension=Dimension.goals, text="y" * (MAX_ITEM_TEXT + 1), source="remember")
