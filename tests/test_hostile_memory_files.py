"""A hand-made memory file can be as hostile as a note: refused in one line, never a hang or a crash."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import hylo, one_line

BOMB = "\n".join(["---", "decay_window: 90d", 'a: &a ["x","x","x","x","x","x","x","x","x"]']
                 + [f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},"
                    f"*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]" for i in range(8)]
                 + ["---", "## Active", "- Likes tea `last:2026-11-01 seen:1`", ""])


def memory(vault: Path, name: str, text: str | bytes) -> Path:
    path = vault / "_memory" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_an_alias_bomb_in_a_memory_files_frontmatter_is_refused_naming_it(tmp_path: Path) -> None:
    path = memory(tmp_path, "_preferences.md", BOMB)
    result = hylo("remember", "I love tea", "--vault", tmp_path, "--dimension", "preferences")
    assert result.exit_code == 1
    assert str(path) in one_line(result.stderr) and "YAML aliases" in result.stderr
    assert path.read_text() == BOMB  # refused, never overwritten


def test_a_decay_window_past_a_hundred_years_is_refused_in_one_line(tmp_path: Path) -> None:
    text = "---\ndecay_window: 100000000d\n---\n## Active\n- Tired `last:2026-11-01 seen:1`\n"
    path = memory(tmp_path, "_state.md", text)
    result = hylo("refresh", "--vault", tmp_path, "--today", "2026-11-30")
    assert result.exit_code == 1 and f"{path}:2: decay_window" in one_line(result.stderr)
    assert path.read_text() == text


def test_a_byte_order_mark_survives_a_write(tmp_path: Path) -> None:
    path = memory(tmp_path, "_preferences.md", b"\xef\xbb\xbf## Active\n- Likes tea `last:2026-11-01 seen:1`\n")
    assert hylo("remember", "Likes tea", "--vault", tmp_path, "--dimension", "preferences",
                "--today", "2026-11-30").exit_code == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"seen:2" in data


def test_a_refresh_names_every_hand_broken_file_in_its_one_line(tmp_path: Path) -> None:
    goals = memory(tmp_path, "_goals.md", "## Active\n- Ship it `last:2026-13-45 seen:1`\n")
    state = memory(tmp_path, "_state.md", "## Active\n- Tired `last:2026-11-01 seen:x`\n")
    result = hylo("refresh", "--vault", tmp_path, "--today", "2026-11-30")
    assert result.exit_code == 1
    assert one_line(result.stderr).startswith(f"hylo-memory: {goals}:2: ") and f"; also {state}:2: " in result.stderr
