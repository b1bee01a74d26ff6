"""Every page, as a hostile client would use it: NUL, unstorable text, huge numbers and strings, wrong types, bad ids.

For each view, every query parameter, form field and id in its path gets each hostile value in turn
(the other fields valid). The answer must never be a 5xx, and a refused request must leave both
stores exactly as they were: the stores are fingerprinted before and after each batch of requests
(not around each of the ~2,500), and a batch that wrote is named with its requests.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.test import Client

from afterhack import graph
from agents.services import runs as agents_services
from claims.text import MAX_SOURCE_CHARS
from corrections.models import CorrectionIntent
from tests.corrections.conftest import World
from tests.corrections.conftest import world as world  # the launch story, reused here
from webhooks.models import Attempt, Endpoint, Message
from workspaces.models import ApiToken, AuditEvent, Membership, Workspace

pytestmark = pytest.mark.django_db

NUL = "a\x00b"
# Percent-encoded so the client sends the bytes as they are: UTF-8 for a lone surrogate, and not UTF-8 at all.
SURROGATE, NOT_UTF8 = "%ED%A0%80", "%FF%FE"
HUGE_TEXT = "x" * (MAX_SOURCE_CHARS + 1)
HUGE_NUMBERS = [str(2**63), str(2**64), "1" + "0" * 30, "9" * 5000]
ODD_NUMBERS = ["-1", "1.5", "1e400", "NaN", "abc", "²", ""]
BAD_IDS = ["not-a-uuid", "%00", "x" * 5000, SURROGATE, "99999999999999999999", "00000000-0000-0000-0000-000000000000"]

TEXT = [NUL, HUGE_TEXT]
NUMBER = [NUL, *HUGE_NUMBERS, *ODD_NUMBERS]
CHOICE = [NUL, "abc", "x" * 10_000, SURROGATE]
IDS = [NUL, "not-a-uuid", "x" * 100_000, SURROGATE, "00000000-0000-0000-0000-000000000000"]
QUERY = [NUL, "%00", SURROGATE, NOT_UTF8, "x" * 100_000, *HUGE_NUMBERS, "-1", "1.5", "²", "9999-12-31", "0001-01-01"]
# ...and for a moment (`as_of`), moments: readable ones in the past too, out of range with an offset, half a moment.
MOMENTS = ["2020-01-01T00:00:00%2B14:00", "0001-01-01T00:00:00%2B01:00", "0001-01-01", "2026-02-30", "T09:30"]


@dataclass(frozen=True)
class Page:
    """One view: its path (with {ids}), the query parameters it reads, and for a form its valid fields."""

    path: str
    params: tuple[str, ...] = ()
    form: dict[str, str] = field(default_factory=dict)
    # Each form field's hostile values; a refused field must make the whole request write nothing.
    kinds: dict[str, list[str]] = field(default_factory=dict)
    staff: bool = False


WS = "/w/{ws}"
PAGES = {
    # workspaces
    "workspaces": Page("/w/"),
    "workspace_create": Page("/w/new", form={"name": "New"}, kinds={"name": TEXT}),
    "dashboard": Page(WS + "/", params=("as_of",)),
    "activity": Page(WS + "/activity/", params=("actor", "kind", "since", "until", "q", "sort", "page")),
    "members": Page(WS + "/members/"),
    "workspace_settings": Page(
        WS + "/settings", form={"agent_claims_need_approval": "on"}, kinds={"agent_claims_need_approval": CHOICE}
    ),
    "member_add": Page(
        WS + "/members/add", form={"username": "oscar", "role": "viewer"}, kinds={"username": TEXT, "role": CHOICE}
    ),
    "member_role": Page(WS + "/members/{membership}/role", form={"role": "reviewer"}, kinds={"role": CHOICE}),
    "member_remove": Page(WS + "/members/{membership}/remove", form={"confirmed": "yes"}, kinds={"confirmed": [NUL]}),
    # sources and claims
    "sources": Page(WS + "/sources/", params=("q", "status", "extraction", "author", "from", "to", "sort", "page")),
    "source_new": Page(
        WS + "/sources/new", form={"title": "T", "text": "A new text."}, kinds={"title": TEXT, "text": TEXT}
    ),
    "source": Page(WS + "/sources/{source}/"),
    "extraction": Page(WS + "/sources/{source}/extraction", params=("polling",)),
    "extract": Page(WS + "/sources/{source}/extract", form={"go": "1"}),
    "claim_add": Page(
        WS + "/sources/{source}/claims",
        form={"statement": "Marketing starts.", "evidence_quote": "Marketing starts in May", "start": "60"},
        kinds={"statement": TEXT, "evidence_quote": TEXT, "start": NUMBER[:-1]},
    ),
    "search": Page(WS + "/claims/", params=("q", "mode", "status", "source", "author", "from", "to", "sort", "page")),
    "cards": Page(WS + "/claims/cards", params=("ids",)),
    "derive": Page(
        WS + "/claims/derive",
        form={"statement": "So it is summer.", "derived_from": "{june}"},
        kinds={
            "statement": TEXT,
            "derived_from": IDS,
            "derived_from_q": [NUL],
            "pick": CHOICE,
            "unpick": CHOICE,
            "find": CHOICE,
        },
    ),
    "claim": Page(WS + "/claims/{june}/", params=("as_of",)),
    "claim_pick": Page(WS + "/claims/pick?field=x", params=("field", "key", "x", "x_q", "single", "any")),
    # the agent, decisions, actions
    "ask": Page(WS + "/ask/", form={"question": "When?"}, kinds={"question": TEXT}),
    "runs": Page(WS + "/runs/", params=("q", "origin", "status", "person", "from", "to", "sort", "page")),
    "run": Page(WS + "/runs/{run}/", params=("before",)),
    "decisions": Page(WS + "/decisions/", params=("q", "status", "kind", "author", "from", "to", "sort", "page")),
    "decision_create": Page(
        WS + "/decisions/new",
        params=("more", "groups", "j3_claims_q", "j3_claims"),
        form={"title": "D", "rationale": "r", "justifications": "{june}", "j2_claims": "{board}"},
        kinds={
            "title": TEXT,
            "rationale": TEXT,
            "justifications": IDS,
            "j1_claims": IDS,
            "j2_decisions": IDS,
            "pick": [*CHOICE, "j1_claims {june}"],
            "unpick": CHOICE,
            "find": CHOICE,
            "more": CHOICE,
        },
    ),
    "decision_pick": Page(WS + "/decisions/pick", params=("field", "key", "q", "chosen", "single", "any", "x_q")),
    "decision": Page(WS + "/decisions/{decision}/", params=("as_of",)),
    "action_create": Page(WS + "/decisions/{decision}/actions", form={"title": "A"}, kinds={"title": TEXT}),
    "actions": Page(
        WS + "/actions/",
        params=("q", "status", "decision", "author", "from", "to", "sort", "page", "decision_q", "pick", "unpick"),
    ),
    "action": Page(WS + "/actions/{action}/", params=("as_of",)),
    "action_mark": Page(
        WS + "/actions/{action}/status",
        form={"status": "done", "next": "/w/", "confirmed": "yes"},
        kinds={"status": CHOICE, "next": [NUL], "confirmed": [NUL]},
    ),
    # corrections
    "correct": Page(
        WS + "/claims/{ana}/correct",
        params=("evidence_source_id",),
        form={"statement": "Ben owns it.", "reason": "r", "evidence_source_id": "{source}", "evidence_quote": "Ana"},
        kinds={
            "statement": TEXT,
            "reason": TEXT,
            "evidence_source_id": IDS,
            "evidence_quote": TEXT,
            "evidence_start": NUMBER[:-1],
        },
    ),
    "apply": Page(
        WS + "/claims/{june}/correct/apply",
        form={
            "statement": "The launch is in July.",
            "reason": "Board.",
            "revision": "{revision}",
            "idempotency_key": "{key}",
            "previewed": "{}",
            "evidence_source_id": "{source}",
            "evidence_quote": "Ana owns the checklist",
        },
        kinds={
            "statement": TEXT,
            "reason": TEXT,
            "revision": NUMBER,
            "idempotency_key": TEXT,
            "previewed": [NUL],
            "evidence_source_id": IDS,
            "evidence_quote": [NUL, HUGE_TEXT, "Ana owns the checklist!"],
            "evidence_start": NUMBER[:-1],
        },
    ),
    "chain": Page(WS + "/claims/{june}/chain"),
    "revise": Page(WS + "/sources/{source}/revise", form={"text": "Another text."}, kinds={"text": TEXT}),
    "review": Page(WS + "/review/", params=("for", "q", "chosen")),
    "suggestion_reject": Page(
        WS + "/suggestions/{suggestion}/reject",
        form={"verdict": "both_hold", "reason": "Two different events."},
        kinds={"verdict": CHOICE, "reason": TEXT},
    ),
    "proposed_decide": Page(
        WS + "/proposed-claims",
        form={"action": "approve", "ids": "{decision}"},
        kinds={"action": CHOICE, "ids": IDS, "approve_one": IDS, "reject_one": IDS, "listed": IDS},
    ),
    "review_decision": Page(WS + "/review/{decision}/", params=("q", "chosen")),
    "resolve": Page(
        WS + "/review/{decision}",
        form={"resolution": "rejustify", "support_ids": "{board}"},
        kinds={"resolution": [NUL, *CHOICE], "support_ids": IDS},
    ),
    # A button of the claim picker (no JavaScript) only shows the page again, changed.
    "resolve_pick": Page(
        WS + "/review/{decision}",
        form={"resolution": "rejustify", "support_ids": "{board}", "pick": "d{decision} {june}"},
        kinds={"pick": CHOICE, "unpick": CHOICE, "find": CHOICE},
    ),
    "resolve_revise": Page(
        WS + "/review/{decision}",
        form={"resolution": "revise", "title": "Launch", "rationale": "r", "support_ids": "{board}", "actions": "move"},
        kinds={"title": TEXT, "rationale": TEXT, "support_ids": IDS, "actions": CHOICE},
    ),
    # Without confirmed=yes a dismissal only asks: no hostile value may get it to write.
    "resolve_dismiss": Page(
        WS + "/review/{decision}",
        form={"resolution": "dismiss", "next": "/w/"},
        kinds={"next": [NUL, "//elsewhere.example/", "x" * 10_000, SURROGATE], "confirmed": [NUL, "no", "YES"]},
    ),
    # The action needs no follow-up: every answer is refused (409), whatever its fields hold.
    "follow_up": Page(
        WS + "/review/acted-on/{action}",
        form={"answer": "not_needed", "reason": "Nobody read it."},
        kinds={"answer": CHOICE, "reason": TEXT, "title": TEXT, "decision_ids": IDS},
    ),
    "history": Page(
        WS + "/corrections/",
        params=("actor", "claim", "kind", "since", "until", "sort", "page", "claim_q", "pick", "unpick"),
    ),
    "correction": Page(WS + "/corrections/{correction}/"),
    "prov": Page(WS + "/prov?root={june}", params=("root", "format")),
    "timeline": Page(WS + "/timeline/", params=("kind", "cause", "actor", "since", "until", "q", "sort", "page")),
    "diff": Page(WS + "/diff/", params=("from", "to")),
    "audit": Page("/audit/", params=("workspace", "actor", "kind", "since", "until", "q", "sort", "page"), staff=True),
    "audit_export": Page(
        "/audit/export.csv", params=("workspace", "actor", "kind", "since", "until", "q", "sort"), staff=True
    ),
    "audit_detail": Page("/audit/corrections/{ws}/{correction}/", staff=True),
    "audit_event": Page("/audit/events/{event}/", staff=True),
    "audit_prov": Page("/audit/prov?workspace={ws}&root={june}", params=("workspace", "root", "format"), staff=True),
    # the admin
    "admin_events": Page(
        "/admin/workspaces/auditevent/",
        params=("q", "p", "o", "verb", "workspace__id__exact", "created_at__year", "created_at__gte", "e"),
        staff=True,
    ),
    "admin_event_days": Page(
        "/admin/workspaces/auditevent/?created_at__year=2026&created_at__month=1",
        params=("created_at__day",),
        staff=True,
    ),
    "admin_workspaces": Page("/admin/workspaces/workspace/", params=("q", "o", "p"), staff=True),
    "admin_workspace": Page("/admin/workspaces/workspace/{ws}/change/", staff=True),
    "admin_memberships": Page(
        "/admin/workspaces/membership/", params=("q", "role__exact", "workspace__id__exact"), staff=True
    ),
    "admin_membership_add": Page(
        "/admin/workspaces/membership/add/",
        params=("user", "workspace", "role"),
        form={"user": "{outsider}", "workspace": "{ws}", "role": "viewer"},
        kinds={"user": IDS, "workspace": IDS, "role": CHOICE},
        staff=True,
    ),
    "admin_membership_delete": Page(
        "/admin/workspaces/membership/",
        form={"action": "delete_selected", "_selected_action": "{membership}", "post": "yes"},
        kinds={"_selected_action": [NUL, *HUGE_NUMBERS, "abc"], "action": [NUL]},
        staff=True,
    ),
    # webhooks (the workspace's admins: the owner)
    "webhooks": Page(WS + "/webhooks/", staff=True),
    "webhook_create": Page(
        WS + "/webhooks/add",
        form={"url": "http://127.0.0.1:9/x", "events": "claim.retracted"},
        kinds={"url": [*TEXT, "ftp://x", "http://127.0.0.1:8000/"], "events": CHOICE},
        staff=True,
    ),
    "webhook": Page(WS + "/webhooks/{webhook}/", params=("cursor",), staff=True),
    "webhook_change": Page(
        WS + "/webhooks/{webhook}/change",
        form={"url": "http://127.0.0.1:9/y", "events": "claim.retracted"},
        kinds={"url": [*TEXT, "ftp://x"], "events": CHOICE},
        staff=True,
    ),
    "webhook_rotate": Page(WS + "/webhooks/{webhook}/rotate-secret", form={"confirmed": "no"}, staff=True),
    "webhook_delete": Page(
        WS + "/webhooks/{webhook}/delete", form={"confirmed": "no"}, kinds={"confirmed": [NUL]}, staff=True
    ),
    "webhook_redeliver": Page(WS + "/webhooks/{webhook}/deliveries/{attempt}/redeliver", form={"x": "1"}, staff=True),
    "admin_tokens": Page("/admin/workspaces/apitoken/", params=("q", "revoked_at__isnull"), staff=True),
    "admin_token_add": Page(
        "/admin/workspaces/apitoken/add/",
        form={"user": "{outsider}", "name": "script"},
        kinds={"user": NUMBER, "name": TEXT},
        staff=True,
    ),
    "admin_users": Page("/admin/auth/user/", params=("q", "is_staff__exact", "groups__id__exact"), staff=True),
    "admin_users_delete": Page(
        "/admin/auth/user/",
        form={"action": "delete_selected", "_selected_action": "{outsider}", "post": "yes"},
        kinds={"_selected_action": [NUL, *HUGE_NUMBERS, "abc"]},
        staff=True,
    ),
    "admin_autocomplete": Page(
        "/admin/autocomplete/?app_label=workspaces&model_name=membership&field_name=user",
        params=("term", "page"),
        staff=True,
    ),
}

# Ids in paths: each one, in turn, replaced by a bad id.
PATH_IDS = (
    "membership", "source", "june", "ana", "run", "decision", "action", "correction", "event", "webhook", "attempt",
)  # fmt: skip


@dataclass
class Ids:
    values: dict[str, str]

    def fill(self, text: str) -> str:
        return re.sub(r"\{(\w+)\}", lambda match: self.values.get(match[1], match[0]), text)


def ids_of(world: World) -> Ids:
    """A decision on June with an action, a correction of Ana, a run, a membership: something behind every id."""
    trio = world.trio
    trio.owner.is_staff = trio.owner.is_superuser = True
    trio.owner.save()
    launch = world.decision("Launch in June", [world.june])
    action = world.action("Announce", launch)
    revision = world.preview(world.ana, "Ben owns the checklist.").json()["revision"]
    correction = world.apply(world.ana, revision, key="setup", statement="Ben owns the checklist.").json()
    flagged = world.decision("Flagged", [world.may])
    may = world.preview(world.may, "Marketing starts in June.").json()["revision"]
    world.apply(world.may, may, key="flag", statement="Marketing starts in June.")
    claim = api_get(world, f"/workspaces/{world.ws}/claims/{world.june}")
    # A suggested correction to turn down: a flag citing the June claim's own passage.
    from tests.conftest import api_for

    flag = {"source_id": claim["source_id"], "quote": "Marketing starts in May", "statement": "The launch is in July."}
    suggestion = api_for(trio.reviewer).post(f"/workspaces/{world.ws}/claims/{world.june}/contradictions", flag)
    assert suggestion.status_code == 201, suggestion.content
    run = agents_services.ask(workspace=trio.workspace, question="When is the launch?", actor=trio.reviewer)
    webhook, attempt = a_webhook_with_an_attempt(world)
    return Ids(
        {
            "ws": world.ws, "june": world.june, "ana": correction["replacement_claim_id"], "board": world.board,
            "source": claim["source_id"], "decision": flagged, "action": action, "run": run,
            "correction": correction["correction_id"], "revision": str(world.preview(world.june).json()["revision"]),
            "membership": str(Membership.objects.get(user=trio.viewer).pk), "outsider": str(trio.outsider.pk),
            "key": "sweep", "event": str(AuditEvent.objects.latest("id").pk), "suggestion": suggestion.json()["id"],
            "webhook": webhook, "attempt": attempt,
        }
    )  # fmt: skip


def a_webhook_with_an_attempt(world: World) -> tuple[str, str]:
    """A webhook (disabled: a redelivery is refused, so the sweep sends nothing) with one attempt in its log."""
    endpoint = Endpoint.objects.create(
        workspace=world.trio.workspace, url="http://127.0.0.1:9/hooks", events=["claim.retracted"], secret="whsec_AA==",
        enabled=False,
    )  # fmt: skip
    message = Message.objects.create(endpoint=endpoint, event_id=1, kind="claim.retracted", body="{}")
    return str(endpoint.pk), str(Attempt.objects.create(message=message, number=1, error="No answer.").pk)


def api_get(world: World, path: str) -> Any:
    from tests.conftest import api_for

    return api_for(world.trio.viewer).get(path).json()


def stores(workspace: Workspace) -> str:
    """A fingerprint of everything a request could have written, in PostgreSQL and in the graph."""
    nodes = graph.ro_query(workspace, "MATCH (n) RETURN labels(n), properties(n)")
    edges = graph.ro_query(workspace, "MATCH (a)-[r]->(b) RETURN a.id, type(r), properties(r), b.id")
    rows = {
        "nodes": sorted(json.dumps(row, sort_keys=True, default=str) for row in nodes),
        "edges": sorted(json.dumps(row, sort_keys=True, default=str) for row in edges),
        "events": AuditEvent.objects.count(),
        "intents": list(CorrectionIntent.objects.order_by("pk").values_list("pk", "state")),
        "members": list(Membership.objects.order_by("pk").values_list("pk", "role")),
        "workspaces": Workspace.objects.count(),
        "tokens": ApiToken.objects.count(),
        "webhooks": list(Endpoint.objects.order_by("pk").values_list("pk", "url", "events", "enabled", "secret")),
        "messages": list(Message.objects.order_by("pk").values_list("pk", "state", "next_attempt_at")),
    }
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def client(user: Any) -> Client:
    browser = Client(raise_request_exception=False)
    browser.force_login(user)
    return browser


def encoded(value: str) -> str:
    """A hostile value as it goes into a URL or form body: raw percent-escapes kept, the rest percent-encoded."""
    return value if value in (SURROGATE, NOT_UTF8, "%00") else quote(value, safe="")


def sweep(page: Page, ids: Ids) -> list[tuple[str, str, str]]:
    """(method, url, body) for every hostile value in every parameter, form field and path id of the page."""
    requests = []
    path = ids.fill(page.path)
    joiner = "&" if "?" in path else "?"
    for name in page.params:
        moments = MOMENTS if name == "as_of" else []
        requests += [("GET", f"{path}{joiner}{name}={encoded(value)}", "") for value in QUERY + moments]
    for name in PATH_IDS:
        if "{" + name + "}" in page.path:
            for bad in BAD_IDS:
                other = Ids({**ids.values, name: bad})
                method = "POST" if page.form else "GET"
                requests.append((method, other.fill(page.path), form_body(page, other, {})))
    for name, values in page.kinds.items():
        for value in values:
            requests.append(("POST", path, form_body(page, ids, {name: value})))
    return requests


# Requests sent between two fingerprints of the stores; 1 names the very request that wrote, at ~20 times the cost.
BATCH = 50


def problems_of(
    name: str,
    requests: list[tuple[str, str, str]],
    browser: Client,
    fingerprint: Callable[[], str],
    *,
    batch: int = BATCH,
) -> list[str]:
    """Each request answered 5xx, and each batch of requests after which the stores are not as they were before it."""
    problems = []
    for first in range(0, len(requests), batch):
        before, sent = fingerprint(), []
        for n, (method, url, body) in enumerate(requests[first : first + batch], start=first):
            # Every request gets a fresh idempotency key, so none is refused only for reusing one.
            body = body.replace("idempotency_key=sweep", f"idempotency_key=sweep-{n}")
            if method == "GET":
                response = browser.get(url)
            else:
                response = browser.post(url, body, content_type="application/x-www-form-urlencoded")
            sent.append(f"{method} {url[:100]} {body[:100]!r} → {response.status_code}")
            if response.status_code >= 500:
                problems.append(sent[-1])
        if fingerprint() != before:
            span = f"requests {first + 1}–{first + len(sent)} of {len(requests)}"
            problems.append(f"{name}, {span}: the stores changed; one of them wrote:\n  " + "\n  ".join(sent))
    return problems


def form_body(page: Page, ids: Ids, hostile: dict[str, str]) -> str:
    fields = {name: ids.fill(value) for name, value in page.form.items() if name not in hostile}
    body = urlencode(fields)
    for name, value in hostile.items():
        body += f"&{name}={encoded(value)}"
    return body


class HostilePageTests:
    # The admin's date filters read a far-off date as a naive datetime and say so; that is all they do with it.
    @pytest.mark.filterwarnings("ignore:DateTimeField AuditEvent.created_at received a naive datetime")
    @pytest.mark.parametrize("name", PAGES)
    def test_it_never_answers_5xx_and_a_refusal_writes_nothing(self, world: World, name: str) -> None:
        page = PAGES[name]
        ids = ids_of(world)
        browser = client(world.trio.owner if page.staff else world.trio.reviewer)
        assert problems_of(name, sweep(page, ids), browser, lambda: stores(world.trio.workspace)) == []

    def test_a_batch_that_wrote_is_named_with_its_requests(self, world: World) -> None:
        """The checker itself: one request that does write (a valid new source), among refused ones, fails its batch."""
        refused = sweep(PAGES["source_new"], ids_of(world))
        writes = ("POST", f"/w/{world.ws}/sources/new", urlencode({"title": "Written", "text": "It writes."}))
        requests = [*refused[:3], writes, *refused[3:]]
        browser = client(world.trio.reviewer)
        problems = problems_of("source_new", requests, browser, lambda: stores(world.trio.workspace), batch=2)
        assert len(problems) == 1, problems
        assert problems[0].startswith(
            f"source_new, requests 3–4 of {len(requests)}: the stores changed; one of them wrote:"
        )
        assert "title=Written" in problems[0] and "→ 302" in problems[0]

    def test_the_sweep_covers_every_page_of_the_apps(self) -> None:
        from django.urls import URLPattern, URLResolver, get_resolver, resolve

        views = {
            f"{resolver.namespace}:{pattern.name}"
            for resolver in get_resolver().url_patterns
            if isinstance(resolver, URLResolver) and resolver.namespace in APP_NAMESPACES
            for pattern in resolver.url_patterns
            if isinstance(pattern, URLPattern)
        }
        any_id = "00000000-0000-0000-0000-000000000001"
        ids = Ids(
            {
                **dict.fromkeys(KEYS, any_id),
                "membership": "1",
                "outsider": "1",
                "event": "1",
                "webhook": "1",
                "attempt": "1",
            }
        )
        swept = {resolve(ids.fill(page.path).split("?")[0]).view_name for page in PAGES.values()}
        assert views - swept == set()


APP_NAMESPACES = ("workspaces", "webhooks", "claims", "agents", "corrections")
KEYS = (
    "ws",
    "june",
    "ana",
    "board",
    "source",
    "decision",
    "action",
    "run",
    "correction",
    "revision",
    "membership",
    "outsider",
    "key",
)


class NulTests:
    @pytest.mark.parametrize("listing", ["decisions", "actions"])
    def test_nul_in_a_status_filter_is_invalid_input_not_an_outage(self, world: World, listing: str) -> None:
        from tests.conftest import api_for

        answer = api_for(world.trio.viewer).get(f"/workspaces/{world.ws}/{listing}?status=%00")
        assert answer.status_code == 422 and answer.json()["error"] == "invalid_input"
        assert "“status” contains a NUL character" in answer.json()["detail"]
        page = client(world.trio.viewer).get(f"/w/{world.ws}/{listing}/?status=%00")
        assert page.status_code == 400 and "“status” contains a NUL character" in page.content.decode()

    def test_a_form_field_with_nul_is_refused_before_anything_runs(self, world: World) -> None:
        before = stores(world.trio.workspace)
        response = client(world.trio.reviewer).post(
            f"/w/{world.ws}/decisions/new", {"title": "Launch", "rationale": "a\x00b", "justifications": world.june}
        )
        assert response.status_code == 400 and "“rationale” contains a NUL character" in response.content.decode()
        assert "Nothing was saved." in response.content.decode() and stores(world.trio.workspace) == before


class MalformedBodyTests:
    @pytest.mark.parametrize(
        ("content_type", "body"),
        [
            ("multipart/form-data; boundary=xyz", b"no boundary in here"),
            ("multipart/form-data", b"--x\r\n"),
            (
                "multipart/form-data; boundary=b",
                b'--b\r\nContent-Disposition: form-data; name="title"\r\n\r\na\x00b\r\n--b--\r\n',
            ),
            (
                "multipart/form-data; boundary=b",
                b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n\xff\xfe\x00bad\r\n--b--\r\n',
            ),
            (
                "multipart/form-data; boundary=b; charset=no-such-charset",
                b'--b\r\nContent-Disposition: form-data; name="text"\r\n\r\nx',
            ),
            ("application/x-www-form-urlencoded", b"title=%ED%A0%80&text=" + b"%00" * 3),
            ("application/json", b'{"title": "T", "text": "A text."}'),
        ],
    )
    def test_a_body_that_is_not_a_proper_form_is_refused_and_writes_nothing(
        self, world: World, content_type: str, body: bytes
    ) -> None:
        before = stores(world.trio.workspace)
        response = client(world.trio.reviewer).generic(
            "POST", f"/w/{world.ws}/sources/new", body, content_type=content_type
        )
        assert 400 <= response.status_code < 500 and stores(world.trio.workspace) == before
