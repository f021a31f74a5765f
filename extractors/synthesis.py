"""The external pool: theme clusters of units the author read, not wrote (docs/spec.md §4.5).

The pool outlives a run: units read on different nights join one theme. A cluster is
offered for synthesis when it has two units or more and one at least is new; only the
new units are evidence, so a unit counts towards `seen` once, the night it is read.

Units join when they share a subject, and only a subject. A format tag ("book", "podcast",
"video": what a unit is, not what it is about) joins nothing and names nothing; a unit tagged
with formats alone is about what its title says. A tag carried by most of the pool ("learning"
on every unit) may be a frame rather than a subject: units first join by their rarer tags into
themes; a common tag no theme carries then joins the units carrying it (four papers tagged
"consensus", each with a tag of its own, are one theme), but a common tag a theme carries only
gathers the units about nothing else — into that theme when there is one, among themselves
when there are several. It never makes two themes one, nor adds a unit with a subject of its
own to a theme about something else. So eight units tagged `[book, history]`,
`[book, cooking]`, `[book, finance]`, `[podcast, finance]`, `[podcast, gardening]`,
`[video, gardening]`, `[book, ww2, history]` and `[kubernetes, video]` are three themes —
history, finance, gardening — and cooking and kubernetes, read once each, are no theme.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.domain.sources import PoolUnit, Source

from .base import Cluster
from .words import FORMAT_TAGS, STOP_WORDS

_TITLE_WORD = re.compile(r"[^\W\d_]{5,}")


def pool_unit(unit: Source) -> PoolUnit:
    return PoolUnit(path=unit.path, title=unit.title or unit.path, tags=unit.tags, date=unit.date)


def is_format(tag: str) -> bool:
    """Whether a tag says what a unit is rather than what it is about ("book", "media/podcast")."""
    return tag.rsplit("/", 1)[-1] in FORMAT_TAGS


def themes(unit: PoolUnit) -> set[str]:
    """What a unit is about: its tags but the format ones, or its title's longer words when no tag says."""
    subjects = {t.lower() for t in unit.tags} if unit.tags else set()
    subjects = {t for t in subjects if not is_format(t)}
    if subjects:
        return subjects
    words = _TITLE_WORD.findall(unit.title.lower())
    return {w for w in words if w not in STOP_WORDS and w not in FORMAT_TAGS}


# A tag is common when most of the pool carries it, and at least this many units: in a pool of
# two or three, a tag on two units is the only sign of a theme there is.
_COMMON_AT_LEAST = 3


class _Groups:
    """Union-find over the pool's units, with each group's size."""

    def __init__(self, size: int):
        self.parent = list(range(size))
        self.size = [1] * size

    def root(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(self, i: int, j: int) -> None:
        a, b = sorted((self.root(i), self.root(j)))
        if a != b:
            self.parent[b] = a
            self.size[a] += self.size[b]

    def theme_of(self, i: int) -> int | None:
        """The group `i` is in when it is a theme already (two units or more)."""
        root = self.root(i)
        return root if self.size[root] >= 2 else None


def cluster_units(new: list[PoolUnit], earlier: Sequence[PoolUnit] = ()) -> list[Cluster]:
    """Group units sharing a subject (transitively); keep groups of two or more with a new unit."""
    fresh = {u.path for u in new}
    units = list(new) + [u for u in earlier if u.path not in fresh]  # an edited unit is new again
    about = [themes(u) for u in units]
    carried = Counter(t for subjects in about for t in subjects)
    common = {t for t, n in carried.items() if n >= _COMMON_AT_LEAST and 2 * n > len(units)}
    groups = _Groups(len(units))
    first_with: dict[str, int] = {}
    for i, subjects in enumerate(about):  # the rarer tags join freely
        for subject in sorted(subjects - common):
            if subject in first_with:
                groups.join(i, first_with[subject])
            else:
                first_with[subject] = i
    for tag in sorted(common, key=lambda t: (carried[t], t)):  # then the common ones, the rarer first
        carriers = [i for i, subjects in enumerate(about) if tag in subjects]
        themed = {theme: i for i in carriers if (theme := groups.theme_of(i)) is not None}
        if themed:
            # A frame around themes: it gathers only the units about nothing else — into the
            # theme when there is one, among themselves when it spans several.
            carriers = [i for i in carriers if about[i] <= common and groups.theme_of(i) is None]
            if len(themed) == 1:
                carriers += themed.values()
        for i in carriers[1:]:
            groups.join(carriers[0], i)
    members_of: dict[int, list[int]] = {}
    for i in range(len(units)):
        members_of.setdefault(groups.root(i), []).append(i)
    clusters = []
    for indices in members_of.values():
        members = [units[i] for i in indices]
        if len(members) < 2 or not any(u.path in fresh for u in members):
            continue  # one reading is not a preference; an old theme with nothing new waits
        counts = Counter(t for i in indices for t in about[i])
        traits = Counter(u.trait for u in members if u.trait)
        clusters.append(Cluster(
            # The subjects most members share first; at a tie, a rarer tag before a common one.
            tags=[t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0] in common, kv[0]))],
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
