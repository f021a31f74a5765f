"""Running the extractor over a run's sources, and checking what it proposes.

Whatever the extractor, the pipeline has the last word: evidence must come from a
source of the batch, in a dimension that source may give, and is dated by its source.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from hylo_memory.decay import Dimension, Evidence, MemoryFile
from hylo_memory.domain.sources import Perspective, PoolUnit, Source
from hylo_memory.extractors.base import AuthorProfile, Candidate, Extraction, Extractor, Progress
from hylo_memory.extractors.synthesis import cluster_units, pool_unit


class Extracted(BaseModel):
    """A run's extraction, and the external units it adds to the pool (with their theme's wording)."""

    extraction: Extraction
    pool: list[PoolUnit]
    synthesised: list[tuple[str, str]] = []  # (unit, wording) of each piece of evidence a theme's synthesis gave


def extract_all(
    extractor: Extractor,
    sources: list[Source],
    profile: AuthorProfile,
    files: dict[Dimension, MemoryFile | None],
    earlier_pool: list[PoolUnit],
    cap: int,
    kept: dict[str, list[Evidence]] | None = None,
    keep: Progress | None = None,
) -> Extracted:
    """Evidence from personal sources, then one synthesised preference per external theme.

    Sources in `kept` (extracted whole by an interrupted run) are not sent again: their kept
    evidence is used. `keep` is told, checked, of each source the extractor finishes.
    """
    kept = kept or {}
    existing = [Candidate(dimension=d, text=i.text) for d, f in files.items() if f for i in f.items]
    personal = [s for s in sources if s.perspective is not Perspective.external]
    external = [s for s in sources if s.perspective in (Perspective.external, Perspective.mixed)]
    result = Extraction()
    if kept:
        earlier = Extraction(evidence=[e for evidence in kept.values() for e in evidence])
        result.merge(checked(earlier, personal, synthesis=False, cap=cap))
    fresh = [s for s in personal if s.path not in kept]
    if fresh:
        def progress(paths: list[str], evidence: list[Evidence]) -> None:
            if keep is not None:
                keep(paths, checked(Extraction(evidence=evidence), fresh, synthesis=False, cap=cap).evidence)

        extraction = extractor.extract(fresh, profile, existing, progress if keep is not None else None)
        result.merge(checked(extraction, fresh, synthesis=False, cap=cap))
    # A unit read again (edited, or by another extractor) keeps its theme's wording: the theme stays one item.
    worded = {u.path: u.trait for u in earlier_pool if u.trait}
    new_pool = [pool_unit(s).model_copy(update={"trait": worded.get(s.path)}) for s in external]
    clusters = cluster_units(new_pool, earlier_pool)
    traits: dict[str, str] = {}  # unit → the wording its theme is kept as
    if clusters:
        synthesis = checked(extractor.synthesise(clusters, profile), external, synthesis=True, cap=cap)
        traits = {e.source: e.matches or e.text for e in synthesis.evidence}
        result.merge(synthesis)
    # A source is extracted whole or not at all: evidence from a source that failed in
    # one part would be counted again when the next run extracts it.
    result.evidence = [e for e in result.evidence if e.source not in result.failed]
    pool = [u.model_copy(update={"trait": traits.get(u.path)}) for u in new_pool if u.path not in result.failed]
    return Extracted(extraction=result, pool=pool,
                     synthesised=[(e.source, e.text) for e in synthesis.evidence] if clusters else [])


def checked(extraction: Extraction, sources: list[Source], synthesis: bool, cap: int) -> Extraction:
    """Keep only evidence the pipeline can stand behind, at most `cap` a source; count the rest as dropped."""
    by_path = {s.path: s for s in sources}
    dropped = [d.model_copy(deep=True) for d in extraction.dropped]
    result = extraction.model_copy(update={"evidence": [], "dropped": dropped})
    per_source: Counter[str] = Counter()
    for ev in extraction.evidence:
        source = by_path.get(ev.source)
        allowed = {Dimension.preferences} if synthesis else (source.dimensions if source else set())
        problem = ("not from a source of the run" if source is None else
                   "a dimension its source may not give" if ev.dimension not in allowed else
                   "its source failed" if ev.source in extraction.failed else
                   f"past the limit of {cap} a source" if per_source[ev.source] >= cap else None)
        if problem is not None or source is None:
            result.drop(problem or "", ev.text)
            continue
        per_source[ev.source] += 1
        result.evidence.append(ev.model_copy(update={"date": source.date}))
    return result
