"""YAML from outside held to a budget: the size, the nesting, and what aliases would expand to.

PyYAML's safe loader expands aliases: 500 bytes of nested `*a` build hundreds of millions of
values. So the YAML is composed (a graph, linear in its bytes) and its expanded size counted
before anything is constructed; more values than the text has bytes can only come from
aliases, and such YAML is refused. Used for notes' frontmatter and memory files' alike.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

MAX_FRONTMATTER_BYTES = 64 * 1024
MAX_FRONTMATTER_DEPTH = 32  # nesting of lists and mappings


# libyaml's composer when PyYAML has it (several times faster on a vault's thousands of notes); it hands
# back one node per anchor, as the pure-Python one does, so the expansion is still counted, never built.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class UnsafeYAML(ValueError):
    """YAML refused before it is built; the message completes "frontmatter …"."""


def load_bounded(text: str) -> Any:
    """`yaml.safe_load(text)`, or `UnsafeYAML` for text too large, too deep or an alias bomb."""
    check_size(text)
    check_flow_depth(text)
    try:
        return _load(text, _LOADER)
    except yaml.YAMLError:
        if _LOADER is yaml.SafeLoader:
            raise
        return _load(text, yaml.SafeLoader)  # the same error, with the line the person reads (libyaml's differs)


def _load(text: str, loader_class: Any) -> Any:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_expansion(node, len(text.encode("utf-8")))
        return loader.construct_document(node)
    finally:
        loader.dispose()


def check_size(fm: str) -> None:
    if len(fm) > MAX_FRONTMATTER_BYTES or len(fm.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        raise UnsafeYAML(f"larger than {MAX_FRONTMATTER_BYTES:,} bytes")


_BRACKETS = re.compile(r"[\[\]{}]")


def check_flow_depth(fm: str) -> None:
    """Refuse deeply nested `[[[…` before YAML sees it: PyYAML's scanner takes time quadratic in it.

    Counted on the raw text, quotes and all, so it errs only on the side of refusing: a
    note would need dozens of unclosed brackets inside a quoted string to be refused wrongly.
    """
    depth = 0
    for bracket in _BRACKETS.finditer(fm):
        depth = depth + 1 if bracket.group() in "[{" else max(0, depth - 1)
        if depth > 2 * MAX_FRONTMATTER_DEPTH:
            raise UnsafeYAML(f"is nested more than {MAX_FRONTMATTER_DEPTH} levels deep")


def check_expansion(root: yaml.Node, size: int) -> None:
    """Refuse a node graph that builds far more values than `size` bytes could write, that is
    nested too deeply, or that holds itself (the expansion is counted, never built)."""
    budget = 4 * size + 1000  # aliases may repeat a block a few times; a bomb repeats it millions
    counted: dict[int, int] = {}
    open_: set[int] = set()

    def count(node: yaml.Node, depth: int) -> int:
        if isinstance(node, yaml.ScalarNode):
            return 1
        key = id(node)
        if key in counted:
            return counted[key]
        if key in open_:
            raise UnsafeYAML("holds itself through a YAML alias: not read")
        if depth > MAX_FRONTMATTER_DEPTH:
            raise UnsafeYAML(f"is nested more than {MAX_FRONTMATTER_DEPTH} levels deep")
        open_.add(key)
        children = [n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode) else node.value
        total = 1
        for child in children:
            total += count(child, depth + 1)
            if total > budget:
                raise UnsafeYAML(f"expands, through YAML aliases, to more than {budget:,} values "
                                 f"from {size:,} bytes: not read")
        open_.discard(key)
        counted[key] = total
        return total

    count(root, 0)
