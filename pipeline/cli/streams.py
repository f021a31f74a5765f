"""How every command's text reaches the terminal, apart from click: the quick path (quick.py) prints through it."""

from __future__ import annotations

import sys


def tolerate_any_output_encoding() -> None:
    """Text goes out in the output's encoding with what it cannot show escaped (`\\u4e2d`): a Latin-1
    terminal or a Windows redirect must not turn a Chinese item into a traceback after the files were written."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "strict") == "strict":
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream: nothing to print to anyway
                pass
