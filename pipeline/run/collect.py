"""Collecting a run's sources (SPEC §4.3–4.4): everything in the window, each extracted once."""

from __future__ import annotations

from pydantic import BaseModel

from hylo_memory.extractors.base import AuthorProfile, Source

from ..state.ledger import Ledger
from .profile import judge_perspective
from ..vault import Skipped, Vault
from .window import Window


class Collected(BaseModel):
    """The sources this run extracts, and what it leaves alone."""

    sources: list[Source] = []
    skipped: list[Skipped] = []
    already_extracted: int = 0
    waiting: int = 0  # over the per-run cap: the next run takes them


def collect(vault: Vault, window: Window, ledger: Ledger, profile: AuthorProfile, cap: int | None) -> Collected:
    """Page through the window; drop sources already extracted with the same content; apply the cap."""
    result = Collected()
    fresh: list[Source] = []
    for found in vault.sources(window):
        if isinstance(found, Skipped):
            result.skipped.append(found)
        elif ledger.is_extracted(found.path, found.content_hash):
            result.already_extracted += 1
        else:
            fresh.append(found.model_copy(update={"perspective": judge_perspective(found, profile)}))
    # Oldest first, so a backlog drains in the order it was written.
    fresh.sort(key=lambda s: (s.date, s.path))
    if cap is not None and len(fresh) > cap:
        fresh, result.waiting = fresh[:cap], len(fresh) - cap
    result.sources = fresh
    return result
