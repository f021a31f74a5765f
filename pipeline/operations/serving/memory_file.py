"""One memory file as it is on disk, for a reader that shows it whole (the MCP server's `memory://` resources)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hylo_memory.decay import Dimension
from hylo_memory.errors import MemoryFileError
from hylo_memory.pipeline.state.writing import settle

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.opened import Opened


def memory_file_text(memory: Opened, dimension: Dimension) -> str:
    """The file's text, as every command reads it (a link in the vault, never a pipe); "" when it has no item yet.
    Never half of a change a crash interrupted: that change is finished first."""
    store = memory.store
    settle(store, memory.config.lock_timeout)
    data = store.read_bytes(dimension)
    try:
        return "" if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        raise MemoryFileError(store.path(dimension), None, "is not UTF-8 text") from None
