"""How a correction's audit event reads to staff who may not read its workspace (workspaces/disclosure.py is the
rule; this is the correction's part of it, registered with its verb in corrections/registration.py): its from → to,
why, by whom and what lost support are every staff reader's; its cited quote and the titles of what it left
untouched are its workspace's readers' alone."""

from __future__ import annotations

from typing import Any

from django.db.models import CharField, F, Func, JSONField, Value
from django.db.models.fields.json import KeyTransform

from workspaces.models import AuditEvent

CORRECTION = "correction.applied"

# What a correction's recorded impact names that the correction changed: shown with their titles. The rest of the
# impact (decisions it left standing and what keeps them up, supports restating it) is untouched: ids only.
TOUCHED = ("decisions_needing_review", "actions_held", "claims_unsupported", "actions_already_done")
UNTOUCHED = ("decisions_still_supported", "restating")
# The payload fields every staff reader sees whole.
PAYLOAD_WHOLE = frozenset({"statement", "reason", *(f"impact.{key}" for key in TOUCHED)})


def correction_summary(event: AuditEvent, corrected_from: str) -> str:
    """The correction in words when the staff audit gives what it corrected ('' where unknown): from, to and why."""
    reason = event.payload.get("reason")
    why = f" (why: “{reason}”)" if isinstance(reason, str) and reason else ""
    what = f"corrected “{corrected_from}” to “{event.target}”" if corrected_from else event.summary
    return what + why


class _IdsAt(Func):
    """The ids a JSON path finds in an event's payload (`$.impact.restating[*].id`), as one JSON array."""

    function = "jsonb_path_query_array"
    template = "%(function)s(%(expressions)s::jsonpath)"
    output_field = JSONField()


def impact_columns() -> dict[str, Any]:
    """A correction event's recorded impact as a reader who may not read its workspace sees it (workspaces/
    disclosure.py with PAYLOAD_WHOLE), as columns for a query to read instead of the payload: what the correction
    touched whole, each list of what it left untouched as its ids, and `impact_type` ('object' when there is an
    impact). The untouched titles and the payload's quotes never leave the database."""
    impact = KeyTransform("impact", "payload")
    return {
        "impact_type": Func(impact, function="jsonb_typeof", output_field=CharField()),
        **{key: KeyTransform(key, impact) for key in TOUCHED},
        **{key: _IdsAt(F("payload"), Value(f"$.impact.{key}[*].id")) for key in UNTOUCHED},
    }
