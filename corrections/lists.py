"""The corrections app's lists, the history of corrections, the timeline of changes of belief and the suggested
corrections, each described once (afterhack/lists/spec.py): what each sorts by, and each filter declared once for
the page (its words) and the Cypher (its condition on the variables the list queries bind, with its $params: the
correction `x` of corrections/graph/corrections.py, the change `x` of corrections/graph/timeline.py, the suggestion
`x` of corrections/graph/suggestions.py). The JSON API takes the suggestions' and none of the others'
(its corrections list is a keyset page of all of them; its changes list a window of its own). One exception: each
person filter also matches the usernames whose full name holds its words, looked up in PostgreSQL by the selector
(corrections/selectors/corrections.py, corrections/selectors/timeline.py) and passed to the graph as $actors."""

from __future__ import annotations

import json
from typing import Any

from afterhack.cypher import word
from afterhack.history_graph import ChangeCause, ChangeKind
from afterhack.lists.filters import Filter, FilterKind, choice
from afterhack.lists.spec import ListSpec
from afterhack.text import MAX_USERNAME_CHARS
from corrections.statuses import CorrectionImpact, SuggestionKind, SuggestionStatus

# `affected` as correction_apply stores it (json.dumps), for each key the text that says its list is empty.
NOTHING_AFFECTED = {
    name: json.dumps({key: []})[1:-1]
    for name, key in (
        ("no_review", "decisions_needing_review"), ("no_held", "actions_held"),
        ("no_unsupported", "claims_unsupported"),
    )
}  # fmt: skip


def _impact(value: str) -> dict[str, Any]:
    # What a correction did is read off `affected`, stored as JSON: "nothing there" is the exact empty list.
    return {"impact": value, **NOTHING_AFFECTED}


# What the correction did ($impact: see CorrectionImpact).
IMPACT_CONDITION = (
    f"$impact = '' OR ($impact = {word(CorrectionImpact.REVIEW)} AND NOT x.affected CONTAINS $no_review) "
    f"OR ($impact = {word(CorrectionImpact.HELD)} AND NOT x.affected CONTAINS $no_held) "
    f"OR ($impact = {word(CorrectionImpact.UNSUPPORTED)} AND NOT x.affected CONTAINS $no_unsupported) "
    f"OR ($impact = {word(CorrectionImpact.NONE)} AND x.affected CONTAINS $no_review "
    "AND x.affected CONTAINS $no_held AND x.affected CONTAINS $no_unsupported)"
)

HISTORY = ListSpec(
    name="corrections",
    noun=("correction", "corrections"),
    sorts={"applied": "When", "actor": "Who"},
    default_sort="-applied",
    filters={
        # Part of a username (any case), or one of the usernames their full name matched ($actors, see above).
        "actor": Filter(
            "Person", max_chars=MAX_USERNAME_CHARS,
            cypher="$actor = '' OR toLower(x.actor) CONTAINS $actor OR x.actor IN $actors",
        ),
        # The claim corrected or its replacement.
        "claim": Filter(
            "Claim", FilterKind.ID, param="claim_id",
            cypher="$claim_id = '' OR x.claim_id = $claim_id OR x.replacement_claim_id = $claim_id",
        ),
        "kind": Filter("Kind", FilterKind.CHOICE, (
            (CorrectionImpact.REVIEW, "Sent decisions to review"), (CorrectionImpact.HELD, "Held actions"),
            (CorrectionImpact.UNSUPPORTED, "Left derived claims unsupported"),
            (CorrectionImpact.NONE, "Left everything standing"),
        ), cypher=IMPACT_CONDITION, to_params=_impact),
        # Applied in whole UTC days, `since` through `until`: [$since, $until).
        "since": Filter("From", FilterKind.DAY, cypher="$since = '' OR x.applied_at >= $since"),
        "until": Filter("To", FilterKind.DAY, until=True, cypher="$until = '' OR x.applied_at < $until"),
    },
)  # fmt: skip

CAUSE_CHOICES = (
    (ChangeCause.CORRECTION, "A correction"), (ChangeCause.RETRACTION, "A source retracted"),
    (ChangeCause.NEW_VERSION, "A new version of a source"), (ChangeCause.REJUSTIFICATION, "A re-justification"),
    (ChangeCause.REVISION, "A revision"), (ChangeCause.DISMISSAL, "A dismissal"),
    (ChangeCause.CLAIM_REVIEW, "An agent's claim approved or rejected"),
    (ChangeCause.PERSON, "A person's mark"), (ChangeCause.MIGRATION, "History began"),
)  # fmt: skip
TIMELINE = ListSpec(
    name="timeline",
    noun=("change", "changes"),
    sorts={"when": "When"},
    default_sort="-when",
    filters={
        # What the change is of, and what caused it.
        "kind": choice("Kind", (
            (ChangeKind.CLAIM, "Claims"), (ChangeKind.DECISION, "Decisions"), (ChangeKind.ACTION, "Actions"),
        ), param="kind", of="x.kind"),
        "cause": choice("Cause", CAUSE_CHOICES, param="cause", of="x.cause"),
        # Part of a username (any case), or one of the usernames their full name matched ($actors, see above).
        "actor": Filter("Person", cypher="$actor = '' OR toLower(x.actor) CONTAINS $actor OR x.actor IN $actors"),
        # Whole UTC days, `since` through `until`: [$since, $until).
        "since": Filter("From", FilterKind.DAY, cypher="$since = '' OR x.at >= $since"),
        "until": Filter("To", FilterKind.DAY, until=True, cypher="$until = '' OR x.at < $until"),
    },
    search="Statement or title",
)  # fmt: skip

SUGGESTION_STATUS_WORDS = (
    (SuggestionStatus.OPEN, "Open"), (SuggestionStatus.ACCEPTED, "Accepted"),
    (SuggestionStatus.REJECTED, "Rejected"), (SuggestionStatus.OBSOLETE, "Obsolete"),
)  # fmt: skip
SUGGESTION_KIND_WORDS = (
    (SuggestionKind.CONTRADICTION, "A contradiction"), (SuggestionKind.AGENT_CLAIM, "An agent's claim"),
)  # fmt: skip
# Suggested corrections (the suggestion `x` of corrections/graph/suggestions.py). Also the API's `?status=` (its
# default there is open) and `?kind=` of GET …/suggestions (corrections/api/suggestions.py).
SUGGESTIONS = ListSpec(
    name="suggestions",
    noun=("suggestion", "suggestions"),
    sorts={"created": "When"},
    default_sort="-created",
    filters={
        "status": choice("Status", SUGGESTION_STATUS_WORDS, param="status", of="x.status"),
        "kind": choice("Kind", SUGGESTION_KIND_WORDS, param="kind", of="x.kind"),
    },
)
