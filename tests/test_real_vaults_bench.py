"""bench/real_vaults.py: a first run on a copy of a vault, every kept item printed with the note it came from."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "real_vaults.py"
CLI = Path(sys.executable).parent / "hylo-memory"


def _bench():
    spec = importlib.util.spec_from_file_location("real_vaults", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    (root / "_shorts").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.json").write_text("{}\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "_shorts" / "2026-11-01-home.md").write_text("---\ncreated: 2026-11-01\n---\nI live in Lisbon.\n")
    (root / "_shorts" / "2026-11-03-food.md").write_text("---\ncreated: 2026-11-03\n---\nI love grilled sardines.\n")
    return root


@pytest.mark.skipif(not CLI.exists(), reason="the hylo-memory command is not installed next to this Python")
@pytest.mark.slow
def test_prints_counts_and_each_item_with_its_note(vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-reach-the-run")  # offline all the same
    out_json = tmp_path / "runs" / "tiny.json"
    kept = tmp_path / "copies"

    code = _bench().main([str(vault), "--today", "2026-11-10", "--json", str(out_json), "--keep", str(kept),
                          "--hylo-memory", str(CLI)])

    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "== tiny" in printed and "2 notes, today 2026-11-10" in printed
    assert "sources shorts 2, knowledge 0, extra 0; notes read 2" in printed
    assert "items kept: 2" in printed and "0 found by `why`" in printed
    assert "[identity] Lives in Lisbon  <- _shorts/2026-11-01-home.md" in printed
    assert "[preferences] Loves grilled sardines  <- _shorts/2026-11-03-food.md" in printed

    [result] = json.loads(out_json.read_text())
    assert result["notes"] == 2 and result["notes_read"] == 2 and result["items_kept"] == 2
    assert result["sources"] == {"shorts": 2, "knowledge": 0, "extra": 0}
    assert {(i["dimension"], i["text"], tuple(i["notes"])) for i in result["items"]} == {
        ("identity", "Lives in Lisbon", ("_shorts/2026-11-01-home.md",)),
        ("preferences", "Loves grilled sardines", ("_shorts/2026-11-03-food.md",))}
    copy = kept / "tiny" / "tiny"
    assert (copy / ".obsidian" / "app.json").exists() and not (copy / ".git").exists()
    assert not (vault / "_memory").exists() and not (vault / ".hylo-memory.toml").exists()  # the vault is untouched


def test_the_run_sees_no_model_and_no_hylo_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:1")
    monkeypatch.setenv("HYLO_MEMORY_VAULT", "/elsewhere")
    env = _bench().clean_env(tmp_path)
    assert not [k for k in env if k.upper().startswith(("OPENAI", "HYLO"))]
    assert env["HOME"] == str(tmp_path)


def test_window_from_newest_reads_dates_from_frontmatter_and_names(vault: Path) -> None:
    import datetime as dt

    (vault / "_shorts" / "2026_11_07.md").write_text("a Logseq journal, dated by its name\n")
    bench = _bench()
    assert bench.newest_note_date(vault, dt.date(2026, 12, 1)) == dt.date(2026, 11, 7)
    assert bench.newest_note_date(vault, dt.date(2026, 11, 2)) == dt.date(2026, 11, 1)  # none after today
