"""The offline classifier (`remember` without a dimension, and the LoCoMo oracle) on a labelled set written for
the test: lasting facts about a person — where they are from, their work, their family, their pets — are filed
where they last (identity, 365 days; a named person or pet under people), not under preferences (docs/spec.md §5).
"""

from __future__ import annotations

from collections import Counter

import pytest

from hylo_memory.decay import Dimension
from hylo_memory.extractors.offline.offline import OfflineExtractor

I, P, G, B, PE, S = (Dimension.identity, Dimension.preferences, Dimension.goals, Dimension.beliefs,
                     Dimension.people, Dimension.state)

LABELLED: list[tuple[str, Dimension]] = [
    # where they are from, where they live
    ("Caroline is from Sweden.", I), ("Melanie moved from Sweden four years ago.", I),
    ("Jon grew up in a small town in Ohio.", I), ("Gina lives in Chicago with her roommate.", I),
    ("Maria was born in Mexico City.", I), ("John moved to Boston for graduate school.", I),
    # their work
    ("Jon is a dancer who runs his own dance studio.", I), ("Gina owns a store where she sells fashion pieces.", I),
    ("Melanie works as a counselor at a local clinic.", I), ("John is a software engineer at a startup.", I),
    ("Jon left his secure 9-5 job as a banker.", I), ("Maria is a nurse.", I),
    ("Caroline is studying counseling at the university.", G),
    # who they are
    ("Caroline is a transgender woman.", I), ("John is 34 years old.", I), ("Maria speaks Spanish and English.", I),
    ("Melanie is married and has three kids.", I), ("John is a single dad.", I),
    # the people and pets in their life
    ("Melanie's husband is named Tom.", PE), ("Caroline's best friend is Mel.", PE),
    ("John has a dog named Max.", PE), ("Maria adopted a cat called Luna.", PE),
    ("Gina's mother taught her to sew.", PE), ("Jon's brother lives in Denver.", PE),
    # tastes
    ("Melanie loves painting sunsets.", P), ("John enjoys hiking on weekends.", P),
    ("Gina's favourite food is sushi.", P), ("Caroline likes reading fantasy novels.", P),
    # goals, beliefs, state
    ("Jon wants to open a second studio next year.", G), ("Caroline is planning to adopt a child.", G),
    ("Melanie believes family matters more than work.", B), ("John thinks that education should be free.", B),
    ("Gina feels overwhelmed this week.", S), ("Melanie is tired today after the trip.", S),
    # the person's own words, as `remember` hears them
    ("I'm from Porto", I), ("I work as a nurse", I), ("My sister Ines lives in Lisbon", PE),
    ("I love long walks by the river", P), ("I want to run a half marathon", G), ("I'm exhausted this week", S),
]


def test_the_classifier_files_the_labelled_set_where_each_fact_lasts() -> None:
    classifier = OfflineExtractor()
    wrong = [(text, want.value, got.value) for text, want in LABELLED
             if (got := classifier.classify(text, None, None).dimension) is not want]
    assert len(wrong) <= len(LABELLED) // 10, wrong  # at least 90 % right


@pytest.mark.parametrize(("text", "want"), [(t, d) for t, d in LABELLED if d in (I, PE)][:12])
def test_a_lasting_fact_is_never_filed_under_preferences(text: str, want: Dimension) -> None:
    assert OfflineExtractor().classify(text, None, None).dimension is not Dimension.preferences


def test_the_labelled_set_covers_every_dimension() -> None:
    assert set(Counter(d for _, d in LABELLED)) == set(Dimension)


@pytest.mark.parametrize(("text", "want"), [
    ("I'm allergic to peanuts", I), ("我对花生过敏", I), ("I'm 34", I), ("I've been a teacher for ten years", I),
    ("我有两个孩子", I), ("我的猫叫Milo", PE), ("I'm looking for a flat in Lyon", G), ("我在找工作", G),
])
def test_the_body_an_age_a_past_role_a_pet_and_a_search_are_filed_where_they_last(text: str, want: Dimension) -> None:
    assert OfflineExtractor().classify(text, None, None).dimension is want
