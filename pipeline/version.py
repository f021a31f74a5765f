"""The installed version, found without importing click or importlib.metadata: `--version` costs nothing."""

from __future__ import annotations

import os
import sys

PROG = "hylo-memory"


def installed_version() -> str:
    """This distribution's version, read from its own `.dist-info` on sys.path, as importlib.metadata finds it:
    importing importlib.metadata (email, zipfile, csv…) would take longer than all the rest of `--version`."""
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:  # a zip, a folder gone
            continue
        for name in names:
            if name.startswith("hylo_memory-") and name.endswith(".dist-info"):
                found = _metadata_version(os.path.join(folder or ".", name, "METADATA"))
                if found:
                    return found
    from importlib.metadata import version  # installed some other way (an egg, a zip): its own search

    return version("hylo-memory")


def _metadata_version(metadata: str) -> str | None:
    """The `Version:` in a METADATA file's header (before its first blank line)."""
    try:
        with open(metadata, encoding="utf-8") as lines:
            for line in lines:
                if line.startswith("Version:"):
                    return line.removeprefix("Version:").strip()
                if not line.strip():
                    break
    except (OSError, UnicodeDecodeError):
        pass
    return None


def version_line() -> str:
    """What `hylo-memory --version` prints."""
    return f"{PROG} {installed_version()}"
