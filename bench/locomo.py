"""LoCoMo: how much of what matters about a person hylo-memory keeps, and finds again.

    .venv/bin/python bench/locomo.py [--data PATH] [--conversations 1,2,…]
                                     [--extractor offline|openai|oracle|agent|sampling] [--k 5]
                                     [--floor 3.0] [--workers 2] [--notes] [--json FILE]

For each chosen conversation of LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0, read where it lies —
by default `shared/data/locomo/` beside the repository — and never copied into it) and each of its two
speakers, a fresh temporary vault: the speaker's turns of each session become one short note dated by
the session, and the memory is built as the nightly job builds it — `refresh --today SESSION_DATE` after
each session, so decay, merges and supersession happen as they would over those months. Extractors:

  offline  the product's first-person patterns (`refresh --extractor offline`);
  openai   the configured model (base URL, key and model from the usual config and environment), through a
           loopback relay that counts the characters sent and the requests; nothing else changes;
  oracle   the speaker's own LoCoMo observations for the session as `apply` evidence, each filed by the
           product's offline classifier (the one `remember` uses without a dimension): the ceiling the
           rules, the six dimensions and recall allow when extraction is perfect;
  agent    the person's assistant as the reader (docs/spec.md §9.5): a scripted assistant on the MCP SDK's
           real client proposes the same gold observations through `notes_to_read` and `propose_memories`;
  sampling `refresh` over MCP with no model configured, the client's sampling callback answering as the
           fake model answers (bench/locomo_agent.py).

Then, on the last session's date, every question of categories 1–4 (1 multi-hop, 2 temporal, 3 open
domain, 4 single hop) that names the speaker is asked of that speaker's memory with `recall QUESTION
--limit K --json` and `context --query QUESTION --budget 500 --json` (a question naming both speakers is
asked of both memories, and what both return is judged together). It is *answerable from memory* when
what came back holds at least half of the gold answer's units: its content words (lower-cased, stemmed
with recall's own stemmer, recall's stop words and a few function words and the named speakers' names
left out), and its dates, compared as dates ("7 May 2023", "May 2023", "2023", "the week before 9 June
2023"), against the dates in the items' texts and, for recall, each item's `last`. Category 5
(adversarial: the question pins the other speaker's fact on this one; no answer exists) is reported
apart: the share of its questions for which recall returns nothing scoring above `--floor` (BM25).
For every lost question it also says where the fact went: never an item (extraction), an item that
was merged away or decayed out (rule E) before the last session, or in memory but not ranked in the
top K (recall) — judged by the same measure on the best K items memory holds or ever held.

Evidence found, without a judge (oracle and agent, the extractors that propose LoCoMo's own observations): each
question cites its evidence turns ("D1:3"), and each observation the turn(s) it was drawn from. Recall is asked
again at K = 5 and K = 10, and a question's evidence is found when a returned item came from an observation of one
of those turns (`any`; `all`: of every one of them): when one of the wordings the ledger records for the item, or
for an item merged into it (what `why --json` lists as its sources), is that observation's text as it was filed.
A question none of whose evidence turns an asked speaker's observation cites is not judged. Other extractors word
their own items, so no item can be traced to a turn without a judge: their figure is "n/a".

With `--notes`, each question is also asked with `recall QUESTION --notes --limit K` (K = 5 and 10) after
`index` builds the archive, and judged by the word measure on the memory's top K items and the top K passages of
the notes together, each passage dated by its note. When this hylo-memory's `recall` has no `--notes`, that part
is skipped and says so.

What it measures, honestly. LoCoMo asks about episodes ("when did she go to the support group?") as
much as about the person; hylo-memory keeps a profile whose moods, plans and finished goals fade on
purpose (`_state.md` in 7 days, `_goals.md` in 30), and it keeps no diary. Temporal questions about old
events are therefore expected to score low, and so is a word-overlap judge on answers an LLM would have
to infer; the figures that matter most for a profile are single hop (4) and multi hop (1). The measure
is a lexical proxy, not LoCoMo's F1 or an LLM judge, and is not comparable with vendors' published
numbers. Nothing in the product is tuned to LoCoMo: no pattern, threshold or window was chosen for it,
and no LoCoMo text is in the repository. Figures depend on the extractor; offline and oracle need no
network and give the same figures on every machine (but for a few verdicts that depend on timing). Over all
ten conversations the oracle with `--notes` took 1,226 s with one worker on a shared, loaded 2-core machine:
recall is asked at K = 5 and 10, each question embedded. Figures and the gap analysis: docs/locomo.md.

The commands run through the package's real click group (`hylo_memory.pipeline.cli.group.cli`),
invoked in process with click's CliRunner: the code path of `.venv/bin/hylo-memory …` without ~0.4 s of
process start-up per call (~2,000 questions × 2 commands, ~550 refreshes). Speakers run in a pool of at
most two worker processes; each vault is removed when its speaker is done.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the harness's own modules, beside it

from locomo_data import DataError, load  # noqa: E402
from locomo_report import render, score, write_json  # noqa: E402
from locomo_run import HarnessError, Job, Outcome, run_speaker  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo"


def conversations_arg(text: str) -> list[int]:
    try:
        chosen = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 1,2,3, not {text!r}") from None
    if not chosen:
        raise argparse.ArgumentTypeError("name at least one conversation")
    return chosen


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/locomo.py", description="hylo-memory on LoCoMo")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo's folder or locomo10.json")
    parser.add_argument("--conversations", type=conversations_arg, help="1-based, comma separated (default: all)")
    parser.add_argument("--extractor", choices=("offline", "openai", "oracle", "agent", "sampling"), default="offline")
    parser.add_argument("--k", type=int, default=5, help="recall's --limit")
    parser.add_argument("--floor", type=float, default=3.0, help="category 5: a BM25 score above it is an answer")
    parser.add_argument("--workers", type=int, default=2, choices=(1, 2), help="worker processes (at most 2)")
    parser.add_argument("--notes", action="store_true",
                        help="also judge `recall QUESTION --notes`: the memory and the notes' passages together")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args(argv)
    if not 1 <= args.k <= 100:
        parser.error("--k must be 1 to 100")
    return args


def run_all(jobs: list[Job], workers: int) -> list[Outcome]:
    if workers == 1 or len(jobs) == 1:
        return [run_speaker(job) for job in jobs]
    # fork: the workers share the imported package; each runs whole speakers, the longest first.
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
        return list(pool.map(run_speaker, jobs))


def recall_has_notes() -> bool:
    """Whether this hylo-memory's `recall` takes `--notes` (its help names the option)."""
    from click.testing import CliRunner

    from hylo_memory.pipeline.cli.group import cli

    return "--notes" in CliRunner().invoke(cli, ["recall", "--help"]).output


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    try:
        conversations = load(args.data, args.conversations)
    except DataError as exc:
        print(f"bench/locomo.py: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    relay = None
    if args.extractor == "openai":
        from locomo_relay import start_relay  # only with a model: it reads the person's own configuration

        relay = start_relay()
    archive = None
    if args.notes:
        archive = "asked" if recall_has_notes() else "this hylo-memory's `recall` has no --notes option"
    jobs = [Job(c, speaker, args.extractor, args.k, relay.base_url(f"{c.number}:{speaker}") if relay else None,
                archive == "asked") for c in conversations for speaker in c.speakers]
    jobs.sort(key=lambda j: -sum(len(s.turns[j.speaker]) for s in j.conversation.sessions))
    try:
        outcomes = run_all(jobs, args.workers)
    except HarnessError as exc:
        print(f"bench/locomo.py: {exc}", file=sys.stderr)
        return 1
    finally:
        if relay is not None:
            relay.stop()
    figures = score(conversations, outcomes, args.k, args.floor, args.extractor,
                    relay.counts() if relay else None)
    figures["wall_seconds"] = round(time.perf_counter() - started, 1)  # the judging included
    figures["archive"] = archive
    print(render(figures))
    if args.extractor == "agent":  # what it was handed, against the model's requests for the same batches
        handed, model, review, notes = (sum(getattr(o, f) for o in outcomes)
                                        for f in ("handed_chars", "model_chars", "review_chars", "note_chars"))
        calls = sum(o.requests for o in outcomes)
        print(f"agent: {calls} tool calls; handed {handed / notes:.2f} characters a note character in batches of "
              f"notes, the model's requests for the same batches {model / notes:.2f}; review batches "
              f"{review / notes:.2f} more")
    if args.json:
        write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
