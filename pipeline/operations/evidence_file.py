"""Reading `apply --evidence FILE.jsonl`: every line valid, or the whole file refused."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from hylo_memory.decay import Evidence
from hylo_memory.errors import InputError, validation_line


def read_evidence(path: Path) -> list[Evidence]:
    """Parse a JSONL evidence file; raise `InputError` naming the first bad line."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM from a Windows editor is not an error
    except FileNotFoundError:
        raise InputError(f"{path}: evidence file not found") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: is not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    evidence = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: not valid JSON: {exc.msg}") from None
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

