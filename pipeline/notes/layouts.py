"""Folders other tools keep in a vault that are never notes (docs/spec.md §1, "Other tools' layouts").

Obsidian's templates folder (named in `.obsidian/templates.json`, or in the Templater
plugin's settings) holds placeholders, not what the person wrote; Logseq's `logseq/`
folder holds its settings and backups (`bak/`, `version-files/`) of pages already read.
Both are passed over wherever a scan reaches them.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from stat import S_ISREG

from pydantic import BaseModel, ValidationError

LOGSEQ = "logseq"  # a Logseq graph's own folder, at the graph's root
MAX_SETTINGS_BYTES = 1024 * 1024  # an Obsidian settings file larger than this is not one


class _Templates(BaseModel):
    """`.obsidian/templates.json`: the core Templates plugin's folder."""

    folder: str = ""


class _Templater(BaseModel):
    """`.obsidian/plugins/templater-obsidian/data.json`: the Templater plugin's folder."""

    templates_folder: str = ""


def templates_folders(root: Path) -> frozenset[str]:
    """The vault-relative templates folders Obsidian's settings name; a missing or broken settings file names none."""
    obsidian = root / ".obsidian"
    given = [_setting(obsidian / "templates.json", _Templates, "folder"),
             _setting(obsidian / "plugins" / "templater-obsidian" / "data.json", _Templater, "templates_folder")]
    return frozenset(folder for folder in map(_folder, given) if folder)


def is_logseq_folder(path: str) -> bool:
    """Whether a folder named `logseq` is a graph's own (settings, backups), not notes someone filed under that name."""
    return (os.path.isfile(os.path.join(path, "config.edn")) or os.path.isdir(os.path.join(path, "bak"))
            or os.path.isdir(os.path.join(path, "version-files")))


def is_logseq_graph(root: Path) -> bool:
    """Whether the vault is a Logseq graph: Logseq writes `logseq/config.edn` when it opens one."""
    return (root / LOGSEQ / "config.edn").is_file()


def tool_folder(root: Path, rel: str, templates: frozenset[str]) -> str | None:
    """Why a scan path (vault-relative) is never read: it is in a templates folder or in Logseq's folder."""
    rel = posixpath.normpath(rel.strip().replace(os.sep, "/")).strip("/")
    for folder in templates:
        if rel == folder or rel.startswith(f"{folder}/"):
            return f"Obsidian's templates folder ({folder}/): not read"
    parts = rel.split("/")
    for depth, part in enumerate(parts):
        if part == LOGSEQ and is_logseq_folder(os.path.join(root, *parts[:depth + 1])):
            return "Logseq's own folder (its settings and backups): not read"
    return None


def _setting(path: Path, model: type[_Templates | _Templater], field: str) -> str:
    """One setting of an Obsidian settings file; "" when the file is missing, too large or not what it should be."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe named like a settings file must not block the run
        with os.fdopen(fd, "rb") as handle:
            if not S_ISREG(os.fstat(handle.fileno()).st_mode):
                return ""
            data = handle.read(MAX_SETTINGS_BYTES + 1)
    except OSError:
        return ""
    if len(data) > MAX_SETTINGS_BYTES:
        return ""
    try:
        value = getattr(model.model_validate_json(data.removeprefix(b"\xef\xbb\xbf")), field)
    except ValidationError:
        return ""
    return value if isinstance(value, str) else ""


def _folder(setting: str) -> str:
    """A folder setting as the walk names folders (vault-relative, POSIX); "" for none, the vault or outside it."""
    folder = posixpath.normpath(setting.strip().replace("\\", "/").strip("/")) if setting.strip("/ ") else "."
    return "" if folder == "." or folder == ".." or folder.startswith("../") else folder
