"""The external pool: theme clusters of units the author read, not wrote (SPEC §4.5).

The pool outlives a run: units read on different nights join one theme. A cluster is
offered for synthesis when it has two units or more and one at least is new; only the
new units are evidence, so a unit counts towards `seen` once, the night it is read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from hylo_memory.decay import Dimension, Evidence

from .base import Cluster, PoolUnit, Source
from .words import STOP_WORDS

_TITLE_WORD = re.compile(r"[^\W\d_]{5,}")


def pool_unit(unit: Source) -> PoolUnit:
    return PoolUnit(path=unit.path, title=unit.title or unit.path, tags=unit.tags, date=unit.date)


def themes(unit: PoolUnit) -> set[str]:
    """What a unit is about: its tags, or its title's longer words when it has no tags."""
    if unit.tags:
        return {t.lower() for t in unit.tags}
    words = _TITLE_WORD.findall(unit.title.lower())
    return {w for w in words if w not in STOP_WORDS}


def cluster_units(new: list[PoolUnit], earlier: Sequence[PoolUnit] = ()) -> list[Cluster]:
    """Group units sharing a theme (transitively); keep groups of two or more with a new unit."""
    fresh = {u.path for u in new}
    units = list(new) + [u for u in earlier if u.path not in fresh]  # an edited unit is new again
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
    groups: dict[int, list[PoolUnit]] = {}
    for i, unit in enumerate(units):
        groups.setdefault(root(i), []).append(unit)
    clusters = []
    for members in groups.values():
        if len(members) < 2 or not any(u.path in fresh for u in members):
            continue  # one reading is not a preference; an old theme with nothing new waits
        counts = Counter(t for u in members for t in themes(u))
        traits = Counter(u.trait for u in members if u.trait)
        clusters.append(Cluster(
            tags=[t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))],
            titles=[u.title for u in members],
            sources=[u.path for u in members if u.path in fresh],
            earlier=[u.path for u in members if u.path not in fresh],
            trait=min(traits, key=lambda t: (-traits[t], t)) if traits else None,
            date=max(u.date for u in members),
        ))
    return sorted(clusters, key=lambda c: c.sources)


def cluster_evidence(cluster: Cluster, wording: str) -> list[Evidence]:
    """One preference for a cluster, supported by each new unit (so `seen` counts them once).

    A theme already in memory is tied to its item through `matches`, whatever the new wording.
    """
    return [
        Evidence(dimension=Dimension.preferences, text=wording, source=path, date=cluster.date, matches=cluster.trait)
        for path in cluster.sources
    ]
