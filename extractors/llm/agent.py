"""The person's assistant as the extractor (docs/spec.md §9.5): what it is handed, and how its answer is read.

The assistant reads a batch as the model would: the same instructions, the same request text (the
author profile, the numbered existing items, the sources by short id), the same JSON schema. Its
answer is read by the same code as the model's reply (evidence_reply.py), entry by entry. It only
proposes: what it answers goes through the rules like any extractor's evidence.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel

from hylo_memory.decay import Dimension, MemoryFile
from hylo_memory.domain.sources import Source
from hylo_memory.domain.usage import Usage
from hylo_memory.templates import render

from ..base import AuthorProfile, Candidate, Cluster, Decision, Extraction, Progress
from .batching import Part, estimate_tokens
from .evidence_reply import Asked, read_evidence, read_preferences, shown
from .llm_batches import within
from .replies import ExtractionReply, SynthesisReply, strict_schema

Kind = Literal["extract", "synthesis"]
NOT_COLLECTED = "its note was read meanwhile, or changed after it was handed out (a changed note comes again)"


class Handout(BaseModel):
    """One batch for the assistant: what to do, what to read, and the shape of the answer."""

    kind: Kind
    instructions: str
    request: str  # the text the model's request carries: profile, numbered items, sources by id
    answer_schema: dict[str, Any]
    asked: Asked | None = None  # extract: the sources by id and the items by number, to read the answer by
    clusters: dict[int, Cluster] = {}  # synthesis: the themes by number

    def sources(self) -> list[tuple[str, Source]]:
        return list(self.asked.sources.items()) if self.asked else []


def extract_handout(parts: list[Part], existing: list[Candidate], profile: AuthorProfile, items_tokens: int,
                    first_id: int = 1) -> Handout:
    """A batch of sources (pieces of long ones) with the existing items relevant to it, within `items_tokens`;
    its source ids counted from `first_id` (S37, S38, …)."""
    numbered = [(f"S{i}", part) for i, part in enumerate(parts, start=first_id)]
    text = "\n".join(p.text for p in parts)
    items = list(enumerate(within(shown(existing, text), items_tokens), start=1))
    return Handout(kind="extract", instructions=render("extract_instructions.j2"),
                   request=render("extract_request.j2", profile=profile, candidates=items, sources=numbered),
                   answer_schema=strict_schema(ExtractionReply),
                   asked=Asked(sources={sid: part.source for sid, part in numbered}, items=dict(items),
                               author=[n for n in (profile.name, *profile.aliases) if n]))


def synthesis_handout(clusters: list[Cluster], profile: AuthorProfile) -> Handout:
    """The themes of the units the person read, not wrote, each to be worded as one trait."""
    numbered = list(enumerate(clusters, start=1))
    return Handout(kind="synthesis", instructions=render("synthesise_instructions.j2"),
                   request=render("synthesise_request.j2", clusters=numbered, profile=profile),
                   answer_schema=strict_schema(SynthesisReply), clusters=dict(numbered))


def handout_tokens(handout: Handout) -> int:
    return sum(map(estimate_tokens, (handout.instructions, handout.request, json.dumps(handout.answer_schema))))


def read_answer(handout: Handout, answer: Any, cap: int) -> Extraction:
    """The assistant's answer, read entry by entry as a model's reply is: a JSON object (`{"evidence": […]}` or
    `{"preferences": […]}`), its list alone, or that JSON as text. Raises InvalidReply when it is none of these."""
    key = "evidence" if handout.kind == "extract" else "preferences"
    if isinstance(answer, str) and answer.lstrip().startswith("["):  # its list alone, as text
        answer = f'{{"{key}": {answer}}}'
    if isinstance(answer, list):
        answer = {key: answer}
    raw = answer if isinstance(answer, str) else json.dumps(answer)
    if handout.kind == "extract":
        assert handout.asked is not None
        return read_evidence(raw, handout.asked, cap)
    return read_preferences(raw, handout.clusters)


class Answered:
    """An extractor that has its answer already: the assistant's, read, for the sources of its lease.

    A run given it extracts exactly those sources (what the run collects beyond them waits); a theme
    the lease did not ask about gets no wording, as the model's run gives none to a theme it did not word."""

    def __init__(self, name: str, extraction: Extraction, clusters: dict[int, Cluster] | None = None):
        self.name = name
        self.extraction = extraction
        self.clusters = clusters or {}
        self.usage = Usage()

    def extract(self, sources: list[Source], profile: AuthorProfile, existing: list[Candidate],
                progress: Progress | None = None) -> Extraction:
        paths = {s.path for s in sources}
        result = self.extraction.model_copy(deep=True)
        # A leased note the run did not collect was read meanwhile, or edited after the hand-out (it waits).
        result.drop(NOT_COLLECTED, *(e.text for e in result.evidence if e.source not in paths))
        result.evidence = [e for e in result.evidence if e.source in paths]
        if progress is not None:
            progress(sorted(paths), result.evidence)
        return result

    def synthesise(self, clusters: list[Cluster], profile: AuthorProfile) -> Extraction:
        asked = {tuple(sorted(c.sources)) for c in self.clusters.values()}
        # The run's own clusters, those the lease asked about: the answer's evidence is theirs.
        wanted = {p for c in clusters if tuple(sorted(c.sources)) in asked for p in c.sources}
        result = Extraction(evidence=[e for e in self.extraction.evidence if e.source in wanted])
        return result

    def classify(self, text: str, dimension: Dimension | None, pinned: bool | None, *,
                 memory: dict[Dimension, MemoryFile | None] | None = None) -> Decision:
        raise NotImplementedError("an assistant's answer classifies no stated fact: `remember` does")
