"""The memory file format of docs/spec.md §2: canonical files round-trip byte for byte, hand-written
lines are adopted or kept, and a hand-broken file is refused with its path and line."""

from __future__ import annotations

import datetime as dt

import pytest
from engine_helpers import FROZEN_DAY, ago, item_line, memory_text, rerun, run, section_of

from hylo_memory.decay import Dimension, Item, parse, render
from hylo_memory.domain.dimensions import ACTIVE, FADING
from hylo_memory.errors import MemoryFileError

TODAY = dt.date.fromisoformat(FROZEN_DAY)  # the run's date: parsing and the rules never read the clock

SPEC_EXAMPLE = """\
---
decay_window: 90d
last_updated: 2026-11-30
---
## Active
- Prefers terse, factual answers `last:2026-11-30 seen:3`
- Vegetarian `last:2026-10-02 seen:1 pinned`

## Fading
- Enjoys modal jazz `last:2026-07-01 seen:2`
"""

PATH = "/vault/_memory/_preferences.md"


# Canonical files


def test_render_of_parse_gives_the_spec_example_back_byte_for_byte() -> None:
    assert render(parse(SPEC_EXAMPLE, Dimension.preferences)) == SPEC_EXAMPLE


def test_parse_reads_the_spec_example() -> None:
    memory = parse(SPEC_EXAMPLE, Dimension.preferences)
    assert (memory.decay_window, memory.last_updated) == (90, dt.date(2026, 11, 30))
    assert memory.active == [
        Item(text="Prefers terse, factual answers", last=dt.date(2026, 11, 30), seen=3),
        Item(text="Vegetarian", last=dt.date(2026, 10, 2), seen=1, pinned=True),
    ]
    assert memory.fading == [Item(text="Enjoys modal jazz", last=dt.date(2026, 7, 1), seen=2)]


@pytest.mark.parametrize(
    "text",
    [
        memory_text(active=[item_line("Vegetarian", dt.date(2026, 1, 2), 7, pinned=True)], window=7),
        memory_text(fading=[item_line("Enjoys modal jazz", dt.date(2026, 7, 1), 2)], window=365,
                    last_updated=dt.date(2026, 7, 1)),
        memory_text(window=30, last_updated=dt.date(2026, 11, 30)),
        memory_text(active=[item_line("Uses `vim` for everything", dt.date(2026, 11, 1), 12)]),
    ],
    ids=["active-only-pinned", "fading-only", "no-items", "backticks-in-text"],
)
def test_render_of_parse_is_the_identity_on_canonical_files(text: str) -> None:
    assert render(parse(text, Dimension.preferences)) == text


def test_render_writes_the_exact_item_format() -> None:
    memory = parse(memory_text(), Dimension.preferences)
    memory.section(ACTIVE).entries.insert(0, Item(text="Vegetarian", last=dt.date(2026, 10, 2), seen=1, pinned=True))
    assert "\n- Vegetarian `last:2026-10-02 seen:1 pinned`\n" in render(memory)


# Tolerant parse: the person's own lines


def test_a_bullet_without_metadata_is_adopted_with_last_today_and_seen_1_when_the_file_is_written() -> None:
    text = memory_text(active=[item_line("Prefers terse answers", ago(TODAY, 30)), "- Likes green tea"],
                       last_updated=ago(TODAY, 30))
    after, changes = run(text, [], TODAY)
    assert render(after) == memory_text(
        active=[item_line("Prefers terse answers", ago(TODAY, 30)), item_line("Likes green tea", TODAY)],
        last_updated=TODAY,
    )
    assert changes.adopted == ["Likes green tea"]


def test_an_adopted_bullet_is_adopted_only_once() -> None:
    first, _ = run(memory_text(active=["- Likes green tea"]), [], TODAY)
    second, changes = rerun(first, TODAY)
    assert changes.adopted == []
    assert section_of(second, "Likes green tea") == (ACTIVE, Item(text="Likes green tea", last=TODAY, seen=1))


def test_comments_other_headings_and_prose_are_kept_in_place() -> None:
    def file(green_tea: str, last_updated: dt.date) -> str:
        return "\n".join([
            "---",
            "decay_window: 90d",
            f"last_updated: {last_updated.isoformat()}",
            "---",
            "<!-- kept by hand -->",
            "Some prose about this file.",
            "## Active",
            item_line("Prefers terse answers", ago(TODAY, 29), 3),
            "<!-- a comment among the items -->",
            green_tea,
            "",
            "## Notes",
            "Written by me, not an item.",
            "",
            "## Fading",
            item_line("Enjoys modal jazz", ago(TODAY, 152), 2),
            "",
        ])

    after, _ = run(file("- Likes green tea", ago(TODAY, 29)), [], TODAY)
    assert render(after) == file(item_line("Likes green tea", TODAY), TODAY)


def test_bullets_above_the_first_heading_are_adopted_into_active() -> None:
    text = "---\ndecay_window: 90d\n---\n- Vegetarian\n## Active\n\n## Fading\n"
    after, changes = run(text, [], TODAY)
    assert section_of(after, "Vegetarian") == (ACTIVE, Item(text="Vegetarian", last=TODAY, seen=1))
    assert render(after) == memory_text(active=[item_line("Vegetarian", TODAY)], last_updated=TODAY)
    assert changes.adopted == ["Vegetarian"]


def test_a_file_of_bare_bullets_becomes_a_canonical_file_with_the_dimensions_window() -> None:
    after, _ = run("- Vegetarian\n- Lives in Lisbon\n", [], TODAY, dimension=Dimension.identity)
    assert render(after) == memory_text(
        active=[item_line("Vegetarian", TODAY), item_line("Lives in Lisbon", TODAY)], window=365, last_updated=TODAY
    )


def test_a_bullet_adopted_under_fading_stays_where_the_person_wrote_it() -> None:
    after, _ = run(memory_text(fading=["- Enjoys modal jazz"]), [], TODAY)
    assert section_of(after, "Enjoys modal jazz") == (FADING, Item(text="Enjoys modal jazz", last=TODAY, seen=1))


# Strict parse: a hand-broken file is refused with its path and line


@pytest.mark.parametrize(
    "span",
    [
        "`last:2026-13-45 seen:1`",
        "`last:2026-11-30 seen:x`",
        "`last:2026-11-30 seen:0`",
        "`last:2026-11-30 seen:-1`",
        "`last:2026-11-30`",
        "`last:20261130 seen:1`",
        "`last:2026-11-30 seen:²`",
        "`last: seen:1`",
    ],
)
def test_an_item_with_invalid_metadata_is_refused_naming_path_and_line(span: str) -> None:
    text = memory_text(active=[item_line("Vegetarian", dt.date(2026, 10, 2)), f"- Prefers terse answers {span}"])
    with pytest.raises(MemoryFileError) as refused:
        parse(text, Dimension.preferences, PATH)
    assert (refused.value.path, refused.value.line) == (PATH, 6)
    assert str(refused.value).startswith(f"{PATH}:6: ")


@pytest.mark.parametrize(
    ("frontmatter", "line"),
    [
        ("decay_window: 90d\nlast_updated: [2026", 3),
        ('decay_window: 90d\nlast_updated: 2026-11-01\nnote: "never closed', 4),
        ("decay_window: 90d\nlast_updated: 2026-13-45", 3),
        ("decay_window: soon", 2),
        ("- a list, not a mapping", 2),
    ],
    ids=["bad-yaml", "unclosed-quote", "impossible-date", "window-not-days", "not-a-mapping"],
)
def test_bad_frontmatter_is_refused_naming_path_and_line(frontmatter: str, line: int) -> None:
    with pytest.raises(MemoryFileError) as refused:
        parse(f"---\n{frontmatter}\n---\n## Active\n", Dimension.preferences, PATH)
    assert (refused.value.path, refused.value.line) == (PATH, line)
    assert str(refused.value).startswith(f"{PATH}:{line}: ")


def test_frontmatter_that_is_never_closed_is_refused_at_line_1() -> None:
    with pytest.raises(MemoryFileError) as refused:
        parse("---\ndecay_window: 90d\n## Active\n", Dimension.preferences, PATH)
    assert (refused.value.path, refused.value.line) == (PATH, 1)
