"""The person's assistant as the extractor (docs/spec.md §9.5): a batch handed out under a lease, its answer kept.

`notes_to_read` hands out the window's next unread sources, one batch sized like a model's request,
with the instructions, the author profile, the numbered existing items and the answer's schema; the
batch's sources are leased to the asker. `propose` reads the answer as a model's reply is read and
runs the rules on it as one refresh over exactly the leased sources, which closes the lease as it
marks them read. Sources the person read rather than wrote come last, as a batch of themes to word.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hylo_memory.errors import InputError
from hylo_memory.extractors.agent import (
    Answered,
    Handout,
    extract_handout,
    handout_tokens,
    read_answer,
    synthesis_handout,
)
from hylo_memory.extractors.base import AuthorProfile, Candidate, Extraction, Perspective, Source
from hylo_memory.extractors.batching import Batch, pack
from hylo_memory.extractors.llm_batches import reply_room, rooms
from hylo_memory.extractors.llm_errors import InvalidReply
from hylo_memory.extractors.synthesis import cluster_units, pool_unit
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.operations.handed import Handed, Proposed
from hylo_memory.pipeline.run.collect import plan
from hylo_memory.pipeline.run.profile import kept_intro
from hylo_memory.pipeline.run.refresh import refresh
from hylo_memory.pipeline.state.leases import NEXT, Lease, Leases, new_token
from hylo_memory.pipeline.state.ledger import ASSISTANT, Ledger
from hylo_memory.pipeline.state.writing import open_store, running


def extractor_name(client: str) -> str:
    """How the ledger, `why` and `history` name the assistant that read a source."""
    return f"{ASSISTANT}{client})"


def notes_to_read(vault: Path, config: Config, client: str, today: dt.date, pooling: bool = True) -> Handed:
    """The next batch of unread sources, leased to `client`; or why there is none (all read, or all leased)."""
    store = open_store(vault, config)
    with running(store, config.lock_timeout) as ledger:  # the files the items are shown from are whole
        handed, pooled = _hand_out(vault, config, ledger, client, today)
    if pooled is None or not pooling:
        return handed
    # Units the person read, in no theme yet: nothing to ask anyone. They join the pool, read.
    refresh(vault, config, Answered(extractor_name(client), Extraction()), today, only=pooled)
    return notes_to_read(vault, config, client, today, pooling=False)


def _hand_out(vault: Path, config: Config, ledger: Ledger, client: str, today: dt.date) -> tuple[Handed, Lease | None]:
    leases, now = Leases(ledger), time.time()
    leases.forget_old(now)
    store = open_store(vault, config)
    files = store.read_all()
    planned = plan(vault, config, ledger, files, today, kept_intro(store))
    held = leases.held(now)  # not a provider's batch: no one to wait for, the next refresh applies it
    free = [s for s in planned.collected.sources if s.path not in held]
    personal = [s for s in free if s.perspective is not Perspective.external]
    external = [s for s in free if s.perspective is Perspective.external]
    lease = Lease(token=new_token(), kind="extract", client=client, created_at=now,
                  expires_at=now + config.lease_minutes * 60, window_start=planned.window.start, sources={}, request={})
    if personal:
        existing = [Candidate(dimension=d, text=i.text) for d, f in files.items() if f for i in f.items]
        handout, chosen = _extract_batch(personal, existing, planned.profile, config, leases.first_id())
    elif external:
        clusters = cluster_units([pool_unit(s) for s in external],
                                 ledger.pool(since=today - dt.timedelta(days=config.pool_days)))
        if not clusters:  # read, with no one asked; what is leased to others still waits
            return Handed(status="wait" if held else "done", wait_seconds=_wait(held, now) if held else None), \
                lease.model_copy(update={"sources": _hashes(external)})
        handout, chosen = synthesis_handout(clusters, planned.profile), external
        lease.kind = "synthesis"
    elif held:
        return Handed(status="wait", wait_seconds=_wait(held, now)), None
    else:
        return Handed(status="done", in_batch=planned.collected.submitted), None
    lease.sources, lease.request = _hashes(chosen), handout.model_dump(mode="json")
    lease.last_id = leases.first_id() - 1 + len(handout.sources())
    leases.add(lease)
    return Handed.of(lease, handout, remaining=len(free) - len(chosen)), None


def _wait(held: dict[str, float], now: float) -> int:
    """Seconds until the first lease held by another ends."""
    return max(1, int(min(held.values()) - now) + 1)


def _extract_batch(sources: list[Source], existing: list[Candidate], profile: AuthorProfile,
                   config: Config, first_id: int) -> tuple[Handout, list[Source]]:
    """The first batch the model's requests would be, with every piece of a long source it begins; its sources
    and the items it shows take the room a model's request gives them (extractors/llm.py's `_rooms`)."""
    tokens = config.request_token_budget
    fixed = handout_tokens(extract_handout([], [], profile, 0))
    sources_room, items_room = rooms(tokens, fixed, reply_room(tokens, config.max_reply_tokens))
    batches = pack(sources, sources_room)
    batch = Batch(parts=list(batches[0].parts))
    for later in batches[1:]:  # a source cut into pieces is leased whole
        if later.parts[0].source.path != batch.parts[-1].source.path:
            break
        batch.parts += later.parts
    chosen = list({p.source.path: p.source for p in batch.parts}.values())
    return extract_handout(batch.parts, existing, profile, items_room, first_id), chosen


def _hashes(sources: list[Source]) -> dict[str, str]:
    return {s.path: s.content_hash for s in sources}


def propose(vault: Path, config: Config, token: str, answer: Any, today: dt.date) -> Proposed:
    """Keep what the assistant found in its lease's sources: read entry by entry, then the rules, as a run.
    The ledger names the reader the lease was handed to."""
    store = open_store(vault, config)
    token = token.strip()
    with Ledger.for_memory_dir(store.folder) as ledger:
        lease = Leases(ledger).usable(token, time.time())  # asked again under the run lock, by the run
    try:
        handout = Handout.model_validate(lease.request)
    except ValidationError:  # kept by another version of hylo-memory
        raise InputError(f"lease {token} was handed out by another version{NEXT}") from None
    try:
        extraction = read_answer(handout, answer, config.max_evidence_per_source)
    except InvalidReply as exc:
        raise InputError(f"lease {token}: the answer is not the JSON asked for ({exc.reason}); nothing was kept, "
                         "the lease still holds: answer again") from None
    extractor = Answered(extractor_name(lease.client), extraction, handout.clusters)
    summary, _ = refresh(vault, config, extractor, today, only=lease)
    return Proposed(summary=summary, remaining=summary.waiting)
