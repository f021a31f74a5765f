"""A fake model behind the fake server: answers like a careful LLM would, deterministically.

It reads the prompt the pipeline really sent — the <source> frames, the numbered
existing items, the clusters — and answers with the offline patterns, so tests and
benchmarks exercise the real request and reply path end to end.
"""

from __future__ import annotations

import json
import re

from hylo_memory.decay import Dimension
from hylo_memory.decay.match import normalise
from hylo_memory.extractors.offline.patterns import Likings, statements

from .fake_replies import Body

_SOURCE = re.compile(r'<source id="(?P<id>S\d+)"[^>]*perspective="(?P<perspective>\w+)"[^>]*>\n(?P<body>.*?)</source>',
                     re.DOTALL)
_ITEM = re.compile(r"^(?P<n>\d+)\. \[(?P<dim>\w+)\] (?P<text>.+)$", re.MULTILINE)
_CLUSTER = re.compile(r"^(?P<n>\d+)\. tags: (?P<tags>[^;]*);", re.MULTILINE)


def messages_text(body: Body) -> tuple[str, str]:
    """The instructions and the request proper (a repair turn repeats them and adds its own)."""
    messages = body["messages"]
    return messages[0]["content"], messages[1]["content"]


def answer(body: Body) -> str:
    """The JSON content a well-behaved model would reply with to this request."""
    system, user = messages_text(body)
    if "Clusters:" in user:
        return json.dumps({"preferences": [
            {"cluster": int(m["n"]), "text": "Drawn to " + " and ".join(t.strip() for t in m["tags"].split(",")[:2])}
            for m in _CLUSTER.finditer(user)
        ]})
    if user.startswith("Items:"):  # a review of the memory: a careful model merges nothing it is not told to
        return json.dumps({"same": [], "contradicts": []})
    numbered = [(int(m["n"]), m["dim"], m["text"]) for m in _ITEM.finditer(user)]
    if user.startswith("Statement:"):
        statement = user.split("Statement:", 1)[1].strip().splitlines()[0]
        found = statements(statement)
        dimension = found[0][0].value if found else "preferences"
        wording = found[0][1] if found else statement
        return json.dumps({"dimension": dimension, "text": statement, "pinned": Dimension(dimension).pinned_by_default,
                           "supersedes": replaced(numbered, dimension, wording)})
    items = {(dim, normalise(text)): n for n, dim, text in numbered}
    evidence: list[dict[str, object]] = []
    # Every fact, however long the reply: the fake server stops it at `max_tokens`, as a real one stops a model.
    for source in _SOURCE.finditer(user):
        for dimension, text in statements(source["body"]):
            evidence.append({"dimension": dimension.value, "text": text, "source": source["id"],
                             "restates": items.get((dimension.value, normalise(text))),
                             "supersedes": replaced(numbered, dimension.value, text)})
    return json.dumps({"evidence": evidence})


def replaced(numbered: list[tuple[int, str, str]], dimension: str, wording: str) -> int | None:
    """The number of the shown item a careful model would say this wording replaces: a reversed liking only."""
    if dimension != Dimension.preferences.value:
        return None
    found = Likings(text for _, dim, text in numbered if dim == dimension).reversed_by(wording)
    return next((n for n, dim, text in numbered if dim == dimension and text == found), None)


def source_ids(body: Body) -> list[str]:
    return [m["id"] for m in _SOURCE.finditer(messages_text(body)[1])]
