"""The external pool: theme clusters of units the author read, not wrote (SPEC §4.5)."""

from __future__ import annotations

import re
from collections import Counter

from hylo_memory.decay import Dimension, Evidence

from .base import Cluster, Source

_TITLE_WORD = re.compile(r"[^\W\d_]{5,}")
_STOP = frozenset("about after again against among because before being between could every other their there these "
                  "thing things those through under using which while would notes summary review".split())


def themes(unit: Source) -> set[str]:
    """What a unit is about: its tags, or its title's longer words when it has no tags."""
    if unit.tags:
        return {t.lower() for t in unit.tags}
    words = _TITLE_WORD.findall((unit.title or "").lower())
    return {w for w in words if w not in _STOP}


def cluster_units(units: list[Source]) -> list[Cluster]:
    """Group units sharing a theme (transitively); clusters of one are dropped."""
    parent = list(range(len(units)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_with: dict[str, int] = {}
    for i, unit in enumerate(units):
        for theme in sorted(themes(unit)):
            if theme in first_with:
                parent[root(i)] = root(first_with[theme])
            else:
                first_with[theme] = i
    groups: dict[int, list[Source]] = {}
    for i, unit in enumerate(units):
        groups.setdefault(root(i), []).append(unit)
    clusters = []
    for members in groups.values():
        if len(members) < 2:
            continue  # one reading is not a preference
        counts = Counter(t for u in members for t in themes(u))
        tags = [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        clusters.append(Cluster(
            tags=tags,
            titles=[u.title or u.path for u in members],
            sources=[u.path for u in members],
            date=max(u.date for u in members),
        ))
    return sorted(clusters, key=lambda c: c.sources)


def cluster_evidence(cluster: Cluster, wording: str) -> list[Evidence]:
    """One preference for a cluster, supported by each of its units (so `seen` counts them)."""
    return [
        Evidence(dimension=Dimension.preferences, text=wording, source=path, date=cluster.date)
        for path in cluster.sources
    ]
