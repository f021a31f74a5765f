"""The read memo: what the memory files held when a reader last parsed them, kept by their bytes' hash.

`recall` and `context` parse the six memory files and rank their items; parsing needs the models and
the YAML reader, which take longer to load than all the rest of those commands. So a reader that has
parsed them keeps, beside them (`.state/read-memo.json`, 0600), each file's hash and the items it
held, and the quick path (pipeline/cli/quick.py) answers from the memo while every file still
hashes the same. It is a cache of `parse`, never a source: a file edited by hand, a memo missing or
unreadable, or a new version of the code (its `stamp`) only sends the next command the full way.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hylo_memory.domain.dimensions import Dimension
from hylo_memory.errors import HyloMemoryError
from hylo_memory.pipeline.state.names import INTRO_FILE, STATE_DIR

if TYPE_CHECKING:
    from hylo_memory.domain.items import MemoryFile

MEMO_FILE = "read-memo.json"
MAX_MEMO_BYTES = 64 * 1024 * 1024  # a memo larger than this was not written by us: not read
FORMAT = 1
_PACKAGE = Path(__file__).resolve().parents[2]  # the folder holding decay/, extractors/ and pipeline/
# The code whose results the memos keep: reading a memory file and naming the person (this memo), resolving
# the configuration (pipeline/config_memo.py). Any change to one of these files makes every memo stale.
STAMPED = ("decay", "pipeline/config.py", "pipeline/config_memo.py", "pipeline/state/read_memo.py",
           "pipeline/run/profile.py", "pipeline/cli/options.py", "extractors/llm/settings.py")


def stamp() -> str:
    """The code's fingerprint: the size and modification time of each stamped file, and of the stemmer and the
    Python (its Unicode tables) that an item's terms come from."""
    import Stemmer  # type: ignore[import-not-found]  # PyStemmer ships no type information

    marks = [sys.version]
    for name in (*STAMPED, Stemmer.__file__):
        path = _PACKAGE / name
        paths = sorted(path.glob("*.py")) if path.is_dir() else [path]
        for file in paths:
            try:
                info = file.stat()
            except OSError:
                continue
            marks.append(f"{file}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha256("\n".join(marks).encode()).hexdigest()[:32]


def digest(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def memo_path(memory_dir: Path) -> Path:
    return memory_dir / STATE_DIR / MEMO_FILE


def intro_path(memory_dir: Path) -> Path:
    return memory_dir / STATE_DIR / INTRO_FILE


def keep(memory_dir: Path, read: Mapping[Dimension, bytes | None], files: Mapping[Dimension, MemoryFile | None],
         intro: bytes | None, name: str | None) -> None:
    """Keep what a reader parsed (`read`: each file's bytes, `files`: each parsed), unless the memo already does.

    A cache: a folder that cannot be written, or gone meanwhile, is no failure of the command that read it."""
    from hylo_memory.decay.recall.recall import analyse
    from hylo_memory.domain.dimensions import clean_text

    texts = {clean_text(i.text) for memory in files.values() if memory is not None for i in memory.items}
    memo = {
        "format": FORMAT, "stamp": stamp(), "intro": digest(intro), "name": name,
        "files": {d.value: None if files.get(d) is None else _file(digest(read.get(d)), files[d]) for d in Dimension},
        # Each item's terms as recall and a context query search them (decay.recall.analyse): most of their work.
        "terms": {t: [" ".join(found.terms), "".join(found.unigrams)] for t in sorted(texts) if (found := analyse(t))},
    }
    path = memo_path(memory_dir)
    data = json.dumps(memo, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if not memory_dir.is_dir() or _same(path, data):
        return
    from hylo_memory.decay.files.store import atomic_write  # the full path has loaded it already

    try:
        atomic_write(path, data)
    except (OSError, HyloMemoryError):  # a folder that cannot be written says so as a StorageError
        pass


def _file(hashed: str | None, memory: MemoryFile | None) -> dict[str, Any] | None:
    if memory is None:
        return None
    return {"digest": hashed, "window": memory.decay_window,
            "active": [_fact(i) for i in memory.active], "fading": [_fact(i) for i in memory.fading]}


def _fact(item: Any) -> list[Any]:
    return [item.text, item.last.isoformat() if item.last else None, item.seen, bool(item.pinned)]


def _same(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def recalled(memory_dir: Path) -> dict[str, Any] | None:
    """The memo, if there is one this code wrote; None otherwise (the caller then reads the files)."""
    path = memo_path(memory_dir)
    try:
        if os.stat(path).st_size > MAX_MEMO_BYTES:
            return None
        memo = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(memo, dict) or memo.get("format") != FORMAT or memo.get("stamp") != stamp():
        return None
    return memo
