"""The LLM extractor: batched, structured, validated requests to an OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from rapidfuzz import fuzz

from hylo_memory.decay import Dimension, Evidence, MemoryFile
from hylo_memory.decay.match import normalise
from hylo_memory.domain.sources import Source
from hylo_memory.domain.usage import Usage
from hylo_memory.templates import render

from ..base import AuthorProfile, Candidate, Cluster, Decision, Extraction, Progress
from ..offline.offline import NO_MODEL_ASKED, OfflineExtractor
from ..offline.standalone import why_not_alone
from .batch_api import BatchRequest
from .batching import Batch, Part, estimate_tokens, halved, pack, relevant
from .context_size import PROBE_TIMEOUT, context_tokens
from .evidence_reply import Asked, read_evidence, read_preferences, shown, superseded
from .llm_batches import failed, hint_tokens, or_failed, repair_turn, reply_room, rooms, why_offline, within
from .llm_client import ChatClient, Mode
from .llm_errors import InvalidReply, LLMError, ReplyCut, TooLong
from .replies import ClassifyReply, ExtractionReply, SynthesisReply, clean_text, parse_object, strict_schema
from .review import Judgement, ReviewHandout, read_review, review_messages
from .settings import LLMSettings

T = TypeVar("T")
MAX_CLASSIFY_ITEMS = 100  # Active items `remember` shows the model, for it to say which one a fact replaces
_ESTIMATE_SLACK = 0.9  # our token count is an estimate: a request is sized to nine tenths of the context


class LLMExtractor:
    """Extraction through any OpenAI-compatible chat completions endpoint."""

    def __init__(self, config: LLMSettings):
        self.config = config
        self.name = f"openai ({config.model})"
        # What the server accepts and what the run has spent outlive each event loop.
        self.mode = Mode.json_schema
        self.usage = Usage()
        self.failed_in_a_row = 0  # batches; at `max_failed_batches` the run stops sending
        self.context: int | None = None  # the model's context in tokens, once learnt

    def _context(self, timeout: float = PROBE_TIMEOUT) -> int:
        """The model's context, learnt once: the setting, else the server's own word, else the default."""
        if self.context is None:
            key = self.config.api_key.get_secret_value() if self.config.api_key else None
            self.context = context_tokens(self.config.context_tokens, self.config.base_url, self.config.model, key,
                                          timeout)
        return self.context

    def _fit(self, client: ChatClient) -> None:
        """Size the client's requests to the context: the request within it, at most a third of it the reply."""
        client.request_limit = min(self.config.request_token_budget, int(self._context() * _ESTIMATE_SLACK))
        client.reply_tokens = reply_room(client.request_limit, self.config.max_reply_tokens)

    @property
    def gave_up(self) -> bool:
        """Whether the server failed so many batches in a row that this run sends no more."""
        return self.failed_in_a_row >= self.config.max_failed_batches

    def _record(self, part: Extraction) -> Extraction:
        self.failed_in_a_row = self.failed_in_a_row + 1 if part.failed else 0
        return part

    def _not_sent(self, paths: list[str]) -> Extraction:
        return Extraction(failed=paths, failures=[
            # The limit, not the count now: a batch answered since may have reset it.
            f"{len(paths)} source(s) not sent: the server failed {self.config.max_failed_batches} batches in a row; "
            "they wait for the next run"])

    # Extraction

    def extract(self, sources: list[Source], profile: AuthorProfile, existing: list[Candidate],
                progress: Progress | None = None) -> Extraction:
        self._context()  # asked before the requests, not while they wait
        return self._spend(lambda client: self._extract(client, sources, profile, existing, progress))

    async def _extract(self, client: ChatClient, sources: list[Source], profile: AuthorProfile,
                       existing: list[Candidate], progress: Progress | None) -> Extraction:
        system = render("extract_instructions.j2")
        self._fit(client)
        # The schema travels in the prompt once a server refuses json_schema: counted from the start.
        fixed = sum(map(estimate_tokens, (system, self._request_text([], [], profile))))
        fixed += hint_tokens(strict_schema(ExtractionReply))
        batches = pack(sources, self._rooms(client, fixed)[0])
        gate = asyncio.Semaphore(self.config.concurrency)
        done = _Done(batches, progress)

        async def one(batch: Batch) -> Extraction | None:
            async with gate:
                if self.gave_up:  # a dead or hanging server costs a few batches, not the whole vault
                    return None
                part = self._record(await self._fitted(client, system, batch, profile, existing, fixed))
                done.batch(batch, part)
                return part

        result, unsent = Extraction(), []
        for batch, part in zip(batches, await asyncio.gather(*(one(b) for b in batches)), strict=True):
            if part is None:
                unsent += batch.paths
            else:
                result.merge(part)
        if unsent:
            result.merge(self._not_sent(list(dict.fromkeys(unsent))))
        return result

    def _request_text(self, candidates: list[tuple[int, Candidate]], sources: list[tuple[str, Part]],
                      profile: AuthorProfile) -> str:
        return render("extract_request.j2", profile=profile, candidates=candidates, sources=sources)

    async def _fitted(self, client: ChatClient, system: str, batch: Batch, profile: AuthorProfile,
                      existing: list[Candidate], fixed: int) -> Extraction:
        """A batch's extraction; one too long for the model (refused, or its reply cut) is asked again in
        halves, down to a piece of one source; what still fails waits for the next run."""
        sources_room, candidates_room = self._rooms(client, fixed)
        if estimate_tokens(batch.text) > sources_room and (halves := halved(batch)):
            # Packed before a refusal taught the run a smaller context: split before sending, not after.
            return await self._in_halves(client, system, halves, profile, existing, fixed)
        try:
            return await self._extract_batch(client, system, batch, profile, existing, candidates_room)
        except (TooLong, ReplyCut) as exc:
            if isinstance(exc, TooLong):
                self._learn(exc.context, client)
            halves = halved(batch)
            if halves is None:
                return failed(batch, exc)
            return await self._in_halves(client, system, halves, profile, existing, fixed)
        except LLMError as exc:
            return failed(batch, exc)

    async def _in_halves(self, client: ChatClient, system: str, halves: list[Batch], profile: AuthorProfile,
                         existing: list[Candidate], fixed: int) -> Extraction:
        result = Extraction()
        for half in halves:
            result.merge(await self._fitted(client, system, half, profile, existing, fixed))
        return result

    def _rooms(self, client: ChatClient, fixed: int) -> tuple[int, int]:
        """Tokens a request has for its sources and for the items it shows, after `fixed` and the reply."""
        return rooms(client.request_limit, fixed, client.reply_tokens)

    def _learn(self, said: int | None, client: ChatClient) -> None:
        """A refusal that names a context smaller than the run assumed (llama-cpp-python says nothing before
        it refuses): the rest of the run is sized to it."""
        if said is not None and said < self._context():
            self.context = said
            self._fit(client)

    async def _extract_batch(self, client: ChatClient, system: str, batch: Batch, profile: AuthorProfile,
                             existing: list[Candidate], room: int) -> Extraction:
        messages, asked = self._extraction_messages(system, batch, profile, existing, room)

        def read(raw: str) -> Extraction:
            return read_evidence(raw, asked, self.config.max_evidence_per_source)

        return await self._ask(client, messages, "extraction", strict_schema(ExtractionReply), read, halvable=True)

    def _extraction_messages(self, system: str, batch: Batch, profile: AuthorProfile, existing: list[Candidate],
                             room: int) -> tuple[list[dict[str, str]], Asked]:
        """A batch's messages, and what they show, to read the reply by."""
        # Short ids the pipeline assigns: the model cannot invent a path or an item.
        sources = [(f"S{i}", part) for i, part in enumerate(batch.parts, start=1)]
        candidates = list(enumerate(within(shown(existing, batch.text), room), start=1))
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": self._request_text(candidates, sources, profile)}]
        return messages, Asked(sources={sid: part.source for sid, part in sources}, items=dict(candidates),
                               author=[n for n in (profile.name, *profile.aliases) if n])

    async def _ask(self, client: ChatClient, messages: list[dict[str, str]], name: str, schema: dict[str, Any],
                   read: Callable[[str], T], halvable: bool = False) -> T:
        """One request and, if the reply is not the JSON asked for, one repair carrying the error.

        A reply cut at its limit is no slip to repair when the batch can be halved instead."""
        try:
            raw = await client.complete(messages, name, schema)
            return read(raw)
        except ReplyCut:
            if halvable:
                raise
            repair = repair_turn(client, messages, "the reply stopped at its token limit", "")
        except InvalidReply as exc:
            repair = repair_turn(client, messages, exc.reason, exc.raw)
        raw = await client.complete(repair, name, schema)
        try:
            return read(raw)
        except InvalidReply as exc:
            raise InvalidReply(exc.reason, attempts=2, raw=exc.raw, usage=client.usage.model_copy()) from None

    # The external pool

    def synthesise(self, clusters: list[Cluster], profile: AuthorProfile) -> Extraction:
        if self.gave_up:
            return self._not_sent(sorted({p for c in clusters for p in c.sources}))
        self._context()
        return self._spend(lambda client: self._synthesise(client, clusters, profile))

    async def _synthesise(self, client: ChatClient, clusters: list[Cluster], profile: AuthorProfile) -> Extraction:
        self._fit(client)
        messages, numbered = synthesis_messages(clusters, profile)

        def read(raw: str) -> Extraction:
            return read_preferences(raw, numbered)

        return await or_failed(self._ask(client, messages, "synthesis", strict_schema(SynthesisReply), read),
                                sorted({p for c in clusters for p in c.sources}),
                                f"external preferences of {len(clusters)} cluster(s)")

    # The review of the memory (docs/spec.md §3.1)

    def review(self, handout: ReviewHandout) -> Judgement:
        """The model's judgement of a review batch, read pair by pair; an LLMError when it gave none (the run's
        token ceiling reached, the server failing, a reply that is not the JSON asked for, even repaired)."""
        self._context()

        async def ask(client: ChatClient) -> Judgement:
            self._fit(client)
            return await self._ask(client, review_messages(handout), "review", handout.answer_schema,
                                   lambda raw: read_review(handout, raw))

        return self._run(ask)

    # The provider's batch endpoint (batch_api.py)

    def batch_requests(self, sources: list[Source], profile: AuthorProfile, existing: list[Candidate],
                       clusters: list[Cluster]) -> list[BatchRequest]:
        """The requests the direct path would send first for these sources and themes, built but not sent:
        the same batches, the same prompts. A batch too long for its room is halved before, as there."""
        self._context()
        return self._run(lambda client: self._batch_requests(client, sources, profile, existing, clusters))

    async def _batch_requests(self, client: ChatClient, sources: list[Source], profile: AuthorProfile,
                              existing: list[Candidate], clusters: list[Cluster]) -> list[BatchRequest]:
        system = render("extract_instructions.j2")
        self._fit(client)
        fixed = sum(map(estimate_tokens, (system, self._request_text([], [], profile))))
        fixed += hint_tokens(strict_schema(ExtractionReply))
        sources_room, candidates_room = self._rooms(client, fixed)
        fitted = [b for packed in pack(sources, sources_room) for b in fitting(packed, sources_room)]
        requests: list[BatchRequest] = []
        for batch in fitted:
            messages, asked = self._extraction_messages(system, batch, profile, existing, candidates_room)
            body = client.body(messages, "extraction", strict_schema(ExtractionReply), client.mode)
            requests.append(BatchRequest(custom_id=f"r{len(requests) + 1}", body=body, asked=asked))
        if clusters:
            messages, numbered = synthesis_messages(clusters, profile)
            body = client.body(messages, "synthesis", strict_schema(SynthesisReply), client.mode)
            requests.append(BatchRequest(custom_id=f"r{len(requests) + 1}", body=body, clusters=numbered))
        return requests

    # remember

    def classify(self, text: str, dimension: Dimension | None, pinned: bool | None, *,
                 memory: dict[Dimension, MemoryFile | None] | None = None) -> Decision:
        # Every request `remember` makes, the context probe included, fits in `remember_budget`.
        deadline = time.monotonic() + self.config.remember_budget
        self._context(timeout=min(PROBE_TIMEOUT, self.config.remember_budget / 5))
        system = render("classify_instructions.j2")
        items: dict[int, Candidate] = {}

        async def ask(client: ChatClient) -> ClassifyReply:
            self._fit(client)
            fixed = estimate_tokens(system) + estimate_tokens(render("classify_request.j2", text=text, items=[]))
            fixed += hint_tokens(strict_schema(ClassifyReply))
            room = client.request_limit - fixed - client.reply_tokens
            items.update(enumerate(within(active_items(memory, dimension, text), room), start=1))
            messages = [{"role": "system", "content": system},
                        {"role": "user", "content": render("classify_request.j2", text=text,
                                                           items=list(items.items()))}]
            return await self._ask(client, messages, "memory_item", strict_schema(ClassifyReply),
                                   lambda raw: parse_object(raw, ClassifyReply))

        try:
            proposed = self._run(ask, deadline=deadline)
        except LLMError as exc:
            decision = OfflineExtractor().classify(text, dimension, pinned, memory=memory)
            how = (decision.reason or "as given").replace(NO_MODEL_ASKED, "offline patterns")  # it was asked
            return decision.model_copy(update={"reason": f"{why_offline(exc)}; {how}"})
        wording = clean_text(proposed.text)
        # A wording that means nothing on its own ("Loves it") is the model's slip: the person's words stand.
        alone = why_not_alone(wording) if wording is not None else None
        kept_own = wording is None or alone is not None or not keeps_the_point(text, wording)
        chosen = dimension or proposed.dimension
        kept = wording if wording is not None and not kept_own else text
        # An invalid number is the model's slip, not the person's: ignored without a word.
        replaced, _ = superseded(proposed.supersedes, items, chosen, kept, None)
        why = f' (the model\'s "{wording}" is {alone})' if alone is not None else ""
        return Decision(
            dimension=chosen,
            text=kept,
            # Only the person pins current work or a mood (--pin): the model may not.
            pinned=(proposed.pinned and chosen.pinned_by_default) if pinned is None else pinned,
            reason="filed by the LLM" + (f"; kept your wording{why}" if kept_own and wording else ""),
            supersedes=replaced,
        )

    # Plumbing

    def _run(self, work: Callable[[ChatClient], Awaitable[T]], deadline: float | None = None) -> T:
        """Run `work` on a fresh event loop and client, keeping the run's mode and usage."""
        async def main() -> T:
            client = self._connect(deadline)
            try:
                return await work(client)
            finally:
                self.mode = client.mode
                await client.close()

        return asyncio.run(main())

    def _connect(self, deadline: float | None) -> ChatClient:
        """This run's connection to the model, on the event loop about to run its requests."""
        return ChatClient(self.config, mode=self.mode, spent=self.usage, deadline=deadline)

    def _spend(self, work: Callable[[ChatClient], Awaitable[Extraction]]) -> Extraction:
        """`_run` for extraction work: the result carries the requests and tokens it cost."""
        before = self.usage.model_copy()
        result = self._run(work)
        result.usage = self.usage - before
        return result


class _Done:
    """Tells `progress` of each source as soon as every batch carrying a piece of it came back."""

    def __init__(self, batches: list[Batch], progress: Progress | None):
        self.progress = progress
        self.pieces = Counter(p for b in batches for p in b.paths)
        self.evidence: dict[str, list[Evidence]] = {}

    def batch(self, batch: Batch, part: Extraction) -> None:
        if self.progress is None:
            return
        finished = []
        for path in batch.paths:
            if path in part.failed:
                self.pieces[path] = -1  # never whole now
                continue
            self.evidence.setdefault(path, []).extend(e for e in part.evidence if e.source == path)
            self.pieces[path] -= 1
            if self.pieces[path] == 0:
                finished.append(path)
        if finished:
            self.progress(finished, [e for path in finished for e in self.evidence.pop(path)])


def synthesis_messages(clusters: list[Cluster], profile: AuthorProfile) -> tuple[list[dict[str, str]],
                                                                               dict[int, Cluster]]:
    """The themes' request, and the themes by number, to read the reply by."""
    numbered = list(enumerate(clusters, start=1))
    return ([{"role": "system", "content": render("synthesise_instructions.j2")},
             {"role": "user", "content": render("synthesise_request.j2", clusters=numbered, profile=profile)}],
            dict(numbered))


def fitting(batch: Batch, room: int) -> list[Batch]:
    """The batch, or its halves (and theirs) until each fits `room` tokens of sources, down to a piece of one."""
    halves = halved(batch) if estimate_tokens(batch.text) > room else None
    return [b for half in halves for b in fitting(half, room)] if halves else [batch]


def active_items(memory: dict[Dimension, MemoryFile | None] | None, dimension: Dimension | None,
                 text: str) -> list[Candidate]:
    """The Active items `remember` shows the model: the given dimension's, else all; those sharing words first."""
    files = [f for d, f in (memory or {}).items() if f is not None and dimension in (None, d)]
    items = [Candidate(dimension=f.dimension, text=i.text) for f in files for i in f.active]
    first = relevant(items, text, MAX_CLASSIFY_ITEMS)
    return (first + [c for c in items if c not in first])[:MAX_CLASSIFY_ITEMS]


def keeps_the_point(original: str, wording: str) -> bool:
    """Whether a tidied wording still says what the person said (shares most of its words)."""
    return fuzz.token_set_ratio(normalise(original), normalise(wording)) >= 60
