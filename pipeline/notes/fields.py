"""A note's frontmatter, read within bounds: the YAML held to a budget, the fields docs/spec.md §1 names checked."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import frontmatter
import yaml
from frontmatter.default_handlers import BaseHandler, YAMLHandler

from hylo_memory.decay.files.format import yaml_error_line
from hylo_memory.decay.files.safe_yaml import UnsafeYAML, check_size, load_bounded
from hylo_memory.domain.sources import Perspective, SourceKind
from hylo_memory.pipeline.notes.dates import as_date

# Bounds on what a note's frontmatter may hold (docs/spec.md §1): a hostile or broken note is
# skipped and named, and nothing unbounded from it is stored, prompted or journalled.
MAX_TITLE = 300  # characters
MAX_TAGS, MAX_TAG = 50, 100  # tags a unit, characters a tag
MAX_SOURCE_NOTES, MAX_SOURCE_NOTE = 100, 500  # entries, characters an entry
MAX_WORD = 100  # `kind`, `perspective`


class Unreadable(Exception):
    """A note that is skipped, with the reason the summary shows."""


class _BoundedYAML(YAMLHandler):
    """python-frontmatter's YAML handler, with PyYAML's safe loader held to a budget.

    The safe loader expands aliases: 500 bytes of nested `*a` build hundreds of millions
    of values. So the YAML is composed (a graph, linear in its bytes) and its expanded
    size counted before anything is constructed; more values than the text has bytes
    can only come from aliases, and such frontmatter is refused.
    """

    def load(self, fm: str, **kwargs: object) -> Any:
        try:
            return load_bounded(fm)
        except UnsafeYAML as exc:
            raise Unreadable(f"frontmatter {exc}") from None


class _BoundedOther(BaseHandler):
    """Any other frontmatter python-frontmatter knows (TOML, JSON): only its size is bounded."""

    def __init__(self, inner: BaseHandler):
        super().__init__(inner.FM_BOUNDARY, inner.START_DELIMITER, inner.END_DELIMITER)
        self.inner = inner

    def split(self, text: str) -> tuple[str, str]:
        return self.inner.split(text)

    def load(self, fm: str, **kwargs: object) -> Any:
        try:
            check_size(fm)
        except UnsafeYAML as exc:
            raise Unreadable(f"frontmatter {exc}") from None
        return self.inner.load(fm)

    def export(self, metadata: dict[str, object], **kwargs: object) -> str:
        return self.inner.export(metadata)


def parse_note(text: str) -> frontmatter.Post:
    found = frontmatter.detect_format(text, frontmatter.handlers)
    handler: BaseHandler | None
    if found is None:
        handler = None
    elif isinstance(found, YAMLHandler):
        handler = _BoundedYAML()
    else:
        handler = _BoundedOther(found)
    try:
        return frontmatter.loads(text, handler=handler) if handler else frontmatter.Post(text)
    except yaml.YAMLError as exc:
        # python-frontmatter hands YAML the text from the end of the opening `---`
        # line, so YAML's first line is the file's line 1.
        line = yaml_error_line(exc, 1)
        raise Unreadable(f"frontmatter is not valid YAML{f' (line {line})' if line else ''}") from None
    except RecursionError:
        raise Unreadable("frontmatter is nested too deeply") from None
    except (ValueError, TypeError, OverflowError) as exc:
        # Well-formed YAML whose value cannot be built, e.g. `created: 2026-02-30`.
        raise Unreadable(f"frontmatter is not valid YAML ({exc})") from None


def source_date(meta: dict[str, object], kind: SourceKind) -> tuple[dt.date | None, bool]:
    """The date the note's frontmatter gives, and whether it gives one that cannot be read."""
    # Hylo's compile skill writes `created_at` and `last_compiled_at` (docs/spec.md §10).
    fields = ("updated", "created", "last_compiled_at", "created_at") if kind == SourceKind.knowledge \
        else ("created", "date")
    given = [meta.get(f) for f in fields if meta.get(f) not in (None, "")]
    dates = [d for d in map(as_date, given) if d]
    if not given and kind == SourceKind.knowledge and meta.get("compiled") not in (None, ""):
        given = [meta["compiled"]]  # Hylo's units carry when they were compiled (docs/spec.md §10)
        dates = [d for d in map(as_date, given) if d]
    if not dates:
        return None, bool(given)
    return (max(dates) if kind == SourceKind.knowledge else dates[0]), False  # a unit counts from its last edit


_WIKI_LINKS = re.compile(r"!?\[\[[^\[\]]*\]\]")


def unit_fields(meta: dict[str, object], rel: str, resolve: Callable[[str, str], str]) -> dict[str, object]:
    """A unit's fields as docs/spec.md §1 names them, each checked and bounded; a field that is not is named."""
    perspective = (text_field(meta, "perspective", MAX_WORD) or "").lower()
    tags = [t.lstrip("#").lower() for t in _strings(meta, "tags", MAX_TAGS, MAX_TAG)]
    notes = meta.get("source_notes")
    if isinstance(notes, str) and "[[" in notes:  # "[[a]], [[Kyoto Trip]]": links, not words
        notes = _WIKI_LINKS.findall(notes[:MAX_SOURCE_NOTES * (MAX_SOURCE_NOTE + 1)])
    elif isinstance(notes, list):  # an unquoted `- [[a]]` is YAML for a list in a list: read as the link
        notes = [f"[[{n[0][0]}]]" if n and isinstance(n, list) and isinstance(n[0], list) and len(n) == len(n[0]) == 1
                 and isinstance(n[0][0], str) else n for n in notes]
    return {
        "title": text_field(meta, "title", MAX_TITLE) or Path(rel).stem[:MAX_TITLE],
        "tags": [t for t in tags if t],
        "source_notes": [resolve(n, rel) for n in _strings({"source_notes": notes}, "source_notes",
                                                              MAX_SOURCE_NOTES, MAX_SOURCE_NOTE)],
        "perspective": Perspective(perspective) if perspective in Perspective.__members__ else None,
    }


_SCALARS = (str, int, float, dt.date)  # bool is an int; a YAML date or datetime is a date


def text_field(meta: dict[str, object], field: str, longest: int) -> str | None:
    """The frontmatter field `field` as text (None when absent or empty), or Unreadable naming it."""
    value = meta.get(field)
    if value is None:
        return None
    if not isinstance(value, _SCALARS):
        raise Unreadable(f"frontmatter {field!r} is a {_kind(value)}, not text")
    text = str(value).strip()
    if len(text) > longest:
        raise Unreadable(f"frontmatter {field!r} is longer than {longest} characters")
    return text or None


def _strings(meta: dict[str, object], field: str, most: int, longest: int) -> list[str]:
    """A list field (or one string of comma- or space-separated words), each entry text, bounded."""
    value = meta.get(field)
    if value is None:
        return []
    if isinstance(value, str):
        if len(value) > most * (longest + 1):
            raise Unreadable(f"frontmatter {field!r} is longer than {most * (longest + 1):,} characters")
        value = [v for v in re.split(r"[,\s]+", value) if v]
    elif isinstance(value, _SCALARS):
        value = [value]
    if not isinstance(value, list):
        raise Unreadable(f"frontmatter {field!r} is a {_kind(value)}, not a list")
    if len(value) > most:
        raise Unreadable(f"frontmatter {field!r} has {len(value):,} entries (at most {most})")
    entries = []
    for entry in value:
        if entry is None:
            continue
        if not isinstance(entry, _SCALARS):
            raise Unreadable(f"frontmatter {field!r} holds a {_kind(entry)}, not text")
        text = str(entry).strip()
        if len(text) > longest:
            raise Unreadable(f"frontmatter {field!r} has an entry longer than {longest} characters")
        if text:
            entries.append(text)
    return entries


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "list"
    return "mapping" if isinstance(value, dict) else type(value).__name__
