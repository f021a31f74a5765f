"""`recall` and `context` answered without loading the models: the quick path (docs/spec.md §9).

Loading pydantic, click's whole command line and the YAML reader takes several times longer than Python's own
start, and far longer than ranking a thousand items. When the configuration memo (pipeline/config_memo.py)
says where the memory is, and the read memo (pipeline/state/read_memo.py) holds every memory file exactly as
it is now, this module answers from them with the same ranking code (decay/recall/: recall.py, ranking.py) and
prints the same bytes the full command would. Anything else it does not try: an option it does not know, a
value the full command would refuse or say something about, a file changed, a change to finish, a server's
embeddings — it declines, writes nothing, and the full command answers (and refreshes the memos). With the bundled
model it embeds the query alone (meaning.bundled_cosines): an item with no kept vector is ranked by its words, and
the answer says how many wait, as the full command's does for what it has not embedded.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from hylo_memory.decay.recall.ranking import MAX_BUDGET, MIN_BUDGET, BlockRequest, build_block
from hylo_memory.decay.recall.recall import BM25, Analyse, Entry, Terms, analyse, rank
from hylo_memory.domain.dimensions import Dimension, clean_text
from hylo_memory.extractors import bundled
from hylo_memory.extractors.llm.tokens import estimate_tokens
from hylo_memory.pipeline import config_memo
from hylo_memory.pipeline.cli.words import NAMING
from hylo_memory.pipeline.notes.dates import EARLIEST, LATEST
from hylo_memory.pipeline.operations.serving.answers import (
    DEFAULT_BUDGET,
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    recall_text,
    waiting_line,
)
from hylo_memory.pipeline.state import read_memo
from hylo_memory.pipeline.state.names import ARCHIVE_FILE, JOURNAL_FILE, ME_FILE, STATE_DIR

# The options each command may be given here, every one taking a value; any other sends it the full way.
OPTIONS = {"recall": ("--vault", "--today", "--limit"), "context": ("--vault", "--today", "--budget", "--query")}


class Declined(Exception):
    """This command is not one the quick path answers: the full command line does."""


class Kept(NamedTuple):
    """An item as the read memo keeps it: what ranking reads (domain.dimensions.Fact)."""

    text: str
    last: dt.date | None
    seen: int
    pinned: bool


class KeptFile(NamedTuple):
    """A memory file as the read memo keeps it (domain.dimensions.Facts)."""

    decay_window: int
    active: list[Kept]
    fading: list[Kept]


class Row(NamedTuple):
    """A ranked item as recall's text shows it (answers.Ranked)."""

    rank: int
    dimension: Dimension
    text: str
    fading: bool
    pinned: bool
    seen: int
    last: dt.date | None


def answer(argv: Sequence[str]) -> bool:
    """Print the answer of `recall …` or `context …` and return True; False (nothing printed) when the full
    command line must answer it."""
    try:
        text = _answer(list(argv))
    except Declined:
        return False
    except Exception:  # noqa: BLE001 - a memo in an unforeseen shape: the full command reads the files themselves
        return False
    from hylo_memory.pipeline.cli.streams import tolerate_any_output_encoding

    tolerate_any_output_encoding()
    sys.stdout.write(text)
    sys.stdout.flush()
    return True


def _answer(argv: list[str]) -> str:
    command, rest = argv[0], argv[1:]
    if command not in OPTIONS:
        raise Declined
    given, words = _options(rest, OPTIONS[command])
    settings = config_memo.recalled(_vault_arg(given.get("--vault")))
    if settings is None or not settings.get("quick"):
        raise Declined
    memory = _memory_folder(Path(settings["vault"]), settings["memory_dir"])
    memo = read_memo.recalled(memory)
    if memo is None:
        raise Declined
    files = _files(memory, memo)
    day = _today(given.get("--today"), settings.get("timezone"))
    meaning = settings.get("meaning") is True
    if command == "recall":
        if len(words) != 1:
            raise Declined
        asked = _query(words[0])
        limit = _number(given.get("--limit"), DEFAULT_LIMIT, 1, MAX_LIMIT)
        by_text, waiting = _cosines(memory, files, asked) if meaning else (None, 0)
        return _recall(files, asked, limit, day, _analysed(memo), by_text, waiting)
    if words:
        raise Declined
    if os.path.lexists(memory / ME_FILE) or _past_soft_cap(files, settings.get("soft_cap")):
        raise Declined  # the person's own file, or a file past the soft cap: the full command says them (§2.1, §2.2)
    given_query = given.get("--query")
    query = _query(given_query) if given_query is not None and given_query.strip() else None
    by_text, waiting = _cosines(memory, files, query) if meaning and query is not None else (None, 0)
    block = build_block(files, BlockRequest(
        day, _number(given.get("--budget"), DEFAULT_BUDGET, MIN_BUDGET, MAX_BUDGET), estimate_tokens, memo["name"],
        query, [f"_{waiting_line(waiting, NAMING)}_"] if waiting else [], analysed=_analysed(memo), cosines=by_text,
        floor=bundled.FLOOR if by_text is not None else 0.0,
        answer_floor=bundled.ANSWER_FLOOR if by_text is not None else 0.0))
    if query is not None and not any(c.relevance is not None for c in block.items) \
            and os.path.exists(memory / STATE_DIR / ARCHIVE_FILE):
        raise Declined  # no item answers: the full command searches the notes (docs/spec.md §9.7)
    return block.text


def _past_soft_cap(files: dict[Dimension, KeptFile | None], cap: object) -> bool:
    """Whether a file holds more Active items than the soft cap the configuration memo keeps (none kept: it may)."""
    if not isinstance(cap, int):
        return True
    return any(kept is not None and len(kept.active) > cap for kept in files.values())


def _cosines(memory: Path, files: dict[Dimension, KeptFile | None], query: str) -> tuple[dict[str, float] | None, int]:
    """The bundled model's cosines of the items whose vector is kept (the query alone is embedded here), and how many
    items have none."""
    from hylo_memory.pipeline.operations.serving.meaning import bundled_cosines, item_texts

    texts = item_texts(files)
    if not texts:
        return None, 0
    try:
        found = bundled_cosines(memory, query, texts, 0)
    except bundled.LoadFailed:
        raise Declined from None  # the full command says why it cannot
    return found.by_text, found.waiting


def _analysed(memo: dict[str, Any]) -> Analyse:
    """decay.recall.analyse, answered from the terms the memo keeps of each item's text."""
    known = memo["terms"]

    def analysed(text: str) -> Terms:
        kept = known.get(text)
        return analyse(text) if kept is None else Terms(tuple(kept[0].split()), tuple(kept[1]))
    return analysed


def _options(tokens: list[str], known: tuple[str, ...]) -> tuple[dict[str, str], list[str]]:
    """The options (`--name value` or `--name=value`, each at most once) and the other words, as click reads them."""
    given: dict[str, str] = {}
    words: list[str] = []
    at = 0
    while at < len(tokens):
        token = tokens[at]
        name, equals, value = token.partition("=")
        if not token.startswith("-"):
            words.append(token)
        elif name in known and name not in given and (equals or at + 1 < len(tokens)):
            if not equals:
                at += 1
                value = tokens[at]
            if value.startswith("-"):
                raise Declined  # `--query -x`: what click makes of it is click's to say
            given[name] = value
        else:
            raise Declined  # --json, --help, --config, an option twice or with no value, `--`
        at += 1
    return given, words


def _vault_arg(value: str | None) -> str | None:
    """`--vault` as the full command keys its configuration memo (options.VaultType, then str)."""
    if value is None:
        return None
    from hylo_memory.pipeline.vaults import is_remote  # the vaults' registry (it loads no model library)

    if is_remote(value):
        raise Declined  # a remote vault (Hylo's, by URL) is synced with it first
    return str(Path(value))


def _memory_folder(vault: Path, memory_dir: str) -> Path:
    """The memory folder, if it is a plain folder inside the vault with no change left to finish."""
    folder = vault / memory_dir
    if os.path.realpath(folder) != str(folder) or not folder.is_dir():
        raise Declined  # linked elsewhere, or missing: the full command checks and says so
    if os.path.lexists(folder / STATE_DIR / JOURNAL_FILE):
        raise Declined  # an interrupted change: readers finish it first
    return folder


def _files(memory: Path, memo: dict[str, Any]) -> dict[Dimension, KeptFile | None]:
    """Each memory file as the memo keeps it, when every one of them still holds the bytes it was kept from."""
    files: dict[Dimension, KeptFile | None] = {}
    for dimension in Dimension:
        data = _regular(memory / dimension.filename)
        kept = memo["files"][dimension.value]
        if (kept is None) != (data is None) or (kept is not None and kept["digest"] != read_memo.digest(data)):
            raise Declined
        files[dimension] = None if kept is None else KeptFile(
            int(kept["window"]), [_kept(f) for f in kept["active"]], [_kept(f) for f in kept["fading"]])
    if read_memo.digest(_regular(read_memo.intro_path(memory))) != memo["intro"]:
        raise Declined
    return files


def _regular(path: Path) -> bytes | None:
    """A plain file's bytes; None when there is none. A link, a pipe or an unreadable file: declined."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise Declined
    return path.read_bytes()


def _kept(fact: list[Any]) -> Kept:
    text, last, seen, pinned = fact
    return Kept(str(text), dt.date.fromisoformat(last) if last else None, int(seen), bool(pinned))


def _today(value: str | None, timezone: str | None) -> dt.date:
    if value is None:
        from hylo_memory.pipeline import clock

        return clock.today(timezone)
    day = dt.date.fromisoformat(value)  # as options.DateType reads it; a ValueError declines
    if not EARLIEST <= day <= LATEST:
        raise Declined
    return day


def _number(value: str | None, default: int, low: int, high: int) -> int:
    if value is None:
        return default
    if not value.isascii() or not value.isdigit() or not low <= int(value) <= high:
        raise Declined  # click's own words for a number out of range
    return int(value)


def _query(value: str) -> str:
    query = clean_text(value)
    if not query or len(query) > MAX_QUERY_CHARS:
        raise Declined
    return query


def _recall(files: dict[Dimension, KeptFile | None], query: str, limit: int, day: dt.date,
            analysed: Analyse, by_text: dict[str, float] | None, waiting: int) -> str:
    """recall.recall's answer, from the kept files (and the bundled model's cosines, `by_text`)."""
    entries = [Entry(dimension, fact, fading) for dimension, kept in files.items() if kept is not None
               for fading, facts in ((False, kept.active), (True, kept.fading)) for fact in facts]
    texts = [clean_text(e.item.text) for e in entries]
    cosines = None if by_text is None or not texts else [by_text.get(t) for t in texts]
    hits = rank(entries, BM25(texts, analysed), query, limit, day, cosines, bundled.FLOOR, bundled.ANSWER_FLOOR)
    rows = [Row(n, entries[h.at].dimension, texts[h.at], entries[h.at].fading, entries[h.at].item.pinned,
                entries[h.at].item.seen, entries[h.at].item.last) for n, h in enumerate(hits, start=1)]
    return recall_text(rows, query, cosines is not None, None, [], NAMING, waiting, empty=not entries)
