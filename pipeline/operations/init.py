"""`hylo-memory init`: look at a vault, propose which of its folders to read, write `.hylo-memory.toml`.

Looking is cheap and bounded: file names and mtimes for counts and dates (at most
`MAX_FILES` files), and the first few kilobytes of a few notes per folder — their frontmatter,
and whose words they hold (docs/spec.md §1 "Whose words", judged as a run judges them).
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import os
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from stat import S_ISREG
from typing import Any, NamedTuple

from pydantic import BaseModel, ValidationError

from hylo_memory.decay.files.store import atomic_write
from hylo_memory.errors import ConfigError, validation_line
from hylo_memory.pipeline.config import VAULT_FILE, Config
from hylo_memory.pipeline.notes.dates import name_day
from hylo_memory.pipeline.notes.fields import Unreadable, parse_note
from hylo_memory.pipeline.notes.layouts import LOGSEQ, is_logseq_graph
from hylo_memory.pipeline.notes.whose import Reason, judge, others_folder

MAX_FILES = 100_000  # files looked at, in all; past it the counts say "at least"
SAMPLE_NOTES = 20  # notes per folder whose frontmatter and words are looked at
SAMPLE_BYTES = 4096  # of each: a chat export's source and first turns, a clipping's fields
MAX_JSON_BYTES = 64 * 1024  # an Obsidian settings file larger than this is not one
ROOT = "."  # the vault's own top level, as a scan path

_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_NUMBERING = re.compile(r"^[\d\W_]+")  # "10 Journal", "01-Daily", "_shorts": the name under the numbering
_SHORTS_NAMES = re.compile(r"^(shorts?|journals?|daily|daily ?notes|dailies|diary|diaries|days|logbook)$")
_KNOWLEDGE_NAMES = re.compile(r"^(knowledge|knowledge ?base|zettelkasten|zettels?|slip-?box|permanent ?notes|"
                              r"evergreen ?notes|evergreens|wiki)$")
_NEVER_READ = re.compile(r"^(templates?|attachments?|assets|files|media|images|excalidraw)$")
_FIELD = re.compile(rb"^(tags|source_notes)\s*:", re.M)


class Folder(BaseModel):
    """One top folder of the vault, as its file names and mtimes show it."""

    path: str  # "." for the notes at the vault's top level
    notes: int = 0
    other_files: int = 0
    first: dt.date | None = None
    last: dt.date | None = None
    dated_names: int = 0  # notes whose names carry a YYYY-MM-DD date
    sampled: int = 0
    with_tags: int = 0
    with_source_notes: int = 0
    others: dict[Reason, int] = {}  # sampled notes that are AI chats, clippings or highlights, by which


class Survey(BaseModel):
    """What `init` found in a vault."""

    vault: str
    memory_dir: str = "_memory"
    folders: list[Folder] = []
    daily_folder: str | None = None  # Obsidian's daily-notes folder ("" for the vault's top level)
    daily_format: str | None = None
    daily_problem: str | None = None  # `.obsidian/daily-notes.json` there but unreadable
    templates_folder: str | None = None
    logseq_graph: bool = False  # `logseq/config.edn` there: its journals and pages are the person's notes
    files_seen: int = 0
    stopped: bool = False  # MAX_FILES reached: the counts are lower bounds


class Proposal(BaseModel):
    shorts_paths: list[str] = []
    knowledge_paths: list[str] = []
    extra_scan_paths: list[str] = []
    reasons: dict[str, str] = {}  # folder: why it is proposed as what it is


def survey(vault: Path, memory_dir: str, limit: int = MAX_FILES) -> Survey:
    """The vault's top folders with note counts and date ranges, and Obsidian's daily-notes setting."""
    found = Survey(vault=str(vault), memory_dir=memory_dir)
    daily = _obsidian_json(vault, "daily-notes.json")
    if isinstance(daily, str):
        found.daily_problem = daily
    elif daily is not None:
        found.daily_folder = _text(daily.get("folder")).strip("/")
        found.daily_format = _text(daily.get("format")) or "YYYY-MM-DD"  # Obsidian's default
    templates = _obsidian_json(vault, "templates.json")
    if isinstance(templates, dict) and _text(templates.get("folder")).strip("/"):
        found.templates_folder = _text(templates.get("folder")).strip("/")
    found.logseq_graph = is_logseq_graph(vault)
    memory_top = Path(memory_dir).parts[0]
    folders: dict[str, Folder] = {}
    for top, rel in _tops(vault, memory_top):
        folder = folders.setdefault(rel, Folder(path=rel))
        for name, path in _files(top, recurse=rel != ROOT, skip=memory_top):
            if found.files_seen >= limit:
                found.stopped = True
                break
            found.files_seen += 1
            _count(folder, name, path, vault)
        if found.stopped:
            break
    found.folders = sorted(folders.values(), key=lambda f: (f.path != ROOT, f.path.lower()))
    return found


def propose(found: Survey) -> Proposal:
    """Which folders to read as short notes, as knowledge units, and as extra notes."""
    chosen = Proposal()
    with_notes = {f.path: f for f in found.folders if f.notes}
    daily = found.daily_folder
    if daily is not None:
        if daily == "":
            chosen.shorts_paths.append(ROOT)
            chosen.reasons[ROOT] = "Obsidian's daily notes are kept at the vault's top level"
        else:
            chosen.shorts_paths.append(daily)
            chosen.reasons[daily] = "Obsidian's daily-notes folder"
    memory = Path(found.memory_dir)
    for empty in found.folders:
        if not empty.notes:
            chosen.reasons[empty.path] = "no notes: not read"
    for path, folder in with_notes.items():
        if path == daily:
            continue
        if path == ROOT:
            if daily != "":
                chosen.reasons[ROOT] = 'not proposed: add "." to extra_scan_paths to read the whole vault'
            continue
        name = _NUMBERING.sub("", path.lower()).strip() or path.lower()
        if Path(path) in memory.parents:
            chosen.reasons[path] = f"holds the memory folder {found.memory_dir}: not read"
        elif found.logseq_graph and path in _LOGSEQ_FOLDERS:
            _propose_logseq(chosen, path)
        elif _NEVER_READ.match(name) or path == found.templates_folder:
            chosen.reasons[path] = "templates or attachments: not read"
        elif others_folder(name):  # docs/spec.md §1 "Whose words": read as external wherever a scan path reaches them
            chosen.reasons[path] = f"{others_folder(name)}, someone else's words: not proposed as your notes"
        elif others := _mostly_others(folder):  # an export's folder by another name: `ChatGPT/`, `Web/`
            chosen.reasons[path] = others
        elif _SHORTS_NAMES.match(name):
            chosen.shorts_paths.append(path)
            chosen.reasons[path] = "named like a journal"
        elif _KNOWLEDGE_NAMES.match(name):
            chosen.knowledge_paths.append(path)
            chosen.reasons[path] = "named like a knowledge base"
        elif folder.sampled and 2 * folder.with_source_notes > folder.sampled:
            chosen.knowledge_paths.append(path)
            chosen.reasons[path] = "its notes carry source_notes"
        elif folder.sampled and 2 * folder.with_tags > folder.sampled and 2 * folder.dated_names < folder.notes:
            chosen.knowledge_paths.append(path)
            chosen.reasons[path] = "its notes carry tags and are not named by date"
        elif ROOT not in chosen.shorts_paths:
            chosen.extra_scan_paths.append(path)
            chosen.reasons[path] = "personal notes"
    if ROOT in with_notes and ROOT not in chosen.shorts_paths and not (chosen.shorts_paths or chosen.knowledge_paths
                                                                        or chosen.extra_scan_paths):
        if others := _mostly_others(with_notes[ROOT]):
            chosen.reasons[ROOT] = others
        else:
            chosen.shorts_paths.append(ROOT)  # a flat vault: every note at its top level
            chosen.reasons[ROOT] = "the vault keeps its notes at its top level"
    return chosen


# How the listing names a note that is not the person's own words: one, and many.
_OTHERS_KINDS = {Reason.ai_chat: ("AI chat", "AI chats"), Reason.clipping: ("web clipping", "web clippings"),
                 Reason.highlights: ("highlights export", "highlights exports")}


def _mostly_others(folder: Folder) -> str | None:
    """Why a folder is not proposed when most of its sampled notes are AI chats, clippings or highlights.

    A folder of the person's own notes with a chat or a clipping among them is still theirs: only a
    majority makes it an export's folder, whatever it is named.
    """
    count = sum(folder.others.values())
    if not folder.sampled or 2 * count <= folder.sampled:
        return None
    of = f"{count} of {_notes(folder.sampled)}{' looked at' if folder.sampled < folder.notes else ''}"
    if len(folder.others) == 1:
        ((reason, _),) = folder.others.items()
        return f"not proposed: {of} {'is' if count == 1 else 'are'} {_kind(reason, count, article=True)}"
    kinds = ", ".join(f"{n} {_kind(r, n)}" for r, n in sorted(folder.others.items(), key=lambda kv: -kv[1]))
    return f"not proposed: {of} are not your own writing ({kinds})"


def _notes(count: int) -> str:
    return f"{count} note{'s' if count != 1 else ''}"


def _kind(reason: Reason, count: int, article: bool = False) -> str:
    """A kind of note named for a count: "AI chats"; "AI chat", or with its article "an AI chat"."""
    one, many = _OTHERS_KINDS[reason]
    if count != 1:
        return many
    return f"{'an' if one[0] in 'AEIOUaeiou' else 'a'} {one}" if article else one


# A Logseq graph's folders (docs/spec.md §1, "Other tools' layouts"): its journals, its pages, and its own folder.
_LOGSEQ_FOLDERS = ("journals", "pages", LOGSEQ)


def _propose_logseq(chosen: Proposal, path: str) -> None:
    """A Logseq graph's folder: journals as short notes, pages as the person's notes, `logseq/` never."""
    if path == "journals":
        chosen.shorts_paths.append(path)
        chosen.reasons[path] = "Logseq's journals, dated by their names"
    elif path == "pages":
        chosen.extra_scan_paths.append(path)
        chosen.reasons[path] = "Logseq's pages, personal notes"
    else:
        chosen.reasons[path] = "Logseq's own folder (its settings and backups): not read"


def new_settings(proposal: Proposal, existing: dict[str, Any], memory_dir: str) -> dict[str, Any]:
    """The settings the file will hold: its other settings kept, the three lists proposed."""
    settings = {k: v for k, v in existing.items() if k not in ("shorts_paths", "knowledge_paths", "extra_scan_paths")}
    settings |= {"shorts_paths": proposal.shorts_paths, "knowledge_paths": proposal.knowledge_paths,
                 "extra_scan_paths": proposal.extra_scan_paths}
    try:  # what init writes, a run must accept
        Config.model_validate({"memory_dir": memory_dir} | settings)
    except ValidationError as exc:
        raise ConfigError(f"the proposed {VAULT_FILE}: {validation_line(exc, 'config')}") from None
    return settings


class Proposed(NamedTuple):
    """What `init` would write, and what it found: the door shows it, asks, then calls `write_file`."""

    path: Path
    text: str  # the file it would write
    before: str | None  # the file as it is, None when there is none
    survey: str  # what the vault holds and why these settings, for a person
    scopes: str = ""  # the scopes proposed, as the TOML to add (docs/spec.md §1.1): never written by `init`

    def settings_lines(self) -> str:
        return "".join(f"  {line}\n" for line in self.text.splitlines() if line and not line.startswith("#"))


def propose_file(vault: Path, memory_dir: str, written_by: str) -> Proposed:
    """Look at the vault and propose its `.hylo-memory.toml`, its other settings kept, and the scopes it might add;
    its first comment names the command that wrote it, `written_by` ("hylo-memory init")."""
    from hylo_memory.pipeline.operations.init_scopes import keep_apart, propose_scopes, scopes_text

    found = survey(vault, memory_dir)
    proposal = propose(found)
    before, existing = existing_file(vault)
    proposal.reasons |= keep_apart([proposal.shorts_paths, proposal.knowledge_paths, proposal.extra_scan_paths],
                                   existing)
    text = render_toml(new_settings(proposal, existing, memory_dir), written_by)
    scopes = propose_scopes(vault, memory_dir, existing, proposal.extra_scan_paths)
    return Proposed(vault / VAULT_FILE, text, before, survey_text(found, proposal),
                    scopes_text(scopes, vault / VAULT_FILE))


def render_toml(settings: dict[str, Any], written_by: str) -> str:
    lines = [f"# hylo-memory's settings for this vault (`{written_by}` wrote it; edit freely).",
             "# Read after ~/.config/hylo-memory/config.toml; HYLO_MEMORY_* and options win over it."]
    plain = [f"{key} = {_toml_value(value)}" for key, value in settings.items() if not isinstance(value, dict)]
    tables = [line for key, value in settings.items() if isinstance(value, dict) for line in _tables(key, value)]
    return "\n".join(lines + plain + tables) + "\n"


def _tables(key: str, table: dict[str, Any]) -> list[str]:
    """A table kept from the file (`[scopes.NAME]`), after the plain settings as TOML wants: its plain values, then
    its own tables."""
    lines = ["", f"[{key}]"] if any(not isinstance(v, dict) for v in table.values()) else []
    lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in table.items() if not isinstance(v, dict)]
    inner = [(f"{key}.{_toml_key(k)}", v) for k, v in table.items() if isinstance(v, dict)]
    return lines + [line for name, value in inner for line in _tables(name, value)]


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def existing_file(vault: Path) -> tuple[str | None, dict[str, Any]]:
    """The vault's `.hylo-memory.toml` as text and as settings; (None, {}) when there is none."""
    path = vault / VAULT_FILE
    if not path.exists():
        return None, {}
    try:
        text = path.read_text(encoding="utf-8")
        return text, tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None


def file_diff(path: Path, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"{path} (now)", tofile=f"{path} (proposed)"))


def write_file(vault: Path, text: str) -> Path:
    """Write `.hylo-memory.toml` whole or not at all, readable by its owner only."""
    path = vault / VAULT_FILE
    atomic_write(path, text.encode("utf-8"), mode=0o600)
    return path


def survey_text(found: Survey, proposal: Proposal) -> str:
    """What `init` found and why it proposes what it does, for a person."""
    out = [f"Vault: {found.vault}", "Folders (note counts and dates from file names and modification times):"]
    width = max([len(_label(f.path)) for f in found.folders] + [12])
    for f in found.folders:
        dates = f"  {f.first} … {f.last}" if f.first and f.last else ""
        others = f"  (+{f.other_files} other file{'s' if f.other_files != 1 else ''})" if f.other_files else ""
        why = f"  — {proposal.reasons[f.path]}" if f.path in proposal.reasons else ""
        out.append(f"  {_label(f.path):<{width}}  {f.notes:>6} note{'s' if f.notes != 1 else ' '}{dates}{others}{why}")
    if not found.folders:
        out.append("  (none)")
    if found.stopped:
        out.append(f"  (stopped counting after {found.files_seen:,} files: the counts are lower bounds)")
    if found.daily_problem:
        out.append(f"Obsidian daily notes: .obsidian/daily-notes.json {found.daily_problem}")
    elif found.daily_folder is not None:
        out.append(f"Obsidian daily notes: folder {_label(found.daily_folder)}, format {found.daily_format} "
                   "(.obsidian/daily-notes.json)")
    else:
        out.append("Obsidian daily notes: no .obsidian/daily-notes.json")
    if found.logseq_graph:
        out.append(f"Logseq graph: {LOGSEQ}/config.edn (journals dated by their names; {LOGSEQ}/ is not read)")
    return "\n".join(out) + "\n"


def _label(path: str) -> str:
    return "(top level)" if path in (ROOT, "") else f"{path}/"


def _tops(vault: Path, memory_top: str) -> list[tuple[Path, str]]:
    """The vault's top level and each of its top folders (not hidden, not the memory, no symlinks)."""
    tops = [(vault, ROOT)]
    try:
        with os.scandir(vault) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        return tops
    for entry in entries:
        if entry.name.startswith(".") or entry.name == memory_top or entry.is_symlink():
            continue
        if entry.is_dir():
            tops.append((Path(entry.path), entry.name))
    return tops


def _files(top: Path, recurse: bool, skip: str) -> Iterator[tuple[str, str]]:
    """(name, path) of every file under `top` (only its own files when not `recurse`); hidden ones passed over."""
    folders = [str(top)]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            if entry.is_dir():
                if recurse and entry.name != skip:
                    folders.append(entry.path)
            else:
                yield entry.name, entry.path


def _count(folder: Folder, name: str, path: str, vault: Path) -> None:
    if not name.endswith(".md"):
        folder.other_files += 1
        return
    folder.notes += 1
    day = _name_date(name)
    if day is not None:
        folder.dated_names += 1
    else:
        try:
            day = dt.date.fromtimestamp(os.stat(path).st_mtime)
        except (OSError, OverflowError, ValueError):
            day = None
    if day is not None:
        folder.first = min(folder.first or day, day)
        folder.last = max(folder.last or day, day)
    if folder.sampled < SAMPLE_NOTES:
        folder.sampled += 1
        head = _head(path)
        fields = _frontmatter_fields(head)
        folder.with_tags += b"tags" in fields
        folder.with_source_notes += b"source_notes" in fields
        reason = _others_reason(head, os.path.relpath(path, vault).replace(os.sep, "/"))
        if reason is not None:
            folder.others[reason] = folder.others.get(reason, 0) + 1


def _name_date(name: str) -> dt.date | None:
    """The date a note's name starts with (Logseq's and Zettelkasten's too), else an ISO date anywhere in it."""
    day = name_day(name)
    if day is not None:
        return day
    match = _DATE.search(name)
    if not match:
        return None
    try:
        return dt.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def _head(path: str) -> bytes:
    """A note's first few kilobytes; nothing for what is not a regular file or cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe named like a note must not block init
        with os.fdopen(fd, "rb") as handle:
            if not S_ISREG(os.fstat(handle.fileno()).st_mode):
                return b""
            return handle.read(SAMPLE_BYTES).removeprefix(b"\xef\xbb\xbf")
    except OSError:
        return b""


def _others_reason(head: bytes, rel: str) -> Reason | None:
    """Whether a note's first kilobytes show an AI chat, a clipping or a highlights export, by the run's own judge.

    An AI chat counts whether or not the person's turns can be told apart: a folder of exported chats
    is not a folder of the person's notes. Quotes in the person's own note leave it theirs.
    """
    text = head.decode("utf-8", errors="ignore")  # the head may end inside a character
    try:
        post = parse_note(text)
        meta, body = (post.metadata if isinstance(post.metadata, dict) else {}), post.content
    except Unreadable:  # frontmatter cut short or broken: its body's markers may still tell
        meta, body = {}, text
    reason = judge(meta, rel, body).reason
    return reason if reason in _OTHERS_KINDS else None


def _frontmatter_fields(head: bytes) -> set[bytes]:
    """Which of `tags`/`source_notes` the note's frontmatter names, from its first few kilobytes."""
    if not head.startswith(b"---"):
        return set()
    end = head.find(b"\n---", 3)
    front = head[3:end] if end != -1 else head[3:]
    return {m.group(1) for m in _FIELD.finditer(front)}


def _obsidian_json(vault: Path, name: str) -> dict[str, Any] | str | None:
    """An Obsidian settings file: its object; a reason when it is there but unreadable; None when absent."""
    path = vault / ".obsidian" / name
    if not path.is_file():
        return None
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            return f"is larger than {MAX_JSON_BYTES:,} bytes: not read"
        value = json.loads(path.read_text(encoding="utf-8-sig") or "{}")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return f"cannot be read ({exc})"
    return value if isinstance(value, dict) else "is not a JSON object: not read"


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise ConfigError(f"{VAULT_FILE}: cannot write the setting {value!r}")
