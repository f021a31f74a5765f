"""Jinja2 templates: prompts and the run summary. `render` is the one way to use them."""

import re
import shlex
from functools import cache
from pathlib import Path

import jinja2

from hylo_memory.domain.dimensions import Dimension

_FRAME_TAG = re.compile(r"<(\s*/?\s*source)", re.IGNORECASE)
_ME_TAG = re.compile(r"<(\s*/?\s*(?:source|me)\b)", re.IGNORECASE)


def source_text(value: object) -> str:
    """Text from notes, made unable to open or close the <source> frame it sits in."""
    return _FRAME_TAG.sub(r"‹\1", str(value))


def me_text(value: object) -> str:
    """The person's `_me.md`, made unable to open or close the <me> frame it sits in, or a <source> frame."""
    return _ME_TAG.sub(r"‹\1", str(value))


def counted(count: int, noun: str) -> str:
    """`1 short note`, `2 short notes`: a number and its noun, agreeing."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


_WORDS = "no one two three four five six seven eight nine ten eleven twelve".split()


def in_words(count: int) -> str:
    """`six`: a small count as a prompt says it, in words (a larger one in digits)."""
    return _WORDS[count] if 0 <= count < len(_WORDS) else str(count)


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # plain text and prompts, never HTML
    )
    env.filters["source_text"] = source_text
    env.filters["me_text"] = me_text
    env.filters["counted"] = counted
    env.filters["shell"] = shlex.quote  # a command the person can paste: an item's text as one argument
    env.filters["in_words"] = in_words
    env.globals["dimensions"] = tuple(Dimension)  # the one table: every prompt lists the dimensions from it
    return env


def render(name: str, **context: object) -> str:
    return environment().get_template(name).render(**context)
