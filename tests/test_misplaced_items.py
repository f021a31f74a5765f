"""Memory files as people edit them: an item under a renamed heading is refused with its line and the
headings it may go under, never silently left out; `## active` and trailing spaces stay fine."""

from __future__ import annotations

from pathlib import Path

import pytest
from trust_helpers import remember
from vault_helpers import memory_file

from hylo_memory.decay import Dimension, parse
from hylo_memory.errors import MemoryFileError

ITEM = "- Loves green tea `last:2026-11-01 seen:2 pinned`\n"


def text(heading: str) -> str:
    return f"---\ndecay_window: 90d\nlast_updated: 2026-11-01\n---\n{heading}\n{ITEM}\n## Fading\n"


@pytest.mark.parametrize("heading", ["## Active items", "## Notes", "## Favourites"])
def test_an_item_under_another_heading_makes_the_file_hand_broken(heading: str) -> None:
    with pytest.raises(MemoryFileError) as refused:
        parse(text(heading), Dimension.preferences, "_preferences.md")
    assert str(refused.value) == (f"_preferences.md:6: an item (with its `last:` span) under {heading!r}: "
                                  "items go under '## Active' or '## Fading'")


@pytest.mark.parametrize("heading", ["## active", "## Active   ", "##  ACTIVE"])
def test_the_active_heading_in_another_case_or_with_trailing_spaces_is_still_active(heading: str) -> None:
    memory = parse(text(heading), Dimension.preferences, "_preferences.md")
    assert [i.text for i in memory.active] == ["Loves green tea"]


def test_a_plain_bullet_under_another_heading_is_the_persons_text(tmp_path: Path) -> None:
    memory = parse(text("## Notes").replace(ITEM, "- call the bank\n"), Dimension.preferences, "_preferences.md")
    assert memory.items == []


def test_remember_refuses_a_file_with_a_misplaced_item_instead_of_writing_a_duplicate(tmp_path: Path) -> None:
    path = memory_file(tmp_path, Dimension.preferences, f"## Active items\n{ITEM}\n## Fading\n")
    before = path.read_bytes()
    result = remember(tmp_path, "I love green tea")
    assert result.exit_code == 1 and "under '## Active items'" in result.stderr
    assert path.read_bytes() == before
