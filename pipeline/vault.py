"""Reading sources from a vault folder (SPEC §1), behind one interface.

A filesystem vault is the only backend today; Hylo's MCP tools (`short_list`,
`knowledge_list`, `knowledge_read`) would be another `Vault` with the same method.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
from pathlib import Path
from typing import Iterator, Protocol

import frontmatter
import yaml
from pydantic import BaseModel

from hylo_memory.extractors.base import Perspective, Source, SourceKind

from .summary import Skipped
from .window import Window

SHORTS = "_shorts"
KNOWLEDGE = "_knowledge"
_DATE_PREFIX = re.compile(r"^(\d{4}-\d{2}-\d{2})")


class Unreadable(Exception):
    """A note that is skipped, with the reason the summary shows."""


class Vault(Protocol):
    def sources(self, window: Window) -> Iterator[Source | Skipped]:
        """Every source dated inside the window, in pages as the backend likes; skips named."""
        ...


class FolderVault:
    """A vault on disk: `_shorts/`, `_knowledge/` and extra scan paths."""

    def __init__(self, root: Path, extra_paths: list[str], memory_dir: str, max_bytes: int):
        self.root = root.resolve()
        self.extra_paths = extra_paths
        self.memory_dir = memory_dir
        self.max_bytes = max_bytes

    def sources(self, window: Window) -> Iterator[Source | Skipped]:
        seen: set[str] = set()
        scans = [(SHORTS, SourceKind.short), (KNOWLEDGE, SourceKind.knowledge)]
        scans += [(p, SourceKind.extra) for p in self.extra_paths]
        for folder, kind in scans:
            for path in self._markdown_files(folder):
                rel = path.relative_to(self.root).as_posix()
                if rel in seen:
                    continue
                seen.add(rel)
                if not self._may_be_in(path, window):
                    continue
                try:
                    source = self._read(path, rel, kind)
                except Unreadable as exc:
                    yield Skipped(path=rel, reason=str(exc))
                    continue
                if source is not None and window.contains(source.date):
                    yield source

    def _markdown_files(self, folder: str) -> Iterator[Path]:
        top = (self.root / folder)
        if not _inside(top, self.root) or not top.exists():
            return
        if top.is_file():
            if top.suffix == ".md":
                yield top
            return
        for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
            # Hidden folders (.obsidian, .trash) and our own memory folder are not notes.
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != self.memory_dir)
            for name in sorted(filenames):
                path = Path(dirpath, name)
                if name.endswith(".md") and not name.startswith(".") and _inside(path, self.root):
                    yield path

    def _may_be_in(self, path: Path, window: Window) -> bool:
        """Cheap test before opening: the file name's date, else its mtime, can be in the window.

        A note dated inside the window was written then, so either its name says so
        or it was modified since the window began. This keeps an incremental run from
        opening the years of notes outside it.
        """
        named = _name_date(path)
        if named is not None and window.contains(named):
            return True
        try:
            modified = dt.date.fromtimestamp(path.stat().st_mtime)
        except OSError:
            return True  # let _read name the problem
        return modified >= window.start

    def _read(self, path: Path, rel: str, kind: SourceKind) -> Source | None:
        data = _read_bytes(path, self.max_bytes)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Unreadable("not UTF-8 text") from None
        if "\x00" in text:
            raise Unreadable("binary file, not a note")
        try:
            post = frontmatter.loads(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 2})" if mark is not None else ""
            raise Unreadable(f"frontmatter is not valid YAML{where}") from None
        meta = post.metadata if isinstance(post.metadata, dict) else {}
        if kind == SourceKind.knowledge and str(meta.get("kind", "knowledge")) != "knowledge":
            return None
        content_hash = hashlib.sha256(data).hexdigest()
        date = _source_date(meta, kind) or _name_date(path) or dt.date.fromtimestamp(path.stat().st_mtime)
        fields = _unit_fields(meta, rel) if kind == SourceKind.knowledge else {"perspective": Perspective.own}
        return Source(path=rel, kind=kind, date=date, text=post.content.strip(), content_hash=content_hash, **fields)


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise Unreadable(f"larger than {max_bytes:,} bytes")
        return path.read_bytes()
    except OSError as exc:
        raise Unreadable(f"cannot read: {exc.strerror}") from None


def _inside(path: Path, root: Path) -> bool:
    """Whether `path`, symlinks followed, stays inside the vault."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):
        return False


def _name_date(path: Path) -> dt.date | None:
    match = _DATE_PREFIX.match(path.name)
    return _as_date(match.group(1)) if match else None


def _as_date(value: object) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


def _source_date(meta: dict, kind: SourceKind) -> dt.date | None:
    if kind == SourceKind.knowledge:
        # An edited unit counts from its last edit.
        dates = [d for d in (_as_date(meta.get("updated")), _as_date(meta.get("created"))) if d]
        return max(dates) if dates else None
    return _as_date(meta.get("created")) or _as_date(meta.get("date"))


def _unit_fields(meta: dict, rel: str) -> dict:
    perspective = str(meta.get("perspective", "")).strip().lower()
    return {
        "title": str(meta["title"]) if meta.get("title") else Path(rel).stem,
        "tags": [t.lstrip("#").lower() for t in _strings(meta.get("tags"))],
        "source_notes": _strings(meta.get("source_notes")),
        "perspective": Perspective(perspective) if perspective in Perspective.__members__ else None,
    }


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        value = [v for v in re.split(r"[,\s]+", value) if v]
    if not isinstance(value, list):
        return []
    return [str(v).strip() for v in value if str(v).strip()]
