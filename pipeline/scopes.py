"""Scopes (docs/spec.md §1.1): folders of the vault with a memory of their own, a project's beside the person's.

A scope is declared in `.hylo-memory.toml` (`[scopes.NAME] folders = [...]`) and is, to every command, a
configuration derived from the person's: its memory folder inside the scope's first folder, its notes the scope's
folders alone. So the run, the ledger, the locks and the readers are the person's, unchanged; the person's own
configuration leaves the scopes' folders out of its walk (pipeline/vaults)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hylo_memory.errors import ConfigError

if TYPE_CHECKING:
    from hylo_memory.pipeline.config import Config

MAX_SCOPES = 32  # a person's projects kept apart; more is a generated file, not a person's
MAX_FOLDERS = 20  # folders a scope reads
NAME_CHARS = 40
_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{NAME_CHARS - 1}}}")
PATH_CHARS = 1024  # as config.PATH_CHARS (that module imports this one)


class Scope(BaseModel):
    """One scope: the vault's folders whose notes make its memory, kept in the first one's memory folder."""

    model_config = ConfigDict(extra="forbid")

    folders: list[Annotated[str, Field(max_length=PATH_CHARS)]] = Field(min_length=1, max_length=MAX_FOLDERS)

    @field_validator("folders")
    @classmethod
    def _inside_the_vault(cls, folders: list[str]) -> list[str]:
        from hylo_memory.pipeline.config import path_problem  # loaded by then: it declares this model's field

        normal = []
        for entry in folders:
            problem = path_problem(entry)
            if problem:
                raise ValueError(problem)
            folder = folder_of(entry)
            parts = folder.split("/")
            if not entry.strip() or entry.strip().startswith("/") or ".." in parts or folder == ".":
                raise ValueError(f"{entry!r} must be a folder inside the vault, like projects/tidepool (not the vault "
                                 f"itself)")
            if any(p.startswith(".") for p in parts):
                raise ValueError(f"{entry!r} is a hidden folder, which is never read")
            normal.append(folder)
        return list(dict.fromkeys(normal))


def folder_of(entry: str) -> str:
    """A folder as the walk names it: vault-relative, POSIX, normalised, no slash at either end."""
    return posixpath.normpath(entry.strip().replace("\\", "/")).strip("/") or "."


def check_names(scopes: dict[str, Scope]) -> dict[str, Scope]:
    """At most MAX_SCOPES, each named by letters, digits, `-` and `_` (a name typed after `--scope`)."""
    if len(scopes) > MAX_SCOPES:
        raise ValueError(f"at most {MAX_SCOPES} scopes, not {len(scopes)}")
    for name in scopes:
        if not _NAME.fullmatch(name):
            raise ValueError(f"scope name {name!r} must be 1 to {NAME_CHARS} letters, digits, '-' or '_', starting "
                             f"with a letter or digit")
    return scopes


def _holds(outer: str, inner: str) -> bool:
    return outer == inner or inner.startswith(f"{outer}/")


def _folders(scopes: dict[str, Scope]) -> Iterator[tuple[str, str]]:
    for name, scope in scopes.items():
        for folder in scope.folders:
            yield name, folder


def check_layout(config: Config) -> None:
    """The scopes' folders overlap neither each other nor the person's memory folder; a Hylo vault by URL has no
    scopes. (A folder of the person's notes holding a scope's, or inside one, is read without the scope's.)"""
    if not config.scopes:
        return
    from hylo_memory.pipeline.vaults import is_remote

    if is_remote(config.vault):
        raise ValueError(f"scopes need a vault folder: a Hylo vault by URL keeps one memory, in Hylo (remove "
                         f"[scopes.{next(iter(config.scopes))}] to read it)")
    found = list(_folders(config.scopes))
    for at, (name, folder) in enumerate(found):
        for other, there in found[at + 1:]:
            if _holds(folder, there) or _holds(there, folder):
                raise ValueError(f"scope {name!r} folder {folder!r} overlaps scope {other!r} folder {there!r}")
        memory = folder_of(config.memory_dir)
        if _holds(folder, memory) or _holds(memory, folder):
            raise ValueError(f"scope {name!r} folder {folder!r} overlaps memory_dir {config.memory_dir!r}")


def scope_folders(config: Config) -> list[str]:
    """Every scope's folders: the person's walk leaves them out."""
    return [folder for _, folder in _folders(config.scopes)]


def memory_dir_of(config: Config, name: str) -> str:
    """A scope's memory folder: its first folder, then the name of the person's memory folder (`_memory`)."""
    return f"{config.scopes[name].folders[0]}/{posixpath.basename(folder_of(config.memory_dir))}"


def unknown_line(config: Config, name: str) -> str:
    """The one line for a scope not configured, naming those that are."""
    if not config.scopes:
        return (f"unknown scope {name!r}: no scope is configured (add [scopes.{name}] with its folders to the vault's "
                f".hylo-memory.toml; `hylo-memory init` proposes them)")
    return f"unknown scope {name!r} (known: {', '.join(sorted(config.scopes))})"


def scope_config(config: Config, name: str) -> Config:
    """The configuration a command works with on scope `name`: the person's, with the scope's memory folder and its
    folders as the notes read (as extra scan paths: every dimension, a missing one named). Not validated again:
    the scope's memory sits inside its notes' folder by design, and the walk passes the memory folder over."""
    if name not in config.scopes:
        raise ConfigError(unknown_line(config, name))
    scope = config.model_copy(update={"memory_dir": memory_dir_of(config, name), "shorts_paths": [],
                                      "knowledge_paths": [], "extra_scan_paths": list(config.scopes[name].folders),
                                      "scopes": {}})
    scope._person_memory_dir = config.memory_dir  # the person's _me.md holds in every scope (docs/spec.md §2.1)
    return scope


def each_scope(config: Config) -> list[tuple[str, Config]]:
    """Every scope's name and configuration, by name."""
    return [(name, scope_config(config, name)) for name in sorted(config.scopes)]


def scoped(config: Config, name: str | None) -> Config:
    """`config` itself when `name` is None, else scope `name`'s."""
    return config if name is None else scope_config(config, name)
