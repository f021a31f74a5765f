"""What the doors do with scopes (docs/spec.md §1.1): a refresh of the person's memory then of each scope's, and a
context of the person's memory then the scope's. Every other command works on a scope's memory with the scope's
configuration (pipeline/scopes.py), unchanged."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from hylo_memory.decay.recall.ranking import MIN_BUDGET
from hylo_memory.errors import InputError
from hylo_memory.extractors.llm.tokens import estimate_tokens
from hylo_memory.pipeline.config import Config
from hylo_memory.pipeline.naming import Naming
from hylo_memory.pipeline.operations.outcome import not_ok_line
from hylo_memory.pipeline.operations.refresh import Refreshed
from hylo_memory.pipeline.operations.serving.context import DEFAULT_BUDGET, ContextResult, build_context
from hylo_memory.pipeline.scopes import each_scope
from hylo_memory.pipeline.version import PROG

if TYPE_CHECKING:
    from hylo_memory.pipeline.state.opened import Opened


class ScopeRun(NamedTuple):
    """One scope's refresh, after the person's; or why it could not run (`problem`: its folder is not there)."""

    name: str
    memory_dir: str
    refreshed: Refreshed | None
    problem: str | None = None

    def hints(self) -> list[str]:
        return [] if self.refreshed is None else self.refreshed.summary.hints

    def not_ok(self) -> str | None:
        """`hylo-memory: scope NAME: …` when its run was not ok or could not run; None when it was ok."""
        where = f"{PROG}: scope {self.name}: "
        if self.refreshed is None:
            return f"{where}{self.problem}"
        line = not_ok_line(self.refreshed.summary)
        return None if line is None else line.replace(f"{PROG}: ", where, 1)


def refresh_scopes(vault: Path, config: Config, run: Callable[[Config], Refreshed]) -> list[ScopeRun]:
    """`run` (the person's refresh, as the door started it) on each scope's configuration in turn, by name. A scope
    whose folder (where its memory lives) is missing or is a file is not run: nothing of it is made in the vault."""
    runs = []
    for name, scope in each_scope(config):
        home = vault / config.scopes[name].folders[0]
        if not home.is_dir():
            why = "is missing" if not home.exists() else "is not a folder"
            runs.append(ScopeRun(name, scope.memory_dir, None, f"its folder {home} {why}: nothing read"))
            continue
        runs.append(ScopeRun(name, scope.memory_dir, run(scope)))
    return runs


def scope_heading(run: ScopeRun) -> str:
    return f"Scope {run.name} ({run.memory_dir}/):"


def scopes_text(runs: list[ScopeRun], naming: Naming) -> str:
    """Each scope's summary (and a dry run's diff) under a line naming it, after the person's."""
    parts = []
    for run in runs:
        if run.refreshed is None:
            parts.append(f"\n{scope_heading(run)}\nNot run: {run.problem}.\n")
            continue
        text = run.refreshed.summary.to_text(naming)
        if run.refreshed.diff:
            text += "\n" + run.refreshed.diff
        parts.append(f"\n{scope_heading(run)}\n{text}")
    return "".join(parts)


def with_scopes(summary_json: str, runs: list[ScopeRun]) -> str:
    """The person's summary as JSON with each scope's under `scopes`, by name (absent when none is configured)."""
    if not runs:
        return summary_json
    data = json.loads(summary_json)
    data["scopes"] = {r.name: (json.loads(r.refreshed.summary.to_json()) if r.refreshed else {"problem": r.problem})
                      | {"memory_dir": r.memory_dir} for r in runs}
    return json.dumps(data, ensure_ascii=False)


class ScopedContext(NamedTuple):
    """The person's block, then the scope's under a heading naming it."""

    name: str
    person: ContextResult
    scope: ContextResult

    @property
    def waiting(self) -> int:
        return self.person.waiting + self.scope.waiting

    def to_text(self) -> str:
        return f"{self.person.to_text()}\n{self.scope.to_text()}"

    def to_json(self) -> str:
        data = json.loads(self.person.to_json())
        data["scope"] = json.loads(self.scope.to_json()) | {"name": self.name}  # the block's own name is the scope's
        return json.dumps(data, ensure_ascii=False)


def scoped_context(person: Opened, scope: Opened, name: str, today: dt.date, naming: Naming,
                   budget: int | None = None, query: str | None = None,
                   embed_seconds: float | None = None) -> ScopedContext:
    """The person's memory and scope `name`'s (`scope`: opened with its configuration, `scope_config`), together
    within `budget`: the scope's block takes at most half, the person's what the scope's left (so an empty scope
    costs the person nothing); their notes in the words of the door's `naming`."""
    budget = DEFAULT_BUDGET if budget is None else budget
    if budget < 2 * MIN_BUDGET:
        raise InputError(f"the budget with a scope must be at least {2 * MIN_BUDGET:,} tokens (two blocks), "
                         f"not {budget:,}")
    own = build_context(scope, today, naming, budget // 2, query, embed_seconds, title=f"# Scope {name}")
    rest = budget - own.block.tokens - estimate_tokens("\n")
    theirs = build_context(person, today, naming, max(MIN_BUDGET, rest), query, embed_seconds)
    return ScopedContext(name, theirs, own)
