"""A note read as plain text without the parser: for notes whose markup would cost too much to parse.

pipeline/notes/text.py parses a note with markdown-it; a note over its budget (a paste of
400 KB of `[[`, a table of ten thousand rows) is read here instead, line by line with
regular expressions that each cost linear time. It keeps what the parser keeps as well as
it can, and never hangs:

- code blocks, `%% %%` and `<!-- -->` comments, Templater's `<% %>`, finished tasks and
  front matter are dropped, as the parser drops them;
- block quotes and `[!quote]` callouts keep their `> ` (someone else's words); the person's
  own callouts lose their marks; list items are lines starting `- `; table rows are their
  cells joined by `; `;
- wiki links read as their alias or note name, links as their words; embeds, images,
  footnote marks, struck text, HTML tags and bare URLs are dropped; emphasis, highlight,
  code and tag marks are removed, and so are stray brackets of links never closed.

Nesting, lazy continuation lines and the finer points of emphasis are not followed: the
note is named in the run summary as read so.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_FRONT = re.compile(r"---[ \t]*\n")
_FRONT_END = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.M)
_QUOTE = re.compile(r" {0,3}>[ ]?")
_CALLOUT = re.compile(r"\[!(\w[\w-]*)\][+-]?\s*")
_QUOTE_CALLOUTS = frozenset({"quote", "cite"})
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]+|$)")
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
_ITEM = re.compile(r"( *)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_TASK = re.compile(r"\[(.)\][ \t]+")
_DONE = "xX-"
_DELIMITER_ROW = re.compile(r"\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?")  # on a stripped line: no backtracking
_FOOTNOTE_DEF = re.compile(r" {0,3}\[\^[^\]\s]*\]:[ \t]*")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")

_EMBED = re.compile(r"!\[\[[^\[\]\n]*\]\]")
_WIKILINK = re.compile(r"\[\[([^\[\]\n]*)\]\]")
_IMAGE = re.compile(r"!\[[^\[\]\n]*\]\([^()\n]*\)")
_LINK = re.compile(r"\[([^\[\]\n]*)\]\([^()\n]*\)")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]*\]")
_STRUCK = re.compile(r"~~[^~\n]*~~")
_CODE = re.compile(r"`+([^`\n]*)`+")
_BREAK_TAG = re.compile(r"<br\b[^<>\n]*>", re.I)
_TAG_HTML = re.compile(r"</?[A-Za-z][^<>\n]*>")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S*|\bwww\.\S+")
_HASHTAG = re.compile(r"(?<!\S)#([\w/-]+)")
_MARKS = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)|==|\[\[|\]\]|<%|%>|%%|`")
_ANY_MARK = re.compile(r"[!#&*<=>\[\\\]^_`~%]|://|www\.")  # what any of the substitutions below reads
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_LOOSE_MARK = re.compile(r"\s+([,.;:!?])(?=\s|$)")
_DATAVIEW = ("=", "$=")
# What is dropped from its opening to its closing mark, and whether one left open hides the rest.
_SPANS = (("%%", "%%", True), ("<!--", "-->", True), ("<%", "%>", False),
          ("<script", "</script>", False), ("<style", "</style>", False))


def plain_reading(markdown: str) -> str:
    """The plain text of a note's markdown, in linear time whatever it holds."""
    text = markdown.replace("\r\n", "\n").replace("\r", "\n")
    text = _without_front_matter(text)
    text = "\n".join(_without_code(text.split("\n")))
    for opening, closing, hides_rest in _SPANS:
        text = _without_spans(text, opening, closing, hides_rest)
    return "\n\n".join(filter(None, ("\n".join(_block_lines(block)) for block in text.split("\n\n"))))


def _without_front_matter(text: str) -> str:
    if not _FRONT.match(text):
        return text
    end = _FRONT_END.search(text, 4)
    return "" if end is None else text[end.end():]


def _without_code(lines: list[str]) -> Iterator[str]:
    """Every line outside a fenced code block (a blank line for each inside one); unclosed, it runs to the end."""
    fence = ""
    for line in lines:
        match = _FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and not line[match.end():].strip():
                fence = ""
            yield ""
        elif match:
            fence = match.group(1)
            yield ""
        else:
            yield line


def _without_spans(text: str, opening: str, closing: str, hides_rest: bool) -> str:
    """`text` without its `opening … closing` spans (a line break kept for one that held any).

    One left open hides the rest of the note when `hides_rest` (as Obsidian hides an open
    `%%`), else it stays as written. Each search starts where the last ended: linear time.
    """
    parts: list[str] = []
    pos = 0
    while (start := text.find(opening, pos)) >= 0:
        end = text.find(closing, start + len(opening))
        parts.append(text[pos:start])
        if end < 0:
            if not hides_rest:
                parts.append(text[start:])
            return "".join(parts)
        parts.append("\n\n" if "\n\n" in text[start:end] else "\n" if "\n" in text[start:end] else " ")
        pos = end + len(closing)
    parts.append(text[pos:])
    return "".join(parts)


def _block_lines(block: str) -> Iterator[str]:
    """The lines of one blank-line-separated block, as the parser's writer would write them."""
    lines = block.split("\n")
    table = any(_is_delimiter_row(line) for line in lines)
    quoting: bool | None = None  # whether the block quote being read quotes (a `[!note]` callout does not)
    done_indent: int | None = None  # inside a finished task: its sub-items go with it
    items: list[int] = []  # the indents of the list items open around this line
    if _is_indented_code(lines[0]):
        lines = [line for line in lines if not _is_indented_code(line)]
    for raw in lines:
        depth, line = _quote_depth(raw)
        if depth and quoting is None:
            callout = _CALLOUT.match(line)
            quoting = callout is None or callout.group(1).lower() in _QUOTE_CALLOUTS
            line = line[callout.end():] if callout else line
        elif not depth:
            quoting = None
        prefix = "> " * depth if quoting else ""
        item = _ITEM.match(line)
        indent = len(line) - len(line.lstrip(" "))
        if done_indent is not None and (indent > done_indent and line.strip()):
            continue
        done_indent = None
        if table and "|" in line:
            if not _is_delimiter_row(line):
                yield from _written(prefix, "; ".join(filter(None, map(_inline, _cells(line)))))
            continue
        if item:
            while items and items[-1] >= indent:
                items.pop()
            items.append(indent)
            rest = line[item.end():]
            task = _TASK.match(rest)
            if task and task.group(1) in _DONE:
                done_indent = indent
                continue
            text = _inline(rest[task.end():] if task else rest)
            yield from _written(prefix + "  " * (len(items) - 1) + "- ", text)
            continue
        heading = _HEADING.match(line)
        if heading:
            line = _CLOSING_HASHES.sub("", line[heading.end():])
        line = _FOOTNOTE_DEF.sub("", line, count=1)
        yield from _written(prefix, _inline(line))


def _quote_depth(line: str) -> tuple[int, str]:
    """How many block quotes a line is in (at most MAX_DEPTH, as the parser nests), and its text inside them."""
    depth = pos = 0
    while match := _QUOTE.match(line, pos):
        depth, pos = depth + 1, match.end()
    return min(depth, MAX_DEPTH), line[pos:]


MAX_DEPTH = 20


def _is_delimiter_row(line: str) -> bool:
    return "-" in line and _DELIMITER_ROW.fullmatch(line.strip()) is not None


def _is_indented_code(line: str) -> bool:
    return line.startswith(("    ", "\t")) and bool(line.strip()) and not _ITEM.match(line.lstrip())


def _cells(row: str) -> list[str]:
    cells = _CELL_SPLIT.split(row.strip())
    return cells[1:-1] if row.strip().startswith("|") and len(cells) > 2 else cells


def _inline(text: str) -> str:
    """A line's text without its inline markup; a line of nothing but tags reads as nothing."""
    if not _ANY_MARK.search(text):
        return text
    text = _EMBED.sub("", text)
    text = _WIKILINK.sub(_link_words, text)
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _FOOTNOTE_REF.sub("", _STRUCK.sub("", text))
    text = _CODE.sub(_code_words, text)
    text = _TAG_HTML.sub("", _BREAK_TAG.sub(" ", text))
    text = _URL.sub("", html.unescape(text))
    if not _HASHTAG.sub("", text).strip(" \t"):
        return ""
    text = _HASHTAG.sub(_tag_words, text)
    return _ESCAPE.sub(r"\1", _MARKS.sub("", text))


def link_title(target: str) -> str:
    """What a wiki link's target reads as: the note's name, without folder, `.md` or `#heading`."""
    note, _, sub = target.partition("#")
    if not note.strip():
        return sub.lstrip("^").strip()
    name = note.strip().rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


def _link_words(match: re.Match[str]) -> str:
    target, _, alias = match.group(1).replace("\\|", "|").partition("|")
    return alias.strip() or link_title(target)


def _code_words(match: re.Match[str]) -> str:
    code = match.group(1).strip()
    return "" if code.startswith(_DATAVIEW) or _URL.search(code) else code


def _tag_words(match: re.Match[str]) -> str:
    tag = match.group(1)
    if tag.replace("/", "").replace("-", "").isdigit():
        return match.group()
    return " ".join(re.split(r"[/_-]+", tag)).strip()


def _written(prefix: str, text: str) -> Iterator[str]:
    """A line as the parser's writer writes it: white space collapsed, only if it holds a letter or digit."""
    part = _LOOSE_MARK.sub(r"\1", " ".join(text.split()))
    if part and any(c.isalnum() for c in part):
        yield prefix + part
