"""Running the trust commands of docs/spec.md §8 (and the commands that make changes) on a small vault, in-process."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

from cli_helpers import hylo
from click.testing import Result
from vault_helpers import MEMORY

TODAY = dt.date(2026, 11, 30)


def ago(days: int, today: dt.date = TODAY) -> dt.date:
    return today - dt.timedelta(days=days)


def fact(dimension: str, text: str, source: str = "_shorts/2026-11-29.md", **more: object) -> dict[str, object]:
    """One evidence line of `apply`; dates given as dates are written as YYYY-MM-DD."""
    return {"dimension": dimension, "text": text, "source": source,
            **{k: v.isoformat() if isinstance(v, dt.date) else v for k, v in more.items()}}


def evidence_file(folder: Path, *lines: dict[str, object], name: str = "evidence.jsonl") -> Path:
    path = folder / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def apply(vault: Path, *lines: dict[str, object], today: dt.date = TODAY, name: str = "evidence.jsonl") -> Result:
    """`hylo-memory apply` with these evidence lines (the file is written beside the vault's notes)."""
    return hylo("apply", "--vault", vault, "--evidence", evidence_file(vault, *lines, name=name),
                "--today", today.isoformat())


def refresh(vault: Path, *args: str, today: dt.date = TODAY) -> Result:
    """`hylo-memory refresh` with the offline extractor unless `args` say otherwise."""
    extractor = [] if "--extractor" in args else ["--extractor", "offline"]
    return hylo("refresh", "--vault", vault, "--today", today.isoformat(), *extractor, *args)


def refresh_json(vault: Path, *args: str, today: dt.date = TODAY) -> dict:
    result = refresh(vault, "--json", *args, today=today)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def remember(vault: Path, text: str, *args: str, today: dt.date = TODAY) -> Result:
    return hylo("remember", text, "--vault", vault, "--today", today.isoformat(), "--extractor", "offline", *args)


def forget(vault: Path, text: str, *args: str, today: dt.date = TODAY) -> Result:
    return hylo("forget", text, "--vault", vault, "--today", today.isoformat(), *args)


def ok(result: Result) -> Result:
    """The result of a command that must succeed."""
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def ledger_rows(vault: Path, sql: str) -> list[tuple]:
    db = sqlite3.connect(vault / MEMORY / ".state" / "ledger.db")
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()
