"""The documentation is the repository's own and checked against the code: every `docs/spec.md §N` the code
and tests cite is a heading of docs/spec.md, the generated pages are fresh, the README stays a front door,
and every relative link in it and in docs/ leads to a file."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CITED_IN = ("hylo_memory", "domain", "decay", "extractors", "pipeline", "templates", "tests", "bench", "examples")
CITATION = re.compile(r"docs/spec\.md §(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", re.MULTILINE)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _cited() -> dict[str, set[str]]:
    """Each section number cited, with the files citing it."""
    cited: dict[str, set[str]] = {}
    files = [ROOT / "pyproject.toml", *(p for top in CITED_IN for p in (ROOT / top).rglob("*") if p.is_file())]
    for path in files:
        if path.suffix not in {".py", ".md", ".toml", ".j2", ".txt"}:
            continue
        for number in CITATION.findall(path.read_text(encoding="utf-8", errors="replace")):
            cited.setdefault(number, set()).add(str(path.relative_to(ROOT)))
    return cited


def test_every_cited_section_of_the_spec_is_a_heading_of_docs_spec_md() -> None:
    cited = _cited()
    assert "4.5" in cited and "10" in cited  # the search found the citations
    headings = set(HEADING.findall((DOCS / "spec.md").read_text(encoding="utf-8")))
    missing = {number: sorted(files) for number, files in cited.items() if number not in headings}
    assert not missing, f"sections cited but not headings of docs/spec.md: {missing}"


def test_nothing_cites_a_contract_outside_the_repository() -> None:
    for path in (p for top in ("hylo_memory", "domain", "decay", "extractors", "pipeline", "templates")
                 for p in (ROOT / top).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "SPEC §" not in text and "shared/SPEC" not in text, path


@pytest.mark.slow
def test_the_generated_pages_are_fresh() -> None:
    # A process of its own: the command group is shared, and a test that ran a command has loaded it.
    done = subprocess.run([sys.executable, str(DOCS / "generate.py"), "--check"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, len(lines)


PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_relative_link_leads_to_a_file(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL or mailto:, or a heading of the same page
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert not broken, f"{page.name}: links to nothing: {broken}"
