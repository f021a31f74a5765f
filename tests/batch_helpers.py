"""What the batch endpoint's tests share: a small vault, the fake server's answers, and a run through the command
line against it (docs/spec.md §4.9)."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from cli_helpers import hylo
from proc_helpers import memory_texts

from hylo_memory.testing import FakeOpenAI, answer
from hylo_memory.testing.fake_replies import reply

DAY = dt.date.today()  # a batch run is today's: a run dated in the past asks directly
NOTES = {"walks": "I love long walks by the river.", "brew": "I hate cold brew.", "job": "I work as a nurse in Leeds."}


def handler(body: Any) -> Any:
    return reply(answer(body))


def vault_with(root: Path, notes: dict[str, str] = NOTES) -> Path:
    vault = root / "vault"
    (vault / "_shorts").mkdir(parents=True)
    for n, text in enumerate(notes.values()):
        day = DAY - dt.timedelta(days=len(notes) - n)
        (vault / "_shorts" / f"{day}.md").write_text(f"---\ncreated: {day}\n---\n{text}\n", encoding="utf-8")
    return vault


def env_of(llm: FakeOpenAI) -> dict[str, str]:
    return {"HYLO_MEMORY_BASE_URL": llm.base_url, "OPENAI_API_KEY": "k"}


def run(vault: Path, llm: FakeOpenAI, *args: str) -> Any:
    os.environ.update(env_of(llm))
    try:
        return hylo(*args, "--vault", vault)
    finally:
        for key in env_of(llm):
            os.environ.pop(key, None)


def refresh(vault: Path, llm: FakeOpenAI, *extra: str) -> dict[str, Any]:
    done = run(vault, llm, "refresh", "--json", "--quiet", *extra)
    assert done.exit_code == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def memory(vault: Path) -> dict[str, str | None]:
    return memory_texts(vault / "_memory")


def direct(root: Path, llm: FakeOpenAI, notes: dict[str, str] = NOTES) -> dict[str, str | None]:
    """The memory a direct run gives for the same notes and the same replies."""
    vault = vault_with(root / "direct", notes)
    refresh(vault, llm, "--no-batch")
    return memory(vault)
