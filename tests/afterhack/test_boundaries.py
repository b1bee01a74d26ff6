"""House rules that keep the architecture honest, checked on the source tree."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP_DIRS = ("afterhack", "workspaces", "claims", "agents", "corrections")


def modules_importing(package: str) -> set[str]:
    """Project modules (outside tests) that import `package` or a submodule of it."""
    found = set()
    for folder in APP_DIRS:
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                if any(name == package or name.startswith(package + ".") for name in names):
                    found.add(str(path.relative_to(ROOT)))
    return found


class BoundaryTests:
    def test_it_reaches_falkordb_only_through_the_gateway(self) -> None:
        assert modules_importing("falkordb") == {"afterhack/graph.py"}

    def test_it_reaches_the_model_only_through_the_llm_module(self) -> None:
        assert modules_importing("openai") <= {"afterhack/llm.py"}

    def test_the_checker_notices_an_import(self, tmp_path: Path) -> None:
        source = "import os\nfrom falkordb import FalkorDB\n"
        tree = ast.parse(source)
        imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert imports and imports[0].module == "falkordb"
