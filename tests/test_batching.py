"""Packing sources into requests by a token budget (extractors/llm/batching.py): many small sources a
request, a long one alone, an oversized one cut into numbered pieces that each fit, at paragraph breaks
where possible, losing nothing."""

from __future__ import annotations

import datetime as dt

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hylo_memory.decay import Dimension
from hylo_memory.domain.sources import Source, SourceKind
from hylo_memory.extractors.base import Candidate
from hylo_memory.extractors.llm.batching import _PER_SOURCE as HEADER  # a source's header line in the prompt, in tokens
from hylo_memory.extractors.llm.batching import Batch, Part, estimate_tokens, pack, relevant

BUDGET = 100 + HEADER  # tokens a request's sources may take: 100 after one header, 400 characters of English


def source(text: str, path: str = "_shorts/2026-11-29-note.md") -> Source:
    return Source(path=path, kind=SourceKind.short, date=dt.date(2026, 11, 29), text=text, content_hash="x")


def cost(text: str) -> int:
    """What a source (or a piece of one) takes of a request's budget: its text and its header."""
    return estimate_tokens(text) + HEADER


def layout(batches: list[Batch]) -> list[list[tuple[str, int, int]]]:
    """Each batch as its parts: (path, piece, pieces)."""
    return [[(p.source.path, p.piece, p.pieces) for p in batch.parts] for batch in batches]


def pieces_of(text: str, budget: int = BUDGET) -> list[Part]:
    """The parts an oversized source is cut into, each in a batch of its own."""
    batches = pack([source(text)], budget)
    assert all(len(batch.parts) == 1 for batch in batches)
    return [batch.parts[0] for batch in batches]


def paragraph(length: int, letter: str = "a") -> str:
    """A paragraph of about `length` characters: words of five letters."""
    return " ".join([letter * 5] * (length // 6 + 1))[:length]


# Generated notes: paragraphs of English-like lines (no blank line inside a paragraph), of any length
# from a word to several pieces' worth, with a budget the whole note exceeds (at least 100 tokens: the LLM
# extractor's never is less).
WORDS = ["I", "love", "long", "runs", "by", "the", "river", "before", "work,", "and", "coffee", "after."]


def prose(length: int, start: int) -> str:
    """About `length` characters of words, a line break every twelfth word."""
    words = [WORDS[(start + i) % len(WORDS)] for i in range(length // 3 + 1)]
    text = "".join(w + ("\n" if i % 12 == 11 else " ") for i, w in enumerate(words))
    return text[:length].strip() or "I"


paragraphs = st.builds(prose, st.integers(1, 1500), st.integers(0, len(WORDS) - 1))


@st.composite
def oversized(draw: st.DrawFn) -> tuple[list[str], int]:
    """A note's paragraphs, and a budget the whole note does not fit."""
    paras = draw(st.lists(paragraphs, min_size=2, max_size=12))
    whole = cost("\n\n".join(paras))
    assume(whole > 100)
    return paras, draw(st.integers(100, whole - 1))


# Whole sources


def test_small_sources_share_one_batch() -> None:
    notes = [source("I love tea.", "a.md"), source("I live in Lisbon.", "b.md"), source("I run.", "c.md")]
    assert layout(pack(notes, BUDGET)) == [[("a.md", 1, 1), ("b.md", 1, 1), ("c.md", 1, 1)]]


def test_a_source_that_does_not_fit_beside_the_others_starts_the_next_batch() -> None:
    half = paragraph((BUDGET - 2 * HEADER) * 4 // 2)  # two of these fill a request; a third does not fit
    notes = [source(half, "a.md"), source(half, "b.md"), source(half, "c.md")]
    assert layout(pack(notes, BUDGET)) == [[("a.md", 1, 1), ("b.md", 1, 1)], [("c.md", 1, 1)]]


def test_a_long_source_that_fits_goes_alone_and_whole() -> None:
    long = paragraph((BUDGET - HEADER) * 4)
    assert cost(long) == BUDGET
    batches = pack([source("I love tea.", "a.md"), source(long, "long.md"), source("I run.", "c.md")], BUDGET)
    assert layout(batches) == [[("a.md", 1, 1)], [("long.md", 1, 1)], [("c.md", 1, 1)]]
    assert batches[1].parts[0].text == long


def test_every_source_is_packed_once_in_the_order_given() -> None:
    texts = [paragraph(n) for n in (30, 250, 90, 390, 10, 200)]
    notes = [source(text, f"{i}.md") for i, text in enumerate(texts)]
    packed = [part.source.path for batch in pack(notes, BUDGET) for part in batch.parts]
    assert packed == [f"{i}.md" for i in range(len(texts))]


def test_the_order_is_kept_around_an_oversized_source() -> None:
    notes = [source("I love tea.", "a.md"), source(paragraph(1000), "huge.md"), source("I run.", "c.md")]
    packed = [part.source.path for batch in pack(notes, BUDGET) for part in batch.parts]
    assert list(dict.fromkeys(packed)) == ["a.md", "huge.md", "c.md"]


# An oversized source, cut


@settings(deadline=None)
@given(case=oversized())
def test_an_oversized_source_is_cut_into_pieces_that_each_fit(case: tuple[list[str], int]) -> None:
    paras, budget = case
    pieces = pieces_of("\n\n".join(paras), budget)
    assert len(pieces) > 1
    assert [cost(p.text) for p in pieces if cost(p.text) > budget] == []


@settings(deadline=None)
@given(case=oversized())
def test_the_pieces_together_keep_every_character_of_the_paragraphs_in_order(case: tuple[list[str], int]) -> None:
    paras, budget = case
    pieces = pieces_of("\n\n".join(paras), budget)
    assert "".join(chunk for p in pieces for chunk in p.text.split("\n\n")) == "".join(paras)


@settings(deadline=None)
@given(case=oversized())
def test_a_paragraph_that_fits_in_a_piece_is_never_split(case: tuple[list[str], int]) -> None:
    paras, budget = case
    pieces = pieces_of("\n\n".join(paras), budget)
    kept_whole = {chunk for p in pieces for chunk in p.text.split("\n\n")}
    assert [para for para in paras if cost(para) <= budget and para not in kept_whole] == []


def test_pieces_are_numbered_i_of_n_and_name_their_source() -> None:
    pieces = pieces_of("\n\n".join(paragraph(300, letter) for letter in "abcde"))
    assert [(p.piece, p.pieces, p.source.path) for p in pieces] == [
        (i, 5, "_shorts/2026-11-29-note.md") for i in range(1, 6)]


def test_paragraphs_that_fit_together_share_a_piece() -> None:
    paras = [paragraph(150, letter) for letter in "abcdef"]  # two and a break fit in 400 characters, three do not
    assert [p.text for p in pieces_of("\n\n".join(paras))] == [
        "\n\n".join(paras[0:2]), "\n\n".join(paras[2:4]), "\n\n".join(paras[4:6])]


def test_a_paragraph_longer_than_a_piece_is_cut_inside_it() -> None:
    long = paragraph(1000)
    pieces = pieces_of(long)
    assert [len(p.text) for p in pieces] == [400, 400, 200]
    assert "".join(p.text for p in pieces) == long


def test_pieces_of_a_note_in_another_script_also_fit() -> None:
    pieces = pieces_of("\n\n".join(["今日は川沿いを長く走った。" * 10] * 6))
    assert [cost(p.text) for p in pieces if cost(p.text) > BUDGET] == []


def _candidate(text: str) -> Candidate:
    return Candidate(dimension=Dimension.preferences, text=text)


def test_a_chinese_note_is_shown_the_chinese_item_it_may_replace() -> None:
    shown = relevant([_candidate("喜欢喝茶"), _candidate("Loves cold brew")], "我不喜欢喝茶了", limit=5)
    assert [c.text for c in shown] == ["喜欢喝茶"]


def test_an_inflected_word_meets_the_item_it_names() -> None:
    shown = relevant([_candidate("Loves to run"), _candidate("Drinks tea")], "Went running by the river", limit=5)
    assert [c.text for c in shown] == ["Loves to run"]
