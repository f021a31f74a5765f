"""The MCP server's embedding behind its answers (docs/spec.md §9.3): a `recall` or `context` that found items not
embedded yet answers at once, by their words, and wakes this; it embeds them on a thread of its own, so the next
call ranks them by meaning. It never holds a call (a few texts an engine call), writes only to the log (stderr),
and stops with the server."""

from __future__ import annotations

import logging
import threading

from hylo_memory.errors import HyloMemoryError
from hylo_memory.pipeline.mcp.calls import NAMING, Memory

LOG = logging.getLogger(__name__)
BATCH = 8  # texts a call to the bundled model: a tool call's query waits for one such call at most (~0.1 s)


class Backfill:
    """One thread a server, started by the first call that finds items waiting, woken by each one after."""

    def __init__(self, memory: Memory):
        self.memory = memory
        self._wake, self._stop = threading.Event(), threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def wake(self) -> None:
        """Embed what waits, after the call that found it has answered."""
        with self._lock:
            if self._stop.is_set():
                return
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="hylo-memory-backfill", daemon=True)
                self._thread.start()
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the batch under way (what it embedded is kept); wait for it at most `timeout` seconds."""
        with self._lock:
            self._stop.set()
            self._wake.set()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            if self._stop.is_set():
                return
            self._wake.clear()
            try:
                with self.memory.opened() as memory:  # on this thread, for this pass
                    # Loaded here, on the backfill's own thread: the index's imports (the run's, the archive's)
                    # would otherwise be paid by the server's start, before its first answer.
                    from hylo_memory.pipeline.operations.serving.index import embed_waiting

                    done = embed_waiting(memory, NAMING, stop=self._stop.is_set, batch=BATCH)
                LOG.debug("backfill: %s", done.line)
            except (HyloMemoryError, OSError) as exc:  # the next call meets it and says what is wrong
                LOG.info("items not embedded in the background: %s", exc)
            except Exception:  # noqa: BLE001 - a server answers on; the next wake tries again
                LOG.exception("items not embedded in the background")
