"""Themes of the external pool (docs/spec.md §4.5) stay themes: a format tag ("book", "podcast") or a tag
carried by most of the pool does not chain unrelated subjects into one preference."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import examples
from vault_helpers import day, items, run, texts, unit

from hylo_memory.decay import Dimension
from hylo_memory.domain.sources import PoolUnit
from hylo_memory.extractors.synthesis import cluster_units
from hylo_memory.extractors.words import FORMAT_TAGS

TODAY = day("2026-11-30")

EIGHT = {
    "ottoman": ["book", "history"],
    "stews": ["book", "cooking"],
    "index-funds": ["book", "finance"],
    "money-talk": ["podcast", "finance"],
    "compost": ["podcast", "gardening"],
    "pruning": ["video", "gardening"],
    "normandy": ["book", "ww2", "history"],
    "k8s-intro": ["kubernetes", "video"],
}


def external(root: Path, units: dict[str, list[str]]) -> None:
    for slug, tags in units.items():
        unit(root, slug, "Someone else's work.", "2026-11-20", title=slug.replace("-", " ").title(), tags=tags,
             perspective="external")


def test_eight_units_with_generic_tags_make_three_themes_and_drop_the_subjects_read_once(tmp_path: Path) -> None:
    external(tmp_path, EIGHT)
    run(tmp_path, TODAY)
    assert items(tmp_path, Dimension.preferences) == {
        "Keeps coming back to history and ww2": ("Active", 2, False),
        "Keeps coming back to finance": ("Active", 2, False),
        "Keeps coming back to gardening": ("Active", 2, False),
    }


def test_a_format_tag_alone_never_makes_a_theme(tmp_path: Path) -> None:
    external(tmp_path, {"one": ["book"], "two": ["book"], "three": ["podcast", "book"], "four": ["media/book"]})
    run(tmp_path, TODAY)
    assert texts(tmp_path, Dimension.preferences) == set()


def test_a_unit_tagged_only_with_formats_is_about_its_title(tmp_path: Path) -> None:
    unit(tmp_path, "a", "Notes.", "2026-11-20", title="Sourdough starters", tags=["book"], perspective="external")
    unit(tmp_path, "b", "Notes.", "2026-11-21", title="Sourdough hydration", tags=["podcast"], perspective="external")
    run(tmp_path, TODAY)
    assert [seen for _, seen, _ in items(tmp_path, Dimension.preferences).values()] == [2]


def test_a_tag_carried_by_most_of_the_pool_does_not_join_subjects(tmp_path: Path) -> None:
    external(tmp_path, {"rome": ["learning", "history"], "troy": ["learning", "history"],
                        "bonds": ["learning", "finance"], "stocks": ["learning", "finance"],
                        "stews": ["learning", "cooking"], "k8s": ["learning", "kubernetes"]})
    run(tmp_path, TODAY)
    assert items(tmp_path, Dimension.preferences) == {
        "Keeps coming back to history and learning": ("Active", 2, False),
        "Keeps coming back to finance and learning": ("Active", 2, False),
    }


def test_a_tag_carried_by_most_of_the_pool_does_not_join_a_unit_about_something_else_to_the_one_theme(
        tmp_path: Path) -> None:
    external(tmp_path, {"rome": ["learning", "history"], "troy": ["learning", "history"],
                        "stews": ["learning", "cooking"], "k8s": ["learning", "kubernetes"]})
    run(tmp_path, TODAY)
    assert items(tmp_path, Dimension.preferences) == {"Keeps coming back to history and learning": ("Active", 2, False)}


def test_a_tag_carried_by_the_whole_pool_is_a_theme_when_no_other_subject_recurs(tmp_path: Path) -> None:
    external(tmp_path, {name: ["consensus", name] for name in ("raft", "paxos", "zab", "pbft")})
    run(tmp_path, TODAY)
    assert [seen for _, seen, _ in items(tmp_path, Dimension.preferences).values()] == [4]


def pool_of(tag_sets: list[list[str]]) -> list[PoolUnit]:
    return [PoolUnit(path=f"_knowledge/u{i}.md", title=f"U{i}", tags=tags, date=dt.date(2026, 11, 20))
            for i, tags in enumerate(tag_sets)]


FORMATS = st.lists(st.sampled_from(sorted(FORMAT_TAGS)), min_size=1, max_size=3)


@settings(max_examples=examples(100), deadline=None)
@given(formats=st.lists(FORMATS, min_size=2, max_size=8))
def test_units_sharing_only_format_tags_never_cluster(formats: list[list[str]]) -> None:
    units = pool_of([[*tags, f"subject{i}"] for i, tags in enumerate(formats)])
    assert cluster_units(units) == []


@settings(max_examples=examples(200), deadline=None)
@given(subjects=st.lists(st.sampled_from(["history", "finance", "gardening", "cooking", "kubernetes"]),
                         min_size=2, max_size=10),
       generic=st.sampled_from(["learning", "book", "to-read"]))
def test_a_generic_tag_never_joins_a_subject_read_twice_to_another_subject(subjects: list[str], generic: str) -> None:
    # Deliberate: when no subject recurs, a tag on most of the pool is the one theme there is
    # (four papers tagged "consensus", each with a tag of its own), so only recurring subjects are kept apart.
    units = pool_of([[generic, subject] for subject in subjects])
    for cluster in cluster_units(units):
        held = {subjects[int(path.removeprefix("_knowledge/u").removesuffix(".md"))] for path in cluster.sources}
        assert len(held) == 1 or all(subjects.count(s) == 1 for s in held)
