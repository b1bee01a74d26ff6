"""Each app registers its parts with workspaces (workspaces/registry.py): workspaces names none of the higher apps'
labels, statuses or URLs, and what an app registers shows up: a verb's words, kind and link, an attention count on
the dashboard and in the menu, an index in every workspace's graph."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from afterhack import graph
from afterhack.history_graph import ChangeKind
from agents.selectors import decisions as agents_selectors
from tests.conftest import Trio, client_for
from workspaces import registry
from workspaces.models import AuditEvent
from workspaces.registry import AttentionPart, AuditVerb, DashboardItem, EventPage, IndexSet, MenuItem, PageLink
from workspaces.selectors import events as event_selectors
from workspaces.services.workspaces import graph_ensure

ROOT = Path(__file__).resolve().parents[2]
HIGHER = ("claims", "agents", "corrections", "mcp_server", "config")
# workspaces' own Python and templates: what it must be able to read without knowing the apps above it.
OWN_FILES = [
    *(p for p in sorted((ROOT / "workspaces").rglob("*.py")) if "migrations" not in p.parts),
    *sorted((ROOT / "templates" / "workspaces").rglob("*.html")),
    ROOT / "templates" / "partials" / "workspace_nav.html",
]
# Labels workspaces may name: its own, and the history's (afterhack/history_graph.py).
OWN_LABELS = {"Workspace", "Change"}
NODE_LABEL = re.compile(r"\(\w*:([A-Z]\w*)")


def higher_labels() -> set[str]:
    """Every label the higher apps' graph modules name in a node pattern."""
    return {
        label
        for app in HIGHER
        for path in (ROOT / app).rglob("*.py")
        if "graph" in path.relative_to(ROOT / app).parts or "graph" in path.stem
        for label in NODE_LABEL.findall(path.read_text())
    } - OWN_LABELS


def naming_higher_apps(path: Path, labels: set[str], root: Path = ROOT) -> list[str]:
    """'file: what' for each import of a higher app, URL name of one, or label of one, in the file."""
    text = path.read_text()
    name = str(path.relative_to(root))
    found = [f"{name}: URL {m}" for m in re.findall(r"\b(?:" + "|".join(HIGHER) + r"):\w+", text)]
    found += [f"{name}: label {label}" for label in sorted(labels) if re.search(rf"[:'\"]{label}\b", text)]
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            modules += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{name}: imports {m}" for m in modules if m.split(".")[0] in HIGHER]
    return found


class WorkspacesNamesNoHigherAppTests:
    def test_workspaces_names_no_higher_apps_label_status_or_url(self) -> None:
        labels = higher_labels()
        assert {"Source", "Claim", "Decision", "Action", "Correction", "Extraction"} <= labels
        assert [found for path in OWN_FILES for found in naming_higher_apps(path, labels)] == []

    def test_workspaces_names_no_payload_field_a_higher_app_registers(self) -> None:
        fields = {part.path.split(".")[0] for part in registry.EVENTS_ABOUT}
        assert {"claim_id", "action_id", "affected", "cancelled", "moved"} <= fields
        lookup = re.compile(r"payload__(" + "|".join(sorted(fields)) + r")\b")
        assert [f"{path.name}: {m.group(0)}" for path in OWN_FILES for m in lookup.finditer(path.read_text())] == []

    def test_the_check_notices_a_url_a_label_and_an_import(self, tmp_path: Path) -> None:
        (tmp_path / "views.py").write_text(
            'from agents.statuses import ActionStatus\nQ = "MATCH (d:Decision) RETURN d"\nU = "claims:source"\n'
        )
        found = naming_higher_apps(tmp_path / "views.py", {"Decision"}, root=tmp_path)
        assert sorted(found) == [
            "views.py: URL claims:source", "views.py: imports agents.statuses", "views.py: label Decision",
        ]  # fmt: skip


# A test app's parts: a verb naming a run's page, a count of probes on the dashboard and in the menu, an index.
POKED = AuditVerb(
    "test.poked", "poked “{target}” with {tool}", "Poked", page=EventPage("agents:run", "run_id", "run_id"),
    withheld="poked something (withheld: not a member)",
)  # fmt: skip
PROBES = AttentionPart(name="test", now=("OPTIONAL MATCH (p:Probe) RETURN count(p) AS probes",), columns=("probes",))
PROBES_TILE = DashboardItem("probes", ("probe", "probes"), "workspaces:activity", query="?kind=test.poked", order=99)
PROBES_MENU = MenuItem(
    "Probes", "workspaces:activity", "probes", order=99, badge=("probes",), badge_words=("{n} probe", "{n} probes")
)
PROBE_INDEX = IndexSet(by_id=("Probe",))
# Its events name the decisions they poked in a list inside their payload.
POKED_DECISIONS = registry.EventsAbout(ChangeKind.DECISION, "poked.decisions", among=True)
TEST_PARTS = (POKED, PROBES, PROBES_TILE, PROBES_MENU, PROBE_INDEX, PageLink("test_page", "workspaces:list"))


@pytest.fixture
def test_app() -> Iterator[None]:
    registry.register(*TEST_PARTS)
    try:
        yield
    finally:
        registry.unregister(*TEST_PARTS)


class RegisteredPartsTests:
    def test_a_registered_verb_shows_its_words_kind_and_link(self, trio: Trio, test_app: None) -> None:
        AuditEvent.objects.create(
            actor=trio.reviewer, actor_name="rita", workspace=trio.workspace, verb="test.poked", target="the run",
            payload={"run_id": "3f2b8c1e-0000-4000-8000-000000000001", "tool": "a stick"},
        )  # fmt: skip
        ws = trio.workspace.id
        page = client_for(trio.viewer).get(f"/w/{ws}/activity/").content.decode()
        assert "poked “the run” with a stick" in page
        assert f'href="/w/{ws}/runs/3f2b8c1e-0000-4000-8000-000000000001/"' in page
        assert '<option value="test.poked" >Poked</option>' in page

    def test_a_registered_count_shows_on_the_dashboard_and_in_the_menu_in_one_query(
        self, trio: Trio, test_app: None
    ) -> None:
        graph.query(trio.workspace, "CREATE (:Probe {id: 'p1'}), (:Probe {id: 'p2'})")
        ws = trio.workspace.id
        client = client_for(trio.viewer)
        before = graph.queries_sent()
        page = client.get(f"/w/{ws}/").content.decode()
        assert graph.queries_sent() - before == 1
        assert f'<a href="/w/{ws}/activity/?kind=test.poked"><strong>2</strong> probes</a>' in page
        assert 'aria-label="Probes, 2 probes">Probes<span class="navbadge" aria-hidden="true">2</span>' in page
        # Every part is still counted by the one query.
        assert "<strong>0</strong> decisions that lost support" in page

    def test_a_registered_index_is_made_in_every_workspace_graph(self, trio: Trio, test_app: None) -> None:
        graph_ensure(workspace=trio.workspace)
        kinds = {(label, prop) for label, prop, kind in graph_index_kinds(trio) if kind == "RANGE"}
        assert ("Probe", "id") in kinds and ("Claim", "id") in kinds

    def test_a_registered_page_link_is_found_by_its_role(self, test_app: None) -> None:
        from workspaces.templatetags.workspace_nav import registered_url

        assert registered_url("test_page") == "/w/" and registered_url("no_such_role") == ""

    def test_the_events_about_a_node_are_those_its_registered_fields_name(self, trio: Trio) -> None:
        def poked(*decisions: str) -> AuditEvent:
            return AuditEvent.objects.create(
                actor_name="rita",
                workspace=trio.workspace,
                verb="test.poked",
                payload={"poked": {"decisions": decisions}},
            )

        first, _, both = poked("d1"), poked("d2"), poked("d2", "d1")

        def about_d1() -> list[AuditEvent]:
            return list(event_selectors.node_events(workspace=trio.workspace, kind=ChangeKind.DECISION, node_id="d1"))

        assert about_d1() == []  # no app registered where events name a decision
        registry.register(POKED_DECISIONS)
        try:
            assert about_d1() == [first, both]
        finally:
            registry.unregister(POKED_DECISIONS)
        assert about_d1() == []

    def test_a_part_registered_again_differently_is_refused(self, test_app: None) -> None:
        with pytest.raises(registry.RegistryConflict):
            registry.register(AuditVerb("test.poked", "poked", "Poked differently"))
        with pytest.raises(registry.RegistryConflict):
            registry.register(AttentionPart(name="other", now=("RETURN 1 AS probes",), columns=("probes",)))


def graph_index_kinds(trio: Trio) -> set[tuple[str, str, str]]:
    from workspaces.graph import index_kinds

    return index_kinds(workspace=trio.workspace)


class OneUnansweredRuleTests:
    def test_the_dashboard_counts_unanswered_questions_by_the_review_pages_rule(self, trio: Trio) -> None:
        # Written before decisions stored a kind: an agent's decision nothing supports is an unanswered question
        # only with the no-answer title its run gave it (agents/graph/decisions.py DECISION_KIND); without, it lost support.
        graph.query(trio.workspace, "CREATE (:Decision {id: 'd1', status: 'needs_review', origin: 'agent'})")
        review = agents_selectors.review(workspace=trio.workspace)
        assert [d.id for d in review.lost_support] == ["d1"] and review.unanswered == []
        page = client_for(trio.viewer).get(f"/w/{trio.workspace.id}/").content.decode()
        assert "<strong>1</strong> decision that lost support" in page
        assert "<strong>0</strong> unanswered questions" in page
