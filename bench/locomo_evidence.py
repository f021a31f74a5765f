"""Evidence found, without a judge: did recall return an item drawn from an observation of the question's evidence?

Each LoCoMo question cites its evidence turns ("D1:3"); each gold observation cites the turn(s) it was drawn from.
The oracle and agent extractors file the observations themselves, so the harness knows each filed wording's turns;
the ledger records every wording proposed for an item (and for the items merged into it), as `why` shows them. An
item came from an observation when one of its recorded wordings is that observation's filed text (compared as
provenance names items: case, white space and a trailing full stop folded). Other extractors word their own items:
their figure is not measured.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from locomo_data import Conversation, Observation, Question

from hylo_memory.decay import Dimension
from hylo_memory.decay.files.store import MemoryStore
from hylo_memory.decay.match import normalise
from hylo_memory.domain.dimensions import clean_text
from hylo_memory.pipeline.state.ledger import Ledger
from hylo_memory.pipeline.state.trust import support

FILED_BY = ("oracle", "agent")  # the extractors that propose the gold observations, word for word
KS = (5, 10)
SOURCED = ("added", "refreshed")  # the provenance rows that carry a proposed wording (as `why` lists them)


def file(filed: dict[str, set[str]], wording: str, observation: Observation) -> None:
    """Note that `wording` was proposed for `observation`: its turns are the wording's."""
    filed.setdefault(normalise(wording), set()).update(observation.turns)


def item_key(dimension: str, text: str) -> str:
    """How the harness names an item, from the memory file or from recall's answer (which cleans the text)."""
    return f"{dimension}:{normalise(clean_text(text))}"


def item_turns(memory_dir: Path, filed: dict[str, set[str]]) -> dict[str, tuple[str, ...]]:
    """Each item the memory holds, by `item_key`: the turns of the observations its recorded wordings were filed for."""
    found: dict[str, tuple[str, ...]] = {}
    files = MemoryStore(memory_dir).read_all()
    with Ledger.for_memory_dir(memory_dir, readonly=True) as ledger:
        for dimension, memory in files.items():
            if memory is None:
                continue
            for item in memory.items:
                wordings = {r.row.wording for r in support(ledger, Dimension(dimension), item.text)
                            if r.row.kind in SOURCED}
                turns = {t for w in wordings for t in filed.get(normalise(w), ())}
                found[item_key(Dimension(dimension).value, item.text)] = tuple(sorted(turns))
    return found


def observed_turns(conversation: Conversation, speaker: str) -> set[str]:
    """The turns some gold observation of the speaker was drawn from."""
    return {t for s in conversation.sessions for o in s.observations[speaker] for t in o.turns}


def found(question: Question, observed: set[str], returned: Iterable[Sequence[str]]) -> dict[str, bool] | None:
    """Whether the returned items' turns reach the question's evidence: `any` of its turns an observation of the
    asked speakers cites, and `all` of them; None when no such observation exists (nothing could be found)."""
    wanted = set(question.evidence) & observed
    if not wanted:
        return None
    reached = {t for turns in returned for t in turns} & wanted
    return {"any": bool(reached), "all": reached == wanted}
