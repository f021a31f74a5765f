"""Collecting a run's sources (docs/spec.md §4.3–4.4): everything in the window, each extracted once."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from hylo_memory.decay import Dimension, MemoryFile
from hylo_memory.domain.sources import Perspective, Source, SourceKind
from hylo_memory.extractors.base import AuthorProfile
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.run.profile import build_profile, judge_perspective
from hylo_memory.pipeline.run.window import Window, choose_window
from hylo_memory.pipeline.state.failing import Failing
from hylo_memory.pipeline.state.leases import Leases
from hylo_memory.pipeline.state.ledger import Ledger, read_by_assistant
from hylo_memory.pipeline.state.me_file import read_me
from hylo_memory.pipeline.vaults import Skipped, Vault, notes_of


class Future(BaseModel):
    """A source dated after the run's day. Applied now, it would date items after today: it waits, not
    extracted, and each run names it until the one on its day reads it."""

    path: str
    date: dt.date


class Collected(BaseModel):
    """The sources this run extracts, and what it leaves alone."""

    sources: list[Source] = []
    skipped: list[Skipped] = []
    already_extracted: int = 0
    waiting: int = 0  # over the per-run cap: the next run takes them
    submitted: int = 0  # held by a provider's batch not collected yet: neither read nor waiting
    reextracted: int = 0  # read again: another extractor read them (`refresh --reextract`)
    undated: list[str] = []  # paths of sources whose date was not theirs to give (docs/spec.md §1), at most MAX_UNDATED
    plain_text: list[str] = []  # paths of sources read without the parser (markup over its budget), as many too
    future: list[Future] = []  # dated after the run's day: they wait for it

    def empty(self) -> bool:
        """No note is dated in the window: none to read, read already, waiting, in a batch, or waiting for its day."""
        return not (self.sources or self.already_extracted or self.waiting or self.submitted or self.future)


MAX_UNDATED = 50


class Plan(BaseModel):
    """What a refresh on `today` would read: its window, the author's profile, and the sources."""

    window: Window
    profile: AuthorProfile
    collected: Collected


class Reread(BaseModel):
    """`refresh --reextract`: read again the sources another extractor than `extractor` read."""

    extractor: str
    since: dt.date | None = None


class Selection(BaseModel):
    """Which of the window's sources a run reads, beyond those not read yet.

    `cap`: at most this many (the rest wait); `reread`: again those another extractor read; `reach`: the window
    reaches back at least to this date (`--retry-stuck`'s sources, a lease's); `only`: the sources (path → content
    hash) of an assistant's lease, the only ones it extracts."""

    cap: int | None = None
    reread: Reread | None = None
    reach: dt.date | None = None
    only: Mapping[str, str] | None = None


def plan(vault: Path, config: Config, ledger: Ledger, files: dict[Dimension, MemoryFile | None], today: dt.date,
         intro: str | None = None, selection: Selection | None = None) -> Plan:
    """The window, profile and sources of a run over `vault` (refresh runs it; status previews it)."""
    selection = selection or Selection()
    # First: no identity file and no complete run (a vault whose notes never yield an identity fact
    # is not read as new every night, docs/spec.md §4.1).
    first = files.get(Dimension.identity) is None and ledger.last_complete() is None
    window = choose_window(today, first, ledger.reach_back(), config)
    for since in (selection.reread.since if selection.reread is not None else None, selection.reach):
        if since is not None:
            window = window.model_copy(update={"start": min(window.start, since)})
    me = read_me(vault / config.person_memory_dir, config.me_max_bytes).text  # the person's own file, every reader's
    profile = build_profile(files.get(Dimension.identity), files.get(Dimension.goals), intro,
                            config.shorts_paths + config.extra_scan_paths, me)  # the author's own note folders
    reader = notes_of(vault, config, author=[n for n in (profile.name, *profile.aliases) if n],  # whose clippings
                      future=ledger.future())
    reader.pull(window)  # a Hylo vault's window, brought to where it is read (docs/spec.md §10)
    return Plan(window=window, profile=profile,
                collected=collect(reader, window, ledger, profile, selection))


def collect(vault: Vault, window: Window, ledger: Ledger, profile: AuthorProfile, selection: Selection) -> Collected:
    """Page through the window; drop sources already extracted with the same content; apply the cap (and `only`:
    the rest wait, so the window of the next run reaches back to them)."""
    cap, reread, only = selection.cap, selection.reread, selection.only
    result = Collected()
    fresh: list[Source] = []
    failing = Failing(ledger)
    stuck, failed_before = failing.stuck_hashes(), failing.failing()  # stuck: set aside; an edited one is read again
    judged: dict[str, Perspective] = {}  # each unit's perspective, for its own-stance section
    # Notes an assistant holds under a lease are theirs until it answers or the lease ends: they wait.
    now = time.time()
    leased = {} if only is not None else Leases(ledger).held(now)
    batched = {} if only is not None else Leases(ledger).held(now, batch=True)
    for found in vault.sources(window):
        if isinstance(found, Skipped):
            result.skipped.append(found)
            continue
        if found.kind == SourceKind.knowledge and not found.stance:
            judged[found.path] = judge_perspective(found, profile)
        elif found.stance and judged.get(found.path.rsplit("#", 1)[0]) is not Perspective.external:
            continue  # an own unit's stance is read with the unit, as its own words
        if found.date > window.today:
            if not ledger.is_extracted(found.path, found.content_hash):  # a back-fill passes over what was read
                result.future.append(Future(path=found.path, date=found.date))
            continue
        if stuck.get(found.path) == found.content_hash:
            continue
        if ledger.is_extracted(found.path, found.content_hash):
            reader = ledger.extracted_by(found.path)
            if reread is None or reader in (reread.extractor, None) or read_by_assistant(reader):
                result.already_extracted += 1
                continue
            result.reextracted += 1
        if found.path in batched:
            result.submitted += 1
            continue
        if found.path in leased:
            result.waiting += 1
            continue
        perspective = judged.get(found.path) or judge_perspective(found, profile)
        fresh.append(found.model_copy(update={"perspective": perspective, "alone": found.path in failed_before}))
        if found.undated and len(result.undated) < MAX_UNDATED:
            result.undated.append(found.path)
        if found.plain_text and len(result.plain_text) < MAX_UNDATED:
            result.plain_text.append(found.path)
    # Newest first, for every reader (docs/spec.md §9.5): a reader that stops early, or a per-run cap, has read
    # what the person wrote last; what is older waits, and the window reaches back to it.
    fresh.sort(key=lambda s: (s.date, s.path), reverse=True)
    if only is not None:
        chosen = [s for s in fresh if only.get(s.path) == s.content_hash]
        fresh, result.waiting = chosen, len(fresh) - len(chosen)
    if cap is not None and len(fresh) > cap:
        fresh, result.waiting = fresh[:cap], len(fresh) - cap
    result.sources = fresh
    return result
