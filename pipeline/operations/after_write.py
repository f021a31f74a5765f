"""The one step after every write of the memory (docs/spec.md §9.4), whichever door the writer came through: each
writer's operation takes it once (refresh and the scheduled run, collecting batches, remember, apply, an answered
lease, forget and unforget, undo, promote and reject, the day's decay a handout applies); no door does. Never after
a dry run, which writes nothing."""

from __future__ import annotations

import logging

from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.errors import HyloMemoryError
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.serving.meaning import WARM_SECONDS, Progress, item_texts, warm
from hylo_memory.pipeline.operations.serving.recall import read_store
from hylo_memory.pipeline.state.names import journal_path

log = logging.getLogger(__name__)


def after_write(store: MemoryStore, config: Config, seconds: float | None = WARM_SECONDS,
                progress: Progress | None = None) -> None:
    """Read the memory as a reader would (~12 ms for 1,000 items), keeping the read memo, and embed the items not
    embedded yet for at most `seconds` (None: every one, as a refresh does), so the next shell `recall` or `context`,
    a hook that runs before every prompt, answers from the memo and the kept vectors at once. A cache: whatever
    goes wrong here, the change stands."""
    try:
        if journal_path(store).exists():
            return  # another command is writing: no waiting for it here, after this one's change is made
        read = read_store(store, config)
    except (HyloMemoryError, OSError):  # the next reader meets it and says what is wrong
        log.debug("the read memo was not kept after a change", exc_info=True)
        return
    try:
        filled = warm(store.folder, config, item_texts(read.files, newest_first=True), seconds, progress)
    except Exception as exc:  # noqa: BLE001 - embedding serves readers: it never fails the write it follows
        log.warning("the items were not embedded (%s: %s); the next refresh embeds them", type(exc).__name__, exc)
        return
    if filled is not None and filled.failure and seconds is None:
        log.warning("%d item(s) were not embedded (%s); the next refresh embeds them", filled.left, filled.failure)
