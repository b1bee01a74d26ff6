"""Reading the past (docs/history.md, "Reading the past"): pure rules that rewind what a node is now to what it
was at a moment T, from its Changes made after T (maps as afterhack.history_graph.CHANGE_FIELDS reads them).

The claim's rewind is claims/history.py, the decision's and the action's agents/history.py; they use these.
No graph, no clock: each is tested on plain values (tests/afterhack/test_as_of_rules.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from afterhack.history_graph import ChangeCause

PastChange = dict[str, Any]

# The causes whose Change keeps a decision's review state (review_reason, flagged_by, dismissed_at) as it was:
# a flag (correction, retraction, new version), a re-justification, a revision. A dismissal keeps only
# dismissed_at (it changes nothing else); a migration baseline keeps nothing.
REVIEW_STATE_KEPT_BY = frozenset(
    {
        ChangeCause.CORRECTION,
        ChangeCause.RETRACTION,
        ChangeCause.NEW_VERSION,
        ChangeCause.REJUSTIFICATION,
        ChangeCause.REVISION,
    }
)
DISMISSAL_KEPT_BY = REVIEW_STATE_KEPT_BY | {ChangeCause.DISMISSAL}


def existed(created_at: str | None, as_of: str) -> bool:
    """Whether a node made at `created_at` existed at `as_of` (a node without a creation time always has)."""
    return not created_at or created_at <= as_of


def after(changes: Iterable[PastChange | None], as_of: str) -> list[PastChange]:
    """The changes made after `as_of`, oldest first (ties in the order given: one write changes a node once)."""
    return sorted((c for c in changes if c and c["at"] > as_of), key=lambda c: c["at"])


def status_at(present: str, changes: list[PastChange]) -> str:
    """The status at T: the status its first change after T left; none after T, the present one. A migrated
    baseline (from_status null: unknown before the history began) answers with the status it records."""
    if not changes:
        return present
    first = changes[0]
    return str(first["from_status"] if first.get("from_status") is not None else first["to_status"])


def first_of(changes: list[PastChange], *causes: str) -> PastChange | None:
    """The first of these changes with one of these causes, or None."""
    return next((c for c in changes if c.get("cause") in causes), None)


def kept(present: Any, changes: list[PastChange], name: str, *, kept_by: frozenset[str]) -> Any:
    """A property at T that the writes of `kept_by` overwrite (keeping it as `from_<name>`): the value kept by
    the first of them after T, else the present one."""
    first = next((c for c in changes if c.get("cause") in kept_by), None)
    return present if first is None else first.get("from_" + name)
