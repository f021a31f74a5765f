"""`make demo`: a first run on a copy of examples/vault, an incremental run days later, then the trust and
assistant commands on the result (why, history, context).

The sample vault stays untouched; the copy lives in a temporary folder that is
printed so you can open its `_memory/` afterwards. No API key is needed.
"""

from __future__ import annotations

import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from hylo_memory.pipeline.cli.group import main

SAMPLE = Path(__file__).resolve().parent / "vault"


def step(title: str, argv: list[str]) -> None:
    print(f"\n$ hylo-memory {shlex.join(argv)}\n")
    print(f"# {title}")
    code = main(argv)
    if code != 0:
        sys.exit(code)


def run() -> None:
    vault = Path(tempfile.mkdtemp(prefix="hylo-memory-demo-")) / "vault"
    shutil.copytree(SAMPLE, vault)
    # The demo's runs use the offline extractor whatever the environment says.
    offline = ["--extractor", "offline"]
    step("First run: no memory yet, so the last 90 days are read.",
         ["refresh", "--vault", str(vault), "--today", "2026-11-28", *offline])
    step("Five days later: the window reaches back to the last run; two new notes are read.",
         ["refresh", "--vault", str(vault), "--today", "2026-12-03", *offline])
    step("Recording one stated fact (pinned: a standing preference).",
         ["remember", "Always answer in English", "--vault", str(vault), "--dimension", "preferences",
          "--today", "2026-12-03"])
    step("Why is an item there? Every source that supports it, newest first.",
         ["why", "Ines — sister", "--vault", str(vault)])
    step("Every change to the memory files, newest first (each can be undone with `undo`).",
         ["history", "--vault", str(vault)])
    step("Recall answers a question about the person with their own items first.",
         ["recall", "where do I live?", "--vault", str(vault), "--limit", "2", "--today", "2026-12-03"])
    step("And with nothing when no item answers: the memory holds no dog.",
         ["recall", "what is my dog's name?", "--vault", str(vault), "--today", "2026-12-03"])
    step("The memory as a block for an assistant's instructions (here within 300 tokens).",
         ["context", "--vault", str(vault), "--budget", "300", "--today", "2026-12-03"])
    print(f"\nThe memory files are in {vault / '_memory'}:")
    for path in sorted((vault / "_memory").glob("_*.md")):
        print(f"\n--- {path.name}\n{path.read_text(encoding='utf-8')}", end="")
    own = Path(sys.executable).parent / "hylo-memory"
    print(f"\n\nThis demo ran the clone's own copy, {own}, which is not on your PATH.\n"
          "For everyday use (cron, systemd, launchd, your assistant's MCP configuration), install the command\n"
          "in ~/.local/bin with `pipx install .` or `uv tool install .`, then `command -v hylo-memory` finds it.")


if __name__ == "__main__":
    run()
