"""Who may read and decide suggestions, on every page and API call of them: an outsider gets 404 (the workspace is
not theirs to know of), a viewer 403 on a write, and neither changes anything — the suggestion stays open, the
proposed claim stays proposed, no flag is stored, no audit event is written."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import api_for, client_for
from tests.corrections.test_agent_claims import agent_claim, agent_suggestions, need_approval
from tests.corrections.test_suggestions_watch import EMAIL, JULY, Launch, committed, launch, suggestions_stored
from tests.corrections.test_suggestions_watch import found as found  # the fixture: the suggestion July made
from workspaces.models import AuditEvent

pytestmark = pytest.mark.django_db

__all__ = ["EMAIL", "committed", "launch"]  # fixtures, and the email the flag cites

# Each API call of suggestions: (method, path with {ws}, {id} the contradiction found, {claim} the claim it is about,
# {proposed} an agent's proposed claim's suggestion, {email} the newer source), body, whether it is a reviewer's.
API_CALLS: tuple[tuple[str, str, Any, bool], ...] = (
    ("get", "/workspaces/{ws}/suggestions", None, False),
    ("get", "/workspaces/{ws}/suggestions/{id}", None, False),
    ("post", "/workspaces/{ws}/suggestions/{id}/preview", {}, True),  # for those who may correct
    ("post", "/workspaces/{ws}/suggestions/{id}/reject", {"reason": "no"}, True),
    ("post", "/workspaces/{ws}/suggestions/{proposed}/approve", {}, True),
    ("post", "/workspaces/{ws}/suggestions/approve", {"ids": ["{proposed}"]}, True),
    ("post", "/workspaces/{ws}/suggestions/reject", {"ids": ["{proposed}"]}, True),
    (
        "post",
        "/workspaces/{ws}/claims/{claim}/contradictions",
        {"source_id": "{email}", "quote": JULY, "statement": "The launch is in August."},
        True,
    ),
)


def _filled(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**names)
    if isinstance(value, list):
        return [_filled(v, names) for v in value]
    if isinstance(value, dict):
        return {k: _filled(v, names) for k, v in value.items()}
    return value


@pytest.fixture
def names(launch: Launch, found: dict[str, Any]) -> dict[str, str]:
    """The ids the calls name: the contradiction found, and a claim an agent proposed while approval is asked."""
    need_approval(launch)
    agent_claim(launch, quote="From Ana, on Monday: the date moved.", source_id=launch.email)
    [proposed] = agent_suggestions(launch)
    return {"ws": launch.ws, "id": found["id"], "claim": launch.june, "proposed": proposed["id"], "email": launch.email}


def state(launch: Launch) -> tuple[int, list[str], int]:
    """What a refused call must not change: suggestions stored, the open ones, the audit events (but the tokens the
    test's clients are issued)."""
    response = api_for(launch.trio.owner).get(f"/workspaces/{launch.ws}/suggestions?limit=100")
    return (
        suggestions_stored(launch.trio),
        sorted(s["id"] for s in response.json()["results"]),
        AuditEvent.objects.exclude(verb__startswith="token.").count(),
    )


@pytest.mark.parametrize(("method", "path", "body", "writes"), API_CALLS, ids=[f"{m} {p}" for m, p, _, _ in API_CALLS])
def test_the_api_hides_suggestions_from_outsiders_and_refuses_viewers_writes(
    launch: Launch, names: dict[str, str], method: str, path: str, body: Any, writes: bool
) -> None:
    before = state(launch)
    url = _filled(path, names)
    call = getattr(api_for(launch.trio.outsider), method)
    outsider = call(url) if body is None else call(url, _filled(body, names))
    assert outsider.status_code == 404, outsider.content
    assert "workspace" in outsider.json()["detail"].lower()
    viewer_call = getattr(api_for(launch.trio.viewer), method)
    viewer = viewer_call(url) if body is None else viewer_call(url, _filled(body, names))
    assert viewer.status_code == (403 if writes else 200), viewer.content
    if writes:
        assert viewer.json()["error"] == "forbidden" and viewer.json()["detail"]
    assert state(launch) == before


# The pages that decide suggestions: (path, form).
PAGE_POSTS = (
    ("/w/{ws}/suggestions/{id}/reject", {"verdict": "not_a_contradiction", "reason": "no"}),
    ("/w/{ws}/proposed-claims", {"approve_one": "{proposed}"}),
    ("/w/{ws}/proposed-claims", {"action": "reject", "ids": "{proposed}"}),
)


@pytest.mark.parametrize(("path", "form"), PAGE_POSTS, ids=[f"{p} {sorted(f)}" for p, f in PAGE_POSTS])
def test_the_pages_hide_suggestions_from_outsiders_and_refuse_viewers(
    launch: Launch, names: dict[str, str], path: str, form: dict[str, str]
) -> None:
    before = state(launch)
    url, data = _filled(path, names), _filled(form, names)
    assert client_for(launch.trio.outsider).post(url, data).status_code == 404
    assert client_for(launch.trio.viewer).post(url, data).status_code == 403
    assert state(launch) == before


def test_the_correction_page_filled_from_a_suggestion_is_a_members_only(launch: Launch, names: dict[str, str]) -> None:
    url = f"/w/{launch.ws}/claims/{launch.june}/correct?suggestion={names['id']}"
    assert client_for(launch.trio.outsider).get(url).status_code == 404
    page = client_for(launch.trio.reviewer).get(url)
    assert page.status_code == 200 and "The launch is in July." in page.content.decode()
    review = f"/w/{launch.ws}/review/"
    assert client_for(launch.trio.outsider).get(review).status_code == 404
    assert "The launch is in July." in client_for(launch.trio.viewer).get(review).content.decode()
