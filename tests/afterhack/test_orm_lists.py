"""The lists of database rows (the activity list, the staff audit) declare each filter once, with its ORM condition
(`Filter.orm`), and apply them through afterhack/lists/orm.py: a filter declared without its query is refused, and
no function reads a list's filters by hand to filter a QuerySet."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.db.models import Q

from afterhack.lists import orm as lists_orm
from afterhack.lists.filters import Filter, FilterKind
from afterhack.lists.spec import ListSpec
from corrections.selectors.audit import audit_spec
from workspaces.models import AuditEvent
from workspaces.selectors.events import event_spec

ROOT = Path(__file__).resolve().parents[2]
APP_DIRS = ("afterhack", "workspaces", "claims", "agents", "corrections", "mcp_server", "config")
# What filters a QuerySet.
QUERYSET_CALLS = {"filter", "exclude"}
# What reads a list's cleaned filters: `criteria.get("kind")`, `criteria.filters`, `criteria.day_range()`.
CRITERIA_READS = {"get", "filters", "day_range"}


def _reads_criteria(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Attribute) and node.attr in CRITERIA_READS):
        return False
    owner = node.value
    return (isinstance(owner, ast.Name) and owner.id.endswith("criteria")) or (
        isinstance(owner, ast.Attribute) and owner.attr == "criteria"
    )


def filters_applied_by_hand(root: Path = ROOT) -> list[str]:
    """'file:function' for each function of the application that reads a list's filters from its criteria and
    filters a QuerySet: the filters of a list of rows are applied by `afterhack.lists.orm.filtered` only."""
    found = []
    for folder in APP_DIRS:
        for path in sorted((root / folder).rglob("*.py")):
            if path.parent == root / "afterhack" / "lists" or "migrations" in path.parts:
                continue
            for function in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                nodes = list(ast.walk(function))
                filters_rows = any(
                    isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in QUERYSET_CALLS
                    for n in nodes
                )
                if filters_rows and any(_reads_criteria(n) for n in nodes):
                    found.append(f"{path.relative_to(root)}:{function.name}")
    return found


class DeclaredOnceTests:
    @pytest.mark.django_db
    def test_every_filter_of_a_list_of_rows_carries_its_orm_condition(self) -> None:
        for spec in (event_spec("activity"), audit_spec()):
            assert spec.filters and [name for name, f in spec.filters.items() if f.orm is None] == [], spec.name

    def test_no_function_applies_a_lists_filters_by_hand(self) -> None:
        assert filters_applied_by_hand() == []

    def test_the_checker_notices_filters_applied_by_hand(self, tmp_path: Path) -> None:
        (tmp_path / "workspaces").mkdir()
        (tmp_path / "workspaces" / "selectors.py").write_text(
            "def audit_events(*, criteria):\n"
            "    events = AuditEvent.objects.all()\n"
            "    if kind := criteria.get('kind'):\n"
            "        events = events.filter(verb=kind)\n"
            "    return events\n\n\n"
            "def listed(listing):\n"
            "    return Event.objects.exclude(day__gte=listing.criteria.day_range()[0])\n\n\n"
            "def fine(criteria):\n"
            "    return criteria.get('actor').lower()\n"
        )
        assert filters_applied_by_hand(tmp_path) == [
            "workspaces/selectors.py:audit_events",
            "workspaces/selectors.py:listed",
        ]

    @pytest.mark.django_db
    def test_a_filter_declared_without_its_query_is_refused_asked_or_not(self) -> None:
        spec = ListSpec(
            name="probes", noun=("probe", "probes"), sorts={"when": "When"}, default_sort="-when",
            filters={"kind": Filter("Kind", orm=lambda verb: Q(verb=verb)), "since": Filter("From", FilterKind.DAY)},
        )  # fmt: skip
        criteria, _ = spec.criteria({})
        with pytest.raises(lists_orm.FilterWithoutQuery, match=r"probes list's filters \['since'\]"):
            lists_orm.filtered(AuditEvent.objects.all(), spec, criteria)

    @pytest.mark.django_db
    def test_only_the_filters_asked_for_are_applied_each_once(self) -> None:
        asked: list[str] = []

        def kind(verb: str) -> Q:
            asked.append(verb)
            return Q(verb=verb)

        spec = ListSpec(
            name="probes", noun=("probe", "probes"), sorts={"when": "When"}, default_sort="-when",
            filters={"kind": Filter("Kind", orm=kind), "actor": Filter("Person", orm=lambda p: Q(actor_name=p))},
        )  # fmt: skip
        criteria, _ = spec.criteria({"kind": "test.poked"})
        rows = lists_orm.filtered(AuditEvent.objects.all(), spec, criteria)
        where = str(rows.query).split(" WHERE ")[1]
        assert asked == ["test.poked"] and "actor_name" not in where and "verb" in where
