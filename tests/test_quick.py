"""The quick path of `recall` and `context` (docs/spec.md §9.4): the same bytes as the full command, from the
memos, or it declines and the full command answers."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import hylo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vault_helpers import memory_body, memory_file

from hylo_memory.decay import Dimension
from hylo_memory.pipeline.cli.quick import answer
from hylo_memory.pipeline.config import load_config
from hylo_memory.pipeline.operations.after_write import after_write
from hylo_memory.pipeline.state.read_memo import memo_path
from hylo_memory.pipeline.state.writing import open_store

TODAY = "2026-11-30"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    memory_file(root, Dimension.identity, memory_body("Name is Ana Silva | 2026-11-01 | 3 | pinned",
                                                 "是素食者 | 2026-11-20 | 1 | pinned"))
    memory_file(root, Dimension.preferences, memory_body("Loves to run | 2026-11-28 | 4",
                                                    "Drinks coffee at the café every morning | 2026-11-02 | 2",
                                                    fading=("Enjoys running in the rain | 2026-07-01 | 2",)))
    memory_file(root, Dimension.state, memory_body("最近压力很大 | 2026-11-29 | 1"))
    return root


def quick(*args: str | Path) -> str | None:
    """What the quick path prints for `hylo-memory ARGS…`, or None when it declines."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        answered = answer([os.fspath(a) for a in args])
    assert answered or not out.getvalue(), "a declined answer printed something"
    return out.getvalue() if answered else None


def full(*args: str | Path) -> str:
    result = hylo(*args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


ASKED = [
    ("recall", "running"), ("recall", "素食"), ("recall", "running", "--limit", "1"), ("recall", "--limit=2", "café"),
    ("recall", "kubernetes"), ("context",), ("context", "--budget", "100"), ("context", "--query", "coffee"),
    ("context", "--query", "  "), ("context", "--query=压力", "--budget=200"),
    # Recall that answers (docs/spec.md §9.2): the person's own items first, and silence when nothing answers.
    ("recall", "what is my name?"), ("recall", "what do I like?"), ("recall", "我最近压力大吗？"), ("recall", "who is she?"),
    ("recall", "what is my dog's name?"), ("context", "--query", "xyzzy"), ("context", "--query", "xyzzy", "--budget", "100"),
]


@pytest.mark.parametrize("args", ASKED, ids=" ".join)
def test_after_a_full_answer_the_quick_path_prints_the_same_bytes(vault: Path, args: tuple[str, ...]) -> None:
    asked = (*args, "--vault", vault, "--today", TODAY)
    expected = full(*asked)
    assert quick(*asked) == expected


def test_without_memos_it_declines(vault: Path) -> None:
    assert quick("recall", "running", "--vault", vault, "--today", TODAY) is None


@pytest.mark.parametrize("extra", [("--json",), ("--config", "x.toml"), ("--help",), ("--limit", "0"),
                                   ("--limit", "1", "--limit", "2"), ("--today", "2026-13-01"), ("--vault",)])
def test_an_option_it_does_not_take_as_given_is_declined(vault: Path, extra: tuple[str, ...]) -> None:
    full("recall", "running", "--vault", vault, "--today", TODAY)
    assert quick("recall", "running", "--vault", vault, "--today", TODAY, *extra) is None


def test_after_a_refresh_the_first_reader_is_answered_quickly(vault: Path) -> None:
    (vault / "_shorts").mkdir()
    (vault / "_shorts" / "tea.md").write_text("---\ncreated: 2026-11-29\n---\nI love green tea.\n", encoding="utf-8")
    full("refresh", "--vault", vault, "--today", TODAY, "--extractor", "offline", "--quiet")
    asked = ("recall", "green tea", "--vault", vault, "--today", TODAY)
    answered = quick(*asked)
    assert answered is not None and "Loves green tea" in answered
    assert answered == full(*asked)


def _evidence(vault: Path) -> Path:
    path = vault.parent / "evidence.jsonl"
    path.write_text(json.dumps({"dimension": "goals", "text": "Play the cello", "source": "_shorts/a.md"}) + "\n",
                    encoding="utf-8")
    return path


@pytest.mark.parametrize(("command", "shown", "hidden"), [
    (("remember", "I play the cello", "--dimension", "goals"), "Plays the cello", None),
    (("forget", "Loves to run"), None, "Loves to run"),
    (("apply", "--evidence", _evidence), "Play the cello", None),
], ids=["remember", "forget", "apply"])
def test_after_a_change_by_command_the_first_reader_is_answered_quickly(vault: Path, command: tuple, shown: str | None,
                                                                        hidden: str | None) -> None:
    full(*[arg(vault) if callable(arg) else arg for arg in command], "--vault", vault, "--today", TODAY)
    asked = ("context", "--vault", vault, "--today", TODAY)
    answered = quick(*asked)
    assert answered is not None and answered == full(*asked)
    assert shown is None or shown in answered
    assert hidden is None or hidden not in answered


def test_after_an_undo_the_first_reader_is_answered_quickly(vault: Path) -> None:
    full("remember", "I play the cello", "--dimension", "goals", "--vault", vault, "--today", TODAY)
    full("undo", "--vault", vault)
    answered = quick("context", "--vault", vault, "--today", TODAY)
    assert answered is not None and "cello" not in answered


def test_a_writer_leaves_another_commands_unfinished_change_to_it_and_keeps_no_memo(vault: Path) -> None:
    journal = vault / "_memory" / ".state" / "journal.json"
    journal.parent.mkdir(exist_ok=True)
    journal.write_text("{}", encoding="utf-8")  # another command's change, being written
    config = load_config(vault=str(vault))
    after_write(open_store(vault, config), config)
    assert journal.exists() and not memo_path(vault / "_memory").exists()


def test_a_dry_run_keeps_no_memo(vault: Path) -> None:
    (vault / "tea.md").write_text("---\ncreated: 2026-11-29\n---\nI love green tea.\n", encoding="utf-8")
    full("refresh", "--vault", vault, "--today", TODAY, "--extractor", "offline", "--dry-run")
    assert not memo_path(vault / "_memory").exists()


def test_a_hand_edit_is_declined_then_answered_quickly_again_from_the_new_text(vault: Path) -> None:
    full("recall", "tea", "--vault", vault, "--today", TODAY)
    path = vault / "_memory" / Dimension.preferences.filename
    path.write_text(path.read_text(encoding="utf-8").replace("Loves to run", "Loves green tea"), encoding="utf-8")
    assert quick("recall", "tea", "--vault", vault, "--today", TODAY) is None
    expected = full("recall", "tea", "--vault", vault, "--today", TODAY)
    assert "Loves green tea" in expected
    assert quick("recall", "tea", "--vault", vault, "--today", TODAY) == expected


@pytest.mark.parametrize("command", [("context",), ("recall", "run")], ids=" ".join)
def test_while_files_are_hand_broken_it_declines_even_after_the_full_command_named_them(vault: Path,
                                                                                         command: tuple) -> None:
    asked = (*command, "--vault", vault, "--today", TODAY)
    full(*asked)  # a memo of the files as they were
    goals = memory_file(vault, Dimension.goals, "## Active\n- Ship it `last:2026-13-45 seen:1`\n")
    state = memory_file(vault, Dimension.state, "## Active\n- Tired `last:2026-11-01 seen:x`\n")
    assert quick(*asked) is None
    answered = full(*asked)
    assert f"{goals}:6: " in answered and f"{state}:6: " in answered  # the full command names each
    assert quick(*asked) is None  # which keeps no memo while a file is refused


def test_a_change_left_to_finish_is_declined(vault: Path) -> None:
    full("context", "--vault", vault, "--today", TODAY)
    (vault / "_memory" / ".state" / "journal.json").write_text("{}", encoding="utf-8")
    assert quick("context", "--vault", vault, "--today", TODAY) is None


def test_a_new_intro_is_declined(vault: Path) -> None:
    full("context", "--vault", vault, "--today", TODAY)
    (vault / "_memory" / ".state" / "intro.txt").write_text("I'm Bea.\n", encoding="utf-8")
    assert quick("context", "--vault", vault, "--today", TODAY) is None


@pytest.mark.parametrize("change", ["vault file", "variable", "embeddings"])
def test_a_configuration_changed_since_is_declined(vault: Path, monkeypatch: pytest.MonkeyPatch,
                                                   change: str) -> None:
    full("recall", "run", "--vault", vault, "--today", TODAY)
    if change == "vault file":
        (vault / ".hylo-memory.toml").write_text('memory_dir = "_memory"\n', encoding="utf-8")
    elif change == "variable":
        monkeypatch.setenv("HYLO_MEMORY_TIMEZONE", "Asia/Shanghai")
    else:
        monkeypatch.setenv("HYLO_MEMORY_EMBEDDING_MODEL", "text-embedding-3-small")
        monkeypatch.setenv("HYLO_MEMORY_BASE_URL", "http://127.0.0.1:9/v1")  # never asked: the quick path declines
        full("recall", "run", "--vault", vault, "--today", TODAY)  # configured so, the full path keeps no quick memo
    assert quick("recall", "run", "--vault", vault, "--today", TODAY) is None


@pytest.mark.parametrize("memo", ["not json", "[]", '{"format": 1}', "garbage-shaped"])
def test_a_memo_in_any_other_shape_is_declined_never_a_traceback(vault: Path, memo: str) -> None:
    full("recall", "run", "--vault", vault, "--today", TODAY)
    path = memo_path(vault / "_memory")
    if memo == "garbage-shaped":  # this code's stamp, the wrong insides
        kept = json.loads(path.read_text(encoding="utf-8"))
        memo = json.dumps({**kept, "files": {d.value: {"digest": 1} for d in Dimension}})
    path.write_text(memo, encoding="utf-8")
    assert quick("recall", "run", "--vault", vault, "--today", TODAY) is None


def test_a_vault_link_that_leads_elsewhere_now_is_declined(vault: Path, tmp_path: Path) -> None:
    link = tmp_path / "notes"
    link.symlink_to(vault)
    full("recall", "run", "--vault", link, "--today", TODAY)
    other = tmp_path / "other"
    memory_file(other, Dimension.preferences, memory_body("Loves to run at night | 2026-11-28 | 1"))
    link.unlink()
    link.symlink_to(other)
    assert quick("recall", "run", "--vault", link, "--today", TODAY) is None
    assert "Loves to run at night" in full("recall", "run", "--vault", link, "--today", TODAY)


def test_a_linked_memory_file_is_declined(vault: Path) -> None:
    memory = vault / "_memory"
    (memory / "kept").mkdir()
    (memory / Dimension.state.filename).rename(memory / "kept" / "state.md")
    (memory / Dimension.state.filename).symlink_to(memory / "kept" / "state.md")
    full("recall", "run", "--vault", vault, "--today", TODAY)
    assert quick("recall", "run", "--vault", vault, "--today", TODAY) is None


def test_a_memory_folder_it_cannot_write_keeps_no_memo_and_fails_nothing(vault: Path) -> None:
    state = vault / "_memory" / ".state"
    state.mkdir()
    state.chmod(0o500)
    try:
        if os.access(state, os.W_OK):
            pytest.skip("this user writes anywhere (root)")
        assert "Loves to run" in full("recall", "run", "--vault", vault, "--today", TODAY)
        assert not memo_path(vault / "_memory").exists()
    finally:
        state.chmod(0o700)


_words = st.sampled_from(["run", "running", "tea", "green", "coffee", "Lisbon", "素食", "压力", "café", "Ana",
                          "plans", "trip", "friend", "pinned"])
_items = st.tuples(st.lists(_words, min_size=1, max_size=6).map(" ".join),
                   st.dates(dt.date(2026, 1, 1), dt.date(2026, 11, 30)), st.integers(1, 9), st.booleans())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.dictionaries(st.sampled_from(list(Dimension)),
                             st.tuples(st.lists(_items, max_size=8), st.lists(_items, max_size=4)), min_size=1),
       query=_words, budget=st.integers(100, 400), command=st.sampled_from(["recall", "context"]))
def test_on_any_memory_the_quick_answer_is_the_full_one(tmp_path: Path, files: dict, query: str, budget: int,
                                                        command: str) -> None:
    root = tmp_path / f"v{abs(hash((repr(files), query, budget, command)))}"
    for dimension, (active, fading) in files.items():
        line = "{} | {} | {}{}".format
        memory_file(root, dimension, memory_body(*(line(t, d, s, " | pinned" if p else "") for t, d, s, p in active),
                                                 fading=tuple(line(t, d, s, "") for t, d, s, _ in fading)))
    args = (("recall", query, "--limit", "5") if command == "recall" else
            ("context", "--budget", str(budget), "--query", query))
    asked = (*args, "--vault", root, "--today", TODAY)
    expected = full(*asked)
    assert quick(*asked) == expected


@pytest.mark.slow
def test_the_command_answers_quickly_without_loading_click_pydantic_or_yaml(vault: Path, tmp_path: Path) -> None:
    asked = ["recall", "running", "--vault", str(vault), "--today", TODAY]
    expected = full(*asked)
    probe = ("import sys\nfrom hylo_memory.console import main\nsys.argv = ['hylo-memory', *sys.argv[1:]]\nmain()\n"
             "print([m for m in ('click', 'pydantic', 'yaml', 'openai', 'markdown_it') if m in sys.modules],"
             " file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, *asked], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HOME": os.environ["HOME"]})
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
    assert done.stderr.strip() == "[]"
