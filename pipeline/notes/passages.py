"""A note's text cut into passages, the archive's unit of search (docs/spec.md §9.7). Pure.

A passage is a paragraph, a Hylo daily entry or one turn of an AI chat, of bounded length: a short
paragraph (a heading, a list line) joins the next one, a long one is cut at sentence ends. Each
passage keeps its note's path and date and whose words it is.
"""

from __future__ import annotations

import datetime as dt
import re
from enum import Enum
from typing import NamedTuple

MAX_CHARS = 800  # a passage's most: an answer to read at a glance, and one window of the embedding model
SMALL_CHARS = 300  # a passage shorter than this takes the next paragraph in, while it stays within MAX_CHARS
_SENTENCE_END = re.compile(r"(?<=[.!?。！？…])[\"'”’)]*\s+|(?<=[。！？])|\n")


class Whose(str, Enum):
    """Whose words a passage holds (docs/spec.md §1 "Whose words"), as the archive marks it."""

    own = "own"  # the person's own
    clipping = "clipping"  # a web clipping: someone else's
    highlights = "highlights"  # a highlights export: someone else's
    ai_chat = "ai_chat"  # the person's turn in an AI chat
    ai = "ai"  # an AI chat's assistant turn, or a chat whose turns cannot be told apart

    def mark(self) -> str | None:
        """How a result says it, when it is not the person's own."""
        return _MARKS.get(self)


_MARKS = {Whose.clipping: "a web clipping: someone else's words",
          Whose.highlights: "highlights: someone else's words",
          Whose.ai_chat: "an AI chat: your turn",
          Whose.ai: "an AI chat: the AI's words"}


class Part(NamedTuple):
    """A run of a note's text with one date and one speaker: a whole note, a daily entry, a chat's turn."""

    date: dt.date
    whose: Whose
    text: str  # plain text, its secrets replaced (notes/secrets.py)


class Stamp(NamedTuple):
    """What tells a note changed without opening it: its file's modification time and size."""

    mtime_ns: int
    size: int


class ArchivedNote(NamedTuple):
    """A note as the archive reads it: its vault path, its stamp and content hash, and its parts (none: unreadable,
    `skipped` says why)."""

    path: str
    stamp: Stamp
    content_hash: str
    parts: list[Part]
    skipped: str | None = None


def passages(text: str) -> list[str]:
    """`text` as passages of at most MAX_CHARS characters: paragraphs, the short ones joined to the next."""
    pieces = [piece for paragraph in text.split("\n\n") if paragraph.strip() for piece in _cut(paragraph.strip())]
    found: list[str] = []
    for piece in pieces:
        if found and len(found[-1]) < SMALL_CHARS and len(found[-1]) + 2 + len(piece) <= MAX_CHARS:
            found[-1] = f"{found[-1]}\n\n{piece}"
        else:
            found.append(piece)
    return found


def _cut(paragraph: str) -> list[str]:
    """A paragraph in pieces of at most MAX_CHARS, cut at sentence ends (else at a space, else anywhere)."""
    if len(paragraph) <= MAX_CHARS:
        return [paragraph]
    pieces: list[str] = []
    current = ""
    for sentence in (s for s in _SENTENCE_END.split(paragraph) if s and s.strip()):
        for chunk in _words(sentence.strip()):
            if current and len(current) + 1 + len(chunk) > MAX_CHARS:
                pieces.append(current)
                current = ""
            current = f"{current} {chunk}" if current else chunk
    if current:
        pieces.append(current)
    return pieces


def _words(sentence: str) -> list[str]:
    """A sentence longer than MAX_CHARS in chunks, cut at the last space within reach (CJK text: anywhere)."""
    chunks = []
    while len(sentence) > MAX_CHARS:
        cut = sentence.rfind(" ", MAX_CHARS // 2, MAX_CHARS)
        cut = cut if cut > 0 else MAX_CHARS
        chunks.append(sentence[:cut].rstrip())
        sentence = sentence[cut:].lstrip()
    return [*chunks, sentence] if sentence else chunks
