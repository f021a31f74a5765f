"""Quotes leave no holes: a sentence with a quotation is read whole (a title kept) or not at all (speech)."""

from __future__ import annotations

import pytest

from hylo_memory.decay import Dimension
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.extractors.offline.patterns import statements

P, G, B, S = Dimension.preferences, Dimension.goals, Dimension.beliefs, Dimension.state

TITLES = [
    ("I want to read “The Dispossessed” before the end of the year.", G,
     "Wants to read “The Dispossessed” before the end of the year"),
    ("I prefer tabs over “spaces”.", P, "Prefers tabs over “spaces”"),
    ('I prefer tabs over "spaces".', P, 'Prefers tabs over "spaces"'),
    ("I love “Dune” and “Foundation”.", P, "Loves “Dune” and “Foundation”"),
    ("My favourite book is “Dune”.", P, "Favourite book: “Dune”"),
    ("I believe “less is more”.", B, "Believes “less is more”"),
    ("I love «Amélie».", P, "Loves «Amélie»"),
    ("我希望从“旧版”升级为“新版”。", G, "希望从“旧版”升级为“新版”"),
    ("我最喜欢的书是“三体”。", P, "最喜欢的书是“三体”"),
    ("我想读《三体》和「活着」。", G, "想读《三体》和「活着」"),
]


@pytest.mark.parametrize(("sentence", "dimension", "wording"), TITLES, ids=[t[0] for t in TITLES])
def test_a_quoted_title_in_the_authors_sentence_is_kept_whole(sentence: str, dimension: Dimension,
                                                              wording: str) -> None:
    assert statements(sentence) == [(dimension, wording)]


HOLES = ["I want to read “The Dispossessed” before the end of the year.", "I prefer tabs over “spaces”.",
         "我希望从“旧版”升级为“新版”。", "I love “It” and “Carrie”."]


@pytest.mark.parametrize("sentence", HOLES)
def test_no_wording_ever_has_a_hole_where_a_quotation_was(sentence: str) -> None:
    wordings = [w for _, w in statements(sentence)]
    assert wordings and all("“" in w for w in wordings)
    assert not any(w.endswith((" over", " read", "为")) or "  " in w or "从 " in w for w in wordings)


SPEECH = [
    ("She said “I love Berlin”.", "speech after a speaking verb, in the first person"),
    ("She said “Berlin is lovely” and I love it.", "speech after a speaking verb"),
    ("“Berlin is lovely,” she said, and I love Berlin.", "speech before a speaking verb"),
    ("She always says “less is more”, and I believe in it.", "speech, and a pronoun for an object"),
    ('I love his line: "small teams win".', "speech after a colon"),
    ("My mentor’s line, “never ship on a Friday afternoon before a long weekend please”, I love.",
     "a long quotation is speech"),
    ("I love “I, Robot”.", "a quotation in the first person is never taken as a title"),
    ("她说“我爱柏林”。", "Chinese speech after 说"),
    ("“柏林很美，”她说。", "Chinese speech before 她说"),
    ("他说“少即是多”，我很认同。", "Chinese speech, its sentence not read"),
]


@pytest.mark.parametrize(("sentence", "why"), SPEECH, ids=[s[1] for s in SPEECH])
def test_someones_quoted_speech_is_not_taken_as_the_authors(sentence: str, why: str) -> None:
    assert statements(sentence) == []


def test_the_authors_sentence_after_a_quoted_sentence_is_still_read() -> None:
    assert statements('Joana said "I love Berlin." I love Porto.') == [(P, "Loves Porto")]


def test_a_sentence_holding_speech_is_not_read_around_it() -> None:
    # Cut out, the speech would leave "Loves" with what follows: the author's words around it are about it.
    assert statements("I love what she said: “be kind to yourself” every day.") == []


def test_a_quoted_title_keeps_its_own_words_not_the_authors() -> None:
    # "my" in the author's words reads "their"; a title's words are the title's.
    assert statements("I want to reread “Mrs Dalloway” with my sister.") == [
        (G, "Wants to reread “Mrs Dalloway” with their sister")]


def test_remember_keeps_a_quoted_title_whole() -> None:
    decision = OfflineExtractor().classify("I want to read “The Dispossessed”", None, None)
    assert (decision.dimension, decision.text) == (G, "Wants to read “The Dispossessed”")


def test_a_quoted_mood_someone_else_felt_is_not_the_authors() -> None:
    assert statements("“I'm exhausted,” Ana said.") == []
    assert S not in {d for d, _ in statements("“我很累”，她说。")}
