"""What belief maintenance tells, and whom (workspaces/registry.py `Teller`): each verb's webhook events (ids and
links only), the one notification a person gets of it, and who: whoever recorded (or whose agent run made) a decision
that lost support, whoever watches what changed, and the workspace's reviewers for suggestions and done actions that
need a follow-up. Run by the dispatcher (notifications/outbox.py), off the request path; they read the graph."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from agents.selectors import decisions as decisions_selectors
from claims.selectors import claims as claims_selectors
from workspaces.models import AuditEvent
from workspaces.registry import Teller, Telling

NO_AFFECTED: dict[str, list[str]] = {}


def _ids(affected: dict[str, Any], key: str) -> list[str]:
    value = affected.get(key) or []
    return [str(item) for item in value] if isinstance(value, list) else []


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _consequences(affected: dict[str, Any]) -> str:
    """What a change did downstream, in words ("" if nothing)."""
    parts = []
    if needing := _ids(affected, "decisions_needing_review"):
        parts.append(_plural(len(needing), "decision needs review", "decisions need review"))
    if held := _ids(affected, "actions_held"):
        parts.append(_plural(len(held), "action is held", "actions are held"))
    if done := _ids(affected, "actions_already_done"):
        parts.append(
            _plural(len(done), "action already done needs a follow-up", "actions already done need a follow-up")
        )
    return "; ".join(parts)


def _downstream_events(affected: dict[str, Any], url: str) -> list[tuple[str, dict[str, Any]]]:
    """The webhook events of what a change did to decisions and actions, one event a kind (only kinds that happened)."""
    events: list[tuple[str, dict[str, Any]]] = []
    for kind, key, field in (
        ("decision.needs_review", "decisions_needing_review", "decision_ids"),
        ("action.held", "actions_held", "action_ids"),
        ("action.follow_up_needed", "actions_already_done", "action_ids"),
    ):
        if ids := _ids(affected, key):
            events.append((kind, {field: ids, "url": url}))
    return events


def _owners(event: AuditEvent, affected: dict[str, Any]) -> dict[str, str]:
    """Whoever recorded a decision that lost its support (an agent's decision: whoever started its run), and why."""
    assert event.workspace is not None
    needing = _ids(affected, "decisions_needing_review")
    if not needing:
        return {}
    people: dict[str, str] = {}
    for decision in decisions_selectors.decisions_get(workspace=event.workspace, decision_ids=needing):
        if decision.created_by and decision.created_by not in people:
            people[decision.created_by] = f"you recorded the decision “{decision.title}”"
    return people


def _about(affected: dict[str, Any], *ids: str) -> tuple[str, ...]:
    keys = ("claims_unsupported", "decisions_needing_review", "actions_held", "actions_already_done")
    return tuple(dict.fromkeys([*ids, *(i for key in keys for i in _ids(affected, key))]))


def _review_url(event: AuditEvent) -> str:
    return reverse("corrections:review", kwargs={"ws_id": event.workspace_id})


def tell_correction(event: AuditEvent) -> Telling:
    payload = event.payload
    affected = payload.get("affected") or NO_AFFECTED
    ws, claim_id = event.workspace_id, str(payload.get("claim_id", ""))
    replacement = str(payload.get("replacement_claim_id", ""))
    old = claims_selectors.claim_get(workspace=event.workspace, claim_id=claim_id) if event.workspace else None
    needing = bool(_ids(affected, "decisions_needing_review"))
    url = _review_url(event) if needing else reverse("claims:claim", kwargs={"ws_id": ws, "claim_id": replacement})
    was = f"“{old.statement}”" if old is not None else "A claim"
    consequences = _consequences(affected)
    text = f"{was} was corrected to “{payload.get('statement', '')}” by {event.actor_name}" + (
        f": {consequences}." if consequences else "."
    )
    data = {"correction_id": str(payload.get("correction_id", "")), "claim_id": claim_id,
            "replacement_claim_id": replacement, "url": url}  # fmt: skip
    return Telling(
        events=(("correction.applied", data), *_downstream_events(affected, url)),
        text=text,
        url=url,
        people=_owners(event, affected),
        about=_about(affected, claim_id),
        reviewers="you review this workspace" if _ids(affected, "actions_already_done") else "",
    )


def _tell_evidence(event: AuditEvent, *, what: str, source_event: tuple[str, dict[str, Any]] | None) -> Telling:
    """A source retracted or given a new version: its claims that went away, and what that did downstream."""
    payload = event.payload
    affected = payload.get("affected") or NO_AFFECTED
    retracted = [str(i) for i in payload.get("retracted") or []]
    needing = bool(_ids(affected, "decisions_needing_review"))
    source_id = str(payload.get("source_id", ""))
    url = (
        _review_url(event)
        if needing
        else reverse("claims:source", kwargs={"ws_id": event.workspace_id, "source_id": source_id})
    )
    events: list[tuple[str, dict[str, Any]]] = [source_event] if source_event else []
    if retracted:
        events.append(("claim.retracted", {"claim_ids": retracted, "source_id": source_id, "url": url}))
    events += _downstream_events(affected, url)
    consequences = _consequences(affected)
    text = f"{what} by {event.actor_name}" + (
        f": {_plural(len(retracted), 'claim', 'claims')} retracted" if retracted else ""
    )
    text += f"; {consequences}." if consequences else "."
    return Telling(
        events=tuple(events),
        text=text,
        url=url,
        people=_owners(event, affected),
        about=_about(affected, *retracted),
        reviewers="you review this workspace" if _ids(affected, "actions_already_done") else "",
    )


def tell_retraction(event: AuditEvent) -> Telling:
    return _tell_evidence(event, what=f"The source “{event.target}” was retracted", source_event=None)


def tell_new_version(event: AuditEvent) -> Telling:
    payload = event.payload
    source_id = str(payload.get("source_id", ""))
    url = reverse("claims:source", kwargs={"ws_id": event.workspace_id, "source_id": source_id})
    new_version = ("source.new_version", {"source_id": source_id, "version": payload.get("version"), "url": url})
    what = f"“{event.target}” has a new version ({payload.get('version')})"
    return _tell_evidence(event, what=what, source_event=new_version)


def tell_flag(event: AuditEvent) -> Telling:
    """A contradiction flagged by a person or an agent: the reviewers are told, and whoever watches the claim."""
    payload = event.payload
    url = _review_url(event)
    return Telling(
        events=(
            (
                "suggestion.created",
                {
                    "suggestion_id": str(payload.get("suggestion_id", "")),
                    "claim_id": str(payload.get("claim_id", "")),
                    "url": url,
                },
            ),
        ),
        text=f"{event.actor_name} flagged a contradiction: “{event.target}”.",
        url=url,
        about=(str(payload.get("claim_id", "")),),
        reviewers="you review this workspace",
    )


def tell_found(event: AuditEvent) -> Telling:
    """Contradictions the watch found in new claims: one notification for the lot, a webhook event each."""
    found = [item for item in event.payload.get("found") or [] if isinstance(item, dict)]
    url = _review_url(event)
    count = _plural(len(found), "suggested correction", "suggested corrections")
    return Telling(
        events=tuple(
            (
                "suggestion.created",
                {
                    "suggestion_id": str(item.get("suggestion_id", "")),
                    "claim_id": str(item.get("claim_id", "")),
                    "by_claim_id": str(item.get("by_claim_id", "")),
                    "url": url,
                },
            )
            for item in found
        ),
        text=f"New evidence contradicts what the memory holds: {count} to review.",
        url=url,
        about=tuple(str(item.get("claim_id", "")) for item in found),
        reviewers="you review this workspace",
    )


def _decision_url(event: AuditEvent, decision_id: str) -> str:
    return reverse("agents:decision", kwargs={"ws_id": event.workspace_id, "decision_id": decision_id})


def _action_url(event: AuditEvent, action_id: str) -> str:
    return reverse("agents:action", kwargs={"ws_id": event.workspace_id, "action_id": action_id})


def tell_dismissal(event: AuditEvent) -> Telling:
    """A decision dismissed from review: its watchers (and its actions'); with done actions it marked as needing a
    follow-up, the reviewers and the systems too."""
    payload = event.payload
    decision_id = str(payload.get("decision_id", ""))
    cancelled, done = _ids(payload, "cancelled"), _ids(payload, "actions_already_done")
    url = _review_url(event) if done else _decision_url(event, decision_id)
    text = f"“{event.target}” was dismissed from review by {event.actor_name}"
    if cancelled:
        text += f": {_plural(len(cancelled), 'open action', 'open actions')} cancelled"
    if done:
        text += f"; {_plural(len(done), 'done action needs', 'done actions need')} a follow-up"
    return Telling(
        events=(("action.follow_up_needed", {"action_ids": done, "decision_ids": [decision_id], "url": url}),)
        if done
        else (),
        text=text + ".",
        url=url,
        about=(decision_id, *cancelled, *done),
        reviewers="you review this workspace" if done else "",
    )


def tell_revision(event: AuditEvent) -> Telling:
    payload = event.payload
    new_id = str(payload.get("new_decision_id", ""))
    moved, cancelled = _ids(payload, "moved"), _ids(payload, "cancelled")
    return Telling(
        text=f"A decision was revised into “{event.target}” by {event.actor_name}"
        + (f": {_plural(len(moved), 'open action', 'open actions')} moved to it." if moved else ".")
        + (f" {_plural(len(cancelled), 'open action was', 'open actions were')} cancelled." if cancelled else ""),
        url=_decision_url(event, new_id),
        about=(str(payload.get("decision_id", "")), *moved, *cancelled),
    )


def tell_rejustification(event: AuditEvent) -> Telling:
    decision_id = str(event.payload.get("decision_id", ""))
    return Telling(
        text=f"“{event.target}” was re-justified by {event.actor_name}: it holds again.",
        url=_decision_url(event, decision_id),
        about=(decision_id,),
    )


def tell_follow_up(event: AuditEvent) -> Telling:
    """A reviewer answered a done action that needed a follow-up: its watchers are told."""
    payload = event.payload
    action_id = str(payload.get("action_id", ""))
    if event.verb == "action.follow_up_planned":
        text = f"{event.actor_name} planned a follow-up: “{event.target}”."
        url = _action_url(event, str(payload.get("follow_up_id", "")) or action_id)
    else:
        text = f"{event.actor_name} said “{event.target}” needs no follow-up: {payload.get('reason', '')}".rstrip(": ")
        url = _action_url(event, action_id)
    return Telling(text=text, url=url, about=(action_id,))


TELLERS = (
    Teller("correction.applied", tell_correction),
    Teller("source.retracted", tell_retraction),
    Teller("source.versioned", tell_new_version),
    Teller("suggestion.flagged", tell_flag),
    Teller("suggestion.found", tell_found),
    Teller("decision.dismissed", tell_dismissal),
    Teller("decision.revised", tell_revision),
    Teller("decision.rejustified", tell_rejustification),
    Teller("action.follow_up_planned", tell_follow_up),
    Teller("action.follow_up_not_needed", tell_follow_up),
)
