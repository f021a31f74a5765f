"""The one error family: every failure the person can act on, each printed as one line."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pydantic is not loaded for `--version`; nothing of the package is imported here at all
    from pydantic import ValidationError


class HyloMemoryError(Exception):
    """Base of every expected failure; the command line prints it as one line."""


class MemoryFileError(HyloMemoryError):
    """A memory file that cannot be parsed safely; it is refused, never overwritten."""

    def __init__(self, path: str | Path, line: int | None, reason: str):
        self.path, self.line, self.reason = str(path), line, reason
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {reason}")


class ConfigError(HyloMemoryError):
    """The configuration file or an option is wrong."""


class InputError(HyloMemoryError):
    """A file or argument given on the command line is not usable (names file and line)."""


class LeaseRefused(InputError):
    """A lease whose answer cannot be kept; the door adds how to ask it for a new batch (docs/spec.md §9.5)."""


class VaultError(HyloMemoryError):
    """The vault itself cannot be used (missing, not a folder)."""


class LockTimeout(HyloMemoryError):
    """Another hylo-memory process kept the vault locked for too long."""


class JournalError(HyloMemoryError):
    """An interrupted run's journal cannot be finished as it is."""


class LedgerError(HyloMemoryError):
    """The ledger database cannot be opened, read or written (names the file)."""


class StorageError(HyloMemoryError):
    """The file system refused a read or a write (a full disk, a read-only folder); names the path."""


class FileChanged(HyloMemoryError):
    """A memory file saved by someone else (their editor takes no lock) while a command was writing it.

    The command plans again on the new text; after `attempts` tries it refuses with this line."""

    def __init__(self, path: str | Path, attempts: int = 1):
        self.path = str(path)
        times = f" ({attempts} times)" if attempts > 1 else ""
        super().__init__(f"{path}: was saved while hylo-memory was writing it{times}; that version is kept "
                         "and this command wrote nothing — run it again")


def validation_line(exc: ValidationError, where: str = "") -> str:
    """The first validation error in words a person can act on: `field: what is wrong`."""
    error = exc.errors()[0]
    field = ".".join(str(p) for p in error["loc"]) or where
    if error["type"] == "missing":
        return f"missing field {field!r}"
    if error["type"] == "enum":  # "unknown dimension 'hobbies' (one of identity, …)"
        expected = str(error.get("ctx", {}).get("expected", "")).replace("' or '", "', '").replace("'", "")
        return f"unknown {field} {error.get('input')!r} (one of {expected})"
    return f"{field}: {error['msg']}"


def storage_error(exc: OSError) -> StorageError:
    """An OS error as one line naming the path; a full disk says so plainly."""
    where = f"{exc.filename}: " if exc.filename else ""
    if exc.errno == errno.ENOSPC:
        return StorageError(f"{where}disk full; nothing was half-written, free some space and run again")
    return StorageError(f"{where}{exc.strerror or exc}")


def reason(exc: HyloMemoryError | OSError) -> str:
    """A failure as the one line both doors give: an OS error (a full disk, a read-only folder) says where."""
    return str(exc if isinstance(exc, HyloMemoryError) else storage_error(exc))
