"""The fake Hylo's vault: a folder read and written as Hylo's Go source does (the file named at each function).

Paths are vault-absolute ("/journal/april.md"). A failure is `HyloFailure` carrying the text Hylo's
error would: the client's `stat %q: HTTP 404: <body>` wrapping of its server's plain-text errors.
"""

from __future__ import annotations

import datetime as dt
import os
import posixpath
import re
from pathlib import Path
from typing import Any

import frontmatter

NOT_ON_DISK = "file not found on disk: not found"  # storage.ErrFileNotFound, a 404 (handler/vault.go)
NO_RECORD = "metadata record not found: not found"  # storage.ErrMetadataNotFound (dbGet), a 404
SHORT_HEADER = "###### Short Note: "  # storage.AppendShort
_SHORT_SPLIT = re.compile(r"\r?\n(?:---|\*\*\*)\s*\r?\n")  # util.ParseShortNoteFile's entry separator
KINDS = ("raw", "short", "knowledge", "index")


class HyloFailure(Exception):
    """A Go error's text, returned by the tool as an `isError` result."""


# ---- paths (notes/notes.go, notes/read.go, storage/note.go) ----


def clean(path: str) -> str:
    """storage.ParsePath: `path.Clean` of a path that starts with "/" (so "/../x.md" is "/x.md")."""
    return posixpath.normpath(path) if path.startswith("/") else path


def on_disk(root: Path, path: str) -> Path:
    return root / clean(path).lstrip("/")


def check_markdown_path(path: str) -> None:
    """notes.CheckMarkdownPath."""
    if not path.startswith("/"):
        raise HyloFailure(f'path "{path}" must be absolute (start with "/")')
    if not path.lower().endswith((".md", ".markdown")):
        raise HyloFailure(f'path "{path}" is not a markdown file (.md or .markdown)')


def resolve(root: Path, arg: str, knowledge: bool) -> tuple[Path, str]:
    """notes.ResolvePath then ReadFile: a path (it has a "/") is stat'ed, a bare name resolved vault-wide."""
    if "/" in arg:
        path = clean(arg if arg.startswith("/") else f"/{arg}")
        file = on_disk(root, path)
        if not file.is_file():
            raise HyloFailure(f'stat "{path}": HTTP 404: {NO_RECORD}')
        if knowledge and kind_of(file) != "knowledge":
            raise HyloFailure(f'"{path}" is not a knowledge note')
        return file, path
    name = arg.strip() if posixpath.splitext(arg.strip())[1] else f"{arg.strip()}.md"
    matches = [f for f in _markdown(root) if f.name == name]
    chosen = [f for f in matches if kind_of(f) == "knowledge"] if knowledge else matches
    if not chosen:
        raise HyloFailure(f'no knowledge note named "{name}"' if knowledge and matches else f'no note found: "{name}"')
    if len(chosen) > 1:
        paths = ", ".join(vault_path(root, f) for f in chosen)
        raise HyloFailure(f'multiple notes named "{name}"; use a full path: {paths}')
    return chosen[0], vault_path(root, chosen[0])


def check_no_conflict(root: Path, path: str) -> None:
    """notes.checkNoConflict: `create` without `force` fails for the path, or for its name anywhere."""
    if on_disk(root, path).is_file():
        raise HyloFailure(f'"{path}" already exists (use force to overwrite)')
    base = posixpath.basename(clean(path))
    if any(f.name == base for f in _markdown(root)):
        raise HyloFailure(f'a note named "{base}" already exists in the vault (use force to create anyway)')


def write(root: Path, path: str, content: str) -> None:
    """The server's /api/vault/write: folders made as needed; a folder in the way is its 409, wrapped."""
    file = on_disk(root, path)
    if file.is_dir():
        raise HyloFailure(f'create "{path}": write "{path}": HTTP 409: path is a directory')
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(content, encoding="utf-8")


def delete(root: Path, path: str) -> dict[str, Any]:
    """notes.Delete: an absolute path; a missing note is no error (os.Remove's ErrNotExist is let pass)."""
    if not path.startswith("/"):
        raise HyloFailure(f'path "{path}" must be absolute (start with "/")')
    file = on_disk(root, path)
    if file.is_dir():
        raise HyloFailure(f'delete "{path}": HTTP 409: path is a directory')
    file.unlink(missing_ok=True)
    return {"path": path}


def count_lines(content: str) -> int:
    """util.CountLines: lines as an editor counts them (a last line without a newline counts)."""
    return content.count("\n") + (0 if not content or content.endswith("\n") else 1)


# ---- listings (notes/list.go, util.FormatSize / FormatTime) ----


def kinds_for(kind: str | None, knowledge: bool) -> tuple[str, ...]:
    """ListQuery.options: which kinds a `list` or `knowledge_list` shows."""
    if knowledge:
        if kind not in (None, "", "knowledge", "index"):
            raise HyloFailure(f'unknown kind "{kind}": must be knowledge or index')
        return (kind,) if kind else ("knowledge", "index")
    if kind not in (None, "", *KINDS):
        raise HyloFailure(f'unknown kind "{kind}": must be raw, short, knowledge, or index')
    return (kind,) if kind else KINDS


def bounds(start: str | None, end: str | None, latest: int | None) -> tuple[dt.datetime | None, dt.datetime | None]:
    """TimeFilter.Bounds: `time.Parse(time.DateOnly, …)` is a UTC midnight; `latest` is N days before now."""
    if latest and (start or end):
        raise HyloFailure("cannot combine latest with start/end")
    after = dt.datetime.now(dt.UTC) - dt.timedelta(days=latest) if latest else None
    before = None
    for which, text in (("start", start), ("end", end)):
        if not text:
            continue
        try:
            day = dt.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=dt.UTC)
        except ValueError:
            raise HyloFailure(f'invalid {which} date (use YYYY-MM-DD): parsing time "{text}"') from None
        after, before = (day, before) if which == "start" else (after, day)
    return after, before


def notes(root: Path, folder: str | None, kinds: tuple[str, ...], after: dt.datetime | None,
          before: dt.datetime | None, zone: dt.tzinfo) -> list[dict[str, Any]]:
    """notes.List: with a folder, the notes directly in it (ListDir: its `dir` column equal); without, the
    vault's. Newest first; `updated_at` ≥ after and < before; each a NoteEntry for display."""
    top = None
    if folder:
        top = on_disk(root, folder if folder.startswith("/") else f"/{folder}")
        if not top.is_dir():
            label = f'list "{folder}"'
            why = "HTTP 409: path is a file" if top.is_file() else f"HTTP 404: {NOT_ON_DISK}"
            raise HyloFailure(f"{label}: {why}")
    found = []
    for file in _markdown(root):
        if top is not None and file.parent.resolve() != top.resolve():
            continue
        its_kind, stat = kind_of(file), file.stat()
        updated = dt.datetime.fromtimestamp(stat.st_mtime, zone)
        if its_kind not in kinds or (after and updated < after) or (before and updated >= before):
            continue
        path = vault_path(root, file)
        found.append((updated, {"path": path, "name": file.name, "dir": posixpath.dirname(path),
                                "size": format_size(stat.st_size), "updated_at": format_time(updated),
                                "kind": its_kind}))
    found.sort(key=lambda pair: pair[0], reverse=True)
    return [entry for _, entry in found]


def format_size(size: int) -> str:
    """util.FormatSize."""
    for unit, step in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= step:
            return f"{size / step:.1f} {unit}"
    return f"{size} B"


def format_time(when: dt.datetime) -> str:
    """util.FormatTime: `t.Local().Format("2006-01-02 15:04:05")`, no zone shown."""
    return when.strftime("%Y-%m-%d %H:%M:%S")


def kind_of(file: Path) -> str:
    """The kind Hylo's metadata gives a note: its compile plugin's `knowledge`/`index`, a daily file's `short`."""
    try:
        meta = frontmatter.loads(file.read_text(encoding="utf-8")).metadata
    except Exception:  # noqa: BLE001 - a hand-broken note is a raw one, as a listing shows it
        return "raw"
    kind = meta.get("kind")
    return kind if kind in KINDS else "raw"


# ---- daily files (storage/vault.go: ParseShortEntries, ListShortEntries) ----


def shorts(root: Path, folder: str, after: dt.datetime | None, before: dt.datetime | None, limit: int,
           zone: dt.tzinfo) -> list[dict[str, Any]]:
    """The entries of the folder's daily files, the files newest first by their update (filtered by it too),
    each file's entries newest first; a missing folder has none."""
    top = on_disk(root, "/" + folder.strip("/"))
    files = []
    for file in sorted(top.glob("*.md")) if top.is_dir() else []:
        updated = dt.datetime.fromtimestamp(file.stat().st_mtime, zone)
        if kind_of(file) == "short" and not (after and updated < after) and not (before and updated >= before):
            files.append((updated, file))
    found: list[dict[str, Any]] = []
    for _, file in sorted(files, key=lambda pair: pair[0], reverse=True):
        for created, content in parse_daily(file.read_text(encoding="utf-8"), zone):
            if (after and created < after) or (before and created >= before):
                continue
            found.append({"content": content, "created_at": go_time(created), "daily_path": vault_path(root, file)})
            if limit and len(found) >= limit:
                return found
    return found


def parse_daily(text: str, zone: dt.tzinfo) -> list[tuple[dt.datetime, str]]:
    """ParseShortEntries: frontmatter off; chunks split at `---`/`***` lines; a chunk must start with the
    header (else it is dropped); its body is what follows the header's next line; newest first."""
    body = frontmatter.loads(text).content if text.startswith("---") else text
    entries = []
    for chunk in _SHORT_SPLIT.split(body.strip().replace("\r\n", "\n")):
        lines = chunk.strip().split("\n", 2)
        if not lines[0].startswith(SHORT_HEADER):
            continue
        try:
            created = dt.datetime.strptime(lines[0].removeprefix(SHORT_HEADER), "%Y-%m-%d %H:%M:%S")
        except ValueError:
            continue
        entries.append((created.replace(tzinfo=zone), lines[2].strip() if len(lines) >= 3 else ""))
    return entries[::-1]


def go_time(when: dt.datetime) -> str:
    """A time.Time as Go's JSON encodes it: RFC 3339 with its own offset, `Z` for UTC."""
    text = when.isoformat(timespec="seconds")
    return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text


# ---- the folder ----


UNIT_DATES = ("last_compiled_at", "updated", "compiled", "created_at", "created")  # newest first


def as_hylo_left_it(root: Path, zone: dt.tzinfo = dt.UTC) -> None:
    """A copied vault's files dated as Hylo would have left them, since it lists by last change: a daily
    file at its last entry's time, a unit at noon of the date its frontmatter gives."""
    for file in _markdown(root):
        text = file.read_text(encoding="utf-8")
        when: dt.datetime | None = None
        if kind_of(file) == "short":
            entries = parse_daily(text, zone)
            when = entries[0][0] if entries else None
        else:
            meta = frontmatter.loads(text).metadata if text.startswith("---") else {}
            given = next((str(meta[k])[:10] for k in UNIT_DATES if meta.get(k)), None)
            try:
                when = dt.datetime.fromisoformat(f"{given}T12:00:00").replace(tzinfo=zone) if given else None
            except ValueError:
                when = None
        if when is not None:
            os.utime(file, (when.timestamp(), when.timestamp()))



def vault_path(root: Path, file: Path) -> str:
    return "/" + file.resolve().relative_to(root.resolve()).as_posix()


def _markdown(root: Path) -> list[Path]:
    """Every note Hylo registers (storage.ScanAndRegister): markdown files outside hidden folders."""
    top = root.resolve()
    return [f for f in sorted(top.rglob("*")) if f.is_file() and f.suffix.lower() in (".md", ".markdown")
            and not any(part.startswith(".") for part in f.relative_to(top).parts)]
