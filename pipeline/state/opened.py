"""One opened memory (issue 41): what a command works on, opened once by its door and handed to the operation and the
run, never opened again on the way: the vault, its configuration, its store, its ledger and its backend; and the
words of the door that opened it, for the texts deep in a run that name a next step (run/hints.py)."""

from __future__ import annotations

import threading
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming
from hylo_memory.pipeline.state.writing import open_store
from hylo_memory.pipeline.vaults import home_of

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.ledger import Ledger
    from hylo_memory.pipeline.vaults import MemoryHome


class Opened:
    """A vault's memory, opened: `store` at once (its folder checked to be inside the vault), the ledger and the
    backend when first asked for, each once; `close` (or leaving a `with`) closes the ledger.

    The ledger is sqlite's, whose connection serves the thread that opened it: a memory is opened, used and closed
    on one thread (the MCP server opens one a tool call, on the call's worker)."""

    def __init__(self, vault: Path, config: Config, naming: Naming):
        self.vault, self.config, self.naming = vault, config, naming
        self.store: MemoryStore = open_store(vault, config)
        self._ledger: Ledger | None = None
        self._copy: Ledger | None = None
        self._home: MemoryHome | None = None
        self._opening = threading.Lock()

    @property
    def folder(self) -> Path:
        """The memory folder."""
        return self.store.folder

    @property
    def home(self) -> MemoryHome:
        """Where the memory lives: its backend's (Hylo's) for a mirror, else the folder itself."""
        if self._home is None:
            self._home = home_of(self.store.root)
        return self._home

    @property
    def ledger(self) -> Ledger:
        """The vault's ledger, opened on first use (made when there is none) and kept open until `close`."""
        with self._opening:
            if self._ledger is None:
                from hylo_memory.pipeline.state.ledger import Ledger  # a reader that never writes never loads it

                self._ledger = Ledger.for_memory_dir(self.store.folder)
            return self._ledger

    @property
    def copy(self) -> Ledger:
        """An in-memory copy of the ledger, taken on first use: what a reader or a dry run reads (and a dry run
        writes), leaving the ledger's file as it is, or not made when there is none."""
        with self._opening:
            if self._copy is None:
                from hylo_memory.pipeline.state.ledger import Ledger

                self._copy = Ledger.for_memory_dir(self.store.folder, readonly=True)
            return self._copy

    def close(self) -> None:
        with self._opening:
            for ledger in (self._ledger, self._copy):
                if ledger is not None:
                    ledger.close()
            self._ledger = self._copy = None

    def __enter__(self) -> Opened:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
