"""Reading a vault (docs/spec.md §1, §10): the `Vault` and `MemoryHome` promises, and which backend keeps them.

Only this front is imported from outside the room: a folder vault (`folder`) and a Hylo vault
reached by URL (`hylo_mirror` over `hylo_client`) stay behind it. It loads neither backend until
one is asked for, so a reader that never opens a Hylo vault never loads its client; and it loads
no model library itself (the promises are loaded on first use), so the command line's quick path
and the configuration ask it which backend a vault uses (`BACKENDS`, `backend_of`, `is_remote`).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from hylo_memory.errors import VaultError

if TYPE_CHECKING:
    import datetime as dt

    from hylo_memory.pipeline.config import Config

    from .folder import FolderVault
    from .protocol import MemoryHome, NoteArchive, Skipped, Span, Vault

__all__ = ["BACKENDS", "Backend", "MemoryHome", "NoteArchive", "Skipped", "Span", "Vault", "archive_of",
           "backend_of", "home_of", "is_remote", "local_root", "newest_note", "notes_of"]

_PROMISES = frozenset({"MemoryHome", "NoteArchive", "Skipped", "Span", "Vault"})


def __getattr__(name: str) -> Any:
    """The promises (`protocol`, with pydantic), loaded on first use (PEP 562)."""
    if name not in _PROMISES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(".protocol", __name__), name)
    globals()[name] = value
    return value


class Backend(NamedTuple):
    """A kind of vault: how one is recognised as given (`--vault`, `vault`), and where its code is.

    A vault reached elsewhere (`module` set) is worked on through a local mirror, every command as on a folder;
    its module, in this room, loaded only when such a vault is opened, offers `open_mirror(config) -> Path` (the
    mirror, prepared), `home_at(root) -> MemoryHome | None` and `notes_at(root, folder) -> Vault | None` (the
    mirror at `root`, found by `marker`, the file at its root)."""

    name: str
    claims: Callable[[str], bool]  # whether a vault given as this text is one of these
    module: str | None = None  # None: a folder on disk, read where it is
    marker: str = ""  # at a mirror's root: whose mirror it is (never a key)


def _web_address(text: str) -> bool:
    return text.strip().lower().startswith(("http://", "https://"))


# Which backend a vault uses is decided here alone: the first whose claim holds. A folder's path claims the rest.
BACKENDS: list[Backend] = [
    Backend("hylo", _web_address, "hylo_mirror", ".hylo-vault.json"),  # a Hylo MCP endpoint's URL (docs/spec.md §10)
    Backend("folder", lambda text: True),
]


def backend_of(vault: str | os.PathLike[str]) -> Backend:
    """The backend of the vault given as `vault` (a `Path` is a folder's)."""
    text = vault if isinstance(vault, str) else None
    return next(b for b in BACKENDS if (b.claims(text) if text is not None else b.module is None))


def is_remote(vault: str | os.PathLike[str] | None) -> bool:
    """Whether the vault is reached elsewhere (a URL, not a folder): kept as written, and worked on through a local
    mirror synced under the memory lock."""
    return vault is not None and backend_of(vault).module is not None


def _module(backend: Backend) -> Any:
    assert backend.module is not None
    return importlib.import_module(f".{backend.module}", __name__)


def _mirrored(root: Path) -> Backend | None:
    """The backend whose mirror `root` is, by the marker at its root; None: a folder vault."""
    return next((b for b in BACKENDS if b.marker and (root / b.marker).exists()), None)


def local_root(config: Config) -> Path:
    """The folder every command works on: the vault folder, resolved (a clear error when it is not one); or, for
    a vault reached elsewhere, its local mirror, prepared. A mirror's memory files are synced by whoever takes
    the memory lock next (`home_of(root).take()`)."""
    assert config.vault is not None
    backend = backend_of(config.vault)
    if backend.module is None:
        return _checked_folder(Path(config.vault))
    root: Path = _module(backend).open_mirror(config)
    return root


def _checked_folder(vault: Path) -> Path:
    if not vault.exists():
        raise VaultError(f"{vault}: vault not found")
    if not vault.is_dir():
        raise VaultError(f"{vault}: vault is not a folder")
    return vault.resolve()


def home_of(root: Path) -> MemoryHome:
    """Where the memory of the vault at `root` lives: its backend's (Hylo's) for a mirror, else the folder itself."""
    from .protocol import OwnHome

    backend = _mirrored(root)
    if backend is None:
        return OwnHome()  # a folder vault's writers never load another backend
    home: MemoryHome | None = _module(backend).home_at(root)
    return home or OwnHome()


def notes_of(root: Path, config: Config, author: Sequence[str] = (), future: Collection[str] = ()) -> Vault:
    """The notes of the vault at `root` as its configuration reads them (`author`: the person's names, whose
    clippings are theirs; `future`: notes found dated after an earlier run's day)."""
    folder = _folder(root, config, author, future)
    backend = _mirrored(root)
    if backend is None:
        return folder
    notes: Vault | None = _module(backend).notes_at(root, folder)
    return notes or folder


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

    from .folder import FolderVault, ReadingOptions

    return FolderVault(root, config.extra_scan_paths, config.memory_dir, config.max_note_bytes, config.shorts_paths,
                       config.knowledge_paths, left_out=scope_folders(config),  # a scope's notes: its memory's (§1.1)
                       reading=ReadingOptions(author=author, zone=clock.zone(config.timezone), future=future))
