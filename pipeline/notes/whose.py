"""Whose words a note holds (docs/spec.md §1 "Whose words"): the person's own unless it shows it is not.

Pure: a note's frontmatter, vault path and markdown body in; a judgement out. Someone else's
words are a web clipping, a highlights export or an AI chat transcript with no turn of the
person's to be found: the whole note is read as `external` (no dimension; its title and tags
may join the external pool). An AI chat with the person's turns marked keeps only those turns;
a block quote or `[!quote]` callout in the person's own note is left out of what every
extractor reads (`without_quotes`, on the note's text).

Everything read from the note is bounded: a few frontmatter values of a few hundred
characters, the first tags of the body, and one pass over its lines.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable, Sequence
from enum import Enum
from itertools import islice

from pydantic import BaseModel

from hylo_memory.domain.sources import Perspective
from hylo_memory.pipeline.notes.fields import MAX_TAG, MAX_TAGS, MAX_TITLE
from hylo_memory.pipeline.notes.text import link_target

MAX_VALUES = 20  # entries of one frontmatter list looked at
MAX_VALUE = 300  # characters of one frontmatter value looked at
MAX_INLINE_TAGS = 200  # `#tags` of a body looked at


class Reason(str, Enum):
    """Why some or all of a note is not the person's words: the run summary counts notes by it."""

    clipping = "clipping"  # a web clipping: the whole note is someone else's
    highlights = "highlights"  # a highlights export (Readwise, Kindle): the whole note
    ai_chat = "ai_chat"  # an AI chat: only the person's turns are read (none found: the whole note is not)
    quotes = "quotes"  # the person's own note, its block quotes and `[!quote]` callouts left out


class Whose(BaseModel):
    """A note's judgement: whether it is someone else's as a whole, why, and the markdown left to read."""

    external: bool = False
    reason: Reason | None = None  # None: all the person's own
    body: str  # the markdown every extractor reads: an AI chat's assistant turns removed


# Folder names (any case, anywhere in the path) where tools put other people's words.
_CLIPPING_FOLDERS = frozenset({"clippings", "clipping", "web clippings", "web clips", "webclips"})
_HIGHLIGHT_FOLDERS = frozenset({"readwise", "kindle", "kindle highlights"})
_CLIPPING_TAGS = frozenset({"clippings", "clipping", "web-clip", "web-clips", "webclip", "web-clipping",
                            "web-clippings", "webclipping"})
_HIGHLIGHT_TAGS = frozenset({"highlight", "highlights"})
_HIGHLIGHT_TOOLS = frozenset({"readwise", "kindle"})  # `#readwise/…` tags the tool's notes
_READWISE_CATEGORIES = frozenset({"articles", "books", "tweets", "podcasts", "supplementals"})
_URL_FIELDS = ("source", "url", "link")
_URL = re.compile(r"^(?:https?://|www\.)", re.I)
_CHAT_HOSTS = re.compile(r"^(?:https?://)?(?:www\.)?(?:chatgpt\.com|chat\.openai\.com|claude\.ai|gemini\.google\.com|"
                         r"bard\.google\.com|copilot\.microsoft\.com|(?:www\.)?perplexity\.ai|grok\.com|"
                         r"chat\.deepseek\.com|aistudio\.google\.com)(?:[/?#]|$)", re.I)
# The assistants a chat export names in `source: …` (or `app`/`platform`).
_ASSISTANTS = r"chat ?gpt|gpt[-\w.]{0,20}|openai|claude|anthropic|gemini|bard|copilot|perplexity|grok|deepseek|" \
              r"mistral|le chat|llama"
_CHAT_SOURCE = re.compile(rf"^(?:{_ASSISTANTS})(?:[ -][\w.]{{1,20}}){{0,3}}$", re.I)
_INLINE_TAG = re.compile(r"(?<![^\s(])#([^\W\d_][\w/-]{0,100})")
_READWISE_CATEGORY = re.compile(r"^[-*] Category: #?(\w+)[ \t]*$", re.M)  # Readwise's default export metadata


def judge(meta: dict[str, object], rel: str, body: str, author: Sequence[str] = (),
          stated: Perspective | None = None) -> Whose:
    """Whose words the note `rel` (vault path) holds; `author` is the person's name and aliases.

    A folder of an export tool (`Clippings/`, `Readwise/`, `Kindle/`) is someone else's even
    in a unit that states `perspective: own`: the tools write there, and a template that stamps
    `own` on every unit is likelier than the person's own writing in a highlights folder. The
    other signs (a URL with another author, a tag, a Readwise category) are the note's own
    fields, and a `perspective` the person stated (`stated`) wins over them. An AI chat's
    assistant turns are removed whatever the note states: they are never the person's words.
    """
    fields = _lowered(meta)
    folder = _folder_reason(rel)
    if folder is not None:
        return Whose(external=True, reason=folder, body=body)
    sources = [v for f in ("source", "app", "platform") for v in _values(fields, f)]
    urls = [v for f in _URL_FIELDS for v in _values(fields, f) if _URL.match(v)]
    if any(_CHAT_SOURCE.match(v) or _CHAT_HOSTS.match(v) for v in sources) or any(_CHAT_HOSTS.match(u) for u in urls):
        return _chat(body, export=True, stated=stated)
    if stated is None:
        reason = _field_reason(fields, body, urls, author)
        if reason is not None:
            return Whose(external=True, reason=reason, body=body)
    if _ANY_ASSISTANT.search(body):
        return _chat(body, export=False, stated=stated)
    return Whose(body=body)


def others_folder(name: str) -> str | None:
    """What a folder named `name` holds when it is someone else's words ("web clippings"), for `init`."""
    folded = " ".join(name.casefold().replace("_", " ").split())
    if folded in _CLIPPING_FOLDERS:
        return "web clippings"
    if folded in _HIGHLIGHT_FOLDERS:
        return "highlights"
    return None


def without_quotes(text: str) -> tuple[str, bool]:
    """A note's plain text without its block quotes, and whether it had any (docs/spec.md §1).

    `note_text` writes a block quote's (and a `[!quote]` callout's) lines with `> ` and the
    person's own callouts (`[!note]`, `[!tip]`…) without: what is quoted is someone else's
    words, to every extractor alike.
    """
    lines = text.split("\n")
    kept = [line for line in lines if not line.startswith(">")]
    if len(kept) == len(lines):
        return text, False
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip(), True


def _folder_reason(rel: str) -> Reason | None:
    """A clippings or highlights folder anywhere in the note's path."""
    for folder in rel.split("/")[:-1]:
        what = others_folder(folder)
        if what is not None:
            return Reason.clipping if what == "web clippings" else Reason.highlights
    return None


def _field_reason(fields: dict[str, object], body: str, urls: list[str], author: Sequence[str]) -> Reason | None:
    """A highlights export or a clipping by the note's own fields: its tags, category, or a URL by another author."""
    tags = [(t, False) for t in _values(fields, "tags", split=True)]
    tags += [(m[1], True) for m in islice(_INLINE_TAG.finditer(body), MAX_INLINE_TAGS)]
    reasons = [_tag_reason(tag, inline) for tag, inline in tags]
    categories = [c.lstrip("#").casefold() for c in _values(fields, "category")]
    categories += [m[1].casefold() for m in islice(_READWISE_CATEGORY.finditer(body), 3)]
    if Reason.highlights in reasons or _READWISE_CATEGORIES.intersection(categories):
        return Reason.highlights
    if Reason.clipping in reasons:
        return Reason.clipping
    if urls and not _by_the_person(_values(fields, "author"), author):
        return Reason.clipping
    return None


def _tag_reason(tag: str, inline: bool) -> Reason | None:
    """`clippings`, `web-clip`; `highlights`, `type/highlight/book`, `readwise/…`.

    A bare `#highlights` in the body is not enough: a journal's "#highlights of the day" are
    the person's own. In the frontmatter, or under a parent tag, it is an export's.
    """
    parts = [p for p in tag.lstrip("#").casefold().split("/") if p]
    if not parts:
        return None
    if _CLIPPING_TAGS.intersection(parts):
        return Reason.clipping
    if parts[0] in _HIGHLIGHT_TOOLS or _HIGHLIGHT_TAGS.intersection(parts[1:]):
        return Reason.highlights
    if not inline and len(parts) == 1 and parts[0] in _HIGHLIGHT_TAGS:
        return Reason.highlights
    return None


def _by_the_person(authors: list[str], names: Sequence[str]) -> bool:
    """Whether the note's `author` is the person (their name or an alias), as Obsidian links name people too."""
    own = {_fold(n) for n in names if _fold(n)}
    for author in authors:
        name = _fold(link_target(author).rsplit("/", 1)[-1])
        if name and (name in own or any(len(o.split()) > 1 and set(o.split()) <= set(name.split()) for o in own)):
            return True
    return False


def _fold(text: str) -> str:
    """Case, accents and punctuation folded: "Inês Costa" and "ines-costa" are one name."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))
    return " ".join(re.sub(r"[\W_]+", " ", plain).split())


def _lowered(meta: dict[str, object]) -> dict[str, object]:
    """The frontmatter by lower-case key: `URL`, `Source` and `Author` are written too."""
    return {str(k).strip().lower(): v for k, v in meta.items()}


def _values(fields: dict[str, object], field: str, split: bool = False) -> list[str]:
    """A frontmatter field's values as text, leniently and bounded: what is not text is not a sign."""
    value = fields.get(field)
    entries: Iterable[object] = value[:MAX_VALUES] if isinstance(value, list) else [value]
    found: list[str] = []
    for entry in entries:
        if not isinstance(entry, str | int | float) or isinstance(entry, bool):
            continue
        text = str(entry).strip()[:MAX_VALUE]
        if split:
            found += [t for t in re.split(r"[,\s]+", text) if t][:MAX_VALUES]
        elif text:
            found.append(text)
    return found


def pool_fields(meta: dict[str, object], rel: str) -> dict[str, object]:
    """A note's title and tags, read leniently: what someone else's note brings to the external pool,
    docs/spec.md §4.5."""
    fields = _lowered(meta)
    titles = _values(fields, "title")
    tags = [t.lstrip("#").lower()[:MAX_TAG] for t in _values(fields, "tags", split=True)[:MAX_TAGS]]
    return {"title": (titles[0] if titles else posixpath.splitext(posixpath.basename(rel))[0])[:MAX_TITLE],
            "tags": [t for t in tags if t]}


# ---- AI chats: whose turn each line is ----

_OWN_ROLE = r"user|you|me|human|prompt|我|用户|提问"
# Headings and bold labels may name a model's version ("### Claude 3.5 Sonnet", "**GPT-4o:**");
# a plain `Label:` line may not, so that "Claude is great: …" stays a sentence.
_ASSISTANT_ROLE = rf"assistant|ai|{_ASSISTANTS}|model|bot|system|助手|助理|回答"
_VERSIONED = rf"(?:{_ASSISTANT_ROLE})(?:[ -][\w.]{{1,20}}){{0,3}}"
_DECOR = r"(?:[^\w\s*#_]{1,4}[ \t]*)?"  # an emoji before the role ("## 🤖 Assistant")
_SAID = r"(?:[ \t]+(?:said|says|wrote))?[ \t]*:?"
_STAMP = r"(?:[ \t]*[·•|–—(（\[][^\n]{0,60})?"  # an exporter's time after the role ("## 👤 我 · 2026-07-08 11:01")
_HEADING = re.compile(rf"^ {{0,3}}#{{1,6}}[ \t]+{_DECOR}(?:(?P<own>{_OWN_ROLE})|{_VERSIONED}){_SAID}{_STAMP}"
                      rf"[ \t]*#*[ \t]*$", re.I)
_BOLD = re.compile(rf"^ {{0,3}}(?:\*\*|__){_DECOR}(?:(?P<own>{_OWN_ROLE})|{_VERSIONED}){_SAID}[ \t]*(?:\*\*|__)"
                   rf"[ \t]*:?[ \t]*(?P<rest>.*)$", re.I)
_PLAIN = re.compile(rf"^ {{0,3}}(?:(?P<own>{_OWN_ROLE})|{_ASSISTANT_ROLE})(?:[ \t]+(?:said|says))?[ \t]*:[ \t]*"
                    rf"(?P<rest>.*)$", re.I)
# One search of the whole body, before any line is looked at: most notes name no assistant.
_ANY_ASSISTANT = re.compile(rf"^ {{0,3}}(?:#{{1,6}}[ \t]+|\*\*|__)?{_DECOR}(?:{_ASSISTANT_ROLE})\b", re.I | re.M)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _chat(body: str, export: bool, stated: Perspective | None) -> Whose:
    """An AI chat: the person's turns only. An export with no turns of theirs found is not theirs at all.

    Without a chat `source`, a note is a chat only when it marks both the person's turns and an
    assistant's: a lone "## AI" heading is a topic. What comes before the first turn is the
    person's in their own note, and the exporter's (a title, metadata) in an export.
    """
    turns = _turns(body)
    roles = {own for own, _ in turns if own is not None}
    if roles != {True, False}:
        if export and stated is None:
            return Whose(external=True, reason=Reason.ai_chat, body=body)
        return Whose(body=body)
    kept = [lines for own, lines in turns if own or (own is None and not export)]
    return Whose(reason=Reason.ai_chat, body="\n\n".join("\n".join(lines) for lines in kept))


def chat_turns(body: str) -> list[tuple[bool | None, str]]:
    """An AI chat's turns in order, each with whether it is the person's (None: what precedes the first marker), for
    the archive, which keeps the assistant's turns marked as the AI's (docs/spec.md §9.7)."""
    return [(own, "\n".join(lines)) for own, lines in _turns(body) if any(line.strip() for line in lines)]


def _turns(body: str) -> list[tuple[bool | None, list[str]]]:
    """The body's turns in order: (the person's?, lines); None for what precedes the first role marker.

    A marker inside a fenced code block is code, not a turn.
    """
    turns: list[tuple[bool | None, list[str]]] = [(None, [])]
    fence = ""
    for line in body.splitlines():
        opened = _FENCE.match(line)
        if fence:
            if opened and opened[1][0] == fence[0] and len(opened[1]) >= len(fence) \
                    and not line.strip()[len(opened[1]):]:
                fence = ""  # the closing fence: as long as the opening one, nothing after it
        elif opened:
            fence = opened[1]
        else:
            marker = _HEADING.match(line) or _BOLD.match(line) or _PLAIN.match(line)
            if marker:
                rest = marker.groupdict().get("rest") or ""
                turns.append((marker["own"] is not None, [rest] if rest.strip() else []))
                continue
        turns[-1][1].append(line)
    return turns


STANCE_HEADINGS = ("立场", "我的立场", "stance", "my stance", "own stance")  # Hylo's skill names 立场


def own_stance(markdown: str) -> str | None:
    """The text of a unit's own-stance section (`## 立场`, `## Stance`): what the author thinks of what the
    unit records, up to the next heading of its level or above; None when there is none or it is blank."""
    found: list[str] = []
    level = 0
    for line in markdown.splitlines():
        heading = _SECTION_HEADING.match(line)
        if level and heading and len(heading.group(1)) <= level:
            break
        if level:
            found.append(line)
        elif heading and heading.group(2).strip().strip(":：").strip().lower() in STANCE_HEADINGS:
            level = len(heading.group(1))
    text = "\n".join(found).strip()
    return text or None


_SECTION_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
