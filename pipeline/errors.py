"""Pipeline failures the person can act on; each becomes one line on stderr."""

from hylo_memory.decay.errors import HyloMemoryError, MemoryFileError


class ConfigError(HyloMemoryError):
    """The configuration file or an option is wrong."""


class InputError(HyloMemoryError):
    """A file or argument given on the command line is not usable (names file and line)."""


class VaultError(HyloMemoryError):
    """The vault itself cannot be used (missing, not a folder)."""


class LockTimeout(HyloMemoryError):
    """Another hylo-memory process kept the vault locked for too long."""


class JournalError(HyloMemoryError):
    """An interrupted run's journal cannot be finished as it is."""


class LedgerError(HyloMemoryError):
    """The ledger database cannot be opened or read (names the file)."""


__all__ = ["ConfigError", "HyloMemoryError", "InputError", "JournalError", "LedgerError", "LockTimeout",
           "MemoryFileError", "VaultError"]
