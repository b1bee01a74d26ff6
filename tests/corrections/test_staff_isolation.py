"""Staff who may not read a workspace (no member, no “Can read every workspace”; superusers included) see its audit
trail and its correction history — who did what, when, to which ids, and what each correction changed — and nothing
else of it. A marker planted in a source's title and text, a claim no correction touched, a decision, an action and
a question to the agent must appear on no staff page or download; a member and an auditor of every workspace still
read it all."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils.http import urlencode

from afterhack import graph
from agents.services import decisions as decision_services
from agents.services import runs as run_services
from claims.services import claims as claims_services
from claims.services import extraction as extraction_services
from claims.services import sources as sources_services
from corrections import review
from corrections.services import evidence as evidence_services
from tests.conftest import MakeUser, Trio, api_for, client_for
from tests.corrections.conftest import _claim
from workspaces.models import AUDIT_EVERY_WORKSPACE, EVENT_KINDS, AuditEvent, Workspace

pytestmark = pytest.mark.django_db

# Planted in everything no correction touched; no page or download may hold it for staff outside the workspace.
MARKER = "Zephyrquill7731"
PLAN = f"Plan {MARKER}\n\nThe launch is in June. The budget is {MARKER} dollars. The venue is Hall B.\n"
MEMO = f"Memo {MARKER}: keep the {MARKER} room free.\n"
FROM, TO, WHY = "The launch is in June.", "The launch is in July.", "The board moved it."
FORMATS = ("json", "ttl", "provn")


@dataclass
class Planted:
    trio: Trio
    june: str
    budget: str
    derived: str
    launch: str
    announce: str
    hall: str
    deposit: str
    correction_id: str

    @property
    def ws(self) -> str:
        return str(self.trio.workspace.id)


@pytest.fixture
def planted(trio: Trio, no_llm: None) -> Planted:
    """A workspace whose every kind of content holds the marker but for what its one correction changed."""
    ws, rita = trio.workspace, trio.reviewer
    plan = sources_services.source_add(workspace=ws, title=f"Plan {MARKER}", text=PLAN, actor=rita)
    june = _claim(trio, plan.id, "The launch is in June")
    budget = _claim(trio, plan.id, f"The budget is {MARKER} dollars")
    venue = _claim(trio, plan.id, "The venue is Hall B")
    derived = claims_services.derived_claim_add(
        workspace=ws, statement=f"So {MARKER} is budgeted.", derived_from=[budget], actor=rita
    ).id

    def decide(title: str, *justifications: list[str]) -> str:
        return decision_services.decision_add(
            workspace=ws, title=title, rationale="", justifications=list(justifications), actor=rita
        ).id

    def act(title: str, decision_id: str) -> str:
        return decision_services.action_add(workspace=ws, title=title, decision_ids=[decision_id], actor=rita).id

    launch = decide("Launch in June", [june])
    announce = act("Send the launch announcement", launch)
    # Still supported by the budget after the correction: untouched, so its title stays the workspace's.
    hall = decide(f"Book the {MARKER} hall", [june], [budget])
    deposit = act(f"Pay the {MARKER} deposit", hall)
    run_services.ask(workspace=ws, question=f"When is {MARKER} due?", actor=rita)
    memo = sources_services.source_add(workspace=ws, title=f"Memo {MARKER}", text=MEMO, actor=rita)
    extraction_services.extraction_request(workspace=ws, source_id=memo.id, actor=rita)
    evidence_services.source_new_version(
        workspace=ws, source_id=memo.id, text=MEMO + f"And {MARKER} again.\n", actor=rita
    )
    evidence_services.source_retract(workspace=ws, source_id=memo.id, actor=rita)
    # The correction cites a passage of the plan that holds the marker: the quote is the source's, not the change's.
    preview = api_for(rita).post(f"/workspaces/{ws.id}/claims/{june}/correction-preview", {"statement": TO})
    body = {
        "statement": TO, "reason": WHY, "revision": preview.json()["revision"], "idempotency_key": "isolation",
        "evidence": {"source_id": plan.id, "quote": f"The budget is {MARKER} dollars"},
    }  # fmt: skip
    applied = api_for(rita).post(f"/workspaces/{ws.id}/claims/{june}/corrections", body)
    assert applied.status_code == 201, applied.content
    decision_services.action_mark(workspace=ws, action_id=deposit, status="done", actor=rita)
    review.decision_revise(
        workspace=ws, decision_id=launch, title=f"Launch when {MARKER} allows", rationale="",
        justifications=[[venue]], actions="move", actor=rita,
    )  # fmt: skip
    return Planted(trio, june, budget, derived, launch, announce, hall, deposit, applied.json()["correction_id"])


def body_of(response: Any) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return str(content.decode("utf-8-sig"))


def staff_without_the_permission(make_user: MakeUser) -> Any:
    """Staff who may open the admin's audit events (and nothing else there), and may not read the workspace."""
    user = make_user("sam", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_auditevent"))
    return user


def superuser_not_a_member(make_user: MakeUser) -> Any:
    return make_user("root", is_staff=True, is_superuser=True)


def every_workspace_auditor(make_user: MakeUser) -> Any:
    user = make_user("ada", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename=AUDIT_EVERY_WORKSPACE))
    return user


def audit_list_paths(browser: Client) -> list[str]:
    """Every page of the audit list, unfiltered in both orders, and under every value of every filter."""
    filters: list[str] = [f"workspace={w.id}" for w in Workspace.objects.all()] + ["workspace=none"]
    filters += [f"kind={kind}" for kind in EVENT_KINDS]
    filters += [f"actor={name}" for name in AuditEvent.objects.values_list("actor_name", flat=True).distinct()]
    today = AuditEvent.objects.latest("created_at").created_at.date().isoformat()
    filters += [f"since={today}", f"until={today}", "sort=when", "sort=-when", ""]
    paths = []
    for query in filters:
        first = body_of(browser.get(f"/audit/?{query}"))
        total = re.search(r"of (\d+) events?</span>", first)
        pages = -(-int(total.group(1)) // 25) if total else 1
        paths += [f"/audit/?{query}&page={page}" for page in range(1, pages + 1)]
    return paths


def staff_paths(planted: Planted) -> list[str]:
    """Every staff page and download of the audit: the lists, every event, the CSV, every correction's page, the
    PROV export in every format with and without a root."""
    events = list(AuditEvent.objects.all())
    corrections = [e for e in events if e.verb == "correction.applied"]
    paths = [f"/audit/events/{event.pk}/" for event in events]
    paths += ["/audit/export.csv", f"/audit/export.csv?workspace={planted.ws}", "/audit/export.csv?sort=when"]
    paths += [f"/audit/corrections/{e.workspace_id}/{e.payload['correction_id']}/" for e in corrections]
    for root in ("", planted.june, planted.budget, planted.derived, planted.hall):
        paths += [f"/audit/prov?workspace={planted.ws}&format={form}&root={root}" for form in FORMATS]
    return paths


def admin_paths(user: Any) -> list[str]:
    """The admin pages the user can reach: its index, and every list, object, history and delete page of the
    workspaces app and of people and groups that the user's permissions open."""
    paths = [reverse("admin:index")]
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        if meta.app_label not in ("workspaces", "auth"):
            continue
        request = type("Request", (), {"user": user})()
        if not model_admin.has_view_or_change_permission(request):
            continue
        name = f"admin:{meta.app_label}_{meta.model_name}"
        paths.append(reverse(name + "_changelist"))
        for obj in model._default_manager.all():
            paths += [reverse(f"{name}_{page}", args=[obj.pk]) for page in ("change", "history")]
            if model_admin.has_delete_permission(request, obj):
                paths.append(reverse(name + "_delete", args=[obj.pk]))
    return paths


def leaks(browser: Client, paths: list[str]) -> list[str]:
    """The paths whose answer holds the marker (in any case), with the answer's status."""
    found = []
    for path in paths:
        # A page that refuses (deleting a workspace's last admin) sends the reader on: read where it lands.
        response = browser.get(path, follow=True)
        assert response.status_code in (200, 404), (path, response.status_code)
        if MARKER.lower() in body_of(response).lower():
            found.append(f"{path} ({response.status_code})")
    return found


@pytest.fixture(params=[staff_without_the_permission, superuser_not_a_member], ids=["staff", "superuser"])
def outsider(request: pytest.FixtureRequest, make_user: MakeUser) -> Any:
    """Staff who may not read the workspace: (a) without the permission, (b) a superuser who is not a member."""
    return request.param(make_user)


class StaffIsolationTests:
    def test_no_staff_page_or_download_shows_what_no_correction_touched(self, planted: Planted, outsider: Any) -> None:
        user, browser = outsider, client_for(outsider)
        paths = audit_list_paths(browser) + staff_paths(planted) + admin_paths(user)
        assert len(paths) > 100 and any("/admin/workspaces/auditevent/" in path for path in paths)
        if user.is_superuser:
            for listed in ("workspace", "membership", "apitoken"):
                assert f"/admin/workspaces/{listed}/" in paths
            assert "/admin/auth/user/" in paths and f"/admin/workspaces/workspace/{planted.ws}/delete/" in paths
        assert leaks(browser, paths) == []
        htmx = browser.get("/audit/?page=2", headers={"HX-Request": "true"})
        assert MARKER not in body_of(htmx) and "<html" not in body_of(htmx)

    def test_they_still_read_who_did_what_and_what_each_correction_changed(
        self, planted: Planted, outsider: Any
    ) -> None:
        browser = client_for(outsider)
        listed = body_of(browser.get("/audit/?kind=correction.applied"))
        assert f"corrected “{FROM}” to “{TO}” (why: “{WHY}”)" in listed and "rita" in listed
        event = AuditEvent.objects.get(verb="correction.applied")
        page = body_of(browser.get(f"/audit/events/{event.pk}/"))
        assert f"<dd>“{FROM}”</dd>" in page and f"“{TO}”" in page and f"<dd>{WHY}</dd>" in page
        assert planted.june in page and planted.correction_id in page and "withheld: not a member" in page
        detail = body_of(browser.get(f"/audit/corrections/{planted.ws}/{planted.correction_id}/"))
        assert f"“{FROM}” → “{TO}”" in detail and WHY in detail and "Correction by rita" in detail
        assert "Needed review: Launch in June" in detail and "Actions held: Send the launch announcement" in detail
        assert "1 decision (title withheld: not a member)" in detail
        assert "its source are withheld" in detail and "quote from the source, is withheld" in detail
        # A withheld event keeps its ids, and says in words what was withheld.
        added = AuditEvent.objects.get(verb="claim.added", payload__claim_id=planted.budget)
        page = body_of(browser.get(f"/audit/events/{added.pk}/"))
        assert "added a claim (text withheld: not a member)" in page and planted.budget in page
        rows = list(csv.reader(io.StringIO(body_of(browser.get("/audit/export.csv")))))
        by_summary = {row[4]: row for row in rows[1:]}
        correction = by_summary[f"corrected “{FROM}” to “{TO}” (why: “{WHY}”)"]
        assert correction[2] == "rita" and f"claim_id={planted.june}" in correction[5]
        assert any(f"claim_id={planted.budget}" in row[5] for row in rows if "text withheld" in row[4])
        asked = next(row for row in rows if row[3] == "Question to the agent")
        assert asked[4] == "asked the agent a question (question withheld: not a member)"
        # People, roles and workspaces stay whole.
        assert any(row[4] == "added rita as reviewer" and row[1] == "Launch planning" for row in rows)

    def test_a_search_finds_no_event_by_what_it_withholds(self, planted: Planted, outsider: Any) -> None:
        browser = client_for(outsider)
        assert "No events match" in body_of(browser.get("/audit/?q=deposit"))
        assert body_of(browser.get("/audit/export.csv?q=deposit")).count("\n") == 1  # the header alone
        assert "0 results" in body_of(browser.get("/admin/workspaces/auditevent/?q=deposit"))
        # What a correction changed is theirs to find.
        assert "1–1 of 1 event" in body_of(browser.get("/audit/?q=july"))

    def test_a_member_and_an_auditor_of_every_workspace_read_it_all(
        self, planted: Planted, make_user: MakeUser
    ) -> None:
        member = planted.trio.owner
        member.is_staff = member.is_superuser = True
        member.save()
        for user in (member, every_workspace_auditor(make_user)):
            browser = client_for(user)
            event = AuditEvent.objects.get(verb="source.added", target=f"Plan {MARKER}")
            for path in (
                "/audit/?q=deposit",
                "/audit/export.csv",
                f"/audit/events/{event.pk}/",
                f"/audit/corrections/{planted.ws}/{planted.correction_id}/",
                *(f"/audit/prov?workspace={planted.ws}&format={form}" for form in FORMATS),
            ):
                response = browser.get(path)
                assert response.status_code == 200 and MARKER in body_of(response), (user, path)
        admin_list = body_of(client_for(member).get("/admin/workspaces/auditevent/?q=deposit"))
        assert f"Pay the {MARKER} deposit" in admin_list


# What a person could type in the admin's address to narrow a list by what the audit withholds: each lookup is asked
# for the marker (or the first letter of a withheld title) and for words no event holds.
WITHHELD_LOOKUPS = (
    ("target__icontains", MARKER.lower(), "qx0nothing"),
    ("target__contains", MARKER, "Qx0nothing"),
    ("target__startswith", "Pay the Z", "Pay the Q"),
    ("target__iregex", "zephyr", "qx0nothing"),
    ("target__gt", "Pay the Z", "zzz"),
    ("payload__icontains", MARKER, "qx0nothing"),
    ("payload__evidence__quote__icontains", MARKER, "qx0nothing"),
    ("payload__impact__decisions_still_supported__0__title__icontains", MARKER, "qx0nothing"),
)


def paths_to_events(model: Any, depth: int = 2, prefix: str = "") -> list[str]:
    """The lookup paths from `model` to the audit events (itself included, then through its relations)."""
    found = [prefix] if model is AuditEvent else []
    if depth:
        for relation in model._meta.get_fields():
            if relation.is_relation and relation.related_model not in (None, "self"):
                found += paths_to_events(relation.related_model, depth - 1, f"{prefix}{relation.name}__")
    return found


def changelist_answer(browser: Client, path: str) -> tuple[int, str, list[str]]:
    """What a list in the admin answers: its status, where it sends the reader, and the rows it lists, in order."""
    response = browser.get(path)
    rows = re.findall(r'<a href="(/admin/[a-z_]+/[a-z_]+/[^/"]+/change/)', body_of(response))
    return response.status_code, response.get("Location", ""), rows


def admin_lists(user: Any) -> list[tuple[str, Any]]:
    """The admin's lists the user may open, with their models."""
    request = type("Request", (), {"user": user})()
    return [
        (reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"), model)
        for model, model_admin in admin.site._registry.items()
        if model_admin.has_view_or_change_permission(request)
    ]


class AdminAddressFilterTests:
    def test_a_filter_typed_in_the_address_tells_nothing_of_what_is_withheld(
        self, planted: Planted, outsider: Any
    ) -> None:
        browser = client_for(outsider)
        lists = admin_lists(outsider)
        assert ("/admin/workspaces/auditevent/", AuditEvent) in lists
        told, asked = [], []
        for listing, model in lists:
            for path in paths_to_events(model):
                for lookup, marker, nonsense in WITHHELD_LOOKUPS:
                    asked.append(f"{listing}?{urlencode({path + lookup: marker})}")
                    answer = changelist_answer(browser, asked[-1])
                    if answer != changelist_answer(browser, f"{listing}?{urlencode({path + lookup: nonsense})}"):
                        told.append(f"{asked[-1]} → {answer[0]}, {len(answer[2])} rows")
        assert told == []
        assert "/admin/workspaces/auditevent/?workspace__auditevent__target__icontains=zephyrquill7731" in asked
        if outsider.is_superuser:
            assert "/admin/workspaces/membership/?workspace__auditevent__target__icontains=zephyrquill7731" in asked
            assert "/admin/auth/user/?auditevent__target__icontains=zephyrquill7731" in asked

    def test_the_audit_events_take_only_their_own_filters(self, planted: Planted, outsider: Any) -> None:
        browser = client_for(outsider)
        for query in ("target__icontains=zephyr", "payload__evidence__quote__icontains=zephyr", "nonsense=1"):
            response = browser.get(f"/admin/workspaces/auditevent/?{query}")
            assert response.status_code == 400, query
            assert "narrowed only by the filters beside the list (verb, workspace, created at)" in body_of(response)

    def test_sorting_the_audit_events_by_what_they_withhold_tells_nothing(
        self, planted: Planted, outsider: Any
    ) -> None:
        browser = client_for(outsider)
        unsorted = changelist_answer(browser, "/admin/workspaces/auditevent/")
        assert len(unsorted[2]) > 20
        target = admin.site._registry[AuditEvent].list_display.index("shown_target")
        for order in (f"{target}", f"-{target}", f"2.{target}", f"2.-{target}"):
            by_target = changelist_answer(browser, f"/admin/workspaces/auditevent/?o={order}")
            by_nothing = changelist_answer(
                browser, f"/admin/workspaces/auditevent/?o={order.replace(str(target), '99')}"
            )
            assert by_target == by_nothing, order

    def test_the_audit_events_own_filters_and_date_drill_down_still_answer(
        self, planted: Planted, outsider: Any
    ) -> None:
        browser = client_for(outsider)
        listing = "/admin/workspaces/auditevent/"
        corrections = changelist_answer(browser, f"{listing}?verb=correction.applied")
        assert corrections[0] == 200 and len(corrections[2]) == 1
        offered = set(re.findall(r'href="(\?[^"#]+)"', body_of(browser.get(f"{listing}?_facets=1"))))
        year = AuditEvent.objects.latest("created_at").created_at.year
        offered |= set(re.findall(r'href="(\?[^"#]+)"', body_of(browser.get(f"{listing}?created_at__year={year}"))))
        assert any("workspace__id__exact" in link for link in offered) and any(
            "created_at__gte" in link for link in offered
        )
        assert any("created_at__month" in link for link in offered) and any("verb=" in link for link in offered)
        for link in sorted(offered):
            status, location, _ = changelist_answer(browser, listing + link.replace("&amp;", "&"))
            assert (status, location) == (200, ""), link


class StoreAnswers:
    """Every answer FalkorDB and PostgreSQL give while it listens, as text: what a page read, not only what it showed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.answers: list[str] = []
        ask = graph._result

        def graph_answer(*args: Any, **kwargs: Any) -> Any:
            result = ask(*args, **kwargs)
            self.answers.append(repr(result.result_set))
            return result

        monkeypatch.setattr(graph, "_result", graph_answer)

    def postgres_answer(self, execute: Any, sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        result = execute(sql, params, many, context)
        cursor = context["cursor"].cursor
        if cursor.description and (rows := cursor.fetchall()):
            # Read, then rewound for Django to read as if nobody had.
            self.answers.append(repr(rows))
            cursor.scroll(0, mode="absolute")
        return result

    def get(self, browser: Client, path: str) -> Any:
        with connection.execute_wrapper(self.postgres_answer):
            return browser.get(path)


class RestrictedCorrectionPageTests:
    def test_the_correction_page_reads_nothing_it_withholds(
        self, planted: Planted, outsider: Any, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        browser, stores = client_for(outsider), StoreAnswers(monkeypatch)
        page = stores.get(browser, f"/audit/corrections/{planted.ws}/{planted.correction_id}/")
        assert page.status_code == 200 and f"“{FROM}” → “{TO}”" in body_of(page)
        assert len(stores.answers) > 3 and any(TO in answer for answer in stores.answers)
        assert [answer for answer in stores.answers if MARKER in answer] == []

    def test_a_reader_of_the_workspace_reads_the_whole_page(self, planted: Planted, make_user: MakeUser) -> None:
        page = body_of(
            client_for(every_workspace_auditor(make_user)).get(
                f"/audit/corrections/{planted.ws}/{planted.correction_id}/"
            )
        )
        assert f"The budget is {MARKER} dollars" in page and f"Book the {MARKER} hall" in page
        assert "withheld" not in page and 'id="impact-picture"' in page
