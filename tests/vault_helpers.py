"""Building small vaults in `tmp_path`, and running hylo-memory over them, for the tests."""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path
from typing import Any

import yaml

from hylo_memory.decay import Dimension, MemoryFile, parse
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.cli.words import NAMING
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.opening import open_memory
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.run.refresh import refresh
from hylo_memory.pipeline.run.summary import RunSummary
from hylo_memory.pipeline.state.opened import Opened

MEMORY = "_memory"
_OPENED: list[Opened] = []


def opened(vault: Path, config: Config | None = None) -> Opened:
    """The vault's memory opened as a door opens it, for an operation or the run to take; closed after the test
    (`close_opened`, from tests/conftest.py)."""
    memory = open_memory(vault, config or Config(), NAMING)
    _OPENED.append(memory)
    return memory


def close_opened() -> None:
    while _OPENED:
        _OPENED.pop().close()


def day(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def set_mtime(path: Path, when: dt.date | dt.datetime) -> None:
    """Give a file the modification time of a (local) date, as if it was last written then."""
    if not isinstance(when, dt.datetime):
        when = dt.datetime.combine(when, dt.time(12, 0))
    stamp = time.mktime(when.timetuple())
    os.utime(path, (stamp, stamp))


def write_file(root: Path, rel: str, data: str | bytes, mtime: dt.date | None = None) -> Path:
    """A file at `root/rel` (folders created), optionally with its mtime set to a date."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    if mtime is not None:
        set_mtime(path, mtime)
    return path


def note_text(body: str, **meta: Any) -> str:
    """A markdown note: YAML frontmatter (only if `meta`), then the body."""
    if not meta:
        return body + "\n"
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)
    return f"---\n{front}---\n{body}\n"


def write_note(root: Path, rel: str, body: str, mtime: dt.date | None = None, **meta: Any) -> Path:
    """A note with frontmatter `meta` at `root/rel`."""
    return write_file(root, rel, note_text(body, **meta), mtime=mtime)


def short(root: Path, date: dt.date | str, body: str, slug: str = "note", **meta: Any) -> Path:
    """A short note named `_shorts/YYYY-MM-DD-slug.md`, its mtime on that date (as if written then)."""
    date = day(date) if isinstance(date, str) else date
    return write_note(root, f"_shorts/{date.isoformat()}-{slug}.md", body, mtime=date, **meta)


def unit(
    root: Path,
    slug: str,
    body: str,
    created: dt.date | str,
    title: str | None = None,
    tags: list[str] | None = None,
    perspective: str | None = None,
    source_notes: list[str] | None = None,
    **meta: Any,
) -> Path:
    """A knowledge unit `_knowledge/<slug>.md`; fields left None are not written at all."""
    created = day(created) if isinstance(created, str) else created
    fields = {"title": title, "tags": tags, "perspective": perspective, "source_notes": source_notes}
    front = {k: v for k, v in fields.items() if v is not None} | meta | {"created": created}
    return write_note(root, f"_knowledge/{slug}.md", body, mtime=created, **front)


def memory_file(root: Path, dimension: Dimension, body: str) -> Path:
    """A hand-written memory file in the vault's memory folder (`body` is everything after the frontmatter)."""
    text = f"---\ndecay_window: {dimension.default_window}d\nlast_updated: 2026-01-01\n---\n{body}"
    return write_file(root, f"{MEMORY}/{dimension.filename}", text)


def identity(root: Path, *facts: str, last: str = "2026-11-01") -> Path:
    """An `_identity.md` holding these facts: its existence makes the next run incremental."""
    lines = "".join(f"- {f} `last:{last} seen:1`\n" for f in facts or ("Name is Test Person",))
    return memory_file(root, Dimension.identity, f"## Active\n{lines}\n## Fading\n")


def run(
    root: Path,
    today: dt.date | str,
    dry_run: bool = False,
    intro: str | None = None,
    extractor: Any = None,
    **settings: Any,
) -> RunSummary:
    """One refresh run in-process with the offline extractor (settings override the defaults)."""
    today = day(today) if isinstance(today, str) else today
    options = RunOptions(today, dry_run=dry_run, intro=intro)
    with open_memory(root, Config(**settings), NAMING) as memory:
        summary, _ = refresh(memory, extractor or OfflineExtractor(), options)
    return summary


def items(root: Path, dimension: Dimension) -> dict[str, tuple[str, int, bool]]:
    """A memory file's items as {text: (section, seen, pinned)}; {} when the file does not exist."""
    memory = MemoryStore(root / MEMORY).read(dimension)
    if memory is None:
        return {}
    found = {i.text: ("Active", i.seen, i.pinned) for i in memory.active}
    found |= {i.text: ("Fading", i.seen, i.pinned) for i in memory.fading}
    return found


def texts(root: Path, dimension: Dimension) -> set[str]:
    return set(items(root, dimension))


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `root` (hidden ones too, symlinks not followed), by its path relative to `root`
    with forward slashes: its bytes and mtime in nanoseconds. {} when `root` does not exist."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[path.relative_to(root).as_posix()] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found


def snapshot_but_memo(root: Path) -> dict[str, tuple[bytes, int]]:
    """`snapshot` of a vault without the read memo, the one file `recall` and `context` may write (a cache)."""
    return {path: kept for path, kept in snapshot(root).items() if not path.endswith(".state/read-memo.json")}


def parse_memory(path: Path, dimension: Dimension) -> MemoryFile:
    return parse(path.read_text(encoding="utf-8"), dimension, str(path))


def memory_body(*lines: str, fading: tuple[str, ...] = ()) -> str:
    """A memory file's body: these Active lines (`text | last | seen [| pinned]`), then these Fading ones."""
    def bullet(line: str) -> str:
        text, last, seen, *pin = (part.strip() for part in line.split("|"))
        return f"- {text} `last:{last} seen:{seen}{' pinned' if pin else ''}`\n"
    return "## Active\n" + "".join(map(bullet, lines)) + "\n## Fading\n" + "".join(map(bullet, fading))
