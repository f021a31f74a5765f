"""The person's assistant as the extractor (docs/spec.md §9.5): a batch handed out under a lease, its answer kept.

`notes_to_read` hands out the window's next unread sources, newest first, a batch of up to
`assistant_batch_chars` note characters, with the instructions, the author profile, the numbered existing items
and the days before which evidence is not kept; the batch's sources are leased to the asker, for its day and
vault. What is not handed out is passed over with its reason, never waited for. `propose` reads the answer as a
model's reply is read and runs the rules on it as one refresh over exactly the leased sources, which closes the
lease as it marks them read. Sources the person read rather than wrote come last, as a batch of themes to word.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from hylo_memory.decay import Dimension, MemoryFile
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.domain.sources import Perspective, Source
from hylo_memory.errors import InputError, LeaseRefused
from hylo_memory.extractors.base import AuthorProfile, Candidate, Extraction
from hylo_memory.extractors.llm.agent import Answered, Handout, extract_handout, read_answer, synthesis_handout
from hylo_memory.extractors.llm.batching import Part, estimate_tokens
from hylo_memory.extractors.llm.llm_errors import InvalidReply
from hylo_memory.extractors.synthesis import cluster_units, pool_unit
from hylo_memory.pipeline import clock
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming, Step
from hylo_memory.pipeline.operations.after_write import after_write
from hylo_memory.pipeline.operations.reading.handed import MAX_PASSED_OVER, Handed, PassedOver, Proposed
from hylo_memory.pipeline.operations.reading.review import Reviewed, answer_review, hand_out_review
from hylo_memory.pipeline.run.collect import Selection, plan
from hylo_memory.pipeline.run.hints import old_vault_hint
from hylo_memory.pipeline.run.options import RunOptions
from hylo_memory.pipeline.run.profile import kept_intro
from hylo_memory.pipeline.run.refresh import refresh
from hylo_memory.pipeline.state.leases import Lease, Leases, new_token
from hylo_memory.pipeline.state.ledger import ASSISTANT, Ledger
from hylo_memory.pipeline.state.opened import Opened
from hylo_memory.pipeline.state.writing import running

EMPTY = "empty: nothing in it to read (marked read with the batch)"
ITEMS_SHARE = 10  # the items shown with a batch take at most a tenth of its notes' characters
MIN_ITEMS_TOKENS = 300


def extractor_name(client: str) -> str:
    """How the ledger, `why` and `history` name the assistant that read a source."""
    return f"{ASSISTANT}{client})"


def notes_to_read(memory: Opened, client: str, today: dt.date, max_chars: int | None = None,
                  since: dt.date | None = None, pooling: bool = True) -> Handed:
    """The next batch of unread sources, newest first, leased to `client`; or why there is none (all read, or all
    leased). `max_chars`: the note characters a batch holds (default `assistant_batch_chars`); `since`: the
    window reaches back at least to this day (an old vault's notes, after a run that did not reach them)."""
    config = memory.config
    with running(memory) as ledger:  # the files the items are shown from are whole
        desk = _Desk(memory.vault, config, memory.store, client, today, max_chars or config.assistant_batch_chars,
                     since, memory.naming)
        handed, unasked = _hand_out(desk, ledger)
    if unasked is None or not pooling:
        return handed
    # Read with no one asked, under a lease of their own that the run closes: units the person read that form
    # no theme yet (they join the pool) and empty notes; or none at all, for the day's decay.
    summary, _ = refresh(memory, Answered(extractor_name(client), Extraction()), RunOptions(today, only=unasked))
    if summary.changed_files:  # the day's decay, written: a writer like any other (docs/spec.md §9.4)
        after_write(memory.store, config)
    after = notes_to_read(memory, client, today, max_chars, since, pooling=False)
    passed = {p.path: p for p in handed.passed_over + after.passed_over}  # each note once, with its first reason
    decayed = summary.counts.faded + summary.counts.deleted
    return after.model_copy(update={"passed_over": list(passed.values())[:MAX_PASSED_OVER],
                                    "decay": summary.to_text(memory.naming) if decayed else None})


class _Desk(NamedTuple):
    """Who asks for a batch, for which vault and day, and how much it reads at once."""

    vault: Path
    config: Config
    store: MemoryStore
    client: str
    today: dt.date
    max_chars: int
    since: dt.date | None
    naming: Naming  # the door's words, for the hint of an old vault


def _hand_out(desk: _Desk, ledger: Ledger) -> tuple[Handed, Lease | None]:
    leases, now = Leases(ledger), time.time()
    leases.forget_old(now)
    store = desk.store
    files = store.read_all()
    planned = plan(desk.vault, desk.config, ledger, files, desk.today, kept_intro(store), Selection(reach=desk.since))
    held = leases.held(now)  # not a provider's batch: no one to wait for, the next refresh applies it
    free = [s for s in planned.collected.sources if s.path not in held]
    empty = [s for s in free if not s.text.strip()]  # read with the next batch: nothing in them to hand out
    personal = [s for s in free if s.perspective is not Perspective.external and s.text.strip()]
    external = [s for s in free if s.perspective is Perspective.external and s.text.strip()]
    passed = [PassedOver(path=s.path, reason=s.reason) for s in planned.collected.skipped]
    passed += [PassedOver(path=s.path, reason=f"{s.others_words}: nothing of the person's own" if s.others_words
                          else EMPTY) for s in empty]
    lease = Lease(token=new_token(), kind="extract", client=desk.client, created_at=now,
                  expires_at=now + desk.config.lease_minutes * 60, window_start=planned.window.start, sources={},
                  request={}, today=desk.today, vault=str(desk.vault))
    if personal:
        existing = [Candidate(dimension=d, text=i.text) for d, f in files.items() if f for i in f.items]
        handout, chosen = _extract_batch(personal, existing, planned.profile, desk.max_chars, leases.first_id())
    elif external or empty:
        clusters = cluster_units([pool_unit(s) for s in external],
                                 ledger.pool(since=desk.today - dt.timedelta(days=desk.config.pool_days)))
        if not clusters:  # read, with no one asked; what is leased to others still waits
            lease = lease.model_copy(update={"kind": "synthesis", "sources": _hashes(external + empty)})
            leases.add(lease)
            passed += [PassedOver(path=s.path, reason=f"{s.others_words or 'someone else’s words'}: joins the "
                                  "reading pool, no dimension") for s in external]
            return Handed(status="wait" if held else "done", wait_seconds=_wait(held, now) if held else None,
                          passed_over=passed[:MAX_PASSED_OVER]), lease
        handout, chosen = synthesis_handout(clusters, planned.profile), external
        lease.kind = "synthesis"
    elif held:
        return Handed(status="wait", wait_seconds=_wait(held, now), passed_over=passed[:MAX_PASSED_OVER]), None
    else:
        # No note left to hand out: pairs of items that may be one fact, for the reader to judge (docs/spec.md §3.1).
        review = hand_out_review(desk.config, ledger, files, lease, store.folder, desk.today)
        if review is not None:
            return review, None
        done = Handed(status="done", in_batch=planned.collected.submitted or None, passed_over=passed[:MAX_PASSED_OVER],
                      old_vault=old_vault_hint(desk.vault, desk.config, ledger, planned.window, desk.naming,
                                               step=Step.PENDING))
        # The day's decay, as a nightly run would apply it, when no run today has: the loop leaves the memory as
        # the night would (docs/spec.md §4.6), not only when a note was read.
        if any(files.values()) and (ledger.last_complete() or dt.date.min) < desk.today and not done.in_batch:
            leases.add(lease)
            return done, lease
        return done, None
    lease.sources, lease.request = _hashes(chosen + empty), handout.model_dump(mode="json")
    lease.last_id = leases.first_id() - 1 + len(handout.sources())
    leases.add(lease)
    return Handed.of(lease, handout, remaining=len(free) - len(chosen) - len(empty),
                     keeps_from=keeps_from(files, desk.today), passed_over=passed[:MAX_PASSED_OVER]), None


def keeps_from(files: dict[Dimension, MemoryFile | None], today: dt.date) -> dict[Dimension, dt.date]:
    """Per dimension, the first day whose evidence is still kept: today less twice its file's window (§3)."""
    windows = {d: (f.decay_window if f is not None else d.default_window) for d, f in
               ((d, files.get(d)) for d in Dimension)}
    return {d: today - dt.timedelta(days=2 * w) for d, w in windows.items()}


def _wait(held: dict[str, float], now: float) -> int:
    """Seconds until the first lease held by another ends."""
    return max(1, int(min(held.values()) - now) + 1)


def _extract_batch(sources: list[Source], existing: list[Candidate], profile: AuthorProfile, max_chars: int,
                   first_id: int) -> tuple[Handout, list[Source]]:
    """The newest unread notes up to `max_chars` of their text (at least one, whole), with the existing items
    relevant to them. An able reader takes a large batch: each batch repeats the profile and the items, so fewer,
    larger batches hand it less."""
    chosen: list[Source] = []
    used = 0
    for source in sources:  # newest first (run/collect.py)
        if chosen and used + len(source.text) > max_chars:
            break
        chosen.append(source)
        used += len(source.text)
    parts = [Part(source=s, text=s.text) for s in chosen]
    # The items shown take at most a tenth of the batch: the reader is handed little beyond the notes.
    items_tokens = max(MIN_ITEMS_TOKENS, estimate_tokens("x" * (used // ITEMS_SHARE)))
    return extract_handout(parts, existing, profile, items_tokens, first_id), chosen


def _hashes(sources: list[Source]) -> dict[str, str]:
    return {s.path: s.content_hash for s in sources}


def propose(memory: Opened, token: str, answer: Any, today: dt.date | None = None) -> Proposed | Reviewed:
    """Keep what the assistant found in its lease's sources: read entry by entry, then the rules, as a run on the
    lease's day (`today`, when given, must be that day). The ledger names the reader the lease was handed to."""
    vault, store, config = memory.vault, memory.store, memory.config
    token = token.strip()
    lease = Leases(memory.ledger).usable(token, time.time())  # asked again under the run lock, by the run
    if lease.vault and lease.vault != str(vault):
        raise LeaseRefused(f"lease {token} was handed out for the vault {lease.vault}, not {vault}")
    day = lease.day(today) or clock.today(config.timezone)
    if lease.kind == "review":  # pairs of items judged, not notes read: no run (docs/spec.md §3.1)
        reviewed = answer_review(memory, lease, answer, day, extractor_name(lease.client))
        after_write(store, config)
        return reviewed.model_copy(update={"day": day})
    try:
        handout = Handout.model_validate(lease.request)
    except ValidationError:  # kept by another version of hylo-memory
        raise LeaseRefused(f"lease {token} was handed out by another version") from None
    try:
        extraction = read_answer(handout, answer, config.max_evidence_per_source)
    except InvalidReply as exc:
        raise InputError(f"lease {token}: the answer is not the JSON asked for ({exc.reason}); nothing was kept, "
                         "the lease still holds: answer again") from None
    if not extraction.evidence and extraction.dropped:
        raise InputError(f"lease {token}: no entry of the answer could be kept ({_reasons(extraction)}); nothing "
                         "was kept and its notes stay unread, the lease still holds: answer again, or with an empty "
                         "list if the notes hold nothing worth keeping")
    extractor = Answered(extractor_name(lease.client), extraction, handout.clusters)
    summary, _ = refresh(memory, extractor, RunOptions(day, only=lease))
    after_write(store, config)
    return Proposed(summary=summary, remaining=summary.waiting)


def _reasons(extraction: Extraction, shown: int = 10) -> str:
    """Why each entry was dropped, on one line: the first `shown` by name, then how many more."""
    named = [f"{e.text!r}: {e.reason}" for e in extraction.listed[:shown]]
    more = extraction.dropped_count - len(named)
    return "; ".join(named) + (f"; and {more} more" if more > 0 else "")
