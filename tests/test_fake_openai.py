"""The fake OpenAI server, driven by the real ``openai`` client."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest

from hylo_memory.testing import (
    FakeOpenAI,
    delay,
    error,
    json_schema_unsupported,
    prompt_text,
    rate_limited,
    raw,
    reject_json_schema_handler,
    reply,
)

SCHEMA_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "facts",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
            "required": ["facts"],
            "additionalProperties": False,
        },
    },
}
MESSAGES = [
    {"role": "system", "content": "Extract facts."},
    {"role": "user", "content": "Source: notes/a.md\nI moved to Lyon."},
]


def client(fake: FakeOpenAI, **kwargs) -> openai.OpenAI:
    kwargs.setdefault("max_retries", 0)
    return openai.OpenAI(base_url=fake.base_url, api_key="test-key", **kwargs)


def complete(c: openai.OpenAI, content: str = "hi", **kwargs):
    return c.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": content}], **kwargs
    )


# --------------------------------------------------------------------------- #
# Round trips
# --------------------------------------------------------------------------- #


def test_round_trip_records_request_and_returns_usage(fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue(reply('{"facts": ["lives in Lyon"]}', usage={"prompt_tokens": 42, "completion_tokens": 7}))
    assert fake_openai.base_url.startswith("http://127.0.0.1:") and fake_openai.base_url.endswith("/v1")

    with client(fake_openai) as c:
        out = c.chat.completions.create(
            model="gpt-test", messages=MESSAGES, response_format=SCHEMA_FORMAT, temperature=0
        )

    assert out.choices[0].message.role == "assistant"
    assert out.choices[0].message.content == '{"facts": ["lives in Lyon"]}'
    assert out.choices[0].finish_reason == "stop"
    assert out.object == "chat.completion" and out.id.startswith("chatcmpl-")
    assert out.model == "gpt-test"
    assert (out.usage.prompt_tokens, out.usage.completion_tokens, out.usage.total_tokens) == (42, 7, 49)

    (req,) = fake_openai.requests
    assert (req.method, req.path) == ("POST", "/v1/chat/completions")
    assert req.headers["authorization"] == "Bearer test-key"
    assert req.headers["content-type"] == "application/json"
    assert req.body["model"] == "gpt-test"
    assert req.body["messages"] == MESSAGES
    assert req.body["response_format"] == SCHEMA_FORMAT
    assert req.body["temperature"] == 0
    assert "notes/a.md" in req.prompt


def test_default_usage_is_estimated(fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue("x" * 40)
    with client(fake_openai) as c:
        out = c.chat.completions.create(model="m", messages=MESSAGES)
    expected_prompt = len(json.dumps(MESSAGES)) // 4
    assert out.usage.prompt_tokens == expected_prompt
    assert out.usage.completion_tokens == 10
    assert out.usage.total_tokens == expected_prompt + 10


def test_script_then_handler_then_default() -> None:
    seen: list[str] = []

    def handler(body: dict):
        seen.append(body["messages"][-1]["content"])
        return None if "default" in seen[-1] else f"handled {seen[-1]}"

    with FakeOpenAI(handler=handler, default_content="DEFAULT") as fake, client(fake) as c:
        fake.enqueue(reply("one"), "two")
        assert fake.pending == 2
        got = [complete(c, p).choices[0].message.content for p in ("a", "b", "c", "default")]
    assert got == ["one", "two", "handled c", "DEFAULT"]
    assert seen == ["c", "default"]


def test_models_endpoint(fake_openai: FakeOpenAI) -> None:
    with client(fake_openai) as c:
        ids = [m.id for m in c.models.list()]
    assert "gpt-4o-mini" in ids
    assert fake_openai.requests[0].method == "GET" and fake_openai.requests[0].path == "/v1/models"
    assert fake_openai.chat_requests == []


def test_async_client_round_trip(fake_openai: FakeOpenAI) -> None:
    fake_openai.handler = lambda body: "echo: " + prompt_text(body)

    async def main() -> list[str]:
        async with openai.AsyncOpenAI(base_url=fake_openai.base_url, api_key="test-key", max_retries=0) as c:
            outs = await asyncio.gather(
                *(
                    c.chat.completions.create(model="m", messages=[{"role": "user", "content": f"p{i}"}])
                    for i in range(5)
                )
            )
        return [o.choices[0].message.content for o in outs]

    assert asyncio.run(main()) == [f"echo: p{i}" for i in range(5)]
    assert len(fake_openai.chat_requests) == 5


# --------------------------------------------------------------------------- #
# Errors map to the right SDK exceptions
# --------------------------------------------------------------------------- #


def test_429_is_rate_limit_error_with_retry_after(fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue(error(429, "Rate limit reached", headers={"Retry-After": "1"}, code="rate_limit_exceeded"))
    with client(fake_openai) as c, pytest.raises(openai.RateLimitError) as info:
        complete(c)
    exc = info.value
    assert exc.status_code == 429
    assert exc.response.headers["retry-after"] == "1"
    assert exc.code == "rate_limit_exceeded" and exc.type == "rate_limit_exceeded"
    assert exc.body["message"] == "Rate limit reached"  # body is the inner "error" object
    assert "Rate limit reached" in str(exc)
    assert exc.request_id is not None and exc.request_id.startswith("req_fake_")


@pytest.mark.parametrize(
    ("status", "exc_type"),
    [
        (400, openai.BadRequestError),
        (422, openai.UnprocessableEntityError),
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
    ],
)
def test_status_codes_map_to_exceptions(fake_openai: FakeOpenAI, status: int, exc_type: type) -> None:
    fake_openai.enqueue(error(status, f"boom {status}"))
    with client(fake_openai) as c, pytest.raises(exc_type) as info:
        complete(c)
    assert info.value.status_code == status
    assert info.value.body["message"] == f"boom {status}"
    assert isinstance(info.value, openai.APIStatusError)


def test_delay_beyond_client_timeout_raises_timeout(fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue(delay(5, then=reply("too late")), reply("on time"))
    with client(fake_openai, timeout=0.3) as c:
        started = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            complete(c)
        assert time.monotonic() - started < 2
        assert complete(c).choices[0].message.content == "on time"
    assert issubclass(openai.APITimeoutError, openai.APIConnectionError)


def test_short_delay_then_reply(fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue(delay(0.2, "slow"))
    with client(fake_openai) as c:
        started = time.monotonic()
        assert complete(c).choices[0].message.content == "slow"
        assert time.monotonic() - started >= 0.2


def test_connection_refused_is_api_connection_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", max_retries=0) as c:
        with pytest.raises(openai.APIConnectionError) as info:
            complete(c)
    assert not isinstance(info.value, openai.APITimeoutError)


def test_malformed_bodies(fake_openai: FakeOpenAI) -> None:
    """What the SDK does with broken replies -- a caller must guard for these."""
    fake_openai.enqueue(
        raw("{not json"),  # 200 + application/json, unparsable
        raw("hello", content_type="text/plain"),  # 200, not JSON at all
        raw("{}"),  # 200, JSON of the wrong shape
        raw("<html>bad gateway</html>", status=502, content_type="text/html"),
    )
    with client(fake_openai) as c:
        # Not an openai exception: the bare json error escapes the SDK.
        with pytest.raises(json.JSONDecodeError):
            complete(c)
        # Non-JSON content type: the SDK returns the text itself, not a ChatCompletion.
        assert complete(c) == "hello"
        # Wrong shape: a ChatCompletion built without validation, fields None.
        assert complete(c).choices is None
        with pytest.raises(openai.InternalServerError) as info:
            complete(c)
    assert info.value.body == "<html>bad gateway</html>"


# --------------------------------------------------------------------------- #
# response_format rejection
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("status", "exc_type"),
    [(400, openai.BadRequestError), (422, openai.UnprocessableEntityError), (500, openai.InternalServerError)],
)
def test_reject_json_schema_flag(status: int, exc_type: type) -> None:
    with FakeOpenAI(reject_json_schema=status) as fake, client(fake) as c:
        fake.enqueue("plain answer")
        with pytest.raises(exc_type) as info:
            complete(c, response_format=SCHEMA_FORMAT)
        assert "response_format" in info.value.message
        assert fake.pending == 1  # the rejection did not consume the script
        # retry without json_schema (json_object is accepted)
        out = complete(c, response_format={"type": "json_object"})
        assert out.choices[0].message.content == "plain answer"
    assert fake.chat_requests[0].body["response_format"]["type"] == "json_schema"


def test_reject_json_schema_handler(fake_openai: FakeOpenAI) -> None:
    fake_openai.handler = reject_json_schema_handler(400, fallback='{"facts": []}')
    with client(fake_openai) as c:
        with pytest.raises(openai.BadRequestError) as info:
            complete(c, response_format=SCHEMA_FORMAT)
        assert info.value.message.endswith("response_format json_schema is not supported")
        assert info.value.param == "response_format"
        assert complete(c).choices[0].message.content == '{"facts": []}'
    assert json_schema_unsupported(422).status == 422


# --------------------------------------------------------------------------- #
# Concurrency
# --------------------------------------------------------------------------- #


def test_when_rule_matches_concurrent_requests_by_prompt(fake_openai: FakeOpenAI) -> None:
    fake_openai.latency = 0.05
    fake_openai.when("notes/bad.md", error(500, "batch failed"))
    fake_openai.handler = lambda body: "ok"
    paths = [f"notes/{n}.md" for n in ("a", "b", "bad", "c", "d", "e")]

    def run(path: str) -> str:
        try:
            return complete(c, f"Source: {path}").choices[0].message.content
        except openai.InternalServerError:
            return "failed"

    with client(fake_openai) as c, ThreadPoolExecutor(4) as pool:
        results = dict(zip(paths, pool.map(run, paths), strict=True))
    assert results == {p: ("failed" if p == "notes/bad.md" else "ok") for p in paths}
    assert fake_openai.max_in_flight > 1


def test_when_rule_times(fake_openai: FakeOpenAI) -> None:
    fake_openai.when(lambda body: True, rate_limited(0), times=1)
    with client(fake_openai) as c:
        with pytest.raises(openai.RateLimitError):
            complete(c)
        assert complete(c).choices[0].message.content == "{}"


def test_latency_with_concurrency_4() -> None:
    with FakeOpenAI(latency=0.2, handler=lambda body: "ok") as fake, client(fake) as c:
        started = time.monotonic()
        with ThreadPoolExecutor(4) as pool:
            outs = list(pool.map(lambda i: complete(c, str(i)), range(8)))
        elapsed = time.monotonic() - started
    assert len(outs) == 8 and fake.max_in_flight == 4
    assert 0.4 <= elapsed < 1.2  # two waves of four, not eight in a row


def test_handler_is_called_from_many_threads_safely(fake_openai: FakeOpenAI) -> None:
    counter = {"n": 0}
    lock = threading.Lock()

    def handler(body):
        with lock:
            counter["n"] += 1
        return "ok"

    fake_openai.handler = handler
    with client(fake_openai) as c, ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: complete(c, str(i)), range(40)))
    assert counter["n"] == 40 == len(fake_openai.chat_requests)
    assert sorted(r.index for r in fake_openai.requests) == list(range(40))


# --------------------------------------------------------------------------- #
# SDK retry behaviour (documents what the installed openai SDK does)
# --------------------------------------------------------------------------- #


def test_sdk_retry_honours_retry_after(fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue(rate_limited(0.3), "after retry")
    with client(fake_openai, max_retries=1) as c:
        started = time.monotonic()
        out = complete(c)
        elapsed = time.monotonic() - started
    assert out.choices[0].message.content == "after retry"
    assert 0.3 <= elapsed < 1.0
    first, second = fake_openai.chat_requests
    assert first.headers["x-stainless-retry-count"] == "0"
    assert second.headers["x-stainless-retry-count"] == "1"
    assert "idempotency-key" not in first.headers  # OpenAI() sets no idempotency header


def test_sdk_does_not_retry_when_retry_after_exceeds_two_minutes(fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue(rate_limited(121), "never reached")
    with client(fake_openai, max_retries=3) as c, pytest.raises(openai.RateLimitError):
        complete(c)
    assert len(fake_openai.chat_requests) == 1


def test_sdk_does_not_retry_400(fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue(json_schema_unsupported(400), "never reached")
    with client(fake_openai, max_retries=3) as c, pytest.raises(openai.BadRequestError):
        complete(c)
    assert len(fake_openai.chat_requests) == 1


# --------------------------------------------------------------------------- #
# Lifecycle
# --------------------------------------------------------------------------- #


def test_close_is_prompt_with_pending_delay_and_idle_keepalive() -> None:
    fake = FakeOpenAI().start()
    base = fake.base_url
    fake.enqueue(delay(30, "never"))
    with client(fake, timeout=0.2) as c:
        with pytest.raises(openai.APITimeoutError):
            complete(c)
        started = time.monotonic()
        fake.close()
        assert time.monotonic() - started < 2
        fake.close()  # idempotent
    before = {t.name for t in threading.enumerate()}
    assert not any(name.startswith("fake-openai") for name in before)
    with openai.OpenAI(base_url=base, api_key="k", max_retries=0) as c2, pytest.raises(openai.APIConnectionError):
        complete(c2)
