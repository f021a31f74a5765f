"""The offline extractor: first-person sentences → (dimension, wording); other people's words are left alone."""

from __future__ import annotations

import pytest
from vault_helpers import day

from hylo_memory.decay import Dimension
from hylo_memory.extractors.base import AuthorProfile, Cluster, Perspective, Source, SourceKind
from hylo_memory.extractors.offline import OfflineExtractor, trait_wording
from hylo_memory.extractors.patterns import statements

I, P, G, B, PE, S = (Dimension.identity, Dimension.preferences, Dimension.goals, Dimension.beliefs, Dimension.people,
                     Dimension.state)

EXTRACTED = [
    # identity
    ("My name is Maya Okafor.", I, "Name is Maya Okafor"),
    ("I work as a data engineer at Tramline.", I, "Works as a data engineer at Tramline"),
    ("I'm an editor at Penguin.", I, "Works as an editor at Penguin"),
    ("I work at Tramline.", I, "Works at Tramline"),
    ("I live in Lisbon.", I, "Lives in Lisbon"),
    ("I moved to Porto last year.", I, "Lives in Porto"),
    ("I'm from Lagos.", I, "Is from Lagos"),
    ("I speak Portuguese, English and Yoruba.", I, "Speaks English, Portuguese and Yoruba"),
    # preferences
    ("I love running before the city wakes up.", P, "Loves running before the city wakes up"),
    ("I really enjoy grilled sardines.", P, "Enjoys grilled sardines"),
    ("I like my coffee black.", P, "Likes their coffee black"),
    ("I prefer tea over coffee.", P, "Prefers tea over coffee"),
    ("I hate Jira.", P, "Dislikes Jira"),
    ("I can't stand open-plan offices.", P, "Dislikes open-plan offices"),
    ("My favourite editor is Neovim.", P, "Favourite editor: Neovim"),
    ("I always use Neovim for everything.", P, "Uses Neovim"),
    ("I'm vegetarian.", P, "Is vegetarian"),
    ("Honestly I love Postgres, but not its vacuum.", P, "Loves Postgres"),
    ("I love Postgres — especially its docs.", P, "Loves Postgres"),
    # goals
    ("I want to run a marathon.", G, "Wants to run a marathon"),
    ("My goal is to reach 1,000 listeners.", G, "Goal: reach 1,000 listeners"),
    ("I'm working on the Dagster migration.", G, "Working on the Dagster migration"),
    ("I plan to visit Kyoto in spring.", G, "Plans to visit Kyoto in spring"),
    # beliefs
    ("I believe boring technology is underrated.", B, "Believes boring technology is underrated"),
    ("I think that data contracts are a social problem.", B, "Thinks data contracts are a social problem"),
    ("I'm convinced that tests are specifications.", B, "Is convinced tests are specifications"),
    # people
    ("My sister Ines lives in Porto.", PE, "Ines — sister"),
    ("Kwame, my best friend, called.", PE, "Kwame — best friend"),
    ("Lunch with my manager, Rui.", PE, "Rui — manager"),
    # state
    ("I'm so stressed about the cutover.", S, "Feeling stressed about the cutover"),
    ("I feel exhausted after the offsite.", S, "Feeling exhausted after the offsite"),
    ("I feel stretched thin.", S, "Feels stretched thin"),
    # the curly apostrophe is an apostrophe
    ("I’m from Lagos.", I, "Is from Lagos"),
    # a sentence in a list item
    ("- I live in Lisbon.", I, "Lives in Lisbon"),
]

NOT_EXTRACTED = [
    # quoted speech: someone else's words
    ('She said "I love Jira" and laughed.', "double quotes"),
    ("He told me “I live in Paris.”", "curly double quotes"),
    ("‘I love Jira,’ she said.", "curly single quotes"),
    ("‘I’m so stressed,’ she said.", "curly single quotes around an apostrophe"),
    ("Elle a dit «I love Jira».", "guillemets"),
    ('He wrote: "I live in Paris. I believe in magic." Then he left.', "a quotation of several sentences"),
    # block quotes
    ("> I believe in magic.", "a block quote"),
    ("   > I live in Paris.", "an indented block quote"),
    (">> I love Jira.", "a nested block quote"),
    # not about the author
    ("The team loves Jira.", "third person"),
    ("We believe in testing.", "first person plural"),
    # not a statement
    ("Do I really want to quit?", "a question"),
    ("Why do I hate Mondays?", "a question"),
    ("If I moved to Berlin, I would miss the sea.", "a supposition"),
    ("Unless I live in Porto by then, we'll see.", "a supposition"),
    # negated, past or vague
    ("I don't like Jira.", "a negation"),
    ("I never use Emacs.", "a negation"),
    ("I used to live in Berlin.", "the past"),
    ("I love it.", "a pronoun for an object"),
    ("I hate that.", "a pronoun for an object"),
    ("I love it when I win.", "a wording still in the first person"),
    ("I think it will rain.", "an opinion about the weather, not a belief"),
    ("I feel like a walk.", "a passing wish"),
    ("i live in lisbon.", "a place without its capital"),
    ("", "nothing"),
]


@pytest.mark.parametrize(("sentence", "dimension", "wording"), EXTRACTED, ids=[c[0] for c in EXTRACTED])
def test_sentence_gives_this_dimension_and_wording(sentence: str, dimension: Dimension, wording: str) -> None:
    assert statements(sentence) == [(dimension, wording)]


@pytest.mark.parametrize(("sentence", "why"), NOT_EXTRACTED, ids=[c[1] + ": " + c[0] for c in NOT_EXTRACTED])
def test_sentence_gives_nothing(sentence: str, why: str) -> None:
    assert statements(sentence) == []


def test_authors_sentence_after_a_block_quote_is_still_extracted() -> None:
    text = "> I believe in magic.\n> I live in Paris.\n\nI live in Lisbon."
    assert statements(text) == [(I, "Lives in Lisbon")]


def test_authors_sentence_beside_a_quotation_is_still_extracted() -> None:
    assert statements('Joana said "I hate podcasts." I love podcasts.') == [(P, "Loves podcasts")]


def test_a_quotation_across_lines_is_not_extracted() -> None:
    assert statements('"I love\nJira," she said.') == []


def test_supposition_is_only_the_clause_it_opens() -> None:
    assert statements("If it rains, I love staying in.") == [(P, "Loves staying in")]


def test_one_sentence_may_give_several_dimensions() -> None:
    assert statements("I'm a nurse at Santa Maria, and I love night shifts.") == [
        (I, "Works as a nurse at Santa Maria"), (P, "Loves night shifts"),
    ]


def test_the_same_statement_twice_in_a_note_is_one_wording() -> None:
    assert statements("I love tea. Later: I love tea.") == [(P, "Loves tea")]


# The extractor over sources


def source(text: str, perspective: Perspective = Perspective.own, kind: SourceKind = SourceKind.short) -> Source:
    return Source(path="_shorts/2026-11-29-a.md", kind=kind, date=day("2026-11-29"), text=text, content_hash="h",
                  perspective=perspective)


def test_extractor_gives_evidence_dated_and_sourced_by_its_note() -> None:
    [evidence] = OfflineExtractor().extract([source("I live in Lisbon.")], AuthorProfile(), []).evidence
    assert (evidence.dimension, evidence.text, evidence.source, evidence.date) == (
        I, "Lives in Lisbon", "_shorts/2026-11-29-a.md", day("2026-11-29"),
    )


def test_extractor_gives_nothing_from_an_external_source() -> None:
    unit = source("I believe in magic. My sister Ana agrees.", Perspective.external, SourceKind.knowledge)
    assert OfflineExtractor().extract([unit], AuthorProfile(), []).evidence == []


def test_extractor_never_fails_a_source() -> None:
    assert OfflineExtractor().extract([source("\x7f garbage ☃")], AuthorProfile(), []).failed == []


def test_synthesis_gives_one_preference_per_unit_of_the_cluster() -> None:
    cluster = Cluster(tags=["consensus", "databases"], titles=["Raft", "Paxos"],
                      sources=["_knowledge/raft.md", "_knowledge/paxos.md"], date=day("2026-11-25"))
    evidence = OfflineExtractor().synthesise([cluster], AuthorProfile()).evidence
    assert [(e.dimension, e.text, e.source, e.date) for e in evidence] == [
        (P, "Keeps coming back to consensus and databases", "_knowledge/raft.md", day("2026-11-25")),
        (P, "Keeps coming back to consensus and databases", "_knowledge/paxos.md", day("2026-11-25")),
    ]


@pytest.mark.parametrize(("tags", "wording"), [
    (["fermentation"], "Keeps coming back to fermentation"),
    (["distributed-systems", "databases"], "Keeps coming back to distributed systems and databases"),
    (["a", "b", "c", "d"], "Keeps coming back to a, b and c"),
])
def test_trait_wording_names_the_strongest_themes(tags: list[str], wording: str) -> None:
    cluster = Cluster(tags=tags, titles=["x", "y"], sources=["x", "y"], date=day("2026-11-25"))
    assert trait_wording(cluster) == wording


@pytest.mark.parametrize(("text", "dimension"), [
    ("I feel tired today", Dimension.state),
    ("I want to learn Rust", Dimension.goals),
    ("My sister is called Ana", Dimension.people),
    ("I believe in public transport", Dimension.beliefs),
    ("I live in Lisbon", Dimension.identity),
    ("Always answer in English", Dimension.preferences),
])
def test_classify_files_a_stated_fact_by_keywords(text: str, dimension: Dimension) -> None:
    assert OfflineExtractor().classify(text, None, None).dimension is dimension


@pytest.mark.parametrize(("dimension", "pinned"), [(d, d not in (Dimension.goals, Dimension.state)) for d in Dimension])
def test_classify_pins_standing_facts_but_not_goals_or_state(dimension: Dimension, pinned: bool) -> None:
    assert OfflineExtractor().classify("Something", dimension, None).pinned is pinned
