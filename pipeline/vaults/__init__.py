"""Reading a vault (docs/spec.md §1, §10): the `Vault` and `MemoryHome` promises and their two backends.

Only this front is imported from outside the room: a folder vault (`folder`) and a Hylo vault
reached by URL (`hylo_mirror` over `hylo_client`) stay behind it. It loads neither backend until
one is asked for, so a reader that never opens a Hylo vault never loads its client.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hylo_memory.errors import VaultError

from .protocol import MARKER, MemoryHome, NoteArchive, OwnHome, Skipped, Span, Vault

if TYPE_CHECKING:
    import datetime as dt

    from hylo_memory.pipeline.config import Config

    from .folder import FolderVault

__all__ = ["MemoryHome", "NoteArchive", "Skipped", "Span", "Vault", "archive_of", "home_of", "is_url", "local_root",
           "newest_note", "notes_of"]


def is_url(vault: str | os.PathLike[str] | None) -> bool:
    """A vault given as a Hylo MCP endpoint's URL, not a folder."""
    return isinstance(vault, str) and vault.strip().lower().startswith(("http://", "https://"))


def local_root(config: Config) -> Path:
    """The folder every command works on: the vault folder, resolved (a clear error when it is not one); or, for
    a Hylo vault by URL, its local mirror, prepared. A mirror's memory files are synced by whoever takes the
    memory lock next (`home_of(root).take()`)."""
    assert config.vault is not None
    if not is_url(config.vault):
        return _checked_folder(Path(config.vault))
    from .hylo_mirror import Settings, prepare

    settings = Settings(url=config.vault, memory_dir=config.memory_dir, timeout=config.hylo_timeout,
                        page=config.hylo_page, shorts_paths=config.shorts_paths,
                        knowledge_paths=config.knowledge_paths, extra_scan_paths=config.extra_scan_paths)
    return prepare(settings, config.state_dir)


def _checked_folder(vault: Path) -> Path:
    if not vault.exists():
        raise VaultError(f"{vault}: vault not found")
    if not vault.is_dir():
        raise VaultError(f"{vault}: vault is not a folder")
    return vault.resolve()


def home_of(root: Path) -> MemoryHome:
    """Where the memory of the vault at `root` lives: Hylo for a mirror, else the folder itself."""
    if not (root / MARKER).exists():
        return OwnHome()  # a folder vault's writers never load the Hylo backend
    from .hylo_mirror import mirror_of

    return mirror_of(root) or OwnHome()


def notes_of(root: Path, config: Config, author: Sequence[str] = (), future: Collection[str] = ()) -> Vault:
    """The notes of the vault at `root` as its configuration reads them (`author`: the person's names, whose
    clippings are theirs; `future`: notes found dated after an earlier run's day)."""
    folder = _folder(root, config, author, future)
    if not (root / MARKER).exists():
        return folder
    from .hylo_mirror import HyloVault, mirror_of

    mirror = mirror_of(root)
    return folder if mirror is None else HyloVault(mirror, folder)


def archive_of(root: Path, config: Config) -> NoteArchive:
    """Every note of the vault at `root` as the archive reads it, whatever its date (docs/spec.md §9.7); for a Hylo
    vault, the notes its mirror holds."""
    from .archive import FolderArchive

    return FolderArchive(_folder(root, config))


def newest_note(root: Path, config: Config, before: dt.date) -> dt.date | None:
    """The date of the newest note of the vault at `root` dated on or before `before`, found without reading the
    vault (`newest.py`); for a Hylo vault, of the notes its mirror holds. None: no note."""
    from .newest import newest_note as newest

    return newest(_folder(root, config), before)


def _folder(root: Path, config: Config, author: Sequence[str] = (), future: Collection[str] = ()) -> FolderVault:
    from hylo_memory.pipeline import clock
    from hylo_memory.pipeline.scopes import scope_folders

    from .folder import FolderVault

    return FolderVault(root, config.extra_scan_paths, config.memory_dir, config.max_note_bytes, config.shorts_paths,
                       config.knowledge_paths, author=author, zone=clock.zone(config.timezone), future=future,
                       left_out=scope_folders(config))  # a scope's notes are its memory's (docs/spec.md §1.1)
