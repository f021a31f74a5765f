"""The person's file, kept as written (issue 9, points 10 and 11): fenced code, line endings,
a byte-order mark, the window as written, bullet markers, nested bullets and headings.

Only what the rules change is rewritten; every other line comes back byte for byte.
"""

from __future__ import annotations

import datetime as dt

import pytest
from engine_helpers import FROZEN_DAY, ago, ev, item_line, memory_text, run, section_of

from hylo_memory.decay import Dimension, parse, render
from hylo_memory.domain.dimensions import ACTIVE, FADING
from hylo_memory.errors import MemoryFileError

TODAY = dt.date.fromisoformat(FROZEN_DAY)  # the rules never read the clock
OLD = ago(TODAY, 100)  # older than the 90-day window: Active items this old fade
FRESH = ago(TODAY, 10)


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    return [(b, a) for b, a in zip(before.splitlines(), after.splitlines(), strict=False) if b != a]


# 10. Fenced code is the person's text


FENCED = f"""\
---
decay_window: 90d
last_updated: {FRESH}
---
## Active
- Prefers terse answers `last:{FRESH} seen:2`

How I write this file:

```markdown
## Active
- Example item `last:{OLD} seen:1`
```

## Fading
"""


def test_a_fence_holding_an_active_heading_and_an_item_line_round_trips_byte_for_byte() -> None:
    assert render(parse(FENCED, Dimension.preferences)) == FENCED


def test_an_item_line_inside_a_fence_is_not_an_item() -> None:
    memory = parse(FENCED, Dimension.preferences)
    assert [i.text for i in memory.items] == ["Prefers terse answers"]


def test_an_old_item_line_inside_a_fence_is_not_moved_to_fading() -> None:
    after, changes = run(FENCED, [], TODAY)
    assert changes.faded == [] and render(after) == FENCED


def test_a_new_item_goes_into_the_real_active_section_not_after_the_fence() -> None:
    after, _ = run(FENCED, [ev("Likes green tea")], TODAY)
    text = render(after)
    assert f"seen:2`\n{item_line('Likes green tea', TODAY)}\n\nHow I write" in text
    assert text.split("```markdown\n")[1].split("```\n")[0] == f"## Active\n- Example item `last:{OLD} seen:1`\n"


def test_a_tilde_fence_is_kept_byte_for_byte_too() -> None:
    text = memory_text(active=[item_line("Vegetarian", FRESH)], fading=["~~~", "## Active", "- Not an item", "~~~"])
    memory = parse(text, Dimension.preferences)
    assert [i.text for i in memory.items] == ["Vegetarian"]
    assert render(memory) == text


def test_a_longer_fence_is_closed_only_by_a_fence_at_least_as_long() -> None:
    text = memory_text(fading=["````", "```", "- Not an item", "````"])
    assert parse(text, Dimension.preferences).items == []


def test_a_code_fence_never_closed_is_refused_naming_its_line() -> None:
    text = memory_text(active=[item_line("Vegetarian", FRESH), "```", "- Example"])
    with pytest.raises(MemoryFileError) as refused:
        parse(text, Dimension.preferences, "/m/_preferences.md")
    assert (refused.value.path, refused.value.line) == ("/m/_preferences.md", 6)


# 11. Line endings and the byte-order mark


def test_crlf_line_endings_are_kept_when_the_rules_rewrite_the_file() -> None:
    text = memory_text(active=[item_line("Prefers terse answers", FRESH)], last_updated=FRESH).replace("\n", "\r\n")
    after, _ = run(text, [ev("Prefers terse answers")], TODAY)
    written = render(after)
    assert written.count("\r\n") == written.count("\n") == text.count("\n")
    assert item_line("Prefers terse answers", TODAY, 2) + "\r\n" in written


def test_a_byte_order_mark_is_kept() -> None:
    text = "\ufeff" + memory_text(active=[item_line("Vegetarian", FRESH)], last_updated=FRESH)
    after, _ = run(text, [ev("Likes green tea")], TODAY)
    assert render(after).startswith("\ufeff---\ndecay_window: 90d\n")


def test_a_file_without_a_final_newline_keeps_it() -> None:
    text = memory_text(active=[item_line("Vegetarian", FRESH)]).rstrip("\n")
    assert render(parse(text, Dimension.preferences)) == text


# 11. The frontmatter as written


def test_decay_window_in_weeks_is_kept_as_written_when_the_file_changes() -> None:
    text = f"---\ndecay_window: 2w\nlast_updated: {FRESH}\n---\n## Active\n{item_line('Tired', FRESH)}\n\n## Fading\n"
    after, _ = run(text, [ev("Tired", dimension=Dimension.state)], TODAY, dimension=Dimension.state)
    assert after.decay_window == 14
    assert render(after).startswith(f"---\ndecay_window: 2w\nlast_updated: {TODAY}\n---\n")


def test_frontmatter_order_and_comments_are_kept_and_only_last_updated_is_rewritten() -> None:
    text = (f"---\n# mine\nlast_updated: {FRESH}\ntitle: Tastes\ndecay_window: 90d  # three months\n---\n"
            f"## Active\n{item_line('Vegetarian', FRESH)}\n\n## Fading\n")
    after, _ = run(text, [ev("Vegetarian")], TODAY)
    assert render(after).startswith(f"---\n# mine\nlast_updated: {TODAY}\ntitle: Tastes\ndecay_window: 90d  # three months\n---\n")


def test_last_updated_is_added_after_the_window_when_the_file_had_none() -> None:
    text = f"---\ndecay_window: 2w\n---\n## Active\n{item_line('Tired', FRESH)}\n"
    after, _ = run(text, [ev("Tired", dimension=Dimension.state)], TODAY, dimension=Dimension.state)
    assert render(after).startswith(f"---\ndecay_window: 2w\nlast_updated: {TODAY}\n---\n")


# 11. Bullets and headings as written


def test_a_star_bullet_keeps_its_marker_when_the_item_is_updated() -> None:
    text = memory_text(active=[f"* Prefers terse answers `last:{FRESH} seen:2`"])
    after, _ = run(text, [ev("Prefers terse answers")], TODAY)
    assert f"\n* Prefers terse answers `last:{TODAY} seen:3`\n" in render(after)


def test_a_star_bullet_keeps_its_marker_when_adopted() -> None:
    after, _ = run(memory_text(active=["* Likes green tea"]), [], TODAY)
    assert f"\n* Likes green tea `last:{TODAY} seen:1`\n" in render(after)


def test_a_new_item_takes_the_bullet_marker_of_the_files_items() -> None:
    after, _ = run(memory_text(active=[f"* Vegetarian `last:{FRESH} seen:1`"]), [ev("Likes green tea")], TODAY)
    assert f"\n* Likes green tea `last:{TODAY} seen:1`\n" in render(after)


def test_a_lowercase_active_heading_is_recognised_and_kept_as_written() -> None:
    text = f"---\ndecay_window: 90d\n---\n## active\n{item_line('Vegetarian', OLD)}\n\n## FADING\n"
    after, changes = run(text, [], TODAY)
    assert changes.faded == ["Vegetarian"]
    assert render(after) == f"---\ndecay_window: 90d\nlast_updated: {TODAY}\n---\n## active\n\n## FADING\n{item_line('Vegetarian', OLD)}\n"


def test_an_unchanged_item_line_in_the_persons_spacing_is_kept_when_another_item_changes() -> None:
    odd = f"-   Vegetarian   `last: {FRESH}  seen:3 `"
    text = memory_text(active=[odd, item_line("Prefers terse answers", FRESH)])
    after, _ = run(text, [ev("Prefers terse answers")], TODAY)
    assert f"\n{odd}\n" in render(after)


def test_a_changed_item_keeps_its_indentation_and_spacing_and_only_its_span_is_rewritten() -> None:
    text = memory_text(active=[f" -  Vegetarian  `last: {FRESH}  seen:3`"])
    after, _ = run(text, [ev("Vegetarian")], TODAY)
    assert f"\n -  Vegetarian  `last:{TODAY} seen:4`\n" in render(after)


# 11. Nested bullets belong to the item above them


NESTED = [item_line("Loves Italian food", FRESH, 2), "  - especially Sicilian", "    - caponata", "  and the wine"]


def test_nested_bullets_round_trip_under_their_item() -> None:
    text = memory_text(active=[*NESTED, item_line("Vegetarian", FRESH)])
    memory = parse(text, Dimension.preferences)
    assert [i.text for i in memory.items] == ["Loves Italian food", "Vegetarian"]
    assert memory.active[0].children == ("  - especially Sicilian", "    - caponata", "  and the wine")
    assert render(memory) == text


def test_nested_bullets_stay_under_their_item_when_it_is_refreshed() -> None:
    after, _ = run(memory_text(active=NESTED), [ev("Loves Italian food")], TODAY)
    assert f"{item_line('Loves Italian food', TODAY, 3)}\n  - especially Sicilian\n    - caponata\n  and the wine\n" in render(after)


def test_nested_bullets_move_with_their_item_to_fading() -> None:
    text = memory_text(active=[item_line("Loves Italian food", OLD), "  - especially Sicilian", item_line("Vegetarian", FRESH)])
    after, changes = run(text, [], TODAY)
    assert changes.faded == ["Loves Italian food"]
    assert render(after).endswith(f"## Fading\n{item_line('Loves Italian food', OLD)}\n  - especially Sicilian\n")
    assert section_of(after, "Vegetarian")[1].children == ()


def test_a_merged_items_nested_bullets_join_the_item_it_merges_into() -> None:
    text = memory_text(active=[item_line("Loves Italian food", FRESH, 3), "  - pasta",
                               item_line("Loves italian food.", FRESH), "  - pizza"])
    after, changes = run(text, [], TODAY)
    assert [(m.kept, m.dropped) for m in changes.merged] == [("Loves Italian food", "Loves italian food.")]
    assert f"{item_line('Loves Italian food', FRESH, 4)}\n  - pasta\n  - pizza\n" in render(after)


def test_an_item_deleted_by_rule_e_takes_its_nested_bullets_with_it() -> None:
    # Deliberate: left in place they would read as the neighbour's; the version before is archived.
    text = memory_text(fading=[item_line("Vegetarian", FRESH), item_line("Enjoys jazz", ago(TODAY, 200)), "  - modal"])
    after, changes = run(text, [], TODAY)
    assert changes.deleted == ["Enjoys jazz"]
    assert render(after).endswith(f"## Fading\n{item_line('Vegetarian', FRESH)}\n")


def test_an_indented_bullet_after_a_blank_line_is_an_item_of_its_own() -> None:
    memory = parse(memory_text(active=[item_line("Vegetarian", FRESH), "", f"  - Likes tea `last:{FRESH} seen:1`"]),
                   Dimension.preferences)
    assert [(i.text, i.children) for i in memory.items] == [("Vegetarian", ()), ("Likes tea", ())]


def test_a_fence_nested_under_an_item_moves_with_it() -> None:
    text = memory_text(active=[item_line("Uses vim", OLD), "  ```", "## Active", "  ```", item_line("Vegetarian", FRESH)])
    after, _ = run(text, [], TODAY)
    assert render(after).endswith(f"## Fading\n{item_line('Uses vim', OLD)}\n  ```\n## Active\n  ```\n")
    assert section_of(after, "Uses vim")[0] == FADING and section_of(after, "Vegetarian")[0] == ACTIVE
