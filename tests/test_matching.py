"""Near-duplicate matching is exactly docs/spec.md §3's in files of ordinary size, and in a file over the
exhaustive limit misses only what docs/spec.md §3 says it may: checked against brute force."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz
from tiers import examples

from hylo_memory.decay import match
from hylo_memory.decay.match import TextIndex, normalise, same_fact

WORDS = ["likes", "the", "colour", "color", "grey", "gray", "jazz", "tea", "green", "vegetarian", "vegetarians",
         "runs", "early", "lisbon", "lives", "in", "cat", "owner"]
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)


def brute_force(items: list[str], query: str, threshold: float) -> int | None:
    """docs/spec.md §3 read literally: an equal normalised text first, else, of the near-duplicates (the same words but
    for typos and inflections), the most similar at or over the threshold."""
    norm = normalise(query)
    for key, text in enumerate(items):
        if normalise(text) == norm:
            return key
    scored = [(fuzz.ratio(norm, normalise(t)), -key) for key, t in enumerate(items) if same_fact(query, t)]
    best = max(scored, default=None)
    return -best[1] if best and best[0] >= threshold else None


@settings(max_examples=examples(300), deadline=None)
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
    assert index.find("likes the color grey") == len(items) - 2


# Blocked search, in a file over the exhaustive limit (docs/spec.md §3). The limit is patched low so
# that small generated files are blocked, and the count of items that makes a key common ("the",
# "likes") low too, so that generated files have common keys.

WORD = re.compile(r"\w+")


def block_keys(text: str) -> set[tuple[str, str]]:
    """docs/spec.md §3's block keys: each word; for a text of at most three words, also each word's first and
    last four characters (a word and an affix are different keys, even when spelt alike)."""
    words = WORD.findall(normalise(text))
    keys = {("word", w) for w in words}
    if len(words) <= 3:
        keys |= {("affix", w[:4]) for w in words} | {("affix", w[-4:]) for w in words}
    return keys


def is_match(query: str, text: str, threshold: float) -> bool:
    """docs/spec.md §3: equal normalised texts, or near-duplicates similar enough to be candidates."""
    return normalise(query) == normalise(text) or (
        same_fact(query, text) and fuzz.ratio(normalise(query), normalise(text)) >= threshold)


@st.composite
def edited(draw: st.DrawFn, text: str) -> str:
    """`text` with one small edit: two letters swapped, a word pluralised, added or dropped."""
    words = text.split()
    at = draw(st.integers(0, len(words) - 1))
    word = words[at]
    edit = draw(st.sampled_from(["swap", "plural", "add", "drop"] if len(words) > 1 else ["swap", "plural", "add"]))
    if edit == "swap" and len(word) > 1:
        i = draw(st.integers(0, len(word) - 2))
        words[at] = word[:i] + word[i + 1] + word[i] + word[i + 2:]
    elif edit == "add":
        words.insert(at, draw(st.sampled_from(WORDS)))
    elif edit == "drop":
        del words[at]
    else:
        words[at] = word + "s"
    return " ".join(words)


def index_of(items: list[str], threshold: float = 90.0) -> TextIndex:
    index = TextIndex(threshold)
    for key, text in enumerate(items):
        index.add(key, text)
    return index


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data(), items=st.lists(texts, min_size=4, max_size=40),
       threshold=st.sampled_from([80.0, 90.0, 95.0]), common=st.sampled_from([3, 8, 200]))
def test_blocked_find_misses_only_matches_that_share_no_uncommon_block_key(
    data: st.DataObject, items: list[str], threshold: float, common: int
) -> None:
    query = data.draw(texts | st.sampled_from(items).flatmap(edited), label="query")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(match, "EXHAUSTIVE_UP_TO", 3)
        patch.setattr(match, "_COMMON_WORD_POSTINGS", common)
        found = index_of(items, threshold).find(query)
    expected = brute_force(items, query, threshold)
    # Nothing found is a non-match, nor an item the search may not compare.
    if found is not None:
        assert is_match(query, items[found], threshold)
        assert block_keys(query) & block_keys(items[found])
    if expected is None:
        return
    # Brute force's answer is found whenever it shares with the query a key held by at most `common`
    # items — or, every key the query shares with any item being common, its rarest (all of them, if tied).
    holders = Counter(key for text in items for key in block_keys(text))
    shared = block_keys(query) & block_keys(items[expected])
    held = {k: holders[k] for k in block_keys(query) if holders[k]}
    rarest = {k for k, n in held.items() if n == min(held.values())}
    if any(holders[k] <= common for k in shared) or (rarest and rarest <= shared):
        assert found == expected


def test_in_a_blocked_file_short_wordings_meet_by_a_words_first_or_last_four_characters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(match, "EXHAUSTIVE_UP_TO", 3)
    index = index_of(["runs early", "owns a cat", "vegetarian", "drinks green tea"])
    assert index.find("vegetarain") == 2  # no word in common; "vege" is


def test_in_a_blocked_file_a_near_duplicate_sharing_no_block_key_is_not_compared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    items = ["walks river takes long", "owns a cat", "runs early", "likes modal jazz"]
    query = "walk rivers take longs"  # four words (so no affix keys), none of them the item's, each an inflection
    assert fuzz.ratio(items[0], query) >= 90 and index_of(items).find(query) == 0  # a match, found exhaustively
    monkeypatch.setattr(match, "EXHAUSTIVE_UP_TO", 3)
    assert index_of(items).find(query) is None
