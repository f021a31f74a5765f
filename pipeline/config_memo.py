"""The configuration memo: what a command's configuration resolved to, kept by everything it was read from.

The configuration is a pydantic model, and loading pydantic takes longer than all the rest of `recall`
or `context`. So a command that has loaded and checked it keeps, in the user's cache folder, the few
settings the quick path (pipeline/cli/quick.py) needs, under a key made of all that went into it:
the `--vault` given, the working folder and home, every `HYLO_*`/`OPENAI_*` variable, the user's file's
bytes; and the vault's own file's bytes beside them. Any of them different, or the code changed
(read_memo.stamp), and the next command loads the configuration the full way. No secret is kept: the
variables (a key among them) only go into the key's hash.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from hylo_memory.errors import HyloMemoryError

DEFAULT_CONFIG = Path("~/.config/hylo-memory/config.toml")
VAULT_FILE = ".hylo-memory.toml"  # the per-vault configuration, at the vault's root
KEPT = 64  # memos kept: one per vault, working folder and environment in use
MAX_MEMO_BYTES = 64 * 1024


def user_file() -> Path:
    return Path(os.path.expanduser(str(DEFAULT_CONFIG)))


def _file_digest(path: Path) -> str | None:
    """The hash of a file's bytes; None when there is no file. A file that cannot be read raises OSError."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    return hashlib.sha256(data).hexdigest()


def key(vault: str | None) -> str:
    """The key of a command given `--vault` (None: not given) and no `--config`, in this process's environment."""
    from hylo_memory.pipeline.state.read_memo import stamp

    variables = sorted((k.upper(), v) for k, v in os.environ.items() if k.upper().startswith(("HYLO_", "OPENAI_")))
    parts = [stamp(), vault, os.getcwd(), os.path.expanduser("~"), variables, _file_digest(user_file())]
    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()[:40]


def _folder() -> Path:
    import platformdirs

    return platformdirs.user_cache_path("hylo-memory") / "config"


def keep(vault_arg: str | None, named: str, vault: Path, memory_dir: str, timezone: str | None, quick: bool,
         meaning: bool = False, soft_cap: int | None = None) -> None:
    """Keep what the configuration of a folder vault resolved to: the vault as `named` and as resolved (`vault`),
    and the settings; `quick`: nothing configured that the quick path leaves to the full one (a server's
    embeddings); `meaning`: queries are ranked with the bundled model too; `soft_cap`: past it, `context` is the
    full command's."""
    try:
        memo = {"named": named, "vault": str(vault), "memory_dir": memory_dir, "timezone": timezone, "quick": quick,
                "meaning": meaning, "soft_cap": soft_cap, "vault_file": _file_digest(vault / VAULT_FILE)}
        folder = _folder()
        path = folder / f"{key(vault_arg)}.json"
        data = json.dumps(memo).encode("utf-8")
        if path.is_file() and path.read_bytes() == data:
            return
        from hylo_memory.decay.files.store import atomic_write  # the full path has loaded it already

        atomic_write(path, data)
        _prune(folder)
    except (OSError, HyloMemoryError):  # a cache: a home that cannot be written costs the next command its
        pass  # quickness, nothing else


def _prune(folder: Path) -> None:
    memos = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    for old in memos[:-KEPT]:
        old.unlink(missing_ok=True)


def recalled(vault_arg: str | None) -> dict[str, Any] | None:
    """The settings kept for this command's configuration, or None: none kept, or the vault's file changed since."""
    try:
        path = _folder() / f"{key(vault_arg)}.json"
        if path.stat().st_size > MAX_MEMO_BYTES:
            return None
        memo = json.loads(path.read_bytes())
        if not isinstance(memo, dict) or not isinstance(memo.get("vault"), str):
            return None
        if _file_digest(Path(memo["vault"]) / VAULT_FILE) != memo.get("vault_file"):
            return None
        if os.path.realpath(str(memo.get("named"))) != memo["vault"]:
            return None  # the vault named is a link that leads elsewhere now
    except (OSError, ValueError):
        return None
    return memo
