"""The docs name files that exist (every repository path written in backticks in README.md and docs/*.md), and no
file of the project sends a reader to a document kept outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
# The repository's top-level folders a path in the docs starts with.
TOP = ("afterhack", "workspaces", "claims", "agents", "corrections", "mcp_server", "config", "benchmarks", "tests",
       "templates", "docs")  # fmt: skip
# A path-like word: a top folder, then at least one more segment; `:12` (a line) and a trailing `/` are left out.
PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(TOP) + r")/[\w./-]*[\w])(?::\d+)?")
# A placeholder (`<app>/graph.py`), a set of names (`graph/{a,b}.py`) or a glob (`*_graph.py`) names no one file.
PLACEHOLDER = re.compile(r"[<>{}*…]")


def paths_named(text: str) -> list[tuple[int, str]]:
    """(line, path) for each repository path written inside backticks in this Markdown text."""
    found = []
    for match in re.finditer(r"`([^`\n]+)`", text):
        line = text.count("\n", 0, match.start()) + 1
        for word in match.group(1).split():
            if PLACEHOLDER.search(word):
                continue
            found += [(line, path) for path in PATH.findall(word)]
    return found


def missing_paths(docs: tuple[Path, ...] = DOCS, root: Path = ROOT) -> list[str]:
    """'doc:line path' for each path a doc names that the repository does not hold."""
    return [
        f"{doc.relative_to(root)}:{line} {path}"
        for doc in docs
        for line, path in paths_named(doc.read_text())
        if not (root / path).exists()
    ]


def test_every_path_the_docs_name_exists() -> None:
    assert missing_paths() == []


def test_the_check_notices_a_path_that_is_gone(tmp_path: Path) -> None:
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "lists.py").write_text("")
    doc = tmp_path / "notes.md"
    doc.write_text(
        "Lists: `claims/lists.py`, the old `claims/graph.py:12` and `afterhack/listing.py`;\n"
        "not paths: `<app>/graph.py`, `claims/graph/{sources,claims}.py`, `*_graph.py`, `claims.graph`.\n"
    )
    assert missing_paths((doc,), tmp_path) == ["notes.md:1 claims/graph.py", "notes.md:1 afterhack/listing.py"]


# The design documents kept outside the repository, which a clone does not have: nothing in it may send a reader there.
OUTSIDE_DOCS = re.compile(r"\b(?:API|DESIGN|CONVENTIONS)\.md\b")


def project_files(root: Path = ROOT) -> list[Path]:
    """Every .py, .html and .md file of the project: at its top, and under its top-level folders."""
    kinds = (".py", ".html", ".md")
    return sorted(
        [path for path in root.iterdir() if path.is_file() and path.suffix in kinds]
        + [path for top in TOP for path in (root / top).rglob("*") if path.suffix in kinds and path.is_file()]
    )


def outside_docs_named(files: list[Path], root: Path = ROOT) -> list[str]:
    """'file:line' for each line that names a document kept outside the repository."""
    return [
        f"{path.relative_to(root)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1)
        if OUTSIDE_DOCS.search(line)
    ]


def test_no_file_names_a_document_kept_outside_the_repository() -> None:
    assert outside_docs_named(project_files()) == []


def test_the_check_notices_a_file_that_names_one(tmp_path: Path) -> None:
    (tmp_path / "claims").mkdir()
    outside = "API" + ".md"
    (tmp_path / "claims" / "api.py").write_text(f'"""The API ({outside} §2)."""\n')
    (tmp_path / "README.md").write_text("See docs/api.md and docs/design.md.\n")
    assert outside_docs_named(project_files(tmp_path), tmp_path) == ["claims/api.py:1"]
