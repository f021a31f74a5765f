"""The LLM extractor: batched, structured, validated requests to an OpenAI-compatible server."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from rapidfuzz import fuzz

from hylo_memory.decay import Dimension, Evidence
from hylo_memory.decay.match import normalise
from hylo_memory.errors import InvalidReply, LLMError
from hylo_memory.templates import render

from .base import AuthorProfile, Candidate, Cluster, Decision, Extraction, Source, Usage
from .batching import Batch, Part, estimate_tokens, pack, relevant
from .llm_client import ChatClient, Mode
from .offline import OfflineExtractor
from .replies import (
    ClassifyReply,
    EvidenceEntry,
    ExtractionReply,
    PreferenceEntry,
    SynthesisReply,
    clean_text,
    parse_entries,
    parse_object,
    strict_schema,
)
from .settings import LLMSettings
from .synthesis import cluster_evidence

T = TypeVar("T")
MAX_CANDIDATES = 40  # existing items shown per request: the relevant ones, never whole files
_OVERHEAD_ROOM = 0.8  # share of the request budget sources may fill, after the fixed parts


class LLMExtractor:
    """Extraction through any OpenAI-compatible chat completions endpoint."""

    def __init__(self, config: LLMSettings):
        self.config = config
        self.name = f"openai ({config.model})"
        # What the server accepts and what the run has spent outlive each event loop.
        self.mode = Mode.json_schema
        self.usage = Usage()

    # Extraction

    def extract(self, sources: list[Source], profile: AuthorProfile, existing: list[Candidate]) -> Extraction:
        return self._spend(lambda client: self._extract(client, sources, profile, existing))

    async def _extract(self, client: ChatClient, sources: list[Source], profile: AuthorProfile,
                       existing: list[Candidate]) -> Extraction:
        system = render("extract_instructions.j2")
        fixed = estimate_tokens(system) + estimate_tokens(self._request_text([], [], profile))
        budget = int((self.config.request_token_budget - fixed - self.config.max_reply_tokens) * _OVERHEAD_ROOM)
        batches = pack(sources, max(budget, 300))
        gate = asyncio.Semaphore(self.config.concurrency)

        async def one(batch: Batch) -> Extraction:
            async with gate:
                return await self._extract_batch(client, system, batch, profile, existing)

        result = Extraction()
        for part in await asyncio.gather(*(one(b) for b in batches)):
            result.merge(part)
        return result

    def _request_text(self, candidates: list[tuple[int, Candidate]], sources: list[tuple[str, Part]],
                      profile: AuthorProfile) -> str:
        return render("extract_request.j2", profile=profile, candidates=candidates, sources=sources)

    async def _extract_batch(self, client: ChatClient, system: str, batch: Batch, profile: AuthorProfile,
                             existing: list[Candidate]) -> Extraction:
        # Short ids the pipeline assigns: the model cannot invent a path or an item.
        sources = [(f"S{i}", part) for i, part in enumerate(batch.parts, start=1)]
        candidates = list(enumerate(relevant(existing, batch.text, MAX_CANDIDATES), start=1))
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": self._request_text(candidates, sources, profile)}]
        by_id = {sid: part.source for sid, part in sources}
        items = dict(candidates)

        def read(raw: str) -> Extraction:
            entries, dropped = parse_entries(raw, "evidence", EvidenceEntry)
            evidence = []
            for entry in entries:
                source, text = by_id.get(entry.source.strip()), clean_text(entry.text)
                linked = items.get(entry.restates) if entry.restates is not None else None
                if (source is None or text is None or entry.dimension not in source.dimensions
                        or (entry.restates is not None and linked is None)):
                    dropped += 1
                    continue
                matches = linked.text if linked is not None and linked.dimension == entry.dimension else None
                evidence.append(Evidence(dimension=entry.dimension, text=text, source=source.path,
                                         date=source.date, matches=matches))
            return Extraction(evidence=evidence, dropped=dropped)

        return await _or_failed(self._ask(client, messages, "extraction", strict_schema(ExtractionReply), read),
                                batch.paths, f"batch of {len(batch.paths)} source(s) from {batch.paths[0]}")

    async def _ask(self, client: ChatClient, messages: list[dict[str, str]], name: str, schema: dict[str, Any],
                   read: Callable[[str], T]) -> T:
        """One request and, if the reply is not the JSON asked for, one repair carrying the error."""
        try:
            raw = await client.complete(messages, name, schema)
            return read(raw)
        except InvalidReply as exc:
            repair = [*messages, {"role": "assistant", "content": exc.raw[:4000]},
                      {"role": "user", "content": f"That reply was not usable: {exc.reason}. "
                                                  "Answer again with only the JSON object asked for."}]
        raw = await client.complete(repair, name, schema)
        try:
            return read(raw)
        except InvalidReply as exc:
            raise InvalidReply(exc.reason, attempts=2, raw=exc.raw, usage=client.usage.model_copy()) from None

    # The external pool

    def synthesise(self, clusters: list[Cluster], profile: AuthorProfile) -> Extraction:
        return self._spend(lambda client: self._synthesise(client, clusters, profile))

    async def _synthesise(self, client: ChatClient, clusters: list[Cluster], profile: AuthorProfile) -> Extraction:
        numbered = list(enumerate(clusters, start=1))
        by_number = dict(numbered)
        messages = [{"role": "system", "content": render("synthesise_instructions.j2")},
                    {"role": "user", "content": render("synthesise_request.j2", clusters=numbered, profile=profile)}]

        def read(raw: str) -> Extraction:
            entries, dropped = parse_entries(raw, "preferences", PreferenceEntry)
            evidence, done = [], set()
            for entry in entries:
                text = clean_text(entry.text)
                if entry.cluster not in by_number or entry.cluster in done or text is None:
                    dropped += 1
                    continue
                done.add(entry.cluster)
                evidence += cluster_evidence(by_number[entry.cluster], text)
            return Extraction(evidence=evidence, dropped=dropped)

        return await _or_failed(self._ask(client, messages, "synthesis", strict_schema(SynthesisReply), read),
                                sorted({p for c in clusters for p in c.sources}),
                                f"external preferences of {len(clusters)} cluster(s)")

    # remember

    def classify(self, text: str, dimension: Dimension | None, pinned: bool | None) -> Decision:
        messages = [{"role": "system", "content": render("classify_instructions.j2")},
                    {"role": "user", "content": render("classify_request.j2", text=text)}]

        async def ask(client: ChatClient) -> ClassifyReply:
            return await self._ask(client, messages, "memory_item", strict_schema(ClassifyReply),
                                   lambda raw: parse_object(raw, ClassifyReply))

        try:
            proposed = self._run(ask)
        except LLMError as exc:
            decision = OfflineExtractor().classify(text, dimension, pinned)
            return decision.model_copy(update={"reason": f"LLM unavailable ({exc}); {decision.reason or 'as given'}"})
        wording = clean_text(proposed.text)
        kept_own = wording is None or not keeps_the_point(text, wording)
        chosen = dimension or proposed.dimension
        return Decision(
            dimension=chosen,
            text=text if kept_own else wording,
            # Only the person pins current work or a mood (--pin): the model may not.
            pinned=(proposed.pinned and chosen.pinned_by_default) if pinned is None else pinned,
            reason="filed by the LLM" + ("; kept your wording" if kept_own and wording else ""),
        )

    # Plumbing

    def _run(self, work: Callable[[ChatClient], Awaitable[T]]) -> T:
        """Run `work` on a fresh event loop and client, keeping the run's mode and usage."""
        async def main() -> T:
            client = ChatClient(self.config, mode=self.mode, spent=self.usage)
            try:
                return await work(client)
            finally:
                self.mode = client.mode
                await client.close()

        return asyncio.run(main())

    def _spend(self, work: Callable[[ChatClient], Awaitable[Extraction]]) -> Extraction:
        """`_run` for extraction work: the result carries the requests and tokens it cost."""
        before = self.usage.model_copy()
        result = self._run(work)
        result.usage = self.usage - before
        return result


async def _or_failed(work: Awaitable[Extraction], paths: list[str], what: str) -> Extraction:
    """The extraction, or, when the model could not give one, its sources left for the next run."""
    try:
        return await work
    except LLMError as exc:
        return Extraction(failed=paths, failures=[f"{what}: {exc}"])


def keeps_the_point(original: str, wording: str) -> bool:
    """Whether a tidied wording still says what the person said (shares most of its words)."""
    return fuzz.token_set_ratio(normalise(original), normalise(wording)) >= 60
