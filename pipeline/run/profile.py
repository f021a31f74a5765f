"""The author profile (docs/spec.md §4.2) and the perspective of units that do not say theirs."""

from __future__ import annotations

import re

from hylo_memory.decay import MemoryFile
from hylo_memory.decay.files.store import MemoryStore, atomic_write
from hylo_memory.decay.stated import statements
from hylo_memory.domain.sources import Perspective, Source
from hylo_memory.extractors.base import AuthorProfile
from hylo_memory.extractors.offline.relations import RELATIONS
from hylo_memory.pipeline.state.names import INTRO_FILE as INTRO_FILE  # re-exported: where the intro is kept
from hylo_memory.pipeline.state.read_memo import intro_path

MAX_INTRO = 4_000  # characters: a few paragraphs about oneself; the command line and the MCP tool alike

_CAP = r"[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,3}"
# Keywords are matched in any case, names only with their capital: (?i:…) scopes the former.
_NAME = re.compile(rf"(?i:\bname(?: is|:)\s*|\bcalled\s+|\bnamed\s+|^I(?:'m|’m| am)\s+)(?P<v>{_CAP})"
                   # Chinese: 我叫…, 名字是… (an item "叫萨姆" or "名字是萨姆" as `remember` keeps it)
                   r"|(?:^我?叫|名字(?:是|叫))(?P<zh>[^\s，,。.；;！!？?]{1,20})")
_ALIAS = re.compile(r"\b(?:also known as|aka|a\.k\.a\.|goes by|alias(?:es)?:?|handle:?)\s+@?(?P<v>\w[\w.'’-]*\w)", re.I)
_ROLE = re.compile(r"\b(?i:works as|role:|job:|I(?:'m| am) an?)\s+(?:an?\s+)?(?P<v>[a-z][\w -]{2,40}?)(?=\s+(?:at|for|of)\b|[,.;]|$)")
_PROJECT = re.compile(
    r"\b(?i:runs|run|hosts|host|host of|founded|founder of|creator of|created|builds|building|maintains|owns|"
    r"working on|my own|my)\s+(?i:the\s+|a\s+|an\s+|my\s+)?(?i:own\s+)?(?i:podcast|newsletter|project|app|blog|product|"
    r"company|startup|channel|show)?\s*[\"“'‘]?(?P<v>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})"
)
# The relation word in any case ("My sister Ana"), the name capitalised: "my sister is Ana" names no one "is".
_PERSON = re.compile(rf"(?:\b(?i:my)\s+(?i:{'|'.join(map(re.escape, RELATIONS))}),?\s+(?:(?i:is)\s+)?"
                     rf"(?P<a>[A-Z][\w'’-]+)|^(?P<b>[A-Z][\w'’-]+) — )")
_SLUG = re.compile(r"[^a-z0-9]+")


def build_profile(
    identity: MemoryFile | None,
    goals: MemoryFile | None,
    intro: str | None,
    extra_note_folders: list[str] | None = None,
    me: str | None = None,
) -> AuthorProfile:
    """Name, aliases, projects, roles and people from `_me.md` (the person's own words come first: its name wins),
    `_identity.md`, `_goals.md` and the intro."""
    texts = statements(me) + [i.text for f in (identity, goals) if f is not None for i in f.items]
    if intro:
        texts += [s for s in re.split(r"(?<=[.!?;])\s+|\n+", intro) if s.strip()]
    profile = AuthorProfile(intro=intro or None, me=me.strip() if me and me.strip() else None)
    profile.note_folders += [f.strip("/") for f in extra_note_folders or [] if f.strip("/")]
    for text in texts:
        if profile.name is None and (m := _NAME.search(text)):
            profile.name = m["v"] or m["zh"]
        profile.aliases += [m["v"] for m in _ALIAS.finditer(text)]
        profile.roles += [m["v"].strip() for m in _ROLE.finditer(text)]
        profile.projects += [m["v"].strip() for m in _PROJECT.finditer(text)]
        profile.people += [m["a"] or m["b"] for m in _PERSON.finditer(text)]
    for field in ("aliases", "roles", "projects", "people"):
        setattr(profile, field, list(dict.fromkeys(getattr(profile, field))))
    return profile


def slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")


def is_own_path(path: str, profile: AuthorProfile) -> bool:
    """A note in the author's own note folders, or under their project or name, is in their own words."""
    folders = [folder.strip().strip("/") for folder in profile.note_folders]
    if any(folder in ("", ".") or path == folder or path.startswith(f"{folder}/") for folder in folders):
        return True  # "." is the whole vault: every note in it is the author's
    parts = [slug(p) for p in path.split("/")]
    names = [p for p in profile.projects + profile.aliases + [profile.name or ""] if p]
    own = {slug(n) for n in names if slug(n)}
    return any(part in own for part in parts[:-1]) or any(part.startswith(f"{o}-") for o in own for part in parts[:-1])


def judge_perspective(unit: Source, profile: AuthorProfile) -> Perspective:
    """The unit's stated perspective; else judged from its `source_notes` (none at all: personal)."""
    if unit.perspective is not None:
        return unit.perspective
    if not unit.source_notes:
        return Perspective.own
    from hylo_memory.pipeline.notes.text import link_target  # here: `context` builds a profile and never parses a note

    # A vault resolves its units' links to paths when it reads them; any other backend's are read as written.
    own = [is_own_path(link_target(p), profile) for p in unit.source_notes]
    if all(own):
        return Perspective.own
    return Perspective.mixed if any(own) else Perspective.external


def kept_intro(store: MemoryStore) -> str | None:
    """The self-introduction a run was given last, or None (none given yet, or its file unreadable)."""
    return intro_from(kept_intro_bytes(store))


def kept_intro_bytes(store: MemoryStore) -> bytes | None:
    try:
        return intro_path(store.folder).read_bytes()
    except OSError:  # no intro yet; an unreadable one is no reason to refuse a run
        return None


def intro_from(data: bytes | None) -> str | None:
    """The intro its file's bytes hold; None for none, a blank one or one that is not UTF-8."""
    try:
        text = (data or b"").decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    return text or None


def intro_for_run(store: MemoryStore, intro: str | None, dry_run: bool = False) -> str | None:
    """The intro a run's profile uses: the one given now (kept for later runs, unless it is a dry run), else the
    one kept. `context` names the person from it until the identity file says otherwise."""
    if intro is None or not intro.strip():
        return kept_intro(store)
    if not dry_run:
        atomic_write(intro_path(store.folder), intro.strip().encode("utf-8") + b"\n")
    return intro
