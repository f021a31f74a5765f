"""Hylo's knowledge units as its compile skill writes them (docs/spec.md §10): no `perspective`, so whose
words a unit holds is judged from its `source_notes`; the own-stance section (`## 立场`, `## Stance`) of
someone else's unit is the author's own opinion, read for beliefs alone."""

from __future__ import annotations

from pathlib import Path

from vault_helpers import day, identity, items, run, short, texts, unit

from hylo_memory.decay import Dimension
from hylo_memory.domain.sources import SourceKind
from hylo_memory.pipeline.notes.fields import source_date
from hylo_memory.pipeline.notes.whose import own_stance

TODAY = day("2026-11-30")
HEARD = "I love cold brew. I believe meetings are a waste of time."  # what a podcast guest said
STANCE = "I believe small teams ship faster."


def external_unit(root: Path, heading: str = "## 立场", stance: str = STANCE) -> Path:
    """A unit compiled from an interview the author listened to (a clipping), with their stance at the end."""
    (root / "Clippings").mkdir(parents=True, exist_ok=True)
    return unit(root, "guest-interview", f"## 核心启示\n{HEARD}\n\n{heading}\n{stance}\n\n## Sources\n- [[interview]]\n",
                "2026-11-29", source_notes=["/Clippings/interview.md"], kind="knowledge",
                last_compiled_at="2026-11-29")


def test_a_unit_without_perspective_from_others_notes_gives_no_dimension(tmp_path: Path) -> None:
    identity(tmp_path, "Name is Maya Okafor")
    external_unit(tmp_path, stance="")
    run(tmp_path, TODAY)
    assert (texts(tmp_path, Dimension.preferences), texts(tmp_path, Dimension.beliefs)) == (set(), set())


def test_a_unit_without_perspective_from_the_authors_shorts_is_their_own(tmp_path: Path) -> None:
    identity(tmp_path, "Name is Maya Okafor")
    short(tmp_path, "2026-11-28", "Notes.")
    unit(tmp_path, "tea", "I love green tea.\n", "2026-11-29", source_notes=["/_shorts/2026-11-28-note.md"],
         kind="knowledge")
    run(tmp_path, TODAY)
    assert "Loves green tea" in texts(tmp_path, Dimension.preferences)


def test_the_stance_of_someone_elses_unit_is_the_authors_belief(tmp_path: Path) -> None:
    identity(tmp_path, "Name is Maya Okafor")
    external_unit(tmp_path)
    run(tmp_path, TODAY)
    assert (texts(tmp_path, Dimension.beliefs), texts(tmp_path, Dimension.preferences)) \
        == ({"Believes small teams ship faster"}, set())


def test_an_english_stance_heading_is_read_alike(tmp_path: Path) -> None:
    identity(tmp_path, "Name is Maya Okafor")
    external_unit(tmp_path, heading="## Stance")
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.beliefs) == {"Believes small teams ship faster"}


def test_the_stance_gives_beliefs_alone(tmp_path: Path) -> None:
    identity(tmp_path, "Name is Maya Okafor")
    external_unit(tmp_path, stance="I believe small teams ship faster. I love oat milk.")
    run(tmp_path, TODAY)
    assert (texts(tmp_path, Dimension.beliefs), texts(tmp_path, Dimension.preferences)) \
        == ({"Believes small teams ship faster"}, set())


def test_an_own_units_stance_is_read_once_with_the_unit(tmp_path: Path) -> None:
    identity(tmp_path, "Name is Maya Okafor")
    unit(tmp_path, "mine", f"## 立场\n{STANCE}\n", "2026-11-29", kind="knowledge")  # no source_notes: own
    run(tmp_path, TODAY)
    assert items(tmp_path, Dimension.beliefs) == {"Believes small teams ship faster": ("Active", 1, False)}


def test_a_stance_section_ends_at_the_next_heading_of_its_level() -> None:
    assert own_stance("## 立场\nMine.\n### Why\nBecause.\n## Sources\n- x\n") == "Mine.\n### Why\nBecause."


def test_a_blank_stance_section_is_none() -> None:
    assert own_stance("## 立场\n\n## Sources\n") is None


def test_a_units_last_compiled_at_dates_it() -> None:
    assert source_date({"created_at": "2026-11-01", "last_compiled_at": "2026-11-29"}, SourceKind.knowledge) \
        == (day("2026-11-29"), False)
