"""What the person wrote about themselves in their own file, `_me.md` (docs/spec.md §2.1), read as data. Pure.

The file is theirs: nothing here writes or reformats it. Its statements are compared with evidence (a fact
that says the opposite of one is not kept over it) and with a fact `why` is asked about (one it holds was
stated by the person). It is written in the first person ("I'm vegetarian", "I love jazz"), items in the
third ("Is vegetarian", "Hates jazz"): a statement is put in an item's person before polarity compares them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, TypeVar

from .find import word_set
from .match import normalise, same_fact
from .polarity import core, marked, opposed
from .recall.recall import STOP_WORDS


class _Worded(Protocol):
    @property
    def text(self) -> str: ...


E = TypeVar("E", bound=_Worded)

MAX_STATEMENTS = 1_000  # a file of a few kilobytes holds far fewer; the rest is passed over
MAX_STATEMENT_CHARS = 300  # an item's length: longer lines are prose, still shown whole by `context`

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_FRONTMATTER = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.S)
_MARKER = re.compile(r"^\s*(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|>\s*)*")
_SENTENCE = re.compile(r"(?<=[.!?;。！？；])\s+|(?<=[。！？；])")
# The first person as an item words it: "I'm vegetarian" reads "is vegetarian", "I love jazz" "love jazz".
_FIRST_PERSON = [(re.compile(p, re.I), r) for p, r in (
    (r"\bI\s*['’]m\b|\bI\s+am\b", "is"), (r"\bI\s*['’]ve\b|\bI\s+have\b", "has"), (r"\bI\s*['’]ll\b", "will"),
    (r"\bI\s*['’]d\b", "would"), (r"\bI\s+was\b", "was"), (r"\bI\b", ""), (r"^\s*我", ""))]


def statements(text: str | None) -> list[str]:
    """The file's statements, one a sentence: what a bullet, numbered line or paragraph says, without headings,
    comments, frontmatter or labels left empty ("Name:"), at most MAX_STATEMENTS."""
    if not text:
        return []
    body = _COMMENT.sub("", _FRONTMATTER.sub("", text.replace("\r\n", "\n"), count=1))
    found: list[str] = []
    for raw in body.split("\n"):
        line = _MARKER.sub("", raw).strip()
        if not line or line.startswith("#") or line.endswith((":", "：")) and len(line.split()) <= 3:
            continue
        found += [s.strip() for s in _SENTENCE.split(line) if s.strip() and len(s.strip()) <= MAX_STATEMENT_CHARS]
        if len(found) >= MAX_STATEMENTS:
            return found[:MAX_STATEMENTS]
    return found


def as_item(statement: str) -> str:
    """A statement in an item's person: "I'm vegetarian" → "is vegetarian", "我不吃肉" → "不吃肉"."""
    text = statement
    for pattern, replacement in _FIRST_PERSON:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


class Stated:
    """The statements of `_me.md`, indexed by their polarity-free core, to compare evidence with."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.items = [as_item(line) for line in lines]
        self._by_core: dict[str, list[int]] = {}
        for number, item in enumerate(self.items):
            mine = core(item)
            if mine.replace("♥", "").strip():
                self._by_core.setdefault(mine, []).append(number)

    def contradicted_by(self, text: str) -> str | None:
        """The statement `text` says the opposite of ("Hates jazz" of "I love jazz"), or None."""
        for number in self._by_core.get(core(text), []):
            if opposed(self.items[number], text):
                return self.lines[number]
        return None

    def holding(self, text: str) -> str | None:
        """The statement that holds the fact `text`: the same fact in an item's person, else a statement holding
        every word of it (stop words aside, never its opposite); None when none does."""
        for line, item in zip(self.lines, self.items, strict=True):
            if normalise(item) == normalise(text) or (not opposed(item, text) and same_fact(item, text)):
                return line
        wanted = word_set(text, STOP_WORDS) or word_set(text)
        if not wanted:
            return None
        signed = marked(text)
        for line, item in zip(self.lines, self.items, strict=True):
            if wanted <= word_set(item) and not ((signed or marked(item)) and opposed(text, item)):
                return line
        return None


def contradicting(evidence: Iterable[E], lines: list[str]) -> tuple[list[E], list[E]]:
    """The evidence that says the opposite of a statement of `lines`, and the rest. The first never waits as a
    candidate (docs/spec.md §3.2): it goes to the rules, which keep it out and name the conflict (§2.1)."""
    stated = Stated(lines)
    found: tuple[list[E], list[E]] = ([], [])
    for ev in evidence:
        found[not lines or stated.contradicted_by(ev.text) is None].append(ev)
    return found
