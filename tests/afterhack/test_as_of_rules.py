"""The rules of reading the past (afterhack/history.py), on plain values: no store needed."""

from __future__ import annotations

from types import SimpleNamespace
from uuid import uuid4

from django.template import Context

from afterhack import history
from afterhack.as_of import Moment
from afterhack.history_graph import Change, ChangeKind
from afterhack.templatetags.as_of import change_cause


def change(
    at: str, from_status: str | None, to_status: str, cause: str = "correction", **more: object
) -> dict[str, object]:
    return {"at": at, "from_status": from_status, "to_status": to_status, "cause": cause, **more}


def test_the_status_then_is_what_the_first_change_after_left() -> None:
    changes = [change("2026-05-14", "needs_review", "supported"), change("2026-05-13", "supported", "needs_review")]
    assert history.status_at("supported", history.after(changes, "2026-05-12")) == "supported"
    assert history.status_at("supported", history.after(changes, "2026-05-13")) == "needs_review"
    assert history.status_at("supported", history.after(changes, "2026-05-14")) == "supported"  # none after: now


def test_a_migrated_baseline_answers_with_the_status_it_records() -> None:
    baseline = [change("2026-05-13", None, "held", cause="migration")]
    assert history.status_at("held", history.after(baseline, "2026-05-01")) == "held"


def test_existence_and_changes_after_are_strictly_after() -> None:
    assert history.existed("2026-05-12", "2026-05-12") and not history.existed("2026-05-13", "2026-05-12")
    assert history.existed(None, "2000-01-01")
    assert history.after([change("2026-05-12", "a", "b"), None], "2026-05-12") == []


def test_a_kept_property_comes_from_the_first_write_that_keeps_it() -> None:
    changes = [
        change("2026-05-13", "needs_review", "needs_review", cause="dismissal", from_dismissed_at=None),
        change("2026-05-14", "needs_review", "supported", cause="rejustification", from_review_reason="July"),
    ]
    kept_by = history.REVIEW_STATE_KEPT_BY
    assert history.kept("now", changes, "review_reason", kept_by=kept_by) == "July"  # the dismissal keeps no reason
    assert history.kept("then", changes, "dismissed_at", kept_by=history.DISMISSAL_KEPT_BY) is None
    assert history.kept("now", [], "review_reason", kept_by=kept_by) == "now"


def test_a_cause_link_keeps_the_moment_only_for_what_had_happened_by_then() -> None:
    # A revision after the moment names a decision that did not exist then: its link opens the present.
    workspace, new = SimpleNamespace(id=uuid4()), str(uuid4())
    moment = Moment(at="2026-05-12T09:30:00.000000+00:00", given="2026-05-12T09:30Z")
    context = Context({"workspace": workspace, "as_of": moment})

    def revision(at: str) -> Change:
        return Change(
            at, ChangeKind.DECISION, str(uuid4()), "needs_review", "superseded", {"kind": "revision", "id": new}, "rita"
        )

    assert "?as_of=" in change_cause(context, revision("2026-05-12T09:00:00.000000+00:00"))
    later = change_cause(context, revision("2026-05-13T09:00:00.000000+00:00"))
    assert f"/decisions/{new}/" in later and "?as_of=" not in later
