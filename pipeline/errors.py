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


class ExtractionError(HyloMemoryError):
    """Some or all sources could not be extracted; they wait for the next run."""


__all__ = ["ConfigError", "ExtractionError", "HyloMemoryError", "InputError", "LockTimeout",
           "MemoryFileError", "VaultError"]
