"""Reading an extraction reply, entry by entry (docs/spec.md §4.5): the model's, or the person's assistant's.

One bad entry never costs the others: each is kept, or dropped with its reason (a kept one whose `restates` or
`supersedes` is not followed is counted apart, as `unlinked`: it was not dropped). Sources and items
are named by the short ids the request gave them (S1, S2, …; 1, 2, …), so a reply cannot invent a
path or an item.
"""

from __future__ import annotations

from pydantic import BaseModel

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.decay.match import normalise
from hylo_memory.decay.polarity import opposed
from hylo_memory.domain.sources import Source

from ..base import Candidate, Cluster, Extraction
from ..offline.attributed import why_not_kept
from ..synthesis import cluster_evidence
from .batching import relevant
from .replies import EvidenceEntry, PreferenceEntry, clean_text, parse_entries

MAX_CANDIDATES = 40  # existing items shown per request: the relevant ones, never whole files
# Identity items shown beside the relevant ones: the facts a note most often replaces while sharing no
# word with them ("I moved to Porto" / "Lives in Lisbon"), and few by nature.
MAX_STANDING = 8
_WITHOUT_IT = " (kept without it)"  # a rejected supersedes claim costs the claim, not the evidence
# "Hates X" never restates "Loves X" (docs/spec.md §3): the link goes, the fact stays.
OPPOSITE_RESTATES = "restates an item of the opposite polarity (kept as its own fact)"


class Asked(BaseModel):
    """What one request showed: its sources by id, and the existing items by number."""

    sources: dict[str, Source]
    items: dict[int, Candidate]
    author: list[str] = []  # the person's names: "<name> believes …" is their own view, not someone else's


def read_evidence(raw: str, asked: Asked, cap: int) -> Extraction:
    """The evidence a reply gives for the sources it was asked about, at most `cap` entries a source; every
    entry that cannot stand dropped with its reason. A reply that is not JSON at all raises InvalidReply."""
    # A reply may carry `cap` entries a source: a flood is not even read past that.
    entries = parse_entries(raw, "evidence", EvidenceEntry, limit=cap * len(asked.sources))
    result = Extraction()
    result.drop("not a valid evidence entry", *entries.invalid_examples, count=entries.invalid)
    result.drop("an unknown dimension", *entries.unknown_dimension)
    result.drop(f"past the reply's limit ({cap} a source)", *entries.over_limit_examples, count=entries.over_limit)
    for entry in entries.valid:
        source, text = asked.sources.get(entry.source.strip()), clean_text(entry.text)
        linked = asked.items.get(entry.restates) if entry.restates is not None else None
        problem = ("an unknown source id" if source is None else
                   "empty, over-long or not one line" if text is None else
                   "a dimension its source may not give" if entry.dimension not in source.dimensions else
                   "an unknown item number" if entry.restates is not None and linked is None else
                   why_not_kept(text, entry.dimension, asked.author))
        if problem is not None or source is None or text is None:
            result.drop(problem or "", entry.text)
            continue
        matches, restates = restated(linked, entry.restates, entry.dimension, text)
        if linked is not None and restates is None and linked.dimension == entry.dimension:
            result.unlink(OPPOSITE_RESTATES, text)
        replaced, ignored = superseded(entry.supersedes, asked.items, entry.dimension, text, restates)
        if ignored is not None:
            result.unlink(ignored + _WITHOUT_IT, text)
        result.evidence.append(Evidence(dimension=entry.dimension, text=text, source=source.path,
                                        date=source.date, matches=matches, supersedes=replaced))
    return result


def shown(existing: list[Candidate], text: str) -> list[Candidate]:
    """The existing items a batch is shown: those sharing its words, then identity facts it may replace."""
    chosen = relevant(existing, text, MAX_CANDIDATES)
    standing = [c for c in existing if c.dimension is Dimension.identity and c not in chosen][:MAX_STANDING]
    return chosen[: MAX_CANDIDATES - len(standing)] + standing


def read_preferences(raw: str, clusters: dict[int, Cluster]) -> Extraction:
    """One preference a cluster, worded as a trait; one piece of evidence a new unit of the cluster."""
    entries = parse_entries(raw, "preferences", PreferenceEntry, limit=len(clusters))
    result = Extraction()
    result.drop("not a valid preference entry", *entries.invalid_examples, count=entries.invalid)
    result.drop("past the reply's limit (one a cluster)", *entries.over_limit_examples, count=entries.over_limit)
    done: set[int] = set()
    for entry in entries.valid:
        text = clean_text(entry.text)
        problem = ("an unknown cluster number" if entry.cluster not in clusters else
                   "a second wording for its cluster" if entry.cluster in done else
                   "empty, over-long or not one line" if text is None else None)
        if problem is not None or text is None:
            result.drop(problem or "", entry.text)
            continue
        done.add(entry.cluster)
        result.evidence += cluster_evidence(clusters[entry.cluster], text)
    return result


def restated(linked: Candidate | None, number: int | None, dimension: Dimension,
             text: str) -> tuple[str | None, int | None]:
    """The text and number of the shown item a fact restates, or (None, None) when it restates none.

    A link to another dimension's item restates nothing; one to an item of the opposite polarity
    ("Hates working from the office on Mondays" for "Loves working from the office on Mondays")
    would join opposite facts, and is not followed: the fact is kept as its own (docs/spec.md §3).
    """
    if linked is None or linked.dimension != dimension or opposed(text, linked.text):
        return None, None
    return linked.text, number


def superseded(number: int | None, items: dict[int, Candidate], dimension: Dimension, text: str,
               restates: int | None) -> tuple[str | None, str | None]:
    """The text of the shown item a reply says this fact replaces, or why that claim is ignored."""
    if number is None:
        return None, None
    item = items.get(number)
    if item is None:
        return None, "an unknown item number in supersedes"
    if item.dimension is not dimension:
        return None, "supersedes an item of another dimension"
    if number == restates or normalise(item.text) == normalise(text):
        return None, "supersedes the item it restates"
    return item.text, None
