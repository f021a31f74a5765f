"""Properties of the format and of rules A–G over generated memory files and evidence.

The clock is frozen for the whole module; each test reads `today` from it. Item texts are
drawn from a small vocabulary, and about one in eight is a rewording of an earlier one
(case, punctuation, a plural, a dropped or swapped letter), so merging (rule F) happens
in some examples while most texts stay distinct.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from unittest import mock

import pytest
from engine_helpers import FROZEN_DAY, ev, item_line, memory_text, rerun, run
from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hylo_memory.decay import Dimension, Evidence, Item, MemoryFile, parse, render
from hylo_memory.decay import format as memory_format
from hylo_memory.decay import lines as memory_lines
from hylo_memory.decay.lines import item_line as written_line
from hylo_memory.decay.model import ACTIVE, FADING, RawLine, Section

WINDOWS = [1, 7, 30, 90, 365]
SOURCES = ["_shorts/a.md", "_shorts/b.md", "_knowledge/c.md", "remember"]
WORDS = [
    "prefers", "tea", "coffee", "terse", "answers", "vegetarian", "jazz", "running", "berlin", "lisbon",
    "sister", "ana", "marathon", "beta", "launch", "tired", "calm", "python", "rust", "dark", "mode",
    "cycling", "chess", "garden", "novels", "podcast", "family", "weekends", "mornings", "english",
    "climbing", "piano", "spicy", "food", "remote", "work", "early", "late", "cats", "dogs", "sea", "mountains",
]

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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
    evidence: list[tuple[str, str, int | None, str | None, bool]]  # text, source, age, matches, pinned

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
                   matches=matches, pinned=pinned)
                for text, source, days, matches, pinned in self.evidence]


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
        facts.append((text, draw(st.sampled_from(SOURCES)), days, matches, draw(st.integers(0, 5)) == 0))
        texts.append(text)
    return Spec(window, items, last_updated_age, facts)


def applied(spec: Spec, today: dt.date) -> list[Evidence]:
    """The evidence that is not expired (a source dated after today counts as today)."""
    return [e for e in spec.facts(today) if (today - min(e.date or today, today)).days <= 2 * spec.window]


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
    first, first_changes = run(spec.text(today), spec.facts(today), today)
    second, changes = rerun(first, today)

    overdue = {i.text for i in first.fading if not i.pinned and (today - i.last).days > 2 * spec.window}
    assert sorted(changes.deleted) == sorted(overdue)
    assert overdue <= set(first_changes.faded)
    assert (changes.added, changes.refreshed, changes.faded, changes.merged, changes.adopted, changes.expired) == (
        [], [], [], [], [], 0)
    expected = parse(render(first), Dimension.preferences)
    fading = expected.section(FADING)
    fading.entries = [e for e in fading.entries if not (isinstance(e, Item) and e.text in overdue)]
    assert render(second) == render(expected)


@SETTINGS
@given(specs())
def test_pinned_items_are_never_faded_nor_deleted(spec: Spec) -> None:
    today = dt.date.today()
    before = spec.memory(today)
    after, changes = run(before, spec.facts(today), today)
    after_items = {i.text: i for i in after.items}
    assert not any(after_items[text].pinned for text in changes.faded)
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
    after, changes = run(before, spec.facts(today), today)
    remaining = {i.text for i in after.items}
    assert {i.text for i in before.items} - remaining <= set(changes.deleted) | {m.dropped for m in changes.merged}
    assert remaining.isdisjoint(changes.deleted)
    assert set(changes.deleted) <= {i.text for i in before.fading}  # E only takes what was already Fading


@SETTINGS
@given(specs())
def test_seen_never_decreases(spec: Spec) -> None:
    today = dt.date.today()
    before = spec.memory(today)
    after, _ = run(before, spec.facts(today), today)
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
    after, changes = run(before, spec.facts(today), today)
    if not changes.deleted:
        added = sum(i.seen for i in after.items) - sum(i.seen for i in before.items)
        assert len({e.source for e in evidence}) <= added <= len(evidence)


@SETTINGS
@given(specs(evidence="expired"))
def test_expired_evidence_changes_nothing_and_is_counted(spec: Spec) -> None:
    today = dt.date.today()
    with_expired, changes = run(spec.text(today), spec.facts(today), today)
    without, baseline = run(spec.text(today), [], today)
    assert render(with_expired) == render(without)
    assert changes.expired == len(spec.evidence)
    assert changes.model_dump(exclude={"expired"}) == baseline.model_dump(exclude={"expired"})


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
