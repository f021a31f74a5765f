"""What a first refresh keeps from a real vault, item by item, for a person to judge by eye.

    python bench/real_vaults.py VAULT [VAULT...] [--today YYYY-MM-DD | --window-from-newest]
                                [--json FILE] [--max-items N] [--keep DIR] [--hylo-memory CLI]

Fetches nothing and never writes to VAULT. For each vault folder it:

1. copies it to a temporary folder (without `.git`; `.obsidian`, `logseq/config.edn` and the
   rest kept, symlinks kept as symlinks);
2. runs the real command line there, in a clean environment (no OPENAI_* / HYLO_* variable,
   a temporary HOME so no user config is read): `hylo-memory init --vault COPY --yes`, then a
   first `hylo-memory refresh --vault COPY --json --extractor offline --today DAY`;
3. prints the vault's name and note count (`.md` files outside hidden folders), the settings
   init proposed, the sources the run read per kind (shorts / knowledge / extra, and
   `others_words` by reason when the summary has that key), notes read and items kept, then
   every kept item as `[dimension] text  <- note, note` (Fading items marked so).

How to read it: each item should be a fact about the vault's author, in words they would
sign. Look for other people's words (quotes, clippings, docs written to a reader), fragments
that are not a fact, and items whose subject is a pronoun ("It is...", "They...").

Which note an item came from is read from the ledger the run wrote (`_memory/.state/ledger.db`,
tables `provenance` and `aliases`), read-only with sqlite3, so ~200 items cost one query, not
200 `hylo-memory why --json` calls (about two seconds each); an item the ledger cannot be
matched to falls back to `why --json`. Summary keys an older CLI lacks are taken as absent.

`--today` is the run's date (default: the real today). `--window-from-newest` sets it to the
newest dated note's date plus one day, so a vault last written years ago has its notes in
the first run's 90-day window. That date is a heuristic from outside the product: a
`created:`/`date:` frontmatter line or a date in the file name (`2024-05-19`, `2024_05_19`,
`20240519`), else the file's modification time; the product reads dates more carefully.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import sqlite3
import string
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

DIMENSIONS = ("identity", "preferences", "goals", "beliefs", "people", "state")
KINDS = ("shorts", "knowledge", "extra")
_ITEM = re.compile(r"^[-*+]\s+(?P<text>.*?)\s*`\s*last:\S+\s+seen:\d+(?P<pinned>\s+pinned)?\s*`")
_FRONT_DATE = re.compile(r"^(?:created|date)\s*:{1,2}\s*['\"]?(\d{4})[-/](\d{2})[-/](\d{2})", re.M)
_NAME_DATE = re.compile(r"(?<!\d)(\d{4})[-_]?(\d{2})[-_]?(\d{2})(?!\d)")


def default_cli() -> str:
    """The `hylo-memory` next to this Python (the venv's), else the one on PATH."""
    here = Path(sys.executable).parent / "hylo-memory"
    return str(here) if here.exists() else (shutil.which("hylo-memory") or "hylo-memory")


def clean_env(home: Path) -> dict[str, str]:
    """This process's environment without a model or a hylo-memory setting, a HOME of its own, and UTC
    (an mtime-dated note falls on the same day wherever the bench runs)."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("OPENAI", "HYLO"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), NO_COLOR="1", TZ="UTC")
    return env


def notes(vault: Path) -> list[Path]:
    """Every `.md` file outside hidden folders (symlinked folders not followed)."""
    found = []
    for root, dirs, files in os.walk(vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [Path(root, f) for f in files if f.endswith(".md") and not f.startswith(".")]
    return found


def _date(parts: tuple[str, str, str]) -> dt.date | None:
    try:
        return dt.date(*map(int, parts))
    except ValueError:
        return None


def newest_note_date(vault: Path, today: dt.date) -> dt.date | None:
    """The newest note date found by frontmatter or file name (none after `today`), else by mtime."""
    named, mtimes = [], []
    for path in notes(vault):
        try:
            head = path.read_text(encoding="utf-8", errors="replace")[:2000]
            mtimes.append(dt.date.fromtimestamp(path.stat().st_mtime))
        except OSError:
            continue
        candidates = [_date(m.groups()) for m in _FRONT_DATE.finditer(head)]
        candidates += [_date(m.groups()) for m in _NAME_DATE.finditer(path.stem)]
        named += [d for d in candidates if d and dt.date(1990, 1, 1) <= d <= today]
    pool = named or [d for d in mtimes if d <= today]
    return max(pool) if pool else None


def copy_vault(vault: Path, dest: Path) -> Path:
    """The vault copied to `dest` without `.git`; symlinks stay symlinks."""
    shutil.copytree(vault, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    return dest


def run(cli: str, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=1800)


def memory_dir(copy: Path) -> Path:
    """The memory folder the vault's own settings name (`_memory` unless init said otherwise)."""
    try:
        settings = tomllib.loads((copy / ".hylo-memory.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        settings = {}
    return copy / str(settings.get("memory_dir", "_memory"))


def kept_items(folder: Path) -> list[dict]:
    """Every item in the six memory files' Active and Fading sections, in file order."""
    items = []
    for dimension in DIMENSIONS:
        path = folder / f"_{dimension}.md"
        if not path.is_file():
            continue
        section = None
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("## "):
                section = line[3:].strip()
            elif section in ("Active", "Fading") and (m := _ITEM.match(line)):
                items.append({"dimension": dimension, "section": section, "text": m["text"],
                              "pinned": bool(m["pinned"]), "notes": []})
    return items


def _fold(text: str) -> str:
    """A loose form of the product's item key: case, white space and trailing punctuation folded."""
    return " ".join(text.casefold().split()).rstrip(string.punctuation + " 。，；：！？…")


def ledger_sources(folder: Path) -> dict[tuple[str, str], list[str]]:
    """(dimension, folded item) -> its sources, newest first, merged items' sources included."""
    db_path = folder / ".state" / "ledger.db"
    if not db_path.is_file():
        return {}
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT dimension, item, source, coalesce(source_date, '') FROM provenance "
                          "WHERE kind != 'forgotten' ORDER BY rowid").fetchall()
        try:
            aliases = db.execute("SELECT dimension, dropped, kept FROM aliases ORDER BY rowid").fetchall()
        except sqlite3.Error:
            aliases = []
    except sqlite3.Error:
        return {}
    finally:
        db.close()
    forward = {(d, _fold(dropped)): _fold(kept) for d, dropped, kept in aliases}
    dated: dict[tuple[str, str], dict[str, str]] = {}
    for dimension, item, source, day in rows:
        name, seen = _fold(item), set()
        while (dimension, name) in forward and name not in seen:  # follow merges to the item kept
            seen.add(name)
            name = forward[(dimension, name)]
        by_source = dated.setdefault((dimension, name), {})
        by_source[source] = max(day, by_source.get(source, ""))
    return {k: sorted(v, key=lambda s: (v[s], s), reverse=True) for k, v in dated.items()}


def why_sources(cli: str, copy: Path, item: dict, env: dict[str, str]) -> list[str]:
    """The item's sources as `hylo-memory why --json` gives them (the slow way)."""
    done = run(cli, ["why", item["text"], "--vault", str(copy), "--dimension", item["dimension"], "--json"], env)
    try:
        return [s.get("source", "?") for s in json.loads(done.stdout).get("sources", [])]
    except (json.JSONDecodeError, AttributeError):
        return []


def others_words(summary: dict) -> dict[str, int] | None:
    """The summary's `others_words` as counts by reason, whatever shape it has; None when absent."""
    value = summary.get("others_words")
    if value is None:
        return None
    if isinstance(value, dict):
        return {str(k): (len(v) if isinstance(v, (list, dict)) else v) for k, v in value.items()}
    if isinstance(value, list):
        counts: dict[str, int] = {}
        for entry in value:
            reason = entry.get("reason", "?") if isinstance(entry, dict) else str(entry)
            counts[reason] = counts.get(reason, 0) + 1
        return counts
    return {"total": value}


def by_reason(entries: object) -> dict[str, int]:
    """How many entries give each reason, line numbers folded ("... (line 4)" and "(line 7)" are one)."""
    counts: dict[str, int] = {}
    for entry in entries if isinstance(entries, list) else []:
        reason = re.sub(r"\d+", "N", str(entry.get("reason", "?") if isinstance(entry, dict) else entry))
        counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def measure(vault: Path, cli: str, today: dt.date | None, from_newest: bool, work: Path) -> dict:
    """One vault's first run on a copy: its counts and every kept item with its notes."""
    real_today = dt.date.today()
    if from_newest:
        newest = newest_note_date(vault, real_today)
        today = newest + dt.timedelta(days=1) if newest else real_today
    today = today or real_today
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = clean_env(home)
    copy = copy_vault(vault, work / vault.resolve().name)
    result: dict = {"vault": vault.resolve().name, "path": str(vault), "copy": str(copy),
                    "notes": len(notes(copy)), "today": today.isoformat(), "cli": cli}
    init = run(cli, ["init", "--vault", str(copy), "--yes"], env)
    result["init"] = list(dict.fromkeys(line.strip() for line in init.stdout.splitlines()
                                        if re.match(r"\s*(shorts_paths|knowledge_paths|extra_scan_paths)\s*=", line)))
    if init.returncode != 0:
        result.update(error=f"init exited {init.returncode}: {init.stderr.strip()[-500:]}")
        return result
    refresh = run(cli, ["refresh", "--vault", str(copy), "--json", "--extractor", "offline",
                        "--today", today.isoformat(), "--quiet"], env)
    try:
        summary = json.loads(refresh.stdout)
    except json.JSONDecodeError:
        result.update(error=f"refresh exited {refresh.returncode}: {refresh.stderr.strip()[-500:]}")
        return result
    sources = summary.get("sources") or {}
    result.update(
        exit=refresh.returncode, status=summary.get("status"), mode=summary.get("mode"),
        window_start=summary.get("window_start"),
        sources={k: sources.get(k, 0) for k in (*KINDS, *(k for k in sources if k not in KINDS))},
        notes_read=sum(v for v in sources.values() if isinstance(v, int)),
        others_words=others_words(summary), counts=summary.get("counts", {}),
        skipped=len(summary.get("skipped") or []), skipped_by_reason=by_reason(summary.get("skipped")),
        undated=len(summary.get("undated") or []),
        hints=summary.get("hints") or [], stderr=refresh.stderr.strip()[-500:])
    folder = memory_dir(copy)
    items = kept_items(folder)
    by_item = ledger_sources(folder)
    result["why_calls"] = 0
    for item in items:
        item["notes"] = by_item.get((item["dimension"], _fold(item["text"]))) or []
        if not item["notes"]:
            item["notes"] = why_sources(cli, copy, item, env)
            result["why_calls"] += 1
    result["items_kept"] = len(items)
    result["items"] = items
    return result


def report(result: dict, max_items: int) -> str:
    """The text a person reads: counts first, then the items with their notes."""
    out = [f"== {result['vault']}  ({result['path']}): {result['notes']} notes, today {result['today']}"]
    out += [f"   init proposed: {'; '.join(result.get('init') or ['(nothing)'])}"]
    if "error" in result:
        return "\n".join(out + [f"   ERROR {result['error']}"])
    kinds = ", ".join(f"{k} {v}" for k, v in result["sources"].items())
    out += [f"   {result['mode']} run from {result['window_start']}, status {result['status']}: "
            f"sources {kinds}; notes read {result['notes_read']}; skipped {result['skipped']}, "
            f"undated {result['undated']}"]
    if result["skipped_by_reason"]:
        out += ["   skipped: " + "; ".join(f"{v} {k}" for k, v in result["skipped_by_reason"].items())]
    if result["others_words"] is not None:
        out += ["   others_words: " + (", ".join(f"{k} {v}" for k, v in result["others_words"].items()) or "none")]
    out += [f"   hint: {h}" for h in result["hints"]]
    out += [f"   items kept: {result['items_kept']} (counts {json.dumps(result['counts'], sort_keys=True)}; "
            f"{result['why_calls']} found by `why`, the rest in the ledger)"]
    for item in result["items"][:max_items]:
        fading = " (fading)" if item["section"] == "Fading" else ""
        where = ", ".join(item["notes"][:3]) + (f" +{len(item['notes']) - 3}" if len(item["notes"]) > 3 else "")
        out += [f"   [{item['dimension']}]{fading} {item['text']}  <- {where or '(no recorded source)'}"]
    if len(result["items"]) > max_items:
        out += [f"   ... {len(result['items']) - max_items} more items (--max-items)"]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("vaults", nargs="+", type=Path, metavar="VAULT")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the results as one JSON list")
    parser.add_argument("--today", type=dt.date.fromisoformat, metavar="YYYY-MM-DD",
                        help="the run's date (default: the real today)")
    parser.add_argument("--window-from-newest", action="store_true",
                        help="today = the newest dated note's date + 1 day (a heuristic: frontmatter, name, mtime)")
    parser.add_argument("--hylo-memory", default=default_cli(), metavar="PATH-TO-CLI")
    parser.add_argument("--max-items", type=int, default=500, help="items printed per vault (default 500)")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="make the copies under DIR and leave them there")
    args = parser.parse_args(argv)
    if args.today and args.window_from_newest:
        parser.error("--today and --window-from-newest are two ways to set the date: give one")
    results = []
    for vault in args.vaults:
        if not vault.is_dir():
            parser.error(f"not a folder: {vault}")
        with tempfile.TemporaryDirectory(prefix="hylo-bench-") as tmp:
            work = Path(tmp)
            if args.keep:
                work = args.keep / vault.resolve().name
                if work.exists():
                    parser.error(f"{work} exists: --keep makes each copy afresh")
            result = measure(vault, args.hylo_memory, args.today, args.window_from_newest, work)
        results.append(result)
        print(report(result, args.max_items), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
