"""LoCoMo's `agent` and `sampling` extractors: the person's assistant as the reader, through the MCP SDK's real
client (docs/spec.md §9.5), connected in process to the server `hylo-memory mcp` builds.

  agent     a scripted assistant: `notes_to_read`, then `propose_memories` with the session's gold
            observations (each filed by the offline classifier, as the oracle files them; its supersedes
            given as the number the batch shows the item by), until nothing remains;
  sampling  `refresh` over MCP with no model configured, the client's sampling callback answering as the
            fake model answers the openai path (hylo_memory.testing.fake_model).

One server a session, its `--today` the session's date, as the nightly job runs on that day.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
from locomo_data import Session
from locomo_evidence import file
from mcp import Client
from mcp_types import CreateMessageRequestParams, CreateMessageResult, Implementation, TextContent

from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.domain.items import MAX_ITEM_TEXT
from hylo_memory.extractors.base import Candidate
from hylo_memory.extractors.llm.batching import estimate_tokens
from hylo_memory.extractors.llm.evidence_reply import shown
from hylo_memory.extractors.llm.llm_batches import reply_room, rooms, within
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.mcp.calls import Memory
from hylo_memory.pipeline.mcp.server import build_server
from hylo_memory.testing.fake_model import answer as model_answer

_ITEM = re.compile(r"^(\d+)\. \[(\w+)\] (.+)$", re.MULTILINE)


class Tally:
    """What the loop cost: tool calls, and the characters the assistant was handed; each wording it proposed, with
    the turns of the observation it was proposed for (`filed`)."""

    def __init__(self, filed: dict[str, set[str]] | None = None) -> None:
        self.filed = {} if filed is None else filed
        self.calls = 0
        self.handed_chars = 0
        self.model_chars = 0  # what the model's request for the same batch carries: instructions, request, schema
        self.fixed = 0  # of which the instructions and the schema
        self.review_chars = 0  # review batches (docs/spec.md §3.1): the model's path reviews in a request of its own
        self.batches = 0


def read_session(vault: Path, session: Session, speaker: str, source: str, mode: str, tally: Tally) -> dict[str, Any]:
    """The session's note read by the assistant (agent) or by its lent model (sampling); the last summary."""
    # As the vault's file says, and nothing from this machine's environment: no model configured, so a refresh
    # over MCP uses the client's.
    config = Config(vault=str(vault), shorts_paths=["_shorts"], knowledge_paths=["_knowledge"], extra_scan_paths=[],
                    extractor="offline")
    server = build_server(Memory(vault.resolve(), config, session.date))
    return anyio.run(_agent if mode == "agent" else _sampling, server, vault, session, speaker, source, tally)


async def _agent(server: Any, vault: Path, session: Session, speaker: str, source: str,
                 tally: Tally) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    async with Client(server, client_info=Implementation(name="locomo-agent", version="1")) as client:
        first = True
        while True:  # the instructions and the schema with the first batch of the conversation alone
            handed = await client.call_tool("notes_to_read", {"instructions": first})
            first = False
            tally.calls += 1
            batch = handed.structured_content or {}
            if batch.get("status") != "batch":
                return summary
            text = "".join(b.text for b in handed.content if isinstance(b, TextContent))
            tally.batches += 1
            if batch["kind"] == "review":  # the model's nightly review is its own request: counted apart
                tally.review_chars += len(text)
                answer: Any = {"same": [], "contradicts": []}
                kept = await client.call_tool("propose_memories", {"lease": batch["lease"], "evidence": answer})
                tally.calls += 1
                continue
            tally.handed_chars += len(text)
            tally.model_chars += _model_request(text, tally, vault)
            answer = _gold(vault, session, speaker, source, batch, text, tally) if batch["kind"] == "extract" else []
            key = "evidence" if batch["kind"] == "extract" else "preferences"
            kept = await client.call_tool("propose_memories", {"lease": batch["lease"], "evidence": {key: answer}})
            tally.calls += 1
            summary = (kept.structured_content or {}).get("summary", {})


def _model_request(text: str, tally: Tally, vault: Path) -> int:
    """The characters of the model's messages for the same batch, as the openai run's relay counts them (the
    system and user messages; the schema travels in `response_format`); the first batch gives the system's.
    The model's request shows the items its own room holds (`request_token_budget`), the assistant's a tenth of
    its notes: the request handed over, with the model's items in place of the assistant's."""
    parts = {p.split("\n", 1)[0]: p.split("\n\n", 1)[-1].strip() for p in f"\n{text}".split("\n## ")[1:]}
    if "Instructions" in parts:
        tally.fixed = len(parts["Instructions"])
    request = parts["Request"]
    shown_here = sum(len(m.group(0)) + 1 for m in _ITEM.finditer(request))
    return tally.fixed + len(request) - shown_here + _model_items(vault, request, tally.fixed)


def _model_items(vault: Path, request: str, fixed_chars: int) -> int:
    """The characters of the numbered items the model's request for these sources would show."""
    config = Config(vault=str(vault))
    memory = MemoryStore(vault / "_memory").read_all()
    existing = [Candidate(dimension=d, text=i.text) for d, f in memory.items() if f for i in f.items]
    sources = "\n".join(re.findall(r"<source [^>]*>\n(.*?)</source>", request, re.DOTALL))
    fixed = estimate_tokens("x" * fixed_chars) + estimate_tokens(request) - estimate_tokens(sources)
    _, room = rooms(config.request_token_budget, fixed, reply_room(config.request_token_budget,
                                                                   config.max_reply_tokens))
    items = within(shown(existing, sources), room)
    return sum(len(f"{n}. [{c.dimension.value}] {c.text}") + 1 for n, c in enumerate(items, start=1))


def _gold(vault: Path, session: Session, speaker: str, source: str, batch: dict[str, Any],
          text: str, tally: Tally) -> list[dict[str, Any]]:
    """The gold observations of the session, for the batch's source of its note."""
    ids = [s["id"] for s in batch.get("sources", []) if s["path"] == source]
    if not ids:
        return []
    shown = {t: int(n) for n, _, t in _ITEM.findall(text)}
    memory = MemoryStore(vault / "_memory").read_all()
    classifier, entries = OfflineExtractor(), []
    for fact in session.observations[speaker]:
        decision = classifier.classify(fact.text, None, None, memory=memory)
        file(tally.filed, decision.text[:MAX_ITEM_TEXT], fact)
        entries.append({"dimension": decision.dimension.value, "text": decision.text[:MAX_ITEM_TEXT],
                        "source": ids[0], "restates": None,
                        "supersedes": shown.get(decision.supersedes) if decision.supersedes else None})
    return entries


async def _sampling(server: Any, vault: Path, session: Session, speaker: str, source: str,
                    tally: Tally) -> dict[str, Any]:
    async def lend(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        prompt = "\n".join(m.content.text for m in params.messages if isinstance(m.content, TextContent))
        tally.calls += 1
        tally.handed_chars += len(prompt) + len(params.system_prompt or "")
        body = {"messages": [{"role": "system", "content": params.system_prompt or ""},
                             {"role": "user", "content": prompt}]}
        return CreateMessageResult(role="assistant", content=TextContent(text=model_answer(body)),
                                   model="fake-model", stop_reason="endTurn")

    # The initialize handshake: a 2026-07-28 connection in process has no back-channel for the server's request.
    async with Client(server, client_info=Implementation(name="locomo-sampling", version="1"),
                      sampling_callback=lend, mode="legacy") as client:
        refreshed = await client.call_tool("refresh")
        tally.calls += 1
        return refreshed.structured_content or {}

