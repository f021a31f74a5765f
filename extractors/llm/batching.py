"""Packing sources into requests by a token budget, and choosing the items each may see.

Token counts are a calibrated estimate (about four characters a token for English
prose, fewer for other scripts) rather than tiktoken, whose encodings are fetched
from the network at first use — this pipeline must run where nothing can be fetched.
"""

from __future__ import annotations

from pydantic import BaseModel

from hylo_memory.decay.recall.recall import analyse
from hylo_memory.domain.sources import Source

from ..base import Candidate
from ..words import STOP_WORDS
from .tokens import estimate_tokens as estimate_tokens  # re-exported: where requests are sized


class Part(BaseModel):
    """A source, or one piece of a source too long for one request."""

    source: Source
    text: str
    piece: int = 1
    pieces: int = 1


class Batch(BaseModel):
    """The parts one request carries."""

    parts: list[Part]

    @property
    def paths(self) -> list[str]:
        return list(dict.fromkeys(p.source.path for p in self.parts))

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.parts)


def pack(sources: list[Source], budget: int) -> list[Batch]:
    """Many short sources a request, a long one (or one that failed before) alone, a huge one cut into pieces.

    `budget` is the tokens the sources of one request may take (the prompt's fixed
    parts already subtracted).
    """
    batches: list[Batch] = []
    current: list[Part] = []
    used = 0
    for source in sources:
        cost = estimate_tokens(source.text) + frame_tokens(source)
        own = cost > budget or source.alone  # a request (or several) of its own: no other source shares its fate
        if current and (own or used + cost > budget):
            batches.append(Batch(parts=current))  # closed first, so the order of sources is kept
            current, used = [], 0
        if own:
            batches += [Batch(parts=[part]) for part in _cut(source, budget)]
            continue
        current.append(Part(source=source, text=source.text))
        used += cost
    if current:
        batches.append(Batch(parts=current))
    return batches


_PER_SOURCE = 20  # tokens of a short note's frame in the prompt: its header line and closing tag
MIN_PIECE = 64  # estimated tokens: a piece smaller than this is not cut again


def frame_tokens(source: Source) -> int:
    """Tokens of the frame extract_request.j2 puts around a source: its header line (ids up to S99), its title
    line if it has one, its closing tag. A piece's number is left out: a piece has a request of its own."""
    perspective = source.perspective.value if source.perspective else "own"
    title = f"Title: {source.title}\n" if source.title else ""
    return estimate_tokens(f'<source id="S99" kind="{source.kind.value}" perspective="{perspective}" '
                           f'date="{source.date}">\n{title}\n</source>\n')


def halved(batch: Batch) -> list[Batch] | None:
    """A batch the model could not take, as two: its parts in halves, or its one part cut in two; None when
    it is one piece too small to cut."""
    if len(batch.parts) > 1:
        middle = len(batch.parts) // 2
        return [Batch(parts=batch.parts[:middle]), Batch(parts=batch.parts[middle:])]
    part = batch.parts[0]
    tokens = estimate_tokens(part.text)
    if tokens < 2 * MIN_PIECE:
        return None
    pieces = _cut(part.source.model_copy(update={"text": part.text}), (tokens + 1) // 2 + frame_tokens(part.source))
    if len(pieces) < 2:
        return None
    return [Batch(parts=[p.model_copy(update={"source": part.source})]) for p in pieces]


def _cut(source: Source, budget: int) -> list[Part]:
    """Cut a source into pieces that fit, at paragraph breaks where possible."""
    limit = max(50, budget - frame_tokens(source))  # estimated tokens a piece may take
    chunks = [chunk for paragraph in source.text.split("\n\n") for chunk in _slices(paragraph, limit)]
    pieces: list[str] = []
    current = ""
    for chunk in chunks:
        joined = f"{current}\n\n{chunk}" if current else chunk
        if current and estimate_tokens(joined) > limit:
            pieces.append(current)
            current = chunk
        else:
            current = joined
    if current.strip():
        pieces.append(current)
    return [Part(source=source, text=p, piece=i, pieces=len(pieces)) for i, p in enumerate(pieces, start=1)]


def _slices(text: str, limit: int) -> list[str]:
    """`text` in consecutive slices of at most `limit` estimated tokens (as `estimate_tokens` counts them)."""
    slices, start, cost = [], 0, 0.0
    for i, ch in enumerate(text):
        step = 0.25 if ord(ch) < 128 else 0.9
        if cost + step > limit and i > start:
            slices.append(text[start:i])
            start, cost = i, 0.0
        cost += step
    if start < len(text):
        slices.append(text[start:])
    return slices


def relevant(existing: list[Candidate], text: str, limit: int) -> list[Candidate]:
    """The existing items that share the most terms with the batch, at most `limit`.

    Terms as recall reads them: stemmed words ("runs" meets "Loves to run"), and pairs of
    characters for Chinese, Japanese and Korean, which write no spaces between words.
    """
    words = set(_terms(text))
    scored = []
    for index, candidate in enumerate(existing):
        overlap = sum(1 for w in set(_terms(candidate.text)) if w in words)
        if overlap:
            scored.append((-overlap, index, candidate))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [c for _, _, c in scored[:limit]]


def _terms(text: str) -> list[str]:
    # Words of one or two letters ("I", "to") and the note words carry no signal.
    return [t for t in analyse(text, STOP_WORDS, with_concepts=False).terms if len(t) >= 3 or not t.isascii()]
