"""What the fake OpenAI server answers: replies, errors, delays and raw bodies, and helpers to build them."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# --------------------------------------------------------------------------- #
# Response descriptions
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Reply:
    """A successful chat completion whose message content is ``content``."""

    content: str
    usage: dict[str, int] | None = None
    model: str | None = None
    finish_reason: str = "stop"
    headers: dict[str, str] | None = None


@dataclass(frozen=True)
class Error:
    """An HTTP error with an OpenAI-style body ``{"error": {...}}``."""

    status: int
    message: str
    type: str | None = None
    code: str | None = None
    param: str | None = None
    headers: dict[str, str] | None = None


@dataclass(frozen=True)
class Delay:
    """Wait ``seconds`` then answer with ``then`` (``None``: the next source in line)."""

    seconds: float
    then: Response | None = None


@dataclass(frozen=True)
class Raw:
    """Send ``body`` byte for byte (e.g. invalid JSON)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    headers: dict[str, str] | None = None


Response = Reply | Error | Delay | Raw
Body = dict[str, Any]  # a request's (or a verbatim reply's) JSON
HandlerResult = Response | str | Body | None
Handler = Callable[[Body], HandlerResult]

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    422: "invalid_request_error",
    429: "rate_limit_exceeded",
}


def reply(
    content: str,
    usage: dict[str, int] | None = None,
    *,
    model: str | None = None,
    finish_reason: str = "stop",
    headers: dict[str, str] | None = None,
) -> Reply:
    """A 200 chat completion.  ``usage`` may give any of prompt/completion/total
    tokens; missing ones are computed (prompt ~ len(json.dumps(messages))//4,
    completion ~ len(content)//4, total = their sum).  ``model`` defaults to the
    request's model."""
    return Reply(content, usage, model, finish_reason, headers)


def error(
    status: int,
    message: str = "fake error",
    headers: dict[str, str] | None = None,
    *,
    type: str | None = None,
    code: str | None = None,
    param: str | None = None,
) -> Error:
    """An HTTP error; ``type`` defaults by status (``server_error`` for 5xx)."""
    return Error(status, message, type, code, param, headers)


def delay(seconds: float, then: Response | str | None = None) -> Delay:
    """Wait, then answer with ``then`` (a response or a ``str`` content).  With
    ``then=None`` the answer comes from the rules / handler / default instead.
    To simulate a client timeout, use ``seconds`` larger than the client's."""
    if isinstance(then, str):
        then = reply(then)
    return Delay(seconds, then)


def raw(
    body: bytes | str,
    status: int = 200,
    *,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> Raw:
    """A verbatim body, e.g. ``raw("{not json")``."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    return Raw(body, status, content_type, headers)


def rate_limited(retry_after: float | str = 1, message: str = "Rate limit reached") -> Error:
    """429 with a ``Retry-After`` header (seconds)."""
    return error(429, message, headers={"Retry-After": str(retry_after)}, code="rate_limit_exceeded")


_JSON_SCHEMA_MESSAGES = {
    400: "response_format json_schema is not supported",
    422: "Unprocessable Entity: 'response_format' of type 'json_schema' is not supported by this model",
    500: "Internal server error while handling response_format: json_schema is not supported",
}


def json_schema_unsupported(status: int = 400, message: str | None = None) -> Error:
    """What a server without structured outputs says (400, 422 or 500 variants)."""
    return error(
        status,
        message or _JSON_SCHEMA_MESSAGES.get(status, _JSON_SCHEMA_MESSAGES[400]),
        param="response_format",
        code="unsupported_response_format" if status < 500 else None,
    )


def wants_json_schema(body: Body) -> bool:
    """True when the request asks for ``response_format`` of type ``json_schema``."""
    fmt = body.get("response_format") if isinstance(body, dict) else None
    return isinstance(fmt, dict) and fmt.get("type") == "json_schema"


def reject_json_schema_handler(status: int = 400, fallback: Handler | str = "{}") -> Handler:
    """A handler rejecting json_schema requests and answering the rest with
    ``fallback`` (a handler or a content string)."""

    def handler(body: Body) -> HandlerResult:
        if wants_json_schema(body):
            return json_schema_unsupported(status)
        return fallback(body) if callable(fallback) else reply(fallback)

    return handler


def evidence_entry(dimension: str, text: str, source: str = "S1", *, restates: int | None = None,
                   supersedes: int | None = None) -> Body:
    """One entry of an extraction reply, every field the schema requires given."""
    return {"dimension": dimension, "text": text, "source": source, "restates": restates, "supersedes": supersedes}


def extraction_reply(*entries: Body) -> Reply:
    """A 200 whose content is the extraction ``{"evidence": [...]}`` of these entries."""
    return reply(json.dumps({"evidence": list(entries)}))


def classify_reply(dimension: str, text: str, pinned: bool, supersedes: int | None = None) -> Reply:
    """A 200 whose content is the `remember` classification of one fact."""
    return reply(json.dumps({"dimension": dimension, "text": text, "pinned": pinned, "supersedes": supersedes}))


def prompt_text(body: Body) -> str:
    """All message contents of a chat request joined by newlines (text parts of
    list-style contents included) -- handy for ``"notes/a.md" in prompt_text(body)``."""
    parts: list[str] = []
    for message in (body or {}).get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    parts.append(part["text"])
    return "\n".join(parts)
