"""Running the extractor over a run's sources, and checking what it proposes.

Whatever the extractor, the pipeline has the last word: evidence must come from a
source of the batch, in a dimension that source may give, and is dated by its source.
"""

from __future__ import annotations

from pydantic import BaseModel

from hylo_memory.decay import Dimension, Evidence, MemoryFile
from hylo_memory.extractors.base import AuthorProfile, Candidate, Extraction, Extractor, Perspective, PoolUnit, Source
from hylo_memory.extractors.synthesis import cluster_units, pool_unit


class Extracted(BaseModel):
    """A run's extraction, and the external units it adds to the pool (with their theme's wording)."""

    extraction: Extraction
    pool: list[PoolUnit]


def extract_all(
    extractor: Extractor,
    sources: list[Source],
    profile: AuthorProfile,
    files: dict[Dimension, MemoryFile | None],
    earlier_pool: list[PoolUnit],
) -> Extracted:
    """Evidence from personal sources, then one synthesised preference per external theme."""
    existing = [Candidate(dimension=d, text=i.text) for d, f in files.items() if f for i in f.items]
    personal = [s for s in sources if s.perspective is not Perspective.external]
    external = [s for s in sources if s.perspective in (Perspective.external, Perspective.mixed)]
    result = Extraction()
    if personal:
        result.merge(checked(extractor.extract(personal, profile, existing), personal, synthesis=False))
    new_pool = [pool_unit(s) for s in external]
    clusters = cluster_units(new_pool, earlier_pool)
    traits: dict[str, str] = {}  # unit → the wording its theme is kept as
    if clusters:
        synthesis = checked(extractor.synthesise(clusters, profile), external, synthesis=True)
        traits = {e.source: e.matches or e.text for e in synthesis.evidence}
        result.merge(synthesis)
    # A source is extracted whole or not at all: evidence from a source that failed in
    # one part would be counted again when the next run extracts it.
    result.evidence = [e for e in result.evidence if e.source not in result.failed]
    pool = [u.model_copy(update={"trait": traits.get(u.path)}) for u in new_pool if u.path not in result.failed]
    return Extracted(extraction=result, pool=pool)


def checked(extraction: Extraction, sources: list[Source], synthesis: bool) -> Extraction:
    """Keep only evidence the pipeline can stand behind; count the rest as dropped."""
    by_path = {s.path: s for s in sources}
    kept: list[Evidence] = []
    dropped = extraction.dropped
    for ev in extraction.evidence:
        source = by_path.get(ev.source)
        allowed = {Dimension.preferences} if synthesis else (source.dimensions if source else set())
        if source is None or ev.dimension not in allowed or ev.source in extraction.failed:
            dropped += 1
            continue
        kept.append(ev.model_copy(update={"date": source.date}))
    return extraction.model_copy(update={"evidence": kept, "dropped": dropped})
