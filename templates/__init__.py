"""Jinja2 templates: prompts and the run summary. `render` is the one way to use them."""

from functools import cache
from pathlib import Path

import jinja2


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # plain text and prompts, never HTML
    )


def render(name: str, **context: object) -> str:
    return environment().get_template(name).render(**context)
