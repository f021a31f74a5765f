"""A note's text, not its markup (docs/spec.md §1): what every extractor reads.

Pure: markdown in, plain text out. The note is parsed by markdown-it (CommonMark, tables,
strikethrough, footnotes, GFM autolinks) with a few rules of our own for what only
Obsidian knows: `[[wiki links|aliases]]`, `![[embeds]]`, `#tags`, `%% comments %%`,
`==highlights==` and Templater's `<% … %>`. Then the tokens are walked and written out as
plain lines:

- a paragraph, heading, table row or footnote is its own line (soft breaks stay line breaks,
  as Obsidian shows them), blocks are separated by a blank line, so sentences and lines
  survive for the first-person patterns;
- a list item is a line of its own starting `- `; a finished or cancelled task
  (`- [x]`, `- [-]`) is dropped whole, an open one keeps its text;
- a block quote (or a `[!quote]`/`[!cite]` callout) keeps its `> `: it is someone else's words,
  left out of what every extractor reads (pipeline/notes/whose.py); the person's own callouts
  (`[!note]`, `[!tip]`…) are written as their own lines;
- code blocks (a mermaid diagram too), inline Dataview queries, HTML and Obsidian comments,
  embeds, images, footnote marks, struck-out text and bare URLs are dropped; links, wiki
  links, emphasis, inline code and tags are reduced to their text.

Bounded: a note whose markup would cost more than PARSE_BUDGET to parse (counted before
parsing, `markup_cost`) is read as plain text by pipeline/notes/plain.py instead, and says so
(`read_note(...).plain`: the run summary names it). Below the budget the parse is linear:
an unclosed `[` is text at once, GFM's autolink rules look only where a URL may start, and
text whose only markup is wiki links is not handed to the inline parser at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from html.parser import HTMLParser
from typing import NamedTuple

from markdown_it import MarkdownIt
from markdown_it.parser_inline import RuleFuncInlineType
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.gfm_autolink import gfm_autolink_plugin

from hylo_memory.pipeline.notes.plain import link_title as link_title  # what a wiki link reads as, in both readings
from hylo_memory.pipeline.notes.plain import plain_reading

# How far an inline construct may reach for its closing mark: bounded, so that a note of
# a million unclosed `[[` costs linear time, not quadratic.
_REACH = 1000
_WIKI_STOP = re.compile(r"\]\]|[\[\n]")
_TAG_CHARS = re.compile(r"[\w/-]+")
_TASK = re.compile(r"\[(.)\]\s+")
_DONE = "xX-"  # finished and cancelled tasks: not goals, not anything
_CALLOUT = re.compile(r"\[!(\w[\w-]*)\][+-]?\s*")
_QUOTE_CALLOUTS = frozenset({"quote", "cite"})  # Obsidian's callouts for someone else's words
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S*|\bwww\.\S+")
_DATAVIEW = ("=", "$=")
_LOOSE_MARK = re.compile(r"\s+([,.;:!?])(?=\s|$)")  # "see the docs ." where a link was dropped


class NoteText(NamedTuple):
    """A note's text, and whether it was read without the parser (markup over PARSE_BUDGET), as the summary says."""

    text: str
    plain: bool = False


def read_note(markdown: str) -> NoteText:
    """The plain text of a note's markdown body (or of a whole file, frontmatter and all), in bounded time."""
    if _is_plain(markdown):  # most short notes: nothing for the parser to find, and it costs ~0.4 ms a note
        return NoteText(_plain_text(markdown))
    if markup_cost(markdown) > PARSE_BUDGET:
        return NoteText(plain_reading(markdown), plain=True)
    return NoteText(parsed_text(markdown))


def note_text(markdown: str) -> str:
    """`read_note`'s text."""
    return read_note(markdown).text


# What the parser's time grows with, counted before parsing: each line runs a dozen block rules, and
# each character an inline rule may start at (markup, `w` for `www.`) stops the text scan and runs a
# dozen more. A unit is ~8 µs of parsing on a slow machine (~30 µs for the costliest markup), so the
# budget keeps a note's parse to about a second at worst there; the notes of bench/scan.py's markup
# vault cost under 17,000 units each, a paste of 400 KB of unclosed `[[` over 200,000.
PARSE_BUDGET = 50_000
_LINE_COST = 6
_COSTLY = "!#$%&*+-:<=>@[\\]^_`{}~|w"


# More for what costs more: a `[` scans for its label's end, a bare URL or email becomes a link.
_COSTLIER = {"[": 2, "://": 8, "www.": 8, "@": 8}


def markup_cost(markdown: str) -> int:
    """What parsing `markdown` would cost, in units of PARSE_BUDGET: linear, C-speed counts."""
    return _LINE_COST * markdown.count("\n") + sum(markdown.count(c) for c in _COSTLY) \
        + sum(weight * markdown.count(mark) for mark, weight in _COSTLIER.items())


def parsed_text(markdown: str) -> str:
    """`note_text` through the parser, whatever the note holds."""
    writer = _Writer()
    writer.blocks(_MD.parse(markdown))
    return writer.text()


# Characters markdown, Obsidian or our own rules give a meaning to anywhere in a line; and what
# a line may not start with (a list, a quote, a heading, a table, a numbered item, a code block).
_MARKUP = frozenset("[]*_`<>%#=~|!&\\{}$^@")
_LINE_START = frozenset("-+*>#|=~`0123456789\t")


def _is_plain(markdown: str) -> bool:
    if _MARKUP.intersection(markdown) or "://" in markdown or "www." in markdown:
        return False
    for line in markdown.replace("\r", "\n").split("\n"):
        stripped = line.lstrip(" ")
        if stripped and (stripped[0] in _LINE_START or len(line) - len(stripped) >= 4):
            return False
    return True


def _plain_text(markdown: str) -> str:
    """What the parser writes for prose: each line as `_Writer.line` writes it, paragraphs one blank line apart."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in [*markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n"), ""]:  # as markdown splits
        if line.strip(" \t"):  # markdown's blank line: spaces and tabs only
            part = _LOOSE_MARK.sub(r"\1", " ".join(line.split()))
            if any(c.isalnum() for c in part):
                current.append(part)
        elif current:
            paragraphs.append("\n".join(current))
            current = []
    return "\n\n".join(paragraphs)


_WIKI = re.compile(r"!?\[\[([^\[\]]*)\]\]")


def link_target(entry: str) -> str:
    """The vault path a link points to, as written: `"[[_shorts/a|alias]]"`, `./a.md`, `/a` → `_shorts/a`, `a.md`, `a`.

    Brackets, alias, `#heading` and a leading `./` or `/` are removed; `.md` is kept when
    written (resolving the path against the vault is the vault's business).
    """
    text = entry.strip()
    link = _WIKI.fullmatch(text)
    if link:
        text = link.group(1).replace("\\|", "|").split("|", 1)[0].split("#", 1)[0].strip()
    while text.startswith(("./", "/")):
        text = text[1:] if text.startswith("/") else text[2:]
    return text


# ---- parsing: markdown-it and the rules Obsidian adds to it ----


def _wikilink(state: StateInline, silent: bool) -> bool:
    """`[[target]]`, `[[target|alias]]` and `![[embed]]` (a table cell's `\\|` too)."""
    src, pos = state.src, state.pos
    embed = src.startswith("![[", pos)
    start = pos + (3 if embed else 2)
    if not (embed or src.startswith("[[", pos)):
        return False
    # The first `]]`, `[` or line break: a link holds neither, so the search stops at the next `[`,
    # and a line of unclosed `[[` costs each one a step, not a reach.
    stop = _WIKI_STOP.search(src, start, min(state.posMax, start + _REACH))
    if stop is None or stop.group() != "]]" or not src[start:stop.start()].strip():
        return False
    end = stop.start()
    inner = src[start:end]
    if not silent:
        token = state.push("embed" if embed else "wikilink", "", 0)
        token.content, token.info = _link_parts(inner)
    state.pos = end + 2
    return True


def _link_parts(inner: str) -> tuple[str, str]:
    """What a wiki link's inside reads as (its alias, else its note's name), and its target."""
    target, _, alias = inner.replace("\\|", "|").partition("|")
    return alias.strip() or link_title(target), target.strip()


def _unclosed(state: StateInline, silent: bool) -> bool:
    """A `[` or `![` with no `]` after it opens nothing: text at once.

    markdown-it would try a link, an image and a footnote at each, every try scanning a label
    token by token, up to 20 deep: hundreds of rule calls a bracket, 47 s for a note of 400 KB.
    """
    src, pos = state.src, state.pos
    width = 2 if src.startswith("![", pos) else 1 if src[pos] == "[" else 0
    if not width or _last_close(state) > pos:
        return False
    if not silent:  # a token, not `pending`: appending to a long pending string copies it
        state.push("text", "", 0).content = src[pos:pos + width]
    state.pos += width
    return True


def _last_close(state: StateInline) -> int:
    """Where this inline text's last `]` is (-1: none), found once per text, not once per `[`."""
    memo = state.env.get(_LAST_CLOSE)
    if memo is None or memo[0] is not state.src:
        memo = state.env[_LAST_CLOSE] = (state.src, state.src.rfind("]"))
    return int(memo[1])


_LAST_CLOSE = "hylo_last_close"


def _bounded(rule: RuleFuncInlineType, may_start: Callable[[str, int], bool]) -> RuleFuncInlineType:
    """A GFM autolink rule tried only where a URL or an email may start, on at most _URL_REACH characters.

    The plugin's rules copy the rest of the paragraph at every `:` and `@`: quadratic in a long one.
    """
    def bounded(state: StateInline, silent: bool) -> bool:
        if not may_start(state.src, state.pos):
            return False
        old_max = state.posMax
        state.posMax = min(old_max, state.pos + _URL_REACH)
        try:
            return rule(state, silent)
        finally:
            state.posMax = old_max
    return bounded


_URL_REACH = 2048  # the longest bare URL or email address read as one


def _may_be_protocol(src: str, pos: int) -> bool:
    return src.startswith("://", pos) or src.endswith(("mailto", "xmpp"), 0, pos)


def _may_be_email(src: str, pos: int) -> bool:
    return pos > 0 and (src[pos - 1].isascii() and (src[pos - 1].isalnum() or src[pos - 1] in ".+-_"))


def _may_be_www(src: str, pos: int) -> bool:
    return src.startswith("www.", pos)


def _tag(state: StateInline, silent: bool) -> bool:
    """An Obsidian `#tag` (after white space, not all digits): read as its words."""
    src, pos = state.src, state.pos
    if src[pos] != "#" or (pos > 0 and not src[pos - 1].isspace()):
        return False
    match = _TAG_CHARS.match(src, pos + 1)
    if match is None or match.group().replace("/", "").replace("-", "").isdigit():
        return False
    if not silent:
        token = state.push("tag", "", 0)
        token.content = " ".join(re.split(r"[/_-]+", match.group())).strip()
    state.pos = match.end()
    return True


def _comment(state: StateInline, silent: bool) -> bool:
    """An inline `%% comment %%` or a Templater `<% … %>`: nothing of it is read.

    An unclosed `%%` comments out the rest of the paragraph, as Obsidian hides the rest.
    """
    src, pos = state.src, state.pos
    if src.startswith("%%", pos):
        end = src.find("%%", pos + 2)
        state.pos = state.posMax if end < 0 else end + 2
        return True
    if src.startswith("<%", pos):
        end = src.find("%>", pos + 2, pos + 2 + _REACH)
        if end < 0:
            return False
        state.pos = end + 2
        return True
    return False


def _highlight(state: StateInline, silent: bool) -> bool:
    """`==highlighted==`: read as its text (its inside parsed as any inline markdown)."""
    src, pos = state.src, state.pos
    if not src.startswith("==", pos) or src.startswith("===", pos):
        return False
    end = src.find("==", pos + 2, min(state.posMax, pos + 2 + _REACH))
    if end <= pos + 2 or src[pos + 2].isspace():
        return False
    if not silent:
        old_max = state.posMax
        state.pos, state.posMax = pos + 2, end
        state.md.inline.tokenize(state)
        state.posMax = old_max
    state.pos = end + 2
    return True


def _comment_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A `%%` comment that starts a line and runs to the line holding its closing `%%`.

    Unclosed, it runs to the end of the note (or of the block quote it is in). A line that
    closes its comment and goes on (`%% x %% text`) is left to the inline rule.
    """
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    first = state.src[state.bMarks[start] + state.tShift[start]:state.eMarks[start]]
    if not first.startswith("%%"):
        return False
    rest = first[2:]
    if "%%" in rest:
        if rest.split("%%", 1)[1].strip():
            return False
        last = start
    else:
        last = start + 1
        while last < end and "%%" not in state.src[state.bMarks[last]:state.eMarks[last]]:
            last += 1
        last = min(last, end - 1)
    if silent:
        return True
    token = state.push("obsidian_comment", "", 0)
    token.map = [start, last + 1]
    state.line = last + 1
    return True


def _parser(fast: bool = True) -> MarkdownIt:
    """Our markdown-it; `fast=False` without the shortcuts that give the same tokens sooner (for tests)."""
    md = MarkdownIt("commonmark", {"maxNesting": 20}).enable(["table", "strikethrough"])
    md.use(front_matter_plugin).use(footnote_plugin).use(gfm_autolink_plugin)
    md.block.ruler.after("fence", "obsidian_comment", _comment_block, {"alt": ["paragraph", "blockquote", "list"]})
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.inline.ruler.before("backticks", "obsidian_comment", _comment)
    md.inline.ruler.before("emphasis", "highlight", _highlight)
    md.inline.ruler.before("link", "tag", _tag)
    if fast:
        md.inline.ruler.before("wikilink", "unclosed", _unclosed)
        for name, may_start in (("gfm_autolink_protocol", _may_be_protocol), ("gfm_autolink_email", _may_be_email),
                                ("gfm_autolink_www", _may_be_www)):
            md.inline.ruler.at(name, _bounded(_rule(md, name), may_start))
        md.core.ruler.at("inline", _inline_core)
    return md


def _rule(md: MarkdownIt, name: str) -> RuleFuncInlineType:
    return next(rule.fn for rule in md.inline.ruler.__rules__ if rule.name == name)


# What makes inline text more than its characters: a rule starts at it (our rules and GFM's too).
_INLINE_MARKUP = re.compile(r"[!#%&*<=@\[\\\]^_`~]|://|mailto:|xmpp:|www\.")


def _inline_core(state: StateCore) -> None:
    """markdown-it's inline stage, but text with nothing an inline rule reads but wiki links is not parsed.

    Most headings and table cells, much of a Chinese note's prose: a third of the parse.
    """
    for token in state.tokens:
        if token.type != "inline":
            continue
        quick = _quick_children(token.content)
        if quick is None:
            token.children = []
            state.md.inline.parse(token.content, state.md, state.env, token.children)
        else:
            token.children = quick


_LINK_RUN = re.compile(r"!?\[\[([^\[\]\n]*)\]\]")


def _quick_children(content: str) -> list[Token] | None:
    """The tokens the inline rules would give text whose only markup is wiki links; None for any other text.

    Wiki links are the markup Obsidian notes hold most: their cells and sentences need no parse.
    """
    children: list[Token] = []
    pos = 0
    for link in _LINK_RUN.finditer(content):
        inner = link.group(1)
        if not inner.strip() or len(inner) > _REACH - 2 or not _quick_text(content[pos:link.start()], children):
            return None
        token = Token("embed" if link.group().startswith("!") else "wikilink", "", 0)
        token.content, token.info = _link_parts(inner)
        children.append(token)
        pos = link.end()
    return children if _quick_text(content[pos:], children) else None


def _quick_text(text: str, children: list[Token]) -> bool:
    """Add `text` as a text token, if no inline rule would read anything in it."""
    if _INLINE_MARKUP.search(text):
        return False
    if text:
        token = Token("text", "", 0)
        token.content = text
        children.append(token)
    return True


_MD = _parser()


# ---- writing: tokens to plain lines ----


class _Writer:
    """Walks block tokens and writes plain lines: quote marks, bullets and blank lines between blocks."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.quotes = 0
        self.quoting: list[bool] = []  # per open block quote: whether it quotes (a `[!note]` callout does not)
        self.items: list[bool] = []  # per open list item: whether its first line is written
        self.row: list[str] | None = None  # the cells of the table row being read

    def text(self) -> str:
        return "\n".join(self.out).strip()

    def gap(self) -> None:
        if not self.items and self.out and self.out[-1]:
            self.out.append("")

    def line(self, text: str) -> None:
        for part in text.split("\n"):
            part = _LOOSE_MARK.sub(r"\1", " ".join(part.split()))
            if not part or not any(c.isalnum() for c in part):
                continue
            bullet = ""
            if self.items:
                bullet = "  " * (len(self.items) - 1) + ("  " if self.items[-1] else "- ")
                self.items[-1] = True
            self.out.append("> " * self.quotes + bullet + part)

    def blocks(self, tokens: Sequence[Token]) -> None:
        i = 0
        while i < len(tokens):
            token = tokens[i]
            kind = token.type
            if kind == "list_item_open" and (_task_status(tokens, i) or " ") in _DONE:
                i = _close_of(tokens, i)  # a finished task, sub-items and all
            elif kind == "list_item_open":
                self.items.append(False)
            elif kind == "list_item_close":
                self.items.pop()
            elif kind in ("bullet_list_close", "ordered_list_close", "table_close", "hr"):
                self.gap()
            elif kind == "blockquote_open":
                callout = _callout_type(tokens, i)
                self.quoting.append(callout is None or callout in _QUOTE_CALLOUTS)
                self.quotes += self.quoting[-1]
                if callout is not None:
                    _strip_start(tokens[i + 2], _CALLOUT)
            elif kind == "blockquote_close":
                self.quotes -= self.quoting.pop() if self.quoting else 0
                self.gap()
            elif kind == "tr_open":
                self.row = []
            elif kind == "tr_close" and self.row is not None:
                self.line("; ".join(cell for cell in self.row if cell))
                self.row = None
            elif kind == "inline":
                self._inline(tokens, i)
            elif kind in ("paragraph_close", "heading_close"):
                self.gap()
            elif kind == "html_block":
                self.line(_html_text(token.content))
                self.gap()
            # fence, code_block, front_matter, obsidian_comment: nothing of them is read
            i += 1

    def _inline(self, tokens: Sequence[Token], i: int) -> None:
        token = tokens[i]
        if i >= 2 and tokens[i - 2].type == "list_item_open" and _task_status(tokens, i - 2) is not None:
            _strip_start(token, _TASK)
        text = _inline_text(token.children or [])
        if self.row is not None:
            self.row.append(" ".join(text.split()))
        else:
            self.line(text)


def _task_status(tokens: Sequence[Token], item: int) -> str | None:
    """The status character of the task a list item opens (`[ ]`, `[x]`, `[-]`, `[/]`…), if it is one."""
    if item + 2 >= len(tokens) or tokens[item + 2].type != "inline":
        return None
    match = _TASK.match(tokens[item + 2].content)
    return match.group(1) if match else None


def _callout_type(tokens: Sequence[Token], quote: int) -> str | None:
    """The type of the callout a block quote opens (`> [!Quote]` → "quote"), if it is one."""
    if quote + 2 >= len(tokens) or tokens[quote + 2].type != "inline":
        return None
    match = _CALLOUT.match(tokens[quote + 2].content)
    return match.group(1).lower() if match else None


def _close_of(tokens: Sequence[Token], i: int) -> int:
    """The index of the token that closes `tokens[i]`."""
    level = tokens[i].level
    j = i + 1
    while j < len(tokens) and not (tokens[j].level == level and tokens[j].nesting == -1):
        j += 1
    return j


def _strip_start(inline: Token, marker: re.Pattern[str]) -> None:
    """Drop a marker (a task's `[ ]`, a callout's `[!note]`) from the start of an inline token's text."""
    children = inline.children or []
    if children and children[0].type == "text":
        children[0].content = marker.sub("", children[0].content, count=1) if marker.match(children[0].content) \
            else children[0].content


def _inline_text(children: Sequence[Token]) -> str:
    """An inline token's text. A line holding nothing but tags (`#daily #log`) is dropped."""
    lines: list[list[tuple[bool, str]]] = [[]]  # per line: (is a tag, text)
    skip_until: str | None = None  # inside struck text or an image: read nothing to its close
    link: list[tuple[bool, str]] | None = None
    for child in children:
        kind = child.type
        if skip_until is not None:
            if kind == skip_until:
                skip_until = None
            continue
        piece: tuple[bool, str] | None = None
        if kind == "text":
            piece = (False, _URL.sub("", child.content))
        elif kind in ("softbreak", "hardbreak"):
            lines.append([])
        elif kind == "code_inline":
            code = child.content.strip()
            if not code.startswith(_DATAVIEW) and not _URL.search(code):
                piece = (False, code.replace("`", "'"))
        elif kind == "wikilink":
            piece = (False, child.content)
        elif kind == "tag":
            piece = (True, child.content)
        elif kind == "s_open":
            skip_until = "s_close"
        elif kind == "link_open":
            link = []
        elif kind == "link_close" and link is not None:
            words = "".join(t for _, t in link).strip()
            href = str(child.attrs.get("href", "") or "")
            if words and child.markup != "autolink" and words != href:
                lines[-1].append((False, words))
            link = None
        elif kind == "html_inline" and re.match(r"<br\b", child.content, re.I):
            lines.append([])
        # image, embed, footnote_ref, footnote_anchor, html_inline, emphasis marks: no text of their own
        if piece is not None:
            (link if link is not None else lines[-1]).append(piece)
    kept = ["".join(t for _, t in line) for line in lines if any(not tag and t.strip() for tag, t in line)]
    return "\n".join(kept)


class _HTMLText(HTMLParser):
    """The text of an HTML block: no comments, scripts, styles or preformatted code."""

    _HIDDEN = frozenset({"script", "style", "pre", "code", "template"})
    _BREAKS = frozenset({"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "summary", "details"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN:
            self.hidden += 1
        elif tag in self._BREAKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self._BREAKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


_TAG = re.compile(r"<[^>]*>?")


def _html_text(html: str) -> str:
    parser = _HTMLText()
    try:
        parser.feed(html)
        parser.close()
    except AssertionError:  # Python 3.11's parser asserts on a malformed `<![…` section: the text, tags dropped
        return _URL.sub("", _TAG.sub("", html))
    return _URL.sub("", "".join(parser.parts))
