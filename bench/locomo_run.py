"""One speaker of one LoCoMo conversation through the real command line, in a temporary vault.

Each command is the package's own click group (`pipeline.cli.group.cli`) invoked in this process through
click's CliRunner: the code path of `.venv/bin/hylo-memory …` without a process start-up per call.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner
from locomo_data import Conversation, Session
from locomo_evidence import FILED_BY, KS, file, item_turns
from locomo_score import Returned

from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.domain.items import MAX_ITEM_TEXT
from hylo_memory.extractors.offline.offline import OfflineExtractor
from hylo_memory.pipeline.cli.group import cli

MEMORY_DIR = "_memory"
# The vault's own settings: which folders hold notes. Nothing else is set, so every rule runs as configured.
VAULT_TOML = 'shorts_paths = ["_shorts"]\nknowledge_paths = ["_knowledge"]\nextra_scan_paths = []\n'
CONTEXT_BUDGET = 500


class HarnessError(Exception):
    """A command failed where the harness needs it to succeed: its one line."""


@dataclass(frozen=True, slots=True)
class Job:
    conversation: Conversation
    speaker: str
    extractor: str  # offline | openai | oracle | agent | sampling
    k: int
    base_url: str | None = None  # openai: the counting relay in front of the configured endpoint
    notes: bool = False  # also ask `recall QUESTION --notes`: the memory and the notes' passages together


@dataclass(frozen=True, slots=True)
class Asked:
    """What memory gave one question: recall's items (text, `last`, score) and the context block's text; at each
    K of `KS`, the items recall ranked (as its JSON gives them) and, with `--notes`, items and passages together."""

    recall: list[Returned]
    scores: list[float]
    context: str
    ranked: dict[int, list[dict]] = field(default_factory=dict)
    unembedded: int = 0  # recall's calls that ranked some items by their words alone (not embedded yet)
    archive: dict[int, list[Returned]] = field(default_factory=dict)


@dataclass
class Outcome:
    """One speaker's run: the answers memory gave, what it kept, what it cost."""

    conversation: int
    speaker: str
    asked: dict[int, Asked] = field(default_factory=dict)  # by question index
    final: list[tuple[str, dt.date | None, bool]] = field(default_factory=list)  # (text, last, fading)
    vanished: dict[str, bool] = field(default_factory=dict)  # text → was it Fading when it went
    ever: list[str] = field(default_factory=list)
    active: int = 0
    fading: int = 0
    note_chars: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    partial_runs: int = 0
    seconds: float = 0.0
    handed_chars: int = 0  # agent, sampling: the characters the assistant (or its model) was handed
    model_chars: int = 0  # agent: what the model's requests for the same batches would carry
    review_chars: int = 0  # agent: the review batches (docs/spec.md §3.1), apart
    filed: dict[str, set[str]] = field(default_factory=dict)  # oracle, agent: each wording proposed → its turns
    turns: dict[str, tuple[str, ...]] = field(default_factory=dict)  # each final item (`item_key`) → its turns


def isolated_env(extractor: str) -> dict[str, str | None]:
    """Only openai sees a key, a base URL or a setting from the environment."""
    if extractor == "openai":
        return {}
    return {k: None for k in os.environ if k.startswith(("HYLO_MEMORY_", "OPENAI_"))}


class Commands:
    """The command line over one vault, run in process."""

    def __init__(self, vault: Path, job: Job, config: Path | None):
        self.vault, self.job = vault, job
        self.env = isolated_env(job.extractor)
        if job.base_url:
            self.env["HYLO_MEMORY_BASE_URL"] = job.base_url  # over the config file's: the relay forwards to it
        self.config = ["--config", str(config)] if config else []
        self.runner = CliRunner()

    def run(self, *args: str, ok: tuple[int, ...] = (0,)) -> tuple[int, str]:
        result = self.runner.invoke(cli, [*self.config, *args, "--vault", str(self.vault)], env=self.env)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise HarnessError(f"hylo-memory {args[0]}: {type(result.exception).__name__}: {result.exception}")
        if result.exit_code not in ok:
            raise HarnessError(f"hylo-memory {args[0]} exited {result.exit_code}: {result.stderr.strip()[:300]}")
        return result.exit_code, result.stdout


def note_text(session: Session, speaker: str) -> str:
    """The speaker's turns of a session as one short note, dated by the session."""
    body = "\n\n".join(session.turns[speaker])
    return f"---\ncreated: {session.date.isoformat()}\n---\n{body}\n"


def oracle_evidence(session: Session, speaker: str, source: str, memory: dict | None = None,
                    filed: dict[str, set[str]] | None = None) -> str:
    """The speaker's gold observations as `apply` evidence, filed by the offline classifier `remember` uses
    (shown the memory as it stands, as `remember` shows it, so a reversed liking supersedes the old one);
    each wording's turns noted in `filed`."""
    classifier = OfflineExtractor()
    lines = []
    for fact in session.observations[speaker]:
        decision = classifier.classify(fact.text, None, None, memory=memory)
        file(filed if filed is not None else {}, decision.text[:MAX_ITEM_TEXT], fact)
        # Evidence from a note is never pinned: only `remember` and the person pin.
        found = {"dimension": decision.dimension.value, "text": decision.text[:MAX_ITEM_TEXT],
                 "source": source, "date": session.date.isoformat()}
        if decision.supersedes:
            found["supersedes"] = decision.supersedes
        lines.append(json.dumps(found))
    return "\n".join(lines) + ("\n" if lines else "")


def snapshot(vault: Path) -> list[tuple[str, dt.date | None, bool]]:
    """Every item of the memory as it stands (read only, for the harness's account of where facts went)."""
    items = []
    for memory in MemoryStore(vault / MEMORY_DIR).read_all().values():
        if memory is not None:
            items += [(i.text, i.last, False) for i in memory.active] + [(i.text, i.last, True) for i in memory.fading]
    return items


def build(commands: Commands, job: Job, outcome: Outcome) -> None:
    """Each session: its note written, then a refresh on its date (oracle: its observations applied)."""
    vault, speaker = commands.vault, job.speaker
    previous: dict[str, bool] = {}
    for session in job.conversation.sessions:
        day = session.date.isoformat()
        name = f"_shorts/{day}-session-{session.number}.md"
        if session.turns[speaker]:
            text = note_text(session, speaker)
            (vault / name).write_text(text, encoding="utf-8")
            outcome.note_chars += len(text)
        if job.extractor in ("agent", "sampling"):
            from locomo_agent import Tally, read_session  # the MCP SDK loads for these alone

            tally = Tally(outcome.filed)
            summary = read_session(vault, session, speaker, name, job.extractor, tally)
            outcome.requests += tally.calls
            outcome.handed_chars += tally.handed_chars
            outcome.model_chars += tally.model_chars
            outcome.review_chars += tally.review_chars
            outcome.partial_runs += summary.get("status", "ok") != "ok"
        elif job.extractor == "oracle":
            evidence = vault.parent / f"evidence-{session.number}.jsonl"
            memory = MemoryStore(vault / MEMORY_DIR).read_all()
            evidence.write_text(oracle_evidence(session, speaker, name, memory, outcome.filed), encoding="utf-8")
            commands.run("apply", "--evidence", str(evidence), "--today", day)
        else:
            code, out = commands.run("refresh", "--today", day, "--extractor", job.extractor, "--json", "--quiet",
                                     ok=(0, 2))
            summary = json.loads(out)
            usage = summary.get("usage") or {}
            outcome.requests += usage.get("requests", 0)
            outcome.prompt_tokens += usage.get("prompt_tokens", 0)
            outcome.completion_tokens += usage.get("completion_tokens", 0)
            outcome.partial_runs += code != 0
        now = {text: fading for text, _, fading in snapshot(vault)}
        for text, fading in previous.items():
            if text not in now:
                outcome.vanished[text] = fading
        for text in now:
            outcome.vanished.pop(text, None)  # back again: not lost
        previous = now
        outcome.ever = list(dict.fromkeys([*outcome.ever, *now]))


def _returned(found: list[dict]) -> list[Returned]:
    return [Returned(f["text"], dt.date.fromisoformat(str(f["last"])[:10]) if f.get("last") else None)
            for f in found]


def ask(commands: Commands, question: str, job: Job, day: str) -> Asked:
    """`recall QUESTION --limit K --json` and `context --query QUESTION --budget 500 --json`, on the last day; recall
    again at each K of `KS` (a ranking at K is asked for, not cut from another K's)."""
    ranked: dict[int, list[dict]] = {}
    unembedded = 0
    for limit in dict.fromkeys((job.k, *KS)):
        _, out = commands.run("recall", question, "--limit", str(limit), "--json", "--today", day)
        answer = json.loads(out)
        ranked[limit], unembedded = answer["items"], unembedded + bool(answer.get("waiting"))
    _, block = commands.run("context", "--query", question, "--budget", str(CONTEXT_BUDGET), "--json", "--today", day)
    return Asked(_returned(ranked[job.k]), [float(f["bm25"]) for f in ranked[job.k]], json.loads(block)["text"],
                 {k: ranked[k] for k in KS}, unembedded=unembedded)


def ask_archive(commands: Commands, question: str, asked: Asked, day: str) -> None:
    """`recall QUESTION --notes --limit K --json` at each K of `KS`: the core and the archive together, as the judge
    reads them — the memory's items at K (`recall --notes`'s own, if it gives items, else recall's) and the notes'
    passages at K, each dated by its note."""
    for k in KS:
        _, out = commands.run("recall", question, "--notes", "--limit", str(k), "--json", "--today", day)
        answer = json.loads(out)
        passages = answer.get("passages")
        if answer.get("indexed") is False or not isinstance(passages, list):
            raise HarnessError(f"recall --notes --json: no passages (indexed: {answer.get('indexed')}; "
                               f"its keys: {', '.join(answer)})")
        items = answer.get("items", asked.ranked[k])
        asked.archive[k] = _returned(items) + _returned([{**p, "last": p.get("date")} for p in passages])


def run_speaker(job: Job) -> Outcome:
    """One speaker's memory built session by session, asked every question that names them, then removed."""
    started = time.perf_counter()
    outcome = Outcome(job.conversation.number, job.speaker)
    with tempfile.TemporaryDirectory(prefix="locomo-") as tmp:
        vault = Path(tmp) / "vault"
        (vault / "_shorts").mkdir(parents=True)
        (vault / ".hylo-memory.toml").write_text(VAULT_TOML, encoding="utf-8")
        config = None
        if job.extractor != "openai":  # nothing from the person's own config: the same figures on every machine
            config = Path(tmp) / "empty.toml"
            config.write_text("", encoding="utf-8")
        commands = Commands(vault, job, config)
        build(commands, job, outcome)
        last_day = job.conversation.sessions[-1].date.isoformat()
        mine = [q for q in job.conversation.questions if job.speaker in q.speakers]
        for question in mine:
            outcome.asked[question.index] = ask(commands, question.text, job, last_day)
        if job.notes:  # the notes indexed whole, as `index` does, once the memory was asked: its figures stay
            commands.run("index")  # what they are without --notes (the archive can enter `context --query`)
            for question in mine:
                ask_archive(commands, question.text, outcome.asked[question.index], last_day)
        outcome.final = snapshot(vault)
        if job.extractor in FILED_BY:
            outcome.turns = item_turns(vault / MEMORY_DIR, outcome.filed)
    outcome.active = sum(1 for *_, fading in outcome.final if not fading)
    outcome.fading = len(outcome.final) - outcome.active
    outcome.seconds = time.perf_counter() - started
    return outcome
