"""Properties of the format and of rules A–H over generated memory files, evidence and tombstones.

The clock is frozen for the whole module; each test reads `today` from it. Item texts are
drawn from a small vocabulary, and about one in eight is a rewording of an earlier one
(case, punctuation, a plural, a dropped or swapped letter), so merging (rule F) happens
in some examples while most texts stay distinct. About one piece of evidence in four
supersedes an item of the file (rule H), and about one file in three comes with tombstones
(docs/spec.md §8), most naming a text of the evidence or a rewording of one.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from unittest import mock

import pytest
from engine_helpers import FROZEN_DAY, ev, item_line, memory_text, rerun, run
from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import examples

from hylo_memory.decay import Dimension, Evidence, Item, MemoryFile, Tombstone, apply_rules, parse, render
from hylo_memory.decay.files import format as memory_format
from hylo_memory.decay.files import lines as memory_lines
from hylo_memory.decay.files.lines import item_line as written_line
from hylo_memory.decay.match import TextIndex
from hylo_memory.decay.rules import DEFAULT_THRESHOLD, FileChanges
from hylo_memory.domain.dimensions import ACTIVE, FADING
from hylo_memory.domain.items import RawLine, Section

WINDOWS = [1, 7, 30, 90, 365]
SOURCES = ["_shorts/a.md", "_shorts/b.md", "_knowledge/c.md", "remember"]
WORDS = [
    "prefers", "tea", "coffee", "terse", "answers", "vegetarian", "jazz", "running", "berlin", "lisbon",
    "sister", "ana", "marathon", "beta", "launch", "tired", "calm", "python", "rust", "dark", "mode",
    "cycling", "chess", "garden", "novels", "podcast", "family", "weekends", "mornings", "english",
    "climbing", "piano", "spicy", "food", "remote", "work", "early", "late", "cats", "dogs", "sea", "mountains",
]

SETTINGS = settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module", autouse=True)
def frozen_clock() -> Iterator[None]:
    with freeze_time(FROZEN_DAY):
        yield


# Strategies


@st.composite
def rewording(draw: st.DrawFn, text: str) -> str:
    """The same fact in slightly different words."""
    kind = draw(st.sampled_from(["case", "punctuation", "plural", "drop", "swap"]))
    if kind == "case":
        return text.lower() if text != text.lower() else text.upper()
    if kind == "punctuation":
        return text + draw(st.sampled_from([".", "!", " ...", "?"]))
    if kind == "plural":
        return text + "s"
    at = draw(st.integers(1, max(1, len(text) - 2)))
    if kind == "drop" and len(text) > 3:
        return text[:at] + text[at + 1:]
    if len(text) > 3 and text[at] != text[at + 1]:
        return text[:at] + text[at + 1] + text[at] + text[at + 2:]
    return text + "s"


@st.composite
def fact_text(draw: st.DrawFn, earlier: list[str]) -> str:
    if earlier and draw(st.integers(0, 7)) == 0:
        return draw(rewording(draw(st.sampled_from(earlier))))
    return " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=5))).capitalize()


def age(window: int, oldest: int) -> st.SearchStrategy[int]:
    """Days before today: anything up to `oldest`, with the rule boundaries drawn often."""
    boundaries = [0, window, window + 1, 2 * window, 2 * window + 1, 3 * window]
    return st.one_of(st.sampled_from([b for b in boundaries if b <= oldest]), st.integers(0, oldest))


@dataclass
class Spec:
    """A generated memory file (as ages, so the frozen `today` builds it) and evidence for it."""

    window: int
    items: list[tuple[str, str, int, int, bool]]  # section, text, age, seen, pinned
    last_updated_age: int | None
    evidence: list[tuple[str, str, int | None, str | None, bool, str | None]]  # text, source, age, matches, pinned,
    # supersedes
    tombstones: list[tuple[str, Dimension]] = field(default_factory=list)

    def text(self, today: dt.date) -> str:
        lines = {ACTIVE: [], FADING: []}
        for section, text, days, seen, pinned in self.items:
            lines[section].append(item_line(text, today - dt.timedelta(days=days), seen, pinned))
        updated = None if self.last_updated_age is None else today - dt.timedelta(days=self.last_updated_age)
        return memory_text(active=lines[ACTIVE], fading=lines[FADING], window=self.window, last_updated=updated)

    def memory(self, today: dt.date) -> MemoryFile:
        return parse(self.text(today), Dimension.preferences)

    def facts(self, today: dt.date) -> list[Evidence]:
        return [ev(text, source=source, date=None if days is None else today - dt.timedelta(days=days),
                   matches=matches, pinned=pinned).model_copy(update={"supersedes": supersedes})
                for text, source, days, matches, pinned, supersedes in self.evidence]

    def stones(self, today: dt.date) -> list[Tombstone]:
        return [Tombstone(dimension=dimension, text=text, forgotten_on=today) for text, dimension in self.tombstones]


@st.composite
def specs(draw: st.DrawFn, evidence: str = "some") -> Spec:
    """A memory file and evidence; `evidence` is "none", "some" or "expired" (all older than two windows)."""
    window = draw(st.sampled_from(WINDOWS))
    texts: list[str] = []
    items = []
    for _ in range(draw(st.integers(0, 8))):
        text = draw(fact_text(texts))
        texts.append(text)
        items.append((draw(st.sampled_from([ACTIVE, FADING])), text, draw(age(window, 4 * window + 2)),
                      draw(st.integers(1, 20)), draw(st.integers(0, 4)) == 0))
    last_updated_age = draw(st.none() | st.integers(0, 4 * window))
    facts = []
    count = 0 if evidence == "none" else draw(st.integers(1 if evidence == "expired" else 0, 6))
    for _ in range(count):
        text = draw(fact_text(texts))
        if evidence == "expired":
            days: int | None = draw(st.integers(2 * window + 1, 5 * window + 10))
        else:
            days = draw(st.none() | age(window, 2 * window + 3))
        matches = draw(st.sampled_from(texts)) if texts and draw(st.integers(0, 5)) == 0 else None
        # Rule H: about one in four names an item of the file (or, with none, an earlier text).
        replaced = [item[1] for item in items] or texts
        supersedes = draw(st.sampled_from(replaced)) if replaced and draw(st.integers(0, 3)) == 0 else None
        facts.append((text, draw(st.sampled_from(SOURCES)), days, matches, draw(st.integers(0, 5)) == 0, supersedes))
        texts.append(text)
    tombstones = []
    if draw(st.integers(0, 2)) == 0 if facts else draw(st.integers(0, 5)) == 0:
        named = [f[0] for f in facts] or texts
        for _ in range(draw(st.integers(1, 2))):
            kind = draw(st.sampled_from(["same", "reworded", "other"])) if named else "other"
            if kind == "other":
                text = draw(fact_text([]))
            else:
                text = draw(st.sampled_from(named))
                text = draw(rewording(text)) if kind == "reworded" else text
            dimension = Dimension.state if draw(st.integers(0, 4)) == 0 else Dimension.preferences
            tombstones.append((text, dimension))
    return Spec(window, items, last_updated_age, facts, tombstones)


def rules(spec: Spec, today: dt.date, evidence: list[Evidence] | None = None,
          forgotten: list[Tombstone] | None = None) -> tuple[MemoryFile, FileChanges]:
    """Rules A–H once over the spec's file, with its evidence and tombstones unless others are given."""
    return apply_rules(spec.memory(today), spec.facts(today) if evidence is None else evidence, today,
                       forgotten=spec.stones(today) if forgotten is None else forgotten)


def forgotten(evidence: Evidence, stones: list[Tombstone]) -> bool:
    """Whether a tombstone of the evidence's dimension matches it by §3's matching, one tombstone at a time."""
    for stone in stones:
        if stone.dimension != evidence.dimension:
            continue
        index = TextIndex(DEFAULT_THRESHOLD)
        index.add(0, stone.text)
        if index.find(evidence.text) is not None or (evidence.matches and index.find(evidence.matches) is not None):
            return True
    return False


def applied(spec: Spec, today: dt.date) -> list[Evidence]:
    """The evidence that is neither expired (a source dated after today counts as today) nor forgotten."""
    return [e for e in spec.facts(today) if (today - min(e.date or today, today)).days <= 2 * spec.window
            and not forgotten(e, spec.stones(today))]


# The format


@SETTINGS
@given(specs(evidence="none"))
def test_render_of_parse_is_the_identity_on_canonical_files(spec: Spec) -> None:
    text = spec.text(dt.date.today())
    assert render(parse(text, Dimension.preferences)) == text


any_item_text = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=30).filter(
    lambda s: s == s.strip()
)


@st.composite
def memory_models(draw: st.DrawFn) -> MemoryFile:
    def items() -> list[Item]:
        return draw(st.lists(st.builds(Item, text=any_item_text, last=st.dates(),
                                       seen=st.integers(1, 10**6), pinned=st.booleans()), max_size=5))

    return MemoryFile(
        dimension=Dimension.people,
        decay_window=draw(st.integers(1, 10_000)),
        last_updated=draw(st.none() | st.dates()),
        sections=[Section(heading=ACTIVE, entries=[*items(), RawLine(text="")]), Section(heading=FADING, entries=items())],
    )


@SETTINGS
@given(memory_models())
def test_parse_of_render_is_the_identity_on_memory_files_with_any_item_text(memory: MemoryFile) -> None:
    assert parse(render(memory), Dimension.people) == memory


@SETTINGS
@given(memory_models())
def test_canonical_lines_read_the_same_with_or_without_the_fast_path(memory: MemoryFile) -> None:
    text = render(memory)
    with (mock.patch.object(memory_lines, "canonical_item", lambda line: None),
          mock.patch.object(memory_format, "canonical_item", lambda line: None)):
        general = parse(text, Dimension.people)
    assert parse(text, Dimension.people) == general
    assert render(general) == text


# The rules


@SETTINGS
@given(specs())
def test_a_second_run_the_same_day_changes_nothing_but_overdue_items_the_first_faded(spec: Spec) -> None:
    today = dt.date.today()
    first, first_changes = rules(spec, today)
    second, changes = rerun(first, today)

    overdue = {i.text for i in first.fading if not i.pinned and (today - i.last).days > 2 * spec.window}
    assert sorted(changes.deleted) == sorted(overdue)
    assert overdue <= set(first_changes.faded) | {s.text for s in first_changes.superseded}
    assert (changes.added, changes.refreshed, changes.faded, changes.into_fading, changes.merged, changes.adopted,
            changes.expired) == ([], [], [], [], [], [], 0)
    assert (changes.superseded, changes.conflicts, changes.forgotten, changes.applied) == ([], [], [], [])
    expected = parse(render(first), Dimension.preferences)
    fading = expected.section(FADING)
    fading.entries = [e for e in fading.entries if not (isinstance(e, Item) and e.text in overdue)]
    assert render(second) == render(expected)


@SETTINGS
@given(specs())
def test_pinned_items_are_never_faded_superseded_nor_deleted(spec: Spec) -> None:
    today = dt.date.today()
    before = spec.memory(today)
    after, changes = rules(spec, today)
    after_items = {i.text: i for i in after.items}
    assert not any(after_items[text].pinned for text in changes.faded)
    assert not any(after_items[s.text].pinned for s in changes.superseded)
    assert all(after_items[c.pinned].pinned for c in changes.conflicts)
    assert not any(i.pinned for i in before.items if i.text in changes.deleted)
    for item in before.items:
        if item.pinned and item.text not in {m.dropped for m in changes.merged}:
            assert after_items[item.text].pinned
            if item in before.active:
                assert after_items[item.text] in after.active


@SETTINGS
@given(specs())
def test_an_item_disappears_only_by_rule_e_or_by_a_merge(spec: Spec) -> None:
    today = dt.date.today()
    before = spec.memory(today)
    after, changes = rules(spec, today)
    remaining = {i.text for i in after.items}
    assert {i.text for i in before.items} - remaining <= set(changes.deleted) | {m.dropped for m in changes.merged}
    assert remaining.isdisjoint(changes.deleted)
    assert set(changes.deleted) <= {i.text for i in before.fading}  # E only takes what was already Fading
    assert {s.text for s in changes.superseded} <= {i.text for i in after.fading}  # H fades, never deletes


@SETTINGS
@given(specs())
def test_no_item_is_both_added_and_faded_in_one_run(spec: Spec) -> None:
    after, changes = rules(spec, dt.date.today())
    assert set(changes.added).isdisjoint(changes.faded)
    assert set(changes.into_fading) <= {i.text for i in after.fading}


@SETTINGS
@given(specs())
def test_seen_never_decreases(spec: Spec) -> None:
    today = dt.date.today()
    before = spec.memory(today)
    after, _ = rules(spec, today)
    seen_after = {i.text: i.seen for i in after.items}
    for item in before.items:
        if item.text in seen_after:
            assert seen_after[item.text] >= item.seen


@SETTINGS
@given(specs(evidence="none"))
def test_merging_sums_seen_so_without_evidence_or_deletions_the_total_is_kept(spec: Spec) -> None:
    today = dt.date.today()
    before = spec.memory(today)
    after, changes = run(before, [], today)
    if not changes.deleted:
        assert sum(i.seen for i in after.items) == sum(i.seen for i in before.items)
    assert len(after.items) == len(before.items) - len(changes.merged) - len(changes.deleted)


@SETTINGS
@given(specs())
def test_evidence_adds_one_per_distinct_source_and_item_to_the_total_seen(spec: Spec) -> None:
    today = dt.date.today()
    before = spec.memory(today)
    evidence = applied(spec, today)
    after, changes = rules(spec, today)
    if not changes.deleted:
        added = sum(i.seen for i in after.items) - sum(i.seen for i in before.items)
        assert len({e.source for e in evidence}) <= added <= len(evidence)
    assert len(changes.applied) == len(evidence)


@SETTINGS
@given(specs(evidence="expired"))
def test_expired_evidence_changes_nothing_and_is_counted(spec: Spec) -> None:
    today = dt.date.today()
    with_expired, changes = rules(spec, today)
    without, baseline = rules(spec, today, evidence=[])
    assert render(with_expired) == render(without)
    assert changes.expired + len(changes.forgotten) == len(spec.evidence)  # a tombstone keeps evidence out first
    told = {"expired", "expired_entries", "forgotten"}
    assert changes.model_dump(exclude=told) == baseline.model_dump(exclude=told)
    assert len(changes.expired_entries) == changes.expired


def _places(memory: MemoryFile) -> dict[str, tuple[str, dt.date | None, int, bool]]:
    return {i.text: (heading, i.last, i.seen, i.pinned)
            for heading, items in ((ACTIVE, memory.active), (FADING, memory.fading)) for i in items}


@SETTINGS
@given(specs())
def test_rule_h_only_moves_the_active_items_it_names_to_fading_and_changes_nothing_else(spec: Spec) -> None:
    today = dt.date.today()
    evidence = spec.facts(today)
    with_h, changes = rules(spec, today)
    without_h, baseline = rules(spec, today, evidence=[e.model_copy(update={"supersedes": None}) for e in evidence])
    superseded = {s.text for s in changes.superseded}
    places, baseline_places = _places(with_h), _places(without_h)
    assert places.keys() == baseline_places.keys()  # H deletes nothing and adds nothing
    for text, (heading, last, seen, pinned) in places.items():
        if text in superseded:
            # Active but for H (or faded by D in its stead), with `last` and `seen` as they would be.
            assert (heading, not pinned) == (FADING, True)
            assert baseline_places[text][0] == ACTIVE or text in baseline.faded + baseline.into_fading
            assert baseline_places[text][1:] == (last, seen, pinned)
        else:
            assert baseline_places[text] == (heading, last, seen, pinned)
    assert changes.faded == [t for t in baseline.faded if t not in superseded]
    assert changes.into_fading == [t for t in baseline.into_fading if t not in superseded]
    assert {s.by for s in changes.superseded} <= places.keys()
    assert len(superseded) == len(changes.superseded)  # each item is named once
    moved = {"superseded", "conflicts", "faded", "into_fading"}
    assert changes.model_dump(exclude=moved) == baseline.model_dump(exclude=moved)
    assert baseline.superseded == baseline.conflicts == []


@SETTINGS
@given(specs())
def test_evidence_matching_a_tombstone_is_never_applied(spec: Spec) -> None:
    today = dt.date.today()
    stones, evidence = spec.stones(today), spec.facts(today)
    blocked = [e for e in evidence if forgotten(e, stones)]
    after, changes = rules(spec, today)
    baseline_after, baseline = rules(spec, today, evidence=[e for e in evidence if e not in blocked], forgotten=[])
    assert changes.forgotten == [e.text for e in blocked]
    # No item a tombstone matches is added, and the run is the run without that evidence.
    assert not any(forgotten(ev(text), stones) for text in changes.added)
    assert render(after) == render(baseline_after)
    assert changes.model_dump(exclude={"forgotten"}) == baseline.model_dump(exclude={"forgotten"})


# Fidelity: the person's own style


@dataclass
class Styled:
    """A memory file as a person might write it: the text, its line ending, and its items' nested lines."""

    text: str
    newline: str
    window: int


@st.composite
def styled_files(draw: st.DrawFn) -> Styled:
    """CRLF or LF, a BOM, `2w` or `14d`, `*`/`+`/`-` bullets, odd spacing, nested lines, notes after
    the span, headings in any case, comments, fenced code holding a heading and an item line."""
    today = dt.date.today()
    window = draw(st.sampled_from(WINDOWS + [14, 21]))
    written_window = f"{window // 7}w" if window % 7 == 0 and draw(st.booleans()) else f"{window}d"
    front = [f"decay_window: {written_window}"]
    if draw(st.booleans()):
        front.append(f"last_updated: {today - dt.timedelta(days=draw(st.integers(0, 3 * window)))}")
    if draw(st.booleans()):
        front.insert(draw(st.integers(0, len(front))), "# written by hand")
    texts: list[str] = []

    def items() -> list[str]:
        out = []
        for _ in range(draw(st.integers(0, 5))):
            text = draw(fact_text(texts))
            texts.append(text)
            head = draw(st.sampled_from(["- ", "* ", "+ ", "-  ", " - "]))
            days = draw(age(window, 4 * window + 2))
            if draw(st.integers(0, 5)) == 0:
                out.append(f"{head}{text}")  # a hand-written bullet, adopted when the rules run
            else:
                gap = draw(st.sampled_from([" ", " ", "  "]))
                pinned = " pinned" if draw(st.integers(0, 4)) == 0 else ""
                note = draw(st.sampled_from(["", "", " (since 2019)", " — see notes"]))
                out.append(f"{head}{text}{gap}`last:{today - dt.timedelta(days=days)} seen:{draw(st.integers(1, 9))}"
                           f"{pinned}`{note}")
            out += draw(st.lists(st.sampled_from(["  - especially this", "    - and deeper", "  continued here",
                                                  "\t- tabbed"]), max_size=2))
        return out

    heading = st.sampled_from(["## {}", "## {}", "## {} ##", "##  {}"]).map(lambda h: h)
    active = draw(heading).format(draw(st.sampled_from(["Active", "active", "ACTIVE"])))
    fading = draw(heading).format(draw(st.sampled_from(["Fading", "fading", "FADING"])))
    fence = draw(st.sampled_from([[], ["```markdown", "## Active", f"- Example `last:{today} seen:1`", "```"],
                                  ["~~~", "- just an example", "~~~"]]))
    body = [active, *items(), *(["<!-- mine -->"] if draw(st.booleans()) else []), "", fading, *items(), *fence]
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines = ["---", *front, "---", *body]
    text = newline.join(lines) + (newline if draw(st.integers(0, 5)) else "")
    return Styled(("\ufeff" if draw(st.booleans()) else "") + text, newline, window)


@SETTINGS
@given(styled_files())
def test_render_of_parse_is_the_identity_on_files_in_the_persons_own_style(styled: Styled) -> None:
    assert render(parse(styled.text, Dimension.preferences)) == styled.text


def _lines(text: str, newline: str) -> list[str]:
    return text.removeprefix("\ufeff").split(newline)


@SETTINGS
@given(styled_files(), st.lists(st.sampled_from(WORDS), min_size=2, max_size=4).map(" ".join))
def test_after_the_rules_every_line_they_did_not_change_is_byte_identical(styled: Styled, new_fact: str) -> None:
    today = dt.date.today()
    before = parse(styled.text, Dimension.preferences)
    after, _ = run(before, [ev(new_fact.capitalize())], today)
    text = render(after)
    assert text.startswith("\ufeff") == styled.text.startswith("\ufeff")
    after_lines = _lines(text, styled.newline)
    assert "\r" not in "".join(after_lines)  # one line ending throughout
    # The person's own lines (headings, comments, prose, fences, frontmatter but last_updated) keep their order.
    own = [line for line in _lines(styled.text, styled.newline)
           if not line.startswith("last_updated:") and line not in {written_line(i) for i in before.items}
           and not any(line in i.children for i in before.items)]
    remaining = iter(after_lines)
    assert all(any(line == other for other in remaining) for line in own)
    # An item the rules left alone keeps its line byte for byte, wherever it now stands.
    unchanged = [i for i in before.items if any(i.key() == j.key() for j in after.items)]
    assert all(written_line(i) in after_lines for i in unchanged)


@SETTINGS
@given(styled_files())
def test_nested_lines_stay_directly_under_their_item_and_only_rule_e_takes_them(styled: Styled) -> None:
    today = dt.date.today()
    before = parse(styled.text, Dimension.preferences)
    after, changes = run(before, [], today)
    text = render(after).removeprefix("\ufeff")
    for item in after.items:
        assert styled.newline.join([written_line(item), *item.children]) in text
    had = Counter(c for i in before.items for c in i.children)
    has = Counter(c for i in after.items for c in i.children)
    assert not has - had
    if not changes.deleted:
        assert has == had  # only an item E deletes takes its nested lines with it
