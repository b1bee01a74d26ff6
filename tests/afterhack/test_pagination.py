"""Every list of the JSON API pages alike: ?limit= and ?cursor=, every item exactly once, even when
items are added between pages; a bad limit or cursor is refused in words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest

from agents.services import decisions as decision_services
from agents.services import runs as run_services
from benchmarks.llm_server import json_reply
from claims.services import claims as claims_services
from claims.services import extraction as extraction_services
from claims.services import sources as sources_services
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from tests.conftest import ApiClient, Trio, api_for
from workspaces.models import Role
from workspaces.services import memberships as membership_services
from workspaces.services import workspaces as workspace_services

pytestmark = pytest.mark.django_db

# Enough text for a claim per line: "Item 0 ships in June." and so on.
ITEMS = "\n".join(f"Item {n} ships in June." for n in range(40))


def page_through(client: ApiClient, path: str, *, limit: int, between: Callable[[], Any] = lambda: None) -> list[Any]:
    """Every page of a list, following `next`; `between` runs after the first page."""
    joiner = "&" if "?" in path else "?"
    pages = [client.get(f"{path}{joiner}limit={limit}").json()]
    between()
    while pages[-1]["next"] is not None:
        assert len(pages) < 50, "the pages never end"
        pages.append(client.get(f"{path}{joiner}limit={limit}&cursor={quote(pages[-1]['next'])}").json())
    return pages


class Lists:
    """How to fill each list with `n` more items, and what the API lists them by."""

    def __init__(self, trio: Trio, request: pytest.FixtureRequest) -> None:
        self.trio, self.request, self.made = trio, request, 0
        self.source = sources_services.source_add(
            workspace=trio.workspace, title="Items", text=ITEMS, actor=trio.reviewer
        ).id

    @property
    def ws(self) -> str:
        return str(self.trio.workspace.id)

    def claim(self) -> str:
        self.made += 1
        quote = f"Item {self.made} ships in June"
        return claims_services.claim_add(
            workspace=self.trio.workspace, source_id=self.source, statement=quote + ".", evidence_quote=quote,
            actor=self.trio.reviewer,
        ).id  # fmt: skip

    def decision(self) -> str:
        return decision_services.decision_add(
            workspace=self.trio.workspace, title=f"Decision {self.made}", rationale=None,
            justifications=[[self.claim()]], actor=self.trio.reviewer,
        ).id  # fmt: skip

    def workspaces(self, n: int) -> list[str]:
        self.made += n
        names = [f"Team {self.made - i}" for i in range(n)]
        return [str(workspace_services.workspace_create(name=name, creator=self.trio.viewer).id) for name in names]

    def members(self, n: int) -> list[str]:
        from django.contrib.auth import get_user_model

        names = [f"member{self.made + i}" for i in range(n)]
        self.made += n
        for name in names:
            get_user_model().objects.create_user(username=name, password="x")
            membership_services.member_add(
                workspace=self.trio.workspace, username=name, role=Role.VIEWER, actor=self.trio.owner
            )
        return names

    def sources(self, n: int) -> list[str]:
        return [
            sources_services.source_add(
                workspace=self.trio.workspace, title=f"S{i}", text="Text.", actor=self.trio.reviewer
            ).id
            for i in range(n)
        ]

    def rejected(self, n: int) -> list[str]:
        llm, committed = self.request.getfixturevalue("llm"), self.request.getfixturevalue("committed")
        quotes = [f"Invented quote number {self.made + i}" for i in range(n)]
        self.made += n
        llm.script(
            json_reply({"claims": [{"statement": q + ".", "evidence_quote": q, "confidence": 0.5} for q in quotes]})
        )
        with committed(execute=True):
            extraction_services.extraction_request(
                workspace=self.trio.workspace, source_id=self.source, actor=self.trio.reviewer
            )
        return quotes

    def claims(self, n: int) -> list[str]:
        return [self.claim() for _ in range(n)]

    def decisions(self, n: int) -> list[str]:
        return [self.decision() for _ in range(n)]

    def actions(self, n: int) -> list[str]:
        decision = self.decision()
        return [
            decision_services.action_add(
                workspace=self.trio.workspace, title=f"Action {i}", decision_ids=[decision], actor=self.trio.reviewer
            ).id
            for i in range(n)
        ]

    def runs(self, n: int) -> list[str]:
        return [
            run_services.ask(workspace=self.trio.workspace, question=f"Question {i}?", actor=self.trio.reviewer)
            for i in range(n)
        ]

    def corrections(self, n: int) -> list[str]:
        made = []
        for _ in range(n):
            claim_id = self.claim()
            statement = f"Item {self.made} ships in July."
            preview = preview_services.preview(workspace=self.trio.workspace, claim_id=claim_id, statement=statement)
            made.append(
                apply_services.apply(
                    workspace=self.trio.workspace, claim_id=claim_id, statement=statement, reason="Moved.",
                    revision=preview.fingerprint, idempotency_key=f"key-{claim_id}", actor=self.trio.reviewer,
                ).correction_id
            )  # fmt: skip
        return made


# name: (path under /api/v1, the field that names an item, where items added meanwhile sort: before the
# first page (newest first), after the last page (oldest first), or among the rest (by name)).
LISTS = {
    "workspaces": ("/workspaces", "id", "among"),
    "members": ("/workspaces/{ws}/members", "username", "among"),
    "sources": ("/workspaces/{ws}/sources", "id", "before"),
    "rejected": ("/workspaces/{ws}/sources/{source}/rejected", "evidence_quote", "after"),
    "claims": ("/workspaces/{ws}/claims?q=ships", "id", "before"),
    "decisions": ("/workspaces/{ws}/decisions?status=supported", "id", "before"),
    "actions": ("/workspaces/{ws}/actions", "id", "before"),
    "runs": ("/workspaces/{ws}/runs", "id", "before"),
    "corrections": ("/workspaces/{ws}/corrections", "id", "before"),
}


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Any:
    return django_capture_on_commit_callbacks


def reader(trio: Trio, name: str) -> Any:
    # Members are listed to admins only; workspaces are the caller's own.
    return trio.owner if name == "members" else trio.viewer


class PaginationTests:
    @pytest.mark.parametrize("name", LISTS)
    def test_it_gives_every_item_exactly_once_a_page_at_a_time(
        self, name: str, trio: Trio, request: pytest.FixtureRequest
    ) -> None:
        lists = Lists(trio, request)
        path, field, _ = LISTS[name]
        path = path.format(ws=lists.ws, source=lists.source)
        items = getattr(lists, name)(7)
        pages = page_through(api_for(reader(trio, name)), path, limit=3)
        listed = [item[field] for page in pages for item in page["results"]]
        assert len(listed) == len(set(listed)), "an item came twice"
        assert set(items) <= set(listed)
        assert all(page["count"] == len(listed) for page in pages)
        assert [len(page["results"]) for page in pages][:-1] == [3] * (len(pages) - 1)
        assert pages[-1]["next"] is None and 1 <= len(pages[-1]["results"]) <= 3

    @pytest.mark.parametrize("name", LISTS)
    def test_items_added_between_pages_neither_repeat_nor_hide_the_others(
        self, name: str, trio: Trio, request: pytest.FixtureRequest
    ) -> None:
        lists = Lists(trio, request)
        path, field, new_ones = LISTS[name]
        path = path.format(ws=lists.ws, source=lists.source)
        items = getattr(lists, name)(7)
        added: list[str] = []
        pages = page_through(
            api_for(reader(trio, name)), path, limit=3, between=lambda: added.extend(getattr(lists, name)(4))
        )
        listed = [item[field] for page in pages for item in page["results"]]
        assert len(listed) == len(set(listed)), "an item came twice"
        assert set(items) <= set(listed), "an item was skipped"
        if new_ones == "after":
            assert set(added) <= set(listed)
        elif new_ones == "before":
            # What was added meanwhile sorts before the first page (a search ranks what existed at its first page).
            assert not set(added) & set(listed)

    def test_the_newest_come_first(self, trio: Trio, request: pytest.FixtureRequest) -> None:
        lists = Lists(trio, request)
        decisions = lists.decisions(5)
        pages = page_through(api_for(trio.viewer), f"/workspaces/{lists.ws}/decisions", limit=2)
        assert [d["id"] for page in pages for d in page["results"]] == decisions[::-1]

    def test_a_search_keeps_its_ranking_across_pages(self, trio: Trio, request: pytest.FixtureRequest) -> None:
        lists = Lists(trio, request)
        lists.claims(6)
        client = api_for(trio.viewer)
        query = quote("when does item 3 ship")
        whole = client.get(f"/workspaces/{lists.ws}/claims?q={query}&limit=200").json()
        pages = page_through(client, f"/workspaces/{lists.ws}/claims?q={query}", limit=2)
        assert [c["id"] for page in pages for c in page["results"]] == [c["id"] for c in whole["results"]]
        # No claim holds the sentence; "Item 3" holds all its content words, the others only "item" and "ship".
        assert whole["fell_back_to_words"] is True and whole["count"] == 6
        assert whole["results"][0]["statement"] == "Item 3 ships in June."


class PageInputTests:
    @pytest.mark.parametrize("limit", ["0", "201", "-1", "abc", "1.5", ""])
    def test_a_limit_out_of_range_is_refused_in_words(self, trio: Trio, limit: str) -> None:
        response = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/decisions?limit={limit}")
        assert response.status_code == 422 and response.json()["error"] == "invalid_input"
        assert "1 to 200" in response.json()["detail"]

    def test_the_limit_defaults_to_50_and_goes_up_to_200(self, trio: Trio) -> None:
        lists = Lists(trio, None)  # type: ignore[arg-type]
        lists.sources(60)
        client = api_for(trio.viewer)
        assert len(client.get(f"/workspaces/{lists.ws}/sources").json()["results"]) == 50
        everything = client.get(f"/workspaces/{lists.ws}/sources?limit=200").json()
        assert len(everything["results"]) == 61 and everything["count"] == 61 and everything["next"] is None

    @pytest.mark.parametrize("cursor", ["garbage", "", "eyJhIjoxfQ:1abcde:xyz", "x" * 2000, "WyIyMDI1IiwiYSJd"])
    def test_a_made_up_cursor_is_refused_in_words(self, trio: Trio, cursor: str) -> None:
        response = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/decisions?cursor={cursor}")
        assert response.status_code == 422 and response.json()["error"] == "invalid_input"
        assert "cursor" in response.json()["detail"]

    def test_a_changed_cursor_is_refused(self, trio: Trio, request: pytest.FixtureRequest) -> None:
        lists = Lists(trio, request)
        lists.decisions(3)
        client = api_for(trio.viewer)
        cursor = client.get(f"/workspaces/{lists.ws}/decisions?limit=1").json()["next"]
        tampered = cursor[:-1] + ("A" if cursor[-1] != "A" else "B")
        response = client.get(f"/workspaces/{lists.ws}/decisions?limit=1&cursor={quote(tampered)}")
        assert response.status_code == 422 and "start again" in response.json()["detail"]

    def test_a_cursor_only_fits_the_list_and_filter_it_came_from(
        self, trio: Trio, request: pytest.FixtureRequest
    ) -> None:
        lists = Lists(trio, request)
        decision = lists.decision()
        for n in range(2):
            decision_services.action_add(
                workspace=trio.workspace, title=f"A{n}", decision_ids=[decision], actor=trio.reviewer
            )
        lists.decisions(2)
        client = api_for(trio.viewer)
        cursor = quote(client.get(f"/workspaces/{lists.ws}/decisions?limit=1").json()["next"])
        assert client.get(f"/workspaces/{lists.ws}/decisions?limit=1&cursor={cursor}").status_code == 200
        for elsewhere in ("actions", "decisions?status=supported", "runs", "sources", "corrections"):
            response = client.get(
                f"/workspaces/{lists.ws}/{elsewhere}{'&' if '?' in elsewhere else '?'}cursor={cursor}"
            )
            assert response.status_code == 422, elsewhere
        other = workspace_services.workspace_create(name="Other", creator=trio.viewer)
        assert client.get(f"/workspaces/{other.id}/decisions?cursor={cursor}").status_code == 422
