"""Reading LoCoMo's `locomo10.json` for the harness: conversations, dated sessions, observations, questions.

The file is read where it lies (`--data`); nothing of it is copied anywhere but the temporary vaults.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

DATA_FILE = "locomo10.json"


class DataError(Exception):
    """The data cannot be read as LoCoMo: one line naming the file and why."""


@dataclass(frozen=True, slots=True)
class Observation:
    """One gold fact about a speaker, and the dialogue turns it was drawn from ("D1:3")."""

    text: str
    turns: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Session:
    """One dated session: each speaker's turns and each speaker's gold observations."""

    number: int
    date: dt.date
    turns: dict[str, list[str]]
    observations: dict[str, list[Observation]]


@dataclass(frozen=True, slots=True)
class Question:
    """A question, its gold answer (None for category 5) and the speakers it names."""

    conversation: int
    index: int
    category: int
    text: str
    answer: str | None
    adversarial: str | None
    speakers: tuple[str, ...]
    evidence: tuple[str, ...] = ()  # the dialogue turns that hold the answer ("D1:3")


@dataclass(frozen=True, slots=True)
class Conversation:
    number: int  # 1-based, as --conversations counts them
    speakers: tuple[str, str]
    sessions: list[Session]
    questions: list[Question] = field(default_factory=list)


def data_file(path: Path) -> Path:
    """The JSON file: `path` itself, or `locomo10.json` inside the folder `path`."""
    return path / DATA_FILE if path.is_dir() else path


def session_date(stamp: str, where: str) -> dt.date:
    """ "1:56 pm on 8 May, 2023" → 2023-05-08 (the session's day; its hour does not date a note)."""
    day = stamp.rsplit(" on ", 1)[-1].strip()
    for form in ("%d %B, %Y", "%d %B %Y", "%B %d, %Y"):
        try:
            return dt.datetime.strptime(day, form).date()
        except ValueError:
            continue
    raise DataError(f"{where}: cannot read the session date {stamp!r}")


def names_in(question: str, speakers: tuple[str, str]) -> tuple[str, ...]:
    """The speakers a question names ("Caroline's" names Caroline), in the conversation's order."""
    return tuple(s for s in speakers if re.search(rf"\b{re.escape(s)}\b", question))


def turn_ids(cited: object) -> tuple[str, ...]:
    """The dialogue ids a citation names, as "D1:3": the file writes one id, a list, or several in one string
    ("D8:6; D9:17", "D4:17, D4:19"), and a few askew ("D:11:26", "D30:05"); what names no turn is left out."""
    parts = cited if isinstance(cited, list) else [cited]
    found = (re.findall(r"D:?(\d+):(\d+)", str(part)) for part in parts)
    return tuple(dict.fromkeys(f"D{int(d)}:{int(t)}" for pairs in found for d, t in pairs))


def _sessions(raw: dict, where: str, speakers: tuple[str, str]) -> list[Session]:
    talk, observed = raw["conversation"], raw.get("observation", {})
    numbers = sorted(int(m[1]) for key in talk if (m := re.fullmatch(r"session_(\d+)", key)))
    sessions = []
    for n in numbers:
        turns: dict[str, list[str]] = {s: [] for s in speakers}
        for turn in talk[f"session_{n}"]:
            if turn.get("speaker") in turns and str(turn.get("text", "")).strip():
                turns[turn["speaker"]].append(str(turn["text"]).strip())
        facts = observed.get(f"session_{n}_observation", {})
        observations = {s: [Observation(str(f[0]).strip(), turn_ids(f[1] if len(f) > 1 else ()))
                            for f in facts.get(s, []) if str(f[0]).strip()] for s in speakers}
        date = session_date(talk[f"session_{n}_date_time"], f"{where}: session {n}")
        sessions.append(Session(n, date, turns, observations))
    return sessions


def _questions(raw: dict, number: int, speakers: tuple[str, str]) -> list[Question]:
    found = []
    for index, qa in enumerate(raw.get("qa", [])):
        answer = qa.get("answer")
        found.append(Question(number, index, int(qa["category"]), str(qa["question"]),
                              None if answer is None else str(answer), qa.get("adversarial_answer"),
                              names_in(str(qa["question"]), speakers), turn_ids(qa.get("evidence", []))))
    return found


def load(path: Path, chosen: list[int] | None = None) -> list[Conversation]:
    """The chosen conversations (1-based; all when None), or a DataError naming the file."""
    file = data_file(path)
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{file}: not found (give the LoCoMo folder or file with --data)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{file}: cannot be read as JSON: {exc}") from None
    if not isinstance(raw, list) or not raw:
        raise DataError(f"{file}: expected a list of conversations")
    wanted = chosen or list(range(1, len(raw) + 1))
    bad = [n for n in wanted if not 1 <= n <= len(raw)]
    if bad:
        raise DataError(f"{file}: holds conversations 1 to {len(raw)}, not {bad[0]}")
    conversations = []
    for n in wanted:
        where = f"{file}: conversation {n}"
        try:
            talk = raw[n - 1]["conversation"]
            speakers = (str(talk["speaker_a"]), str(talk["speaker_b"]))
            conversations.append(Conversation(n, speakers, _sessions(raw[n - 1], where, speakers),
                                              _questions(raw[n - 1], n, speakers)))
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise DataError(f"{where}: not in LoCoMo's shape ({type(exc).__name__}: {exc})") from None
    return conversations
