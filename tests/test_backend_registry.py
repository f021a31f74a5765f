"""Which backend a vault uses is decided in one place: the registry of pipeline/vaults (docs/spec.md §10).

A third backend — vaults given as `fake://…`, worked on through a local mirror like Hylo's — is registered in the
registry alone (one more row, and its module), and every place that asks what a vault is takes it: the
configuration keeps it as written, the command line's `--vault` and its quick path, the scopes' check, and
opening the vault, which prepares the backend's mirror and syncs its memory under the memory lock.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping
from pathlib import Path

import pytest
from cli_helpers import hylo

from hylo_memory.decay import Dimension
from hylo_memory.pipeline import vaults
from hylo_memory.pipeline.cli import quick
from hylo_memory.pipeline.cli.options import VaultType
from hylo_memory.pipeline.config import Config, load_config
from hylo_memory.pipeline.operations.opening import open_vault
from hylo_memory.pipeline.scopes import check_layout
from hylo_memory.pipeline.vaults import BACKENDS, Backend, backend_of, home_of, is_remote

URL = "fake://notes.example/ana"


class FakeHome:
    """The fake backend's memory home: it records what the commands asked of it."""

    calls: list[str] = []

    def take(self) -> None:
        self.calls.append("take")

    def send(self, files: Mapping[Dimension, str | None]) -> None:
        self.calls.append("send")

    def push(self) -> None:
        self.calls.append("push")


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The third backend, registered: its row first in the registry, its module in the room. Returns its mirror."""
    mirror = tmp_path / "fake-mirror"
    module = types.ModuleType("hylo_memory.pipeline.vaults.fake_backend")

    def open_mirror(config: Config) -> Path:
        mirror.mkdir(exist_ok=True)
        (mirror / ".fake-vault.json").write_text(str(config.vault))
        return mirror

    module.open_mirror = open_mirror  # type: ignore[attr-defined]
    module.home_at = lambda root: FakeHome()  # type: ignore[attr-defined]
    module.notes_at = lambda root, folder: folder  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    row = Backend("fake", lambda text: text.strip().startswith("fake://"), "fake_backend", ".fake-vault.json")
    monkeypatch.setattr(vaults, "BACKENDS", [row, *BACKENDS])
    FakeHome.calls = []
    return mirror


def test_the_registry_says_which_backend_a_vault_uses() -> None:
    assert backend_of("https://hylo.example/mcp").name == "hylo"
    assert backend_of("~/notes").name == "folder"
    assert backend_of(Path("https://hylo.example/mcp")).name == "folder"  # a Path is a folder's, its // folded
    assert is_remote(" HTTPS://hylo.example/mcp") and not is_remote("notes") and not is_remote(None)


@pytest.mark.usefixtures("fake")
def test_a_third_backend_is_known_by_its_row_alone() -> None:
    assert backend_of(URL).name == "fake"
    assert is_remote(URL)


@pytest.mark.usefixtures("fake")
def test_the_configuration_keeps_a_third_backends_vault_as_written() -> None:
    assert load_config(vault=f" {URL} ").vault == URL  # not a path: no `~` expanded, no `//` folded


@pytest.mark.usefixtures("fake")
def test_the_command_lines_vault_option_keeps_a_third_backends_vault_as_written() -> None:
    assert VaultType().convert(URL, None, None) == URL
    assert isinstance(VaultType().convert("notes", None, None), Path)


@pytest.mark.usefixtures("fake")
def test_the_quick_path_leaves_a_third_backends_vault_to_the_full_command() -> None:
    with pytest.raises(quick.Declined):
        quick._vault_arg(URL)


@pytest.mark.usefixtures("fake")
def test_a_third_backends_vault_has_no_scopes() -> None:
    with pytest.raises(ValueError, match="scopes need a vault folder"):
        check_layout(Config.model_construct(vault=URL, scopes={"work": object()}))


def test_opening_a_third_backends_vault_prepares_its_mirror_and_syncs_its_memory(fake: Path) -> None:
    root = open_vault(load_config(vault=URL))
    assert root == fake and (fake / ".fake-vault.json").read_text() == URL
    assert FakeHome.calls == ["take", "push"]  # the memory lock was taken, so the memory came from its home
    assert isinstance(home_of(root), FakeHome)


def test_a_command_works_on_a_third_backends_vault(fake: Path) -> None:
    result = hylo("context", "--vault", URL)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("# About the user")
    assert "take" in FakeHome.calls


def test_five_places_ask_the_registry_and_none_decides_itself() -> None:
    # "a URL means Hylo" was decided in five places; now only the registry's rows say what a vault is.
    root = Path(__file__).resolve().parent.parent / "pipeline"
    for rel in ("operations/opening.py", "cli/options.py", "cli/quick.py", "config.py", "scopes.py", "run/hints.py"):
        text = (root / rel).read_text(encoding="utf-8")
        assert "is_remote" in text, rel
        assert '"http://"' not in text and "'http://'" not in text, rel
