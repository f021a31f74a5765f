"""Logseq's outline markup (docs/spec.md §1): a page's `key:: value` properties read as fields, its tasks as tasks.

Logseq writes a page as an outline of `- ` blocks nested with tabs, which markdown reads
as nested lists already. What it adds is read here, before the note's markdown is
(note_text), so that the rest of the pipeline sees what Obsidian would have written:

- a page's properties, its first lines (`title:: Kyoto`, `tags:: travel, [[Japan]]`,
  `date:: [[Sep 1st, 2026]]`), are its fields, as frontmatter would be; a block's
  properties (`id:: …`, `collapsed:: true`, on the lines after its first) are dropped.
  Dataview's inline fields are the same lines in Obsidian and read the same way;
- a task's marker becomes a markdown task: an open one (`TODO`, `DOING`, `LATER`, `NOW`,
  `WAITING`) `- [ ]`, which keeps its text, and a finished or cancelled one (`DONE`,
  `CANCELED`, `CANCELLED`) `- [x]`, which note_text drops whole, as it drops `- [x]`;
- what only Logseq shows is dropped: `SCHEDULED:`/`DEADLINE:` lines, `:LOGBOOK:` drawers,
  block references `((uuid))` and `{{macros}}`; a `#[[tag with spaces]]` reads as its words;
- an org-style block: a query, code or a quotation (`#+BEGIN_QUERY` … `#+END_QUERY`, `SRC`, `EXAMPLE`, `QUOTE`)
  is dropped whole, as a code block or someone else's words are; any other (`NOTE`, `TIP`, …) keeps its text.
"""

from __future__ import annotations

import bisect
import re

MAX_PROPERTIES = 100  # a page's fields; past them its properties are dropped, not read

_PROPERTY = re.compile(r"[ \t]*(?:[-*+][ \t]+)?([A-Za-z][\w.-]*)::(?:[ \t]+(.*))?")
_MARKER = re.compile(r"([ \t]*[-*+][ \t]+)(TODO|DOING|LATER|NOW|WAITING|WAIT|IN-PROGRESS|DONE|CANCELED|CANCELLED)"
                     r"(?:[ \t]+\[#[A-Z]\])?(?:[ \t]+|$)")
_FINISHED = frozenset({"DONE", "CANCELED", "CANCELLED"})
_PLANNING = re.compile(r"[ \t]*(?:SCHEDULED|DEADLINE):[ \t]*<[^>\n]*>[ \t]*$")
_DRAWER = re.compile(r"[ \t]*:[A-Z][A-Z_-]*:[ \t]*$")
_DRAWER_END = re.compile(r"[ \t]*:END:[ \t]*$")
_INLINE = re.compile(r"\(\([0-9a-fA-F-]{36}\)\)|\{\{[^{}\n]{0,1000}\}\}|#(?=\[\[)")
_LOGSEQ = re.compile(r"::|#\+BEGIN_|^[ \t]*[-*+][ \t]+[A-Z-]{3,}\b|^[ \t]*(?:SCHEDULED|DEADLINE|:[A-Z_-]+):"
                     r"|\(\(|\{\{|#\[\[", re.MULTILINE)
_BLOCK = re.compile(r"[ \t]*(?:[-*+][ \t]+)?#\+(BEGIN|END)_([A-Za-z]+)\b.*")
_DROPPED_BLOCKS = frozenset({"QUERY", "SRC", "EXAMPLE", "QUOTE", "EXPORT", "COMMENT"})
_LIST_FIELDS = frozenset({"tags", "alias", "aliases"})
_LIST_ENTRY = re.compile(r"#?\[\[([^\[\]]*)\]\]|([^,\[\]]+)")


def read_outline(content: str) -> tuple[dict[str, object], str]:
    """The page's properties as fields (keys lower case), and its markdown with Logseq's own markup read."""
    if not _LOGSEQ.search(content):  # most notes: nothing of Logseq's in them
        return {}, content
    lines = content.split("\n")
    ends = [i for i, line in enumerate(lines) if _DRAWER_END.match(line)] if ":END:" in content else []
    fields: dict[str, object] = {}
    kept: list[str] = []
    at_top, skip_to = True, -1  # the page's own properties come before anything else; a drawer runs to its end
    for i, line in enumerate(lines):
        if i <= skip_to:
            continue
        bare = line.rstrip("\r")
        prop = _PROPERTY.fullmatch(bare)
        if prop:
            if at_top and len(fields) < MAX_PROPERTIES:
                _add_field(fields, prop[1].lower(), (prop[2] or "").strip())
            continue
        at_top = at_top and not bare.strip()
        if _PLANNING.match(bare):
            continue
        block = _BLOCK.fullmatch(bare)
        if block:  # its markers never read; a dropped kind's lines neither, to its end (or the page's)
            if block[1] == "BEGIN" and block[2].upper() in _DROPPED_BLOCKS:
                skip_to = _block_end(lines, i, block[2].upper())
            continue
        if _DRAWER.match(bare) and not _DRAWER_END.match(bare):
            after = bisect.bisect_right(ends, i)
            if after < len(ends):  # an unclosed drawer is text, as Logseq shows it
                skip_to = ends[after]
                continue
        kept.append(_INLINE.sub("", _MARKER.sub(_task, line, count=1)))
    return fields, "\n".join(kept)


def _block_end(lines: list[str], start: int, kind: str) -> int:
    """The line that ends the block begun at `start` (the page's last line when none does)."""
    for j in range(start + 1, len(lines)):
        end = _BLOCK.fullmatch(lines[j].rstrip("\r"))
        if end and end[1] == "END" and end[2].upper() == kind:
            return j
    return len(lines) - 1


def _task(marker: re.Match[str]) -> str:
    """A Logseq task as a markdown one: finished `[x]` (dropped by note_text), else open `[ ]`."""
    return f"{marker[1]}[{'x' if marker[2] in _FINISHED else ' '}] "


def _add_field(fields: dict[str, object], key: str, value: str) -> None:
    """One page property as a field: the first of a key wins; `tags` and `alias` are lists."""
    if key in fields or not value:
        return
    if key in _LIST_FIELDS:
        entries = [(link or word).strip().lstrip("#").strip() for link, word in _LIST_ENTRY.findall(value)]
        fields[key] = [e for e in entries if e]
    else:
        fields[key] = value
