"""The two tools by which the person's assistant is the extractor (docs/spec.md §9.5): `notes_to_read`, then
`propose_memories`, in a loop until nothing remains. The assistant reads; the rules keep."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field, StrictBool

from hylo_memory.errors import InputError, LeaseRefused
from hylo_memory.pipeline.mcp import wording
from hylo_memory.pipeline.mcp.calls import NAMING, Memory, blocking, result

if TYPE_CHECKING:
    from hylo_memory.pipeline.operations.reading.handed import Handed, Proposed
    from hylo_memory.pipeline.operations.reading.review import Reviewed

Instructions = Annotated[StrictBool, Field(description="false when you have the instructions and the schema from "
                                                     "an earlier batch in this conversation: the batch is then its "
                                                     "request alone, and costs you less")]
MaxChars = Annotated[int | None, Field(ge=1_000, le=1_000_000, description="the note characters one batch holds; "
                                        "by default the person's `assistant_batch_chars` (40,000)")]
Lease = Annotated[str, Field(max_length=100, description="the lease token notes_to_read gave with the batch")]
# Any JSON at all: an answer with a bad entry is read entry by entry, never refused whole by the schema.
Answer = Annotated[Any, Field(description='{"evidence": [...]} for a batch of notes ({"preferences": [...]} for a '
                                          'batch of themes, {"same": [[n, m]], "contradicts": [[newer, older]]} '
                                          'for a review of the memory), shaped as its instructions end by saying; '
                                          'an empty list when the notes hold nothing worth keeping')]


def client_name(context: Context[Any, Any]) -> str:
    """The MCP client, as it named itself in `initialize` ("claude-code", "cursor"); "MCP client" when it did not."""
    from hylo_memory.pipeline.state.leases import reader_name  # the ledger's, loaded by the first call, not the start

    params = context.session.client_params
    return reader_name(params.client_info.name if params is not None and params.client_info is not None else None,
                       "MCP client")


class Reading:
    """The assistant's reading loop, over one memory."""

    def __init__(self, memory: Memory):
        self.memory = memory

    async def notes_to_read(self, context: Context[Any, Any], instructions: Instructions = True,
                            max_chars: MaxChars = None) -> CallToolResult:
        client = client_name(context)

        def hand_out() -> Handed:
            from hylo_memory.pipeline.operations.reading.lease import notes_to_read  # the run loads here, on the worker

            with self.memory.opened() as memory:
                return notes_to_read(memory, client, self.memory.today(), max_chars)

        handed = await blocking(hand_out)
        # The text carries the batch whole; the structured content what a script needs beside it, not it twice.
        brief = handed.structured()
        return result(handed.to_text(NAMING.answer, instructions=instructions), brief)

    async def propose_memories(self, lease: Lease, evidence: Answer) -> CallToolResult:
        def keep() -> Proposed | Reviewed:
            from hylo_memory.pipeline.operations.reading.lease import propose

            try:  # on the lease's own day: a server started with --today asks for that one
                with self.memory.opened() as memory:
                    return propose(memory, lease, evidence, self.memory.fixed_today)
            except LeaseRefused as exc:
                raise InputError(f"{exc}: ask for a new batch with {NAMING.next_batch}") from None

        proposed = await blocking(keep)
        return result(proposed.to_text(NAMING), proposed.to_json())


# Each tool of the loop: its description and its title (both write: a lease handed out, an answer kept).
READING_TOOLS: dict[str, tuple[str, str]] = {
    NAMING.next_batch: (wording.NOTES_TO_READ, "Notes to read for memory"),
    NAMING.answer: (wording.PROPOSE_MEMORIES, "Propose memories from notes"),
}


def register_reading(server: MCPServer[Any], memory: Memory, annotations: Callable[..., ToolAnnotations]) -> None:
    reading = Reading(memory)
    for name, (description, title) in READING_TOOLS.items():
        server.add_tool(getattr(reading, name), name=name, description=description,
                        annotations=annotations(title, read_only=False))
