"""The API of notifications: the caller's own list, marking read, watching and unwatching."""

from __future__ import annotations

import json
from typing import Any

import pytest

from notifications.models import Notification, Watch
from notifications.services import notices as notice_services
from tests.conftest import ApiClient, Trio, api_for
from tests.notifications.conftest import Nodes
from tests.notifications.telling import tell
from workspaces.models import Membership
from workspaces.services import memberships as membership_services

pytestmark = pytest.mark.django_db

UNKNOWN = "0d6f4f1e-0000-4000-8000-000000000000"


def delete(api: ApiClient, path: str, body: Any) -> Any:
    return api.client.delete(
        "/api/v1" + path, data=json.dumps(body), content_type="application/json", headers=api.headers
    )


class ListTests:
    def test_it_answers_the_callers_own_newest_first_in_pages(self, trio: Trio) -> None:
        first = tell(trio, trio.owner, text="First.")[0]
        tell(trio, trio.owner, text="Second.")
        tell(trio, trio.reviewer, text="Rita's.")
        notice_services.mark_read(user=trio.owner, ids=[first])
        api = api_for(trio.owner)
        page = api.get("/notifications?limit=1").json()
        assert page["count"] == 2 and page["next"]
        assert set(page["results"][0]) == {"id", "kind", "workspace_id", "text", "url", "created_at", "read"}
        assert page["results"][0]["text"] == "Second." and page["results"][0]["read"] is False
        assert page["results"][0]["workspace_id"] == str(trio.workspace.id)
        rest = api.get(f"/notifications?limit=1&cursor={page['next']}").json()
        assert [(n["id"], n["read"]) for n in rest["results"]] == [(first, True)] and rest["next"] is None

    def test_unread_true_keeps_the_unread_ones(self, trio: Trio) -> None:
        first = tell(trio, trio.owner, text="First.")[0]
        tell(trio, trio.owner, text="Second.")
        notice_services.mark_read(user=trio.owner, ids=[first])
        page = api_for(trio.owner).get("/notifications?unread=true").json()
        assert [n["text"] for n in page["results"]] == ["Second."] and page["count"] == 1

    def test_a_cursor_of_the_other_filter_is_refused(self, trio: Trio) -> None:
        tell(trio, trio.owner)
        tell(trio, trio.owner)
        api = api_for(trio.owner)
        cursor = api.get("/notifications?limit=1").json()["next"]
        response = api.get(f"/notifications?limit=1&unread=true&cursor={cursor}")
        assert response.status_code == 422 and "cursor" in response.json()["detail"]

    @pytest.mark.parametrize("query", ["unread=maybe", "limit=0", "limit=201"])
    def test_bad_parameters_are_refused_in_words(self, trio: Trio, query: str) -> None:
        response = api_for(trio.owner).get(f"/notifications?{query}")
        assert response.status_code == 422 and response.json()["error"] == "invalid_input"

    def test_a_left_workspace_is_not_listed_and_anonymous_is_401(self, trio: Trio) -> None:
        tell(trio, trio.viewer)
        leaving = Membership.objects.get(workspace=trio.workspace, user=trio.viewer)
        membership_services.member_remove(workspace=trio.workspace, membership_id=leaving.pk, actor=trio.owner)
        assert api_for(trio.viewer).get("/notifications").json()["count"] == 0
        assert ApiClient(None).get("/notifications").status_code == 401


class ReadTests:
    def test_ids_mark_those_of_the_caller_read(self, trio: Trio) -> None:
        mine, other = tell(trio, trio.owner)[0], tell(trio, trio.owner)[0]
        theirs = tell(trio, trio.reviewer)[0]
        response = api_for(trio.owner).post("/notifications/read", {"ids": [mine, theirs]})
        assert response.status_code == 200 and response.json() == {"marked": 1, "unread": 1}
        assert Notification.objects.get(pk=mine).read and not Notification.objects.get(pk=other).read
        assert not Notification.objects.get(pk=theirs).read

    def test_all_marks_every_one_read(self, trio: Trio) -> None:
        tell(trio, trio.owner)
        tell(trio, trio.owner)
        response = api_for(trio.owner).post("/notifications/read", {"all": True})
        assert response.status_code == 200 and response.json() == {"marked": 2, "unread": 0}

    @pytest.mark.parametrize(
        "body", [{}, {"ids": [1], "all": True}, {"all": False}, {"ids": "1"}, {"ids": ["a"]}, {"ids": [1.5]},
                 {"ids": list(range(1, 203))}, [1]],
    )  # fmt: skip
    def test_malformed_bodies_are_refused_in_words_and_change_nothing(self, trio: Trio, body: Any) -> None:
        mine = tell(trio, trio.owner)[0]
        response = api_for(trio.owner).post("/notifications/read", body)
        assert response.status_code == 422 and response.json()["detail"]
        assert not Notification.objects.get(pk=mine).read


class WatchTests:
    @pytest.mark.parametrize("role", ["owner", "reviewer", "viewer"])
    def test_every_member_may_watch_each_kind_and_unwatch(self, trio: Trio, nodes: Nodes, role: str) -> None:
        api = api_for(getattr(trio, role))
        path = f"/workspaces/{trio.workspace.id}/watch"
        for kind in ("claim", "decision", "action"):
            node = getattr(nodes, kind)
            response = api.post(path, {"id": node})
            assert response.status_code == 200 and response.json() == {"id": node, "kind": kind, "watching": True}
            assert api.post(path, {"id": node}).status_code == 200
        assert Watch.objects.filter(user=getattr(trio, role)).count() == 3
        response = delete(api, path, {"id": nodes.decision})
        assert response.status_code == 200 and response.json() == {
            "id": nodes.decision, "kind": "decision", "watching": False,
        }  # fmt: skip
        assert delete(api, path, {"id": nodes.decision}).status_code == 200
        assert sorted(Watch.objects.values_list("kind", flat=True)) == ["action", "claim"]

    def test_an_outsider_gets_404(self, trio: Trio, claim: str) -> None:
        api = api_for(trio.outsider)
        path = f"/workspaces/{trio.workspace.id}/watch"
        assert api.post(path, {"id": claim}).status_code == 404
        assert delete(api, path, {"id": claim}).status_code == 404
        assert api.post(path, {"id": 5}).status_code == 404, "no word about the body before the membership"
        assert not Watch.objects.exists()

    def test_an_unknown_id_is_404(self, trio: Trio, claim: str) -> None:
        api = api_for(trio.owner)
        path = f"/workspaces/{trio.workspace.id}/watch"
        response = api.post(path, {"id": UNKNOWN})
        assert response.status_code == 404 and response.json()["error"] == "not_found"
        assert delete(api, path, {"id": UNKNOWN}).status_code == 404
        assert not Watch.objects.exists()

    @pytest.mark.parametrize("body", [{}, {"id": 5}, {"id": "not-an-id"}, {"id": "x" * 65}, {"node": "x"}])
    def test_malformed_input_is_422_in_words_for_a_viewer_too(self, trio: Trio, body: Any) -> None:
        response = api_for(trio.viewer).post(f"/workspaces/{trio.workspace.id}/watch", body)
        assert response.status_code == 422 and response.json()["error"] == "invalid_input"
        detail = response.json()["detail"]
        assert "claim, decision or action" in detail or "is not an id (ids are UUIDs)" in detail
        assert not Watch.objects.exists()
