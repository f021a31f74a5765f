"""`init`'s scopes (docs/spec.md §1.1): folders that look like a project's, proposed as scopes, and printed as the
TOML to add — never written by `init` itself, since a scope takes its notes out of the person's memory.

A folder looks like a project's when it sits in a projects folder (`projects/`, `Projects/`, `10 Projects/`, PARA's
`1 Projects/`) and holds notes, or when most of its notes carry its name (`tidepool/tidepool-standup.md`). Looking is
by names alone, bounded like the survey's."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from hylo_memory.pipeline.scopes import MAX_SCOPES, NAME_CHARS, Scope, check_names, folder_of

MAX_LOOKED = 20_000  # files whose names are looked at, in all
MIN_NOTES = 2  # notes a folder holds before it is a project's
_PROJECTS = re.compile(r"^[\d\W_]*(projects?|proyectos|projets|projekte|项目)$", re.I)
_SLUG = re.compile(r"[^a-z0-9_-]+")


class ProposedScope(BaseModel):
    name: str
    folder: str
    notes: int
    why: str


def propose_scopes(vault: Path, memory_dir: str, existing: dict[str, Any], personal: list[str]) -> list[ProposedScope]:
    """The folders of `vault` that look like a project's and are no scope yet, each with a free name; at most
    MAX_SCOPES in all with the scopes declared already. `personal`: the top folders proposed as personal notes, the
    only ones whose notes' names are looked at."""
    declared = [f for fs in _declared(existing).values() for f in fs]
    taken = set(_declared(existing))
    room = MAX_SCOPES - len(taken)
    found: list[ProposedScope] = []
    budget = _Budget(posixpath.basename(folder_of(memory_dir)))
    memory_top = folder_of(memory_dir).split("/")[0]
    for top in _subfolders(vault, ""):
        if top == memory_top:
            continue
        if _PROJECTS.match(top):
            for project in _subfolders(vault, top):
                folder = f"{top}/{project}"
                notes = _notes(vault / folder, budget)
                if notes >= MIN_NOTES and not any(_overlaps(folder, f) for f in declared):
                    found.append(_named(folder, project, notes, f"a folder under {top}/", taken))
        elif top in personal and not any(_overlaps(top, f) for f in declared):
            names = list(_names(vault / top, budget))
            mine = sum(_slug(top) in _slug(n) for n in names)
            if len(names) >= 3 and 2 * mine > len(names):
                found.append(_named(top, top, len(names), f"{mine} of its {len(names)} notes carry its name", taken))
    return found[:max(0, room)]


def scopes_text(found: list[ProposedScope], file: Path) -> str:
    """The TOML to add for each proposed scope, and why, for a person; empty when none is proposed."""
    if not found:
        return ""
    out = [f"Scopes proposed (a memory of their own, kept apart from yours; not written — add to {file} to keep one):"]
    for scope in found:
        out += [f"  # {scope.folder}/: {scope.notes} notes, {scope.why}", f"  [scopes.{scope.name}]",
                f'  folders = ["{scope.folder}"]']
    return "\n".join(out) + "\n"


def keep_apart(lists: list[list[str]], existing: dict[str, Any]) -> dict[str, str]:
    """Take the declared scopes' folders (and what is inside them) out of the proposed lists, which a run would refuse:
    each folder taken out, with why."""
    taken: dict[str, str] = {}
    for name, folders in _declared(existing).items():
        for paths in lists:
            for path in list(paths):
                inner = folder_of(path)  # one holding a scope's folder stays: the scope is left out of it
                if any(inner == f or inner.startswith(f"{f}/") for f in folders):
                    paths.remove(path)
                    taken[path] = f"scope {name}'s: its own memory"
    return taken


def _declared(existing: dict[str, Any]) -> dict[str, list[str]]:
    """The scopes the vault's file declares, by name, as far as they can be read (a run checks them in full)."""
    table = existing.get("scopes")
    if not isinstance(table, dict):
        return {}
    declared = {}
    for name, scope in table.items():
        try:
            declared[name] = Scope.model_validate(scope).folders
        except ValidationError:
            continue
    try:
        check_names({n: Scope(folders=f) for n, f in declared.items()})
    except ValueError:
        pass  # a run names what is wrong with them
    return declared


def _named(folder: str, base: str, notes: int, why: str, taken: set[str]) -> ProposedScope:
    name = _slug(base)[:NAME_CHARS].strip("-_") or "project"
    name = name if name[0].isalnum() else f"p{name}"[:NAME_CHARS]
    unique, n = name, 2
    while unique in taken:
        unique = f"{name[:NAME_CHARS - 4]}-{n}"
        n += 1
    taken.add(unique)
    return ProposedScope(name=unique, folder=folder, notes=notes, why=why)


def _slug(text: str) -> str:
    return _SLUG.sub("-", text.lower().removesuffix(".md")).strip("-")


def _overlaps(a: str, b: str) -> bool:
    return a == b or a.startswith(f"{b}/") or b.startswith(f"{a}/")


def _subfolders(vault: Path, rel: str) -> list[str]:
    """The folders directly in `rel`, by name: not hidden, not symlinks."""
    try:
        with os.scandir(vault / rel if rel else vault) as listing:
            return sorted(e.name for e in listing if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
    except OSError:
        return []


class _Budget:
    """The names left to look at, shared by every folder; the memory folder's name, never looked into."""

    def __init__(self, memory: str):
        self.left, self.memory = MAX_LOOKED, memory


def _names(top: Path, budget: _Budget) -> Iterator[str]:
    """The names of the notes under `top`, while the budget lasts; hidden folders, memory folders and links passed
    over."""
    folders = [str(top)]
    while folders and budget.left > 0:
        try:
            with os.scandir(folders.pop()) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            if entry.is_dir():
                if entry.name != budget.memory:
                    folders.append(entry.path)
            elif entry.name.endswith(".md") and budget.left > 0:
                budget.left -= 1
                yield entry.name


def _notes(top: Path, budget: _Budget) -> int:
    return sum(1 for _ in _names(top, budget))
