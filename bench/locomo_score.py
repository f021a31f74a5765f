"""The LoCoMo harness's measure, pure: does what memory returned hold a gold answer?

An answer is cut into *units*: each date it names (compared as a date, see `Span`), and each of its
content words — lower-cased, folded and stemmed by recall's own `analyse` (PyStemmer's English Snowball,
as `decay/words.py` and `decay/recall/recall.py` use it), with recall's stop words, a few more function words
and the speakers' names left out. A question is *answerable from memory* when the returned texts (and
the dates they carry) hold at least half of its answer's units. No I/O, no clock.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hylo_memory.decay.recall.recall import STOP_WORDS, analyse

# Function words recall's short list keeps (it is made for queries, where they rarely occur). Not content:
# a gold answer "because she wanted to" is held by its content, not by "because". Negations stay.
EXTRA_STOP_WORDS = frozenset(
    "about after also am been before being both can could did during each few into just more most much other "
    "over own same some such than then there these those through too under until up very would should "
    "one ones".split()
)

_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): n for n, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# "the week before 9 June 2023", "the Sunday before 25 May 2023", "the weekend of …"
_RELATIVE = rf"(?:the\s+)?(?:(day|week|weekend|month|year|{_WEEKDAYS})\s+(before|after|of)\s+)?"
_DATE = re.compile(
    _RELATIVE + "(?:"
    rf"{_DAY}\s+{_MONTH},?\s+{_YEAR}"          # 7 May 2023, 7 May, 2023
    rf"|{_MONTH}\s+{_DAY},?\s+{_YEAR}"         # May 7, 2023
    rf"|{_YEAR}-(\d\d)-(\d\d)"                 # 2023-05-07
    rf"|{_MONTH},?\s+{_YEAR}"                  # May 2023
    rf"|(?<![\d-]){_YEAR}(?![\d-])"            # 2023
    ")",
    re.IGNORECASE,
)
_SPANS = {"day": 1, "week": 7, "weekend": 7, "month": 31, "year": 366}


@dataclass(frozen=True, slots=True)
class Span:
    """A date as an interval of days: "7 May 2023" is one day, "May 2023" the month, "2023" the year;
    "the week before 9 June 2023" is 2–9 June. A text's date holds an answer's when it lies within it."""

    first: dt.date
    last: dt.date

    def within(self, other: Span) -> bool:
        return other.first <= self.first and self.last <= other.last

    @classmethod
    def day(cls, day: dt.date) -> Span:
        return cls(day, day)


def _span(groups: Sequence[str | None]) -> Span | None:
    """The interval one `_DATE` match names (None for an impossible date: "31 June 2023")."""
    unit, relation = groups[0], groups[1]
    d1, m1, y1, m2, d2, y2, iy, im, iday, m3, y3, y4 = groups[2:]
    try:
        if y1:
            base = Span.day(dt.date(int(y1), _MONTHS[m1.lower()], int(d1)))  # type: ignore[union-attr, arg-type]
        elif y2:
            base = Span.day(dt.date(int(y2), _MONTHS[m2.lower()], int(d2)))  # type: ignore[union-attr, arg-type]
        elif iy:
            base = Span.day(dt.date(int(iy), int(im), int(iday)))  # type: ignore[arg-type]
        elif y3:
            month = _MONTHS[m3.lower()]  # type: ignore[union-attr]
            year = int(y3)
            base = Span(dt.date(year, month, 1), dt.date(year, month, calendar.monthrange(year, month)[1]))
        else:
            year = int(y4)  # type: ignore[arg-type]
            base = Span(dt.date(year, 1, 1), dt.date(year, 12, 31))
    except ValueError:
        return None
    if unit is None or relation is None or relation.lower() == "of" or base.first != base.last:
        return base  # "the weekend of 7 May 2023" is read as that day's own date: no calendar guessing
    reach = dt.timedelta(days=_SPANS.get(unit.lower(), 7))  # a weekday before/after: within the week
    if relation.lower() == "before":
        return Span(base.first - reach, base.first)
    return Span(base.first, base.first + reach)


def dates_in(text: str) -> tuple[list[Span], str]:
    """The dates `text` names, and the text with them taken out (so "May" is not also a word)."""
    spans = []
    for match in _DATE.finditer(text):
        span = _span(match.groups())
        if span is not None:
            spans.append(span)
    return spans, _DATE.sub(" ", text)


def fold_names(names: Iterable[str]) -> frozenset[str]:
    """The speakers' names as words to leave out ("Caroline", and each part of a two-word name)."""
    return frozenset(part.casefold() for name in names for part in re.findall(r"\w+", name))


@dataclass(frozen=True, slots=True)
class Units:
    """What an answer is judged by: its dates and its content terms."""

    dates: tuple[Span, ...]
    terms: frozenset[str]

    def __len__(self) -> int:
        return len(self.dates) + len(self.terms)


def answer_units(answer: str, names: Iterable[str] = ()) -> Units:
    """An answer's units: its dates, and its content words stemmed as recall stems them."""
    spans, rest = dates_in(str(answer))
    stop = STOP_WORDS | EXTRA_STOP_WORDS | fold_names(names)
    return Units(tuple(dict.fromkeys(spans)), frozenset(analyse(rest, stop).terms))


@dataclass(frozen=True, slots=True)
class Returned:
    """One item as memory returned it: its text and, when shown with it, its date (`recall`'s `last`)."""

    text: str
    date: dt.date | None = None


@functools.lru_cache(maxsize=20_000)
def text_units(text: str) -> tuple[tuple[Span, ...], frozenset[str]]:
    """A returned text's dates and terms (kept: the same item is weighed for many questions)."""
    found, rest = dates_in(text)
    return tuple(found), frozenset(analyse(rest).terms)


def held_units(units: Units, returned: Sequence[Returned]) -> set[Span | str]:
    """The answer's units the returned items hold between them."""
    terms: set[str] = set()
    spans: list[Span] = []
    for item in returned:
        found, words = text_units(item.text)
        spans += found
        terms |= words
        if item.date is not None:
            spans.append(Span.day(item.date))
    dates = {date for date in units.dates if any(span.within(date) for span in spans)}
    return dates | (units.terms & terms)


def held(units: Units, returned: Sequence[Returned]) -> int:
    """How many of the answer's units the returned items hold between them."""
    return len(held_units(units, returned))


def best_cover(units: Units, items: Sequence[Returned], k: int) -> list[int]:
    """The (at most) `k` items that hold the most of the answer between them, picked greedily: what a perfect
    ranking could have returned. Used to tell a fact memory lost from one recall did not rank."""
    each = [held_units(units, [item]) for item in items]
    chosen: list[int] = []
    got: set[Span | str] = set()
    for _ in range(k):
        best = max(range(len(items)), key=lambda i: len(each[i] - got), default=None)
        if best is None or not each[best] - got:
            break
        chosen.append(best)
        got |= each[best]
    return chosen


def enough(units: Units, count: int) -> bool:
    """At least half of the answer's units held."""
    return bool(len(units)) and 2 * count >= len(units)


def answerable(answer: str, returned: Sequence[Returned], names: Iterable[str] = ()) -> bool | None:
    """True when the returned items hold at least half of the answer's units; None when it has none to hold
    (an answer of stop words and names alone cannot be judged by words, and is counted apart)."""
    units = answer_units(answer, names)
    if not len(units):
        return None
    return enough(units, held(units, returned))


def silent(scores: Sequence[float], floor: float) -> bool:
    """A question without an answer is met by silence when nothing was returned above the score floor."""
    return not any(score > floor for score in scores)
