"""What a refresh tells of its progress as it goes: reading notes, then sources extracted."""

from __future__ import annotations

from typing import Protocol


class RunProgress(Protocol):
    """Told by a refresh where it is; the command line shows it, a scheduled run ignores it."""

    def reading(self) -> None:
        """The run is reading the vault's notes."""

    def extracting(self, sources: int) -> None:
        """Reading is done: `sources` are to be extracted."""

    def extracted(self, sources: int) -> None:
        """`sources` more were extracted whole."""


class Silent:
    """Progress nobody watches."""

    def reading(self) -> None:
        pass

    def extracting(self, sources: int) -> None:
        pass

    def extracted(self, sources: int) -> None:
        pass

    def started(self, what: str, total: int) -> None:
        pass

    def advanced(self, count: int) -> None:
        pass
