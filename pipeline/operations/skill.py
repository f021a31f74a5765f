"""`hylo-memory skill` (docs/spec.md §9.6): a SKILL.md that makes the person's assistant the memory's reader.

The file ends with a marker line holding the hash of what was written: a file with the marker and
that hash is ours, and is replaced by a newer one; any other file (written by someone else, or ours
and then edited) is never replaced without `force`.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from pathlib import Path
from typing import Literal, NamedTuple

from hylo_memory.decay.files.store import atomic_write, read_regular
from hylo_memory.errors import HyloMemoryError, InputError
from hylo_memory.pipeline.version import installed_version
from hylo_memory.templates import render

Target = Literal["claude", "hylo", "codex", "gemini", "cursor"]
TARGETS: tuple[Target, ...] = ("claude", "hylo", "codex", "gemini", "cursor")
# Where each assistant looks for a person's skills: Claude Code's personal skills; Hylo's own folder, where a
# skill named as its built-in one is the person's override of it; the shared folder of the agent skills format,
# which Codex and Gemini CLI both read; Cursor's own.
PLACES: dict[Target, str] = {"claude": "~/.claude/skills/hylo-memory/SKILL.md",
                             "hylo": "~/.hylo/skills/hylo-memory/SKILL.md",
                             "codex": "~/.agents/skills/hylo-memory/SKILL.md",
                             "gemini": "~/.agents/skills/hylo-memory/SKILL.md",
                             "cursor": "~/.cursor/skills/hylo-memory/SKILL.md"}
# The marker line, whatever wrote it: the files on people's disks say "written by hylo-memory skill 1.2.0", and
# the hash, not the words, makes a file ours.
_MARKER = re.compile(r"\n<!-- written by [^;\n]*; sha256 ([0-9a-f]{64}) -->\n\Z")


def skill_text(written_by: str, vault: str | None = None) -> str:
    """The SKILL.md, with `--vault` in its commands when one is given; its marker names the door's command that
    wrote it, `written_by` ("hylo-memory skill"), and this version."""
    body = render("skill.md.j2", vault_option=f" --vault {shlex.quote(vault)}" if vault else "")
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    return f"{body}\n<!-- written by {written_by} {installed_version()}; sha256 {digest} -->\n"


class Installed(NamedTuple):
    path: Path
    wrote: bool  # False: the file already said this


def install(target: Target, text: str, written_by: str, force: bool = False, home: str | None = None) -> Installed:
    """Write the skill where `target` looks for it; a file we did not write (or that was edited) needs `force`, as
    the refusal says naming the command, `written_by`, that writes one."""
    path = Path(os.path.expanduser(PLACES[target]) if home is None else Path(home) / PLACES[target][2:])
    if path.is_symlink() and not force:  # dangling or not: the person's link, not ours to replace
        raise InputError(f"{path}: is a symbolic link: nothing written; --force replaces it with the skill")
    try:
        before = read_regular(path) if path.exists() and not path.is_symlink() else None
    except (OSError, HyloMemoryError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from None
    if before == text.encode("utf-8"):
        return Installed(path, wrote=False)
    if before is not None and not force and not _ours(before):
        raise InputError(f"{path}: exists and was not written by `{written_by}` (or was edited since): "
                         "nothing written; --force replaces it")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text.encode("utf-8"), mode=0o600)
    return Installed(path, wrote=True)


def _ours(data: bytes) -> bool:
    """Written by the skill command and unchanged since: its marker's hash is its body's."""
    text = data.decode("utf-8", errors="replace")
    found = _MARKER.search(text)
    return found is not None and hashlib.sha256(text[:found.start()].encode("utf-8")).hexdigest() == found.group(1)
