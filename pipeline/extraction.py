"""Running the extractor over a run's sources, and checking what it proposes.

Whatever the extractor, the pipeline has the last word: evidence must come from a
source of the batch, in a dimension that source may give, and is dated by its source.
"""

from __future__ import annotations

from hylo_memory.decay import Dimension, Evidence, MemoryFile
from hylo_memory.extractors.base import Candidate, Extraction, Extractor, AuthorProfile, Perspective, Source
from hylo_memory.extractors.synthesis import cluster_units


def extract_all(
    extractor: Extractor,
    sources: list[Source],
    profile: AuthorProfile,
    files: dict[Dimension, MemoryFile | None],
) -> Extraction:
    """Evidence from personal sources, then one synthesised preference per external cluster."""
    existing = [Candidate(dimension=d, text=i.text) for d, f in files.items() if f for i in f.items]
    personal = [s for s in sources if s.perspective is not Perspective.external]
    pool = [s for s in sources if s.perspective in (Perspective.external, Perspective.mixed)]
    result = Extraction()
    if personal:
        result.merge(checked(extractor.extract(personal, profile, existing), personal, synthesis=False))
    clusters = cluster_units(pool)
    if clusters:
        result.merge(checked(extractor.synthesise(clusters, profile), pool, synthesis=True))
    # A source is extracted whole or not at all: evidence from a source that failed in
    # one part would be counted again when the next run extracts it.
    result.evidence = [e for e in result.evidence if e.source not in result.failed]
    return result


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
