"""Reading `apply --evidence FILE`: a JSONL file of evidence, every line valid or the whole file refused; or, with
`--lease`, the assistant's answer to its batch (one JSON value, read entry by entry as a model's reply)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hylo_memory.decay import Evidence
from hylo_memory.errors import InputError, validation_line

MAX_BYTES = 64 * 1024 * 1024  # far past any run's evidence: a file past it is not one


def _text(path: Path) -> str:
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{path}: evidence file not found") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{path}: more than {MAX_BYTES // (1024 * 1024)} MB: not an evidence file")
    try:
        return data.decode("utf-8-sig")  # a BOM from a Windows editor is not an error
    except UnicodeDecodeError:
        raise InputError(f"{path}: is not UTF-8 text") from None


def read_answer(path: Path) -> Any:
    """An assistant's answer to its batch: one JSON value (its entries are read one by one, later)."""
    text = _text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # nested past the parser's depth, a number past its digits
        raise InputError(f"{path}: not JSON this reads: {type(exc).__name__}") from None


def read_evidence(path: Path) -> list[Evidence]:
    """Parse a JSONL evidence file; raise `InputError` naming the first bad line."""
    text = _text(path)
    evidence = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: not valid JSON: {exc.msg}") from None
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{path}:{number}: not JSON this reads: {type(exc).__name__}") from None
        if not isinstance(data, dict):
            raise InputError(f"{path}:{number}: expected a JSON object")
        unknown = sorted(set(data) - set(Evidence.model_fields))
        if unknown:
            # A misspelt optional field ("matchs") would otherwise be dropped without a word.
            raise InputError(f"{path}:{number}: unknown field {unknown[0]!r} "
                             f"(fields: {', '.join(Evidence.model_fields)})")
        try:
            evidence.append(Evidence.model_validate(data))
        except ValidationError as exc:
            raise InputError(f"{path}:{number}: {validation_line(exc)}") from None
    return evidence

