"""Test doubles as first-class parts of the project: a fake OpenAI-compatible server and a fake model.

Importable from tests and benchmarks alike; the fixtures live in `fixtures`, a pytest plugin.
"""

from .fake_model import answer, source_ids
from .fake_openai import FakeOpenAI, RecordedRequest
from .fake_replies import (
                           Delay,
                           Error,
                           Raw,
                           Reply,
                           delay,
                           error,
                           json_schema_unsupported,
                           prompt_text,
                           rate_limited,
                           raw,
                           reject_json_schema_handler,
                           reply,
                           wants_json_schema,
)

__all__ = ["Delay", "Error", "FakeOpenAI", "Raw", "RecordedRequest", "Reply", "answer", "delay", "error",
           "json_schema_unsupported", "prompt_text", "rate_limited", "raw", "reject_json_schema_handler", "reply",
           "source_ids", "wants_json_schema"]
