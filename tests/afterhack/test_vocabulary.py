"""The named vocabulary: templates name statuses and kinds through the enums, and every name they use exists."""

from __future__ import annotations

import ast
import importlib
import re
from enum import StrEnum
from pathlib import Path

import pytest
from django.conf import settings

from afterhack.cypher import word, words
from afterhack.text import LIMITS
from agents.graph.decisions import DECISION_KIND
from agents.graph.runs import RUN_FAIL
from agents.selectors.runs import EVENT_TEMPLATES
from agents.statuses import ActionStatus, TrajectoryEventKind
from claims.graph.search import SearchHit
from claims.statuses import ClaimStatus
from config.context_processors import VOCABULARY, vocabulary
from corrections.graph.timeline import CAUSE_FIRST

TEMPLATES = Path(settings.BASE_DIR) / "templates"
ENUMS = {enum.__name__: enum for enum in VOCABULARY}
# `ClaimStatus.CURRENT`: an enum of the vocabulary and one of its members, as a template writes it.
REFERENCE = re.compile(r"\b(" + "|".join(ENUMS) + r")\.(\w+)")
# `claim.status == "current"`: a status or kind compared with a bare string.
# `limits.MAX_TITLE_CHARS`: a text limit, and `maxlength="300"`: a limit written out again.
LIMIT = re.compile(r"\blimits\.(\w+)")
NUMBER_LIMIT = re.compile(r'maxlength="\d')
BARE = re.compile(r"\.(status|kind|confidence_kind|agent) ?[!=]= ?[\"']")


def template_texts() -> dict[str, str]:
    return {str(path.relative_to(TEMPLATES)): path.read_text() for path in TEMPLATES.rglob("*.html")}


class VocabularyTests:
    def test_every_enum_member_a_template_names_exists(self) -> None:
        unknown = [
            f"{name}: {match.group(0)}"
            for name, text in template_texts().items()
            for match in REFERENCE.finditer(text)
            if match.group(2) not in ENUMS[match.group(1)].__members__
        ]
        assert unknown == []

    def test_templates_compare_statuses_and_kinds_by_name(self) -> None:
        bare = [f"{name}: {line.strip()[:80]}" for name, text in template_texts().items()
                for line in text.splitlines() if BARE.search(line)]  # fmt: skip
        assert bare == []

    def test_the_checker_notices_a_misspelt_member_and_a_bare_string(self) -> None:
        misspelt = REFERENCE.search("{% if claim.status == ClaimStatus.CURENT %}")
        assert misspelt is not None and misspelt.group(2) not in ENUMS["ClaimStatus"].__members__
        assert BARE.search('{% if claim.status == "current" %}')

    def test_templates_see_each_enum_by_its_name(self) -> None:
        context = vocabulary(None)
        assert context["ClaimStatus"]["CURRENT"] == "current"
        assert context["TrajectoryEventKind"]["ACTIONS_WITHHELD"] == "actions_withheld"

    def test_every_trajectory_event_kind_has_its_template(self) -> None:
        assert set(EVENT_TEMPLATES) == set(TrajectoryEventKind)
        assert all((TEMPLATES / name).is_file() for name in EVENT_TEMPLATES.values())

    def test_every_text_limit_a_template_names_exists_and_none_is_written_out(self) -> None:
        texts = template_texts()
        named = {match.group(1) for text in texts.values() for match in LIMIT.finditer(text)}
        assert named and named <= set(LIMITS)
        assert [name for name, text in texts.items() if NUMBER_LIMIT.search(text)] == []
        assert vocabulary(None)["limits"]["MAX_TITLE_CHARS"] == 300


# -- the graph modules: every status word a query compares or sets is an enum member ------------------------------

# What a query names by a word of the vocabulary: a node's (or a Change's) status, kind, cause, origin, confidence
# kind and agent, and the parameters that carry one ($impact: a CorrectionImpact, $actions: RevisedActions).
# Not here: a SUPPORTED_BY edge's role, an extractor's or a fragment's origin_type (names, not enums).
WORD_PROPERTIES = ("status", "to_status", "from_status", "kind", "cause", "origin", "confidence_kind", "agent",
                   "impact", "actions")  # fmt: skip
_PROPERTY = r"(?<![\w])(?:\w+\.|\$)?(?:" + "|".join(WORD_PROPERTIES) + r")\b"
# `c.status = 'current'`, `status: 'queued'`, `d.status <> 'superseded'`, `$actions = 'move'`
COMPARED_OR_SET = re.compile(_PROPERTY + r"\s*(?:=|<>|!=|:)\s*'(\w+)'")
# `coalesce(d.origin, 'reviewer')`
DEFAULTED = re.compile(r"coalesce\(\s*" + _PROPERTY + r"\s*,\s*'(\w+)'\s*\)")
# `e.status IN ['queued', 'running']`
IN_LIST = re.compile(_PROPERTY + r"\s+(?:NOT\s+)?IN\s*\[([^\]]*)\]")
# `kind: CASE ... END`, `CASE ... END AS status`, `CASE x.kind WHEN 'claim' ...`: every word the CASE yields or tests.
CASE_OF = re.compile(_PROPERTY + r"\s*:\s*CASE\b((?:(?!\bCASE\b).)*?)\bEND\b", re.S)
CASE_AS = re.compile(r"\bCASE\b((?:(?!\bCASE\b).)*?)\bEND\s+AS\s+" + _PROPERTY, re.S)
CASE_ON = re.compile(r"\bCASE\s+" + _PROPERTY + r"((?:(?!\bCASE\b).)*?)\bEND\b", re.S)
QUOTED = re.compile(r"'(\w+)'")
CASE_WORD = re.compile(r"\b(?:THEN|ELSE|WHEN)\s+'(\w+)'")


def graph_module_paths() -> list[Path]:
    """Every module holding Cypher: an app's graph/ package, a `*_graph.py`, and the gateway afterhack/graph.py."""
    root = Path(settings.BASE_DIR)
    found = {root / "afterhack" / "graph.py"}
    for app in (p for p in root.iterdir() if (p / "apps.py").is_file()):
        found |= set((app / "graph").glob("*.py")) | set(app.rglob("*_graph.py"))
    return sorted(path for path in found if "migrations" not in path.parts)


def vocabulary_words() -> set[str]:
    """The value of every member of every StrEnum of the vocabulary: each app's statuses.py and the history's
    kinds and causes."""
    root = Path(settings.BASE_DIR)
    modules = [f"{p.parent.name}.statuses" for p in sorted(root.glob("*/statuses.py"))] + ["afterhack.history_graph"]
    enums = {v for name in modules for v in vars(importlib.import_module(name)).values()
             if isinstance(v, type) and issubclass(v, StrEnum) and v is not StrEnum}  # fmt: skip
    return {member.value for enum in enums for member in enum}


def status_words(cypher: str) -> set[str]:
    """The quoted words a piece of Cypher compares to, or sets on, a status-like property (WORD_PROPERTIES)."""
    found = {m.group(1) for pattern in (COMPARED_OR_SET, DEFAULTED) for m in pattern.finditer(cypher)}
    found |= {w for m in IN_LIST.finditer(cypher) for w in QUOTED.findall(m.group(1))}
    found |= {w for pattern in (CASE_OF, CASE_AS, CASE_ON) for m in pattern.finditer(cypher)
              for w in CASE_WORD.findall(m.group(1))}  # fmt: skip
    return found


def typed_words(source: str) -> set[str]:
    """The status words in a module's string literals (an f-string's literal parts too), and the words handed to
    `record_change` (kind=, cause=, to_status=)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found |= status_words(node.value)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "record_change":
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg in ("kind", "cause", "to_status") and isinstance(value, ast.Constant):
                    # to_status is a Cypher expression (a quoted word, a variable); kind and cause are words.
                    text = str(value.value)
                    if keyword.arg == "to_status":
                        found |= set(QUOTED.findall(text))
                    elif not text.startswith("$"):
                        found.add(text)
    return found


def rendered_words(module: object) -> set[str]:
    """The status words in the queries a module has built: its string constants as they run."""
    texts = [v for v in vars(module).values() if isinstance(v, str)]
    texts += [t for v in vars(module).values() if isinstance(v, dict) for t in v.values() if isinstance(t, str)]
    return {w for text in texts for w in status_words(text)}


class GraphVocabularyTests:
    def test_every_status_word_typed_in_a_graph_module_is_an_enum_member(self) -> None:
        known = vocabulary_words()
        unknown = {f"{path.relative_to(settings.BASE_DIR)}: {w}" for path in graph_module_paths()
                   for w in typed_words(path.read_text()) - known}  # fmt: skip
        assert unknown == set()

    def test_every_status_word_a_graph_module_renders_is_an_enum_member(self) -> None:
        known, root = vocabulary_words(), Path(settings.BASE_DIR)
        names = [".".join(path.relative_to(root).with_suffix("").parts) for path in graph_module_paths()]
        rendered = {name: rendered_words(importlib.import_module(name)) for name in names}
        assert {f"{name}: {w}" for name, found in rendered.items() for w in found - known} == set()
        # It reads what the queries say: the words generated from the enums are there.
        assert {"current", "needs_review", "held", "queued", "claim", "migration"} <= set().union(*rendered.values())

    def test_it_reads_every_graph_module(self) -> None:
        paths = {str(path.relative_to(settings.BASE_DIR)) for path in graph_module_paths()}
        assert {"afterhack/graph.py", "afterhack/history_graph.py", "claims/graph/claims.py",
                "agents/graph/runs.py", "corrections/graph/review.py"} <= paths  # fmt: skip

    def test_the_checker_notices_a_made_up_status_word(self) -> None:
        known = vocabulary_words()
        for cypher in (
            "MATCH (c:Claim) WHERE c.status = 'archived' RETURN c",
            "CREATE (d:Decision {id: $id, status: 'archived'})",
            "MATCH (a:Action) WHERE a.status IN ['pending', 'archived'] RETURN a",
            "MATCH (d:Decision) RETURN coalesce(d.origin, 'archived')",
            "WITH d, CASE WHEN n > 0 THEN 'supported' ELSE 'archived' END AS status",
            "CREATE (d:Decision {kind: CASE WHEN x THEN 'agent' ELSE 'archived' END})",
            "ORDER BY CASE x.kind WHEN 'archived' THEN 0 ELSE 1 END",
            "WHERE ($impact = 'archived')",
        ):
            assert status_words(cypher) - known == {"archived"}, cypher
        source = "Q = f\"MATCH (c) WHERE c.status = {word(S.X)} AND c.kind = 'archived'\"\n"
        source += (
            "F = record_change('c', kind='claim', to_status=\"'archived'\", cause='person', cause_id='', actor='')\n"
        )
        assert typed_words(source) - known == {"archived"}
        # Words of other things are left alone: roles, extractors, index options, codes.
        assert status_words("MERGE (c)-[:SUPPORTED_BY {role: 'evidence'}]->(f) SET c.extractor = 'derived'") == set()

    def test_a_generated_word_renders_as_the_typed_one_did(self) -> None:
        assert word(ClaimStatus.CURRENT) == "'current'"
        assert words(ActionStatus.PENDING, ActionStatus.HELD) == "['pending', 'held']"
        with pytest.raises(ValueError):
            word("current")  # type: ignore[arg-type]
        # And back: a status read as text is held as its member, and a word that is none is refused.
        assert SearchHit("c1", "A claim.", "current", None, 1).status is ClaimStatus.CURRENT  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            SearchHit("c1", "A claim.", "archived", None, 1)  # type: ignore[arg-type]
        # Queries as they read when their words were typed.
        assert CAUSE_FIRST == "CASE x.kind WHEN 'claim' THEN 0 WHEN 'decision' THEN 1 ELSE 2 END"
        assert DECISION_KIND == (
            "coalesce(d.kind, CASE WHEN coalesce(d.origin, 'reviewer') <> 'agent' THEN 'manual' WHEN d.title = "
            "$no_answer_title AND size([(s)-[:SUPPORTS]->(d) | s]) = 0 THEN 'unanswered' ELSE 'agent' END)"
        )
        assert RUN_FAIL.startswith(
            "\nMATCH (r:AgentRun {id: $run_id})\nWHERE r.status IN ['queued', 'running']\nSET r.status = 'failed', "
        )
