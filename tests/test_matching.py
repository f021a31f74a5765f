"""Near-duplicate matching is exactly SPEC §3's in files of ordinary size: checked against brute force."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from hylo_memory.decay.match import TextIndex, normalise

WORDS = ["likes", "the", "colour", "color", "grey", "gray", "jazz", "tea", "green", "vegetarian", "vegetarians",
         "runs", "early", "lisbon", "lives", "in", "cat", "owner"]
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)


def brute_force(items: list[str], query: str, threshold: float) -> int | None:
    """SPEC §3 read literally: an equal normalised text first, else the most similar at or over the threshold."""
    norm = normalise(query)
    for key, text in enumerate(items):
        if normalise(text) == norm:
            return key
    scored = [(fuzz.ratio(norm, normalise(t)), -key) for key, t in enumerate(items)]
    best = max(scored, default=None)
    return -best[1] if best and best[0] >= threshold else None


@settings(max_examples=300, deadline=None)
@given(items=st.lists(texts, max_size=40), query=texts, threshold=st.sampled_from([80.0, 90.0, 95.0]))
def test_find_agrees_with_a_brute_force_scan(items: list[str], query: str, threshold: float) -> None:
    index = TextIndex(threshold)
    for key, text in enumerate(items):
        index.add(key, text)
    assert index.find(query) == brute_force(items, query, threshold)


def test_a_near_duplicate_sharing_no_rare_word_is_found_among_many_similar_items() -> None:
    items = [f"likes the {word}" for word in ("sea", "rain", "wind", "sun") * 60]
    items += ["likes the colour grey", "gray cat owner"]
    index = TextIndex(90.0)
    for key, text in enumerate(items):
        index.add(key, text)
    assert index.find("likes the color gray") == len(items) - 2
