"""The LoCoMo harness's figures: each question judged (pure, `locomo_score`), then counted and printed."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from locomo_data import Conversation, Question
from locomo_evidence import FILED_BY, KS, found, item_key, observed_turns
from locomo_run import Outcome
from locomo_score import Returned, answer_units, answerable, best_cover, enough, held, silent

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
LOSSES = ("extraction", "merged", "decayed", "recall")


def where_lost(question: Question, outcomes: Sequence[Outcome], k: int) -> str:
    """Why recall did not hold the answer: the best K items memory holds, or ever held, would they have?"""
    assert question.answer is not None
    units = answer_units(question.answer, question.speakers)
    final = [Returned(text, last) for o in outcomes for text, last, _ in o.final]
    if enough(units, held(units, [final[i] for i in best_cover(units, final, k)])):
        return "recall"
    kept = {text for o in outcomes for text, _, _ in o.final}
    gone = {text: fading for o in outcomes for text, fading in o.vanished.items() if text not in kept}
    ever = [Returned(text) for o in outcomes for text in o.ever]
    cover = [ever[i].text for i in best_cover(units, ever, k)]
    if enough(units, held(units, [Returned(t) for t in cover])):
        # An item that left while Active was merged into another (or superseded and then deleted);
        # one that left from Fading was deleted by rule E.
        return "decayed" if all(gone.get(t, True) for t in cover if t in gone) else "merged"
    return "extraction"


def judge(question: Question, outcomes: Sequence[Outcome], k: int, floor: float,
          observed: set[str] | None = None) -> dict[str, Any]:
    """One question's verdicts, from what the memories of the speakers it names returned; `observed`, the turns the
    asked speakers' observations cite, when the extractor filed them (evidence found is then judged too)."""
    asked = [o.asked[question.index] for o in outcomes]
    verdict: dict[str, Any] = {"conversation": question.conversation, "index": question.index,
                               "category": question.category, "speakers": list(question.speakers)}
    scores = [s for a in asked for s in a.scores]
    verdict["top_score"] = max(scores, default=0.0)
    verdict["silent"] = silent(scores, floor)
    if question.category == 5 or question.answer is None:
        verdict["empty"] = not scores
        return verdict
    verdict["recall"] = answerable(question.answer, [r for a in asked for r in a.recall], question.speakers)
    verdict["context"] = answerable(question.answer, [Returned(a.context) for a in asked], question.speakers)
    if verdict["recall"] is False:
        verdict["lost"] = where_lost(question, outcomes, k)
    if observed is not None:
        pairs = list(zip(outcomes, asked, strict=True))
        verdict["evidence"] = {str(n): found(question, observed, [o.turns.get(item_key(f["dimension"], f["text"]), ())
                                                                  for o, a in pairs for f in a.ranked[n]]) for n in KS}
        # The ceiling: an item of the whole final memory came from it (what a perfect ranking could return).
        verdict["evidence"]["held"] = found(question, observed, [t for o in outcomes for t in o.turns.values()])
    if all(a.archive for a in asked):
        verdict["archive"] = {str(n): answerable(question.answer, [r for a in asked for r in a.archive[n]],
                                                 question.speakers) for n in KS}
    return verdict


def _evidence(group: list[dict[str, Any]]) -> dict[str, Any]:
    """Evidence found at each K: of the questions with evidence to find, the share reached by any and by all."""
    table = {}
    for n in (*map(str, KS), "held"):
        judged = [v["evidence"][n] for v in group if v.get("evidence", {}).get(n) is not None]
        table[n] = {"questions": len(judged), "any": _share(sum(j["any"] for j in judged), len(judged)),
                    "all": _share(sum(j["all"] for j in judged), len(judged))}
    return table


def _archive(group: list[dict[str, Any]]) -> dict[str, float | None]:
    judged = [v["archive"] for v in group if v.get("archive") and v["recall"] is not None]
    return {n: _share(sum(bool(j[n]) for j in judged), len(judged)) for n in map(str, KS)}


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def tally(verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    """Per category and overall: questions judged, answerable by recall and by context, where the rest went."""
    table: dict[str, Any] = {}
    groups = {**{str(c): [v for v in verdicts if v["category"] == c] for c in CATEGORIES},
              "overall": [v for v in verdicts if v["category"] in CATEGORIES]}
    for name, group in groups.items():
        judged = [v for v in group if v["recall"] is not None]
        table[name] = {"questions": len(group), "unjudged": len(group) - len(judged),
                       "recall": _share(sum(bool(v["recall"]) for v in judged), len(judged)),
                       "context": _share(sum(bool(v["context"]) for v in judged), len(judged)),
                       "lost": {loss: sum(v.get("lost") == loss for v in judged) for loss in LOSSES},
                       "silent": _share(sum(v["silent"] for v in group), len(group)),
                       "evidence": _evidence(group), "archive": _archive(group)}
    adversarial = [v for v in verdicts if v["category"] == 5]
    table["5"] = {"questions": len(adversarial), "silent": _share(sum(v["silent"] for v in adversarial),
                                                                  len(adversarial)),
                  "empty": _share(sum(v["empty"] for v in adversarial), len(adversarial))}
    return table


def _speakers(outcomes: Sequence[Outcome], sent: dict[str, dict[str, int]] | None) -> dict[str, Any]:
    found = {}
    for o in outcomes:
        label = f"{o.conversation}:{o.speaker}"
        chars = (sent or {}).get(label, {})
        found[label] = {"active": o.active, "fading": o.fading, "note_chars": o.note_chars,
                        "requests": chars.get("requests", o.requests), "chars_sent": chars.get("chars", o.handed_chars),
                        "prompt_tokens": o.prompt_tokens, "completion_tokens": o.completion_tokens,
                        "partial_runs": o.partial_runs, "seconds": round(o.seconds, 2)}
    return found


def score(conversations: list[Conversation], outcomes: list[Outcome], k: int, floor: float, extractor: str,
          sent: dict[str, dict[str, int]] | None) -> dict[str, Any]:
    """Every figure: per conversation and in total (the caller adds `wall_seconds`, once the judging is done)."""
    by_speaker = {(o.conversation, o.speaker): o for o in outcomes}
    verdicts, unattributed = [], 0
    for c in conversations:
        for q in c.questions:
            if not q.speakers:
                unattributed += 1
                continue
            observed = set().union(*(observed_turns(c, s) for s in q.speakers)) if extractor in FILED_BY else None
            verdicts.append(judge(q, [by_speaker[(c.number, s)] for s in q.speakers], k, floor, observed))
    per = {}
    for c in conversations:
        mine = [o for o in outcomes if o.conversation == c.number]
        speakers = _speakers(mine, sent)
        per[str(c.number)] = {"speakers": speakers, "seconds": round(sum(o.seconds for o in mine), 2),
                              **tally([v for v in verdicts if v["conversation"] == c.number])}
    speakers = _speakers(outcomes, sent)
    totals = {key: sum(s[key] for s in speakers.values())
              for key in ("active", "fading", "note_chars", "requests", "chars_sent", "prompt_tokens",
                          "completion_tokens", "partial_runs")}
    totals["recalls"] = sum(len({k, *KS}) for o in outcomes for _ in o.asked)
    totals["recalls_unembedded"] = sum(a.unembedded for o in outcomes for a in o.asked.values())
    totals["items_traced"] = sum(bool(turns) for o in outcomes for turns in o.turns.values())
    totals["items_asked_of_ledger"] = sum(len(o.turns) for o in outcomes)
    return {"extractor": extractor, "k": k, "floor": floor, "context_budget": 500,
            "unattributed_questions": unattributed, "total": {**tally(verdicts), **totals,
                                                               "speakers": len(outcomes)},
            "conversations": per, "questions": verdicts}


def _pct(x: float | None) -> str:
    return "   -" if x is None else f"{100 * x:4.0f}"


def render(figures: dict[str, Any]) -> str:
    """The table: a row per conversation and the total; answerable % by category for recall / context."""
    head = (f"LoCoMo, extractor {figures['extractor']}, recall --limit {figures['k']}, context --budget 500; "
            f"answerable % (recall/context)")
    cols = "".join(f" {CATEGORIES[c][:11]:>11}" for c in CATEGORIES)
    lines = [head, f"{'conv':>5}{cols}     overall  cat5-silent  active fading  sent/note  requests  seconds"]
    rows = [(n, f) for n, f in figures["conversations"].items()] + [("total", figures["total"])]
    for name, f in rows:
        speakers = f["speakers"] if isinstance(f["speakers"], dict) else None
        active = sum(s["active"] for s in speakers.values()) if speakers else f["active"]
        fading = sum(s["fading"] for s in speakers.values()) if speakers else f["fading"]
        notes = sum(s["note_chars"] for s in speakers.values()) if speakers else f["note_chars"]
        sent = sum(s["chars_sent"] for s in speakers.values()) if speakers else f["chars_sent"]
        requests = sum(s["requests"] for s in speakers.values()) if speakers else f["requests"]
        cells = "".join(f"   {_pct(f[str(c)]['recall'])}/{_pct(f[str(c)]['context']).strip():>3}" for c in CATEGORIES)
        ratio = f"{sent / notes:9.2f}" if sent and notes else "        -"
        seconds = f["seconds"] if name != "total" else figures["wall_seconds"]
        lines.append(f"{name:>5}{cells}    {_pct(f['overall']['recall'])}/{_pct(f['overall']['context']).strip():>3}"
                     f"         {_pct(f['5']['silent'])}  {active:6d} {fading:6d}  {ratio}  {requests:8d}  "
                     f"{seconds:7.1f}")
    total = figures["total"]
    lost = total["overall"]["lost"]
    lines.append(f"questions judged: {total['overall']['questions'] - total['overall']['unjudged']} of categories 1-4"
                 f" ({total['overall']['unjudged']} answers had no content word; {figures['unattributed_questions']}"
                 f" questions name neither speaker), {total['5']['questions']} of category 5 "
                 f"(silent: nothing above BM25 {figures['floor']}; empty: {_pct(total['5']['empty']).strip()}%)")
    lines.append("lost by recall, where: " + ", ".join(f"{k} {v}" for k, v in lost.items())
                 + f"; total wall {figures['wall_seconds']} s (per conversation: the sum of its speakers' seconds)")
    return "\n".join(lines + render_by_k(figures))


def _by_k(total: dict[str, Any], cell: Any, last: Any, rows: tuple[str, ...] = tuple(map(str, KS))) -> list[str]:
    """A row per K of `KS` (or of `rows`): a cell per category and overall, then `last`."""
    cols = "".join(f" {CATEGORIES[c][:11]:>11}" for c in CATEGORIES)
    lines = [f"{'K':>5}{cols}     overall  {last(None)}".rstrip()]
    for n in rows:
        cells = "".join(f" {cell(total[str(c)], n):>11}" for c in CATEGORIES)
        lines.append(f"{n:>5}{cells} {cell(total['overall'], n):>11}  {last(n)}".rstrip())
    return lines


def render_by_k(figures: dict[str, Any]) -> list[str]:
    """Evidence found at K = 5 and 10 (no judge), and, with --notes, answerable with the archive."""
    total, extractor = figures["total"], figures["extractor"]
    if extractor in FILED_BY:
        lines = ["evidence found % (a returned item drawn from an observation of the question's evidence turns, "
                 "traced through the ledger; no judge), any/all of those turns:"]
        lines += _by_k(total, lambda f, n: f"{_pct(f['evidence'][n]['any']).strip()}/"
                                           f"{_pct(f['evidence'][n]['all']).strip()}",
                       lambda n: "judged" if n is None else f"{total['overall']['evidence'][n]['questions']:6d}",
                       (*map(str, KS), "held"))
        lines.append(f"held: an item of the whole final memory came from it; questions with no evidence turn an asked "
                     f"speaker's observation cites are not judged; items traced to an observation: "
                     f"{total['items_traced']} of {total['items_asked_of_ledger']}")
    else:
        lines = [f"evidence found: n/a (extractor {extractor} words its own items: no wording of theirs is a LoCoMo "
                 f"observation, so no item can be traced to a turn without a judge)"]
    if total.get("recalls_unembedded"):
        lines.append(f"recall ranked some items by their words alone (not embedded yet) in "
                     f"{total['recalls_unembedded']} of {total['recalls']} calls")
    archive = figures.get("archive")
    if archive == "asked":
        lines.append("answerable % with the archive (recall --notes --limit K: the items and the notes' passages "
                     "together, the same word judge):")
        lines += _by_k(total, lambda f, n: _pct(f["archive"][n]).strip(), lambda n: "")
    elif archive:
        lines.append(f"answerable with the archive: skipped: {archive}")
    return lines


def write_json(path: Path, figures: dict[str, Any]) -> None:
    """The figures as one JSON file, written whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(figures, out, indent=1, default=str)
        out.write("\n")
    os.replace(temp, path)
