"""The offline extractor: first-person patterns and a keyword classifier, no model."""

from __future__ import annotations

import re

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.decay.model import MAX_ITEM_TEXT, clean_text

from .base import AuthorProfile, Candidate, Cluster, Decision, Extraction, Progress, Source
from .patterns import RELATIONS, statements
from .synthesis import cluster_evidence

# Keyword cues for `remember` without a dimension, strongest first.
_CUES: list[tuple[Dimension, re.Pattern[str]]] = [
    (Dimension.state, re.compile(r"\b(feel|feeling|felt|tired|stressed|exhausted|anxious|today|tonight|this week|"
                                 r"right now|lately|mood|sick|overwhelmed)\b", re.I)),
    (Dimension.goals, re.compile(r"\b(want to|going to|plan to|planning|goal|working on|aim to|hope to|trying to|"
                                 r"learn|learning|finish|launch|build|building|training for|studying|preparing)\b",
                                 re.I)),
    (Dimension.people, re.compile(rf"\bmy ({'|'.join(map(re.escape, RELATIONS))})\b", re.I)),
    (Dimension.beliefs, re.compile(r"\b(believe|think that|convinced|should|value|matters?|principle)\b", re.I)),
    (Dimension.identity, re.compile(r"\b(my name|call me|i am called|i'm called|live in|living in|work as|work at|"
                                    r"i'm from|i am from|born|speak|years old|my job|married|native)\b", re.I)),
    # "I'm a nurse", "I am an architect": a role, unless it is a diet or a taste.
    (Dimension.identity, re.compile(r"\bi(?:'m|’m| am) an? (?!(?:vegetarian|vegan|pescatarian|fan|big fan|"
                                    r"morning person|night owl|huge)\b)[a-z-]+(?: [a-z-]+)?\s*[.!]?$", re.I)),
]


class OfflineExtractor:
    """Honest pattern matching over the author's own first-person sentences."""

    name = "offline"

    def extract(self, sources: list[Source], profile: AuthorProfile, existing: list[Candidate],
                progress: Progress | None = None) -> Extraction:
        # Offline extraction is instant: nothing is worth keeping before the run ends.
        evidence = []
        for source in sources:
            allowed = source.dimensions
            for dimension, text in statements(source.text):
                if dimension in allowed:
                    evidence.append(Evidence(dimension=dimension, text=text, source=source.path, date=source.date))
        return Extraction(evidence=evidence)

    def synthesise(self, clusters: list[Cluster], profile: AuthorProfile) -> Extraction:
        evidence = []
        for cluster in clusters:
            evidence += cluster_evidence(cluster, trait_wording(cluster))
        return Extraction(evidence=evidence)

    def classify(self, text: str, dimension: Dimension | None, pinned: bool | None) -> Decision:
        how = []
        if dimension is None:
            dimension = next((d for d, cue in _CUES if cue.search(text)), Dimension.preferences)
            how.append(f"filed under {dimension.value} by keywords (offline, no LLM)")
        if pinned is None:
            pinned = dimension.pinned_by_default
        return Decision(dimension=dimension, text=text, pinned=pinned, reason="; ".join(how))


def trait_wording(cluster: Cluster) -> str:
    """A trait from a cluster's strongest themes: "Keeps coming back to databases and consensus"."""
    if cluster.trait:
        return fit_item(cluster.trait)  # a theme keeps the wording it already has
    themes = [t.replace("-", " ").replace("_", " ") for t in cluster.tags[:3]]
    listed = themes[0] if len(themes) == 1 else ", ".join(themes[:-1]) + " and " + themes[-1]
    return fit_item(f"Keeps coming back to {listed}")


def fit_item(text: str) -> str:
    """The wording cut to one item's length at a word, marked "…": a tag may be any length."""
    text = clean_text(text)
    if len(text) <= MAX_ITEM_TEXT:
        return text
    cut = text[: MAX_ITEM_TEXT - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,") + "…"
