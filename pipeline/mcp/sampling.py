"""The assistant's model lent to a refresh through MCP sampling (docs/spec.md §9.5), when the client offers it.

A refresh over MCP uses the configured model when there is one; else the client's own model, when it
declared the `sampling` capability; else the offline patterns. The requests are sent on the server's
event loop, from the refresh's worker thread, and a refusal (the person said no) is `Declined`.
"""

from __future__ import annotations

from typing import Any

import anyio.from_thread
import anyio.lowlevel
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import SamplingMessage, TextContent

from hylo_memory.extractors.base import Extractor
from hylo_memory.extractors.llm.llm_errors import Declined, RequestFailed
from hylo_memory.pipeline.config import Config


def offers_sampling(context: Context[Any, Any]) -> bool:
    """The client declared `sampling`, and this connection can carry a request from the server to it (a
    2026-07-28 connection without a back-channel cannot: the offline patterns read then)."""
    capabilities, session = context.session.client_capabilities, context.session
    return capabilities is not None and capabilities.sampling is not None and bool(session.can_send_request)


def sampling_extractor(context: Context[Any, Any], config: Config, client: str) -> Extractor:
    """An extractor whose requests the client's model answers; call on the event loop, use on a worker thread."""
    from hylo_memory.extractors.llm.sampling import SamplingExtractor

    session, token = context.session, anyio.lowlevel.current_token()

    def ask(system: str, messages: list[dict[str, str]], max_tokens: int) -> tuple[str, str | None]:
        turns = [SamplingMessage(role="assistant" if m["role"] == "assistant" else "user",
                                 content=TextContent(text=m["content"])) for m in messages]
        try:
            reply = anyio.from_thread.run(_create, session, turns, system, max_tokens, token=token)
        except MCPError as exc:
            raise Declined(f"the assistant did not lend its model: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - a broken connection or a timeout: the batch waits, retried
            raise RequestFailed(f"the assistant's model failed: {type(exc).__name__}: {exc}") from None
        content = reply.content
        text = content.text if isinstance(content, TextContent) else ""
        return text, reply.stop_reason

    return SamplingExtractor(config, ask, client)


async def _create(session: Any, turns: list[SamplingMessage], system: str, max_tokens: int) -> Any:
    return await session.create_message(turns, max_tokens=max_tokens, system_prompt=system, temperature=0.0)
