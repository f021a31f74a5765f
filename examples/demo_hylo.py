"""`make demo-hylo`: the demo against a Hylo reached by URL — the fake Hylo MCP server over a copy of
examples/hylo-vault — a first run, an incremental run days later, then why and context.

hylo-memory talks to it only through Hylo's MCP tools (short_list, knowledge_list, knowledge_read, list,
read, create, and delete only to take back a failed write); its local state lives in a temporary
folder. No API key is needed (the offline extractor).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from hylo_memory.pipeline.cli.group import main
from hylo_memory.testing.fake_hylo import KEY, FakeHylo
from hylo_memory.testing.fake_hylo_vault import as_hylo_left_it

SAMPLE = Path(__file__).resolve().parent / "hylo-vault"


def step(title: str, argv: list[str], hylo: FakeHylo) -> None:
    before = hylo.count()
    print(f"\n$ hylo-memory {shlex.join(argv)}\n")
    print(f"# {title}")
    code = main(argv)
    print(f"# ({hylo.count() - before} Hylo tool calls)")
    if code != 0:
        sys.exit(code)


def run() -> None:
    top = Path(tempfile.mkdtemp(prefix="hylo-memory-demo-hylo-"))
    served = top / "hylo-vault"
    shutil.copytree(SAMPLE, served)
    as_hylo_left_it(served)  # Hylo lists a note by its last change: dated as if written on its day
    os.environ["HYLO_API_KEY"] = KEY  # the fake's key; a real Hylo's comes from your environment
    os.environ["HYLO_MEMORY_STATE_DIR"] = str(top / "state")
    offline = ["--extractor", "offline"]
    with FakeHylo(served) as hylo:
        url = hylo.url
        step("First run over Hylo's MCP tools: its daily files read entry by entry.",
             ["refresh", "--vault", url, "--today", "2026-11-28", *offline], hylo)
        step("Five days later: only the entries written since are new.",
             ["refresh", "--vault", url, "--today", "2026-12-03", *offline], hylo)
        step("Why is an item there? The Hylo entry it came from.",
             ["why", "Prefers their coffee as a bica", "--vault", url], hylo)
        step("The memory as a block for an assistant's instructions.",
             ["context", "--vault", url, "--budget", "300", "--today", "2026-12-03"], hylo)
    print(f"\nHylo's folder (written only through `create`): {served}")
    print(f"hylo-memory's local state for it (ledger, journal, history, prior versions): {top / 'state'}")
    for path in sorted((served / "_memory").glob("_*.md")):
        print(f"\n--- {path.name}\n{path.read_text(encoding='utf-8')}", end="")


if __name__ == "__main__":
    run()
