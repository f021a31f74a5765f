"""Why the last run was not `ok`, for `status`: its failures grouped by reason, the server and model named,
and the sources set aside as stuck (docs/spec.md §6). Read from the run's summary in `.state/runs/`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.state.journal import RUNS_DIR
from hylo_memory.pipeline.state.ledger import RunRecord

# "batch of 3 source(s) from _shorts/a.md: cannot connect…", "external preferences of 2 cluster(s): …"
_PART = re.compile(r"^(?:batch of (?P<sources>\d+) source\(s\) from .+?|external preferences of \d+ cluster\(s\)): "
                   r"(?P<reason>.+)$")
_ATTEMPTS = re.compile(r"\s*\(after \d+ attempts?\)$")
_OPENAI = re.compile(r"^openai \((?P<model>.*)\)$")
DEFAULT_SERVER = "https://api.openai.com/v1 (the default base_url)"


class FailureGroup(BaseModel):
    """One reason the run failed, and how much it held back."""

    reason: str
    times: int  # requests (batches) that failed for it, or lines of the summary
    sources: int = 0  # the sources of those batches, when the summary says


class Stuck(BaseModel):
    """A source set aside after failing on several runs in a row (`refresh --retry-stuck` tries it again)."""

    path: str
    reason: str = ""
    runs: int = 0


class LastRun(BaseModel):
    id: int
    status: str
    waiting: int
    extractor: str = ""
    server: str | None = None  # the base_url the model is reached at (as configured now), when a model was used
    model: str | None = None
    failures: list[FailureGroup] = []
    stuck: list[Stuck] = []


def last_run(state: Path, records: list[RunRecord], config: Config) -> LastRun | None:
    """The newest finished run's failures and stuck sources; None when it was ok and set nothing aside."""
    record = next((r for r in records if r.status not in ("running",)), None)
    if record is None:
        return None
    summary = _summary(state / RUNS_DIR / f"{record.id:06d}.json")
    stuck = _stuck(summary.get("stuck"))
    if record.status in ("ok", "submitted") and not stuck:
        return None
    extractor = str(summary.get("extractor") or "")
    model = m["model"] if (m := _OPENAI.match(extractor)) else None
    server = (config.base_url or DEFAULT_SERVER) if model is not None else None
    failures = [str(f) for f in summary.get("failures") or []]
    return LastRun(id=record.id, status=record.status, waiting=record.waiting, extractor=extractor, server=server,
                   model=model, failures=grouped(failures, server), stuck=stuck)


def grouped(failures: list[str], server: str | None) -> list[FailureGroup]:
    """The failures by reason, most frequent first; "cannot connect" names the server it could not reach."""
    groups: dict[str, FailureGroup] = {}
    for line in failures:
        match = _PART.match(line)
        reason = _ATTEMPTS.sub("", match["reason"] if match else line)
        if server and reason.startswith("cannot connect to the server") and server not in reason:
            reason = reason.replace("cannot connect to the server", f"cannot connect to the server at {server}", 1)
        group = groups.setdefault(reason, FailureGroup(reason=reason, times=0))
        group.times += 1
        group.sources += int(match["sources"]) if match and match["sources"] else 0
    return sorted(groups.values(), key=lambda g: -g.times)


def _stuck(listed: Any) -> list[Stuck]:
    """The summary's `stuck` list; an entry that is not one is passed over (a status never fails on it)."""
    stuck = []
    for entry in listed if isinstance(listed, list) else []:
        try:
            stuck.append(Stuck.model_validate(entry))
        except ValidationError:
            continue
    return stuck


def _summary(path: Path) -> dict[str, Any]:
    """The run's summary JSON, or {} (a dry run, a run killed before it, an older version's)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
