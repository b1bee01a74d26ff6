"""What claims tells the apps above it: `claims_current`, sent (with `workspace`, `claim_ids` and `inline`) by every
write that makes claims current — a claim added (the API, the pages, MCP), a derived claim, an extraction's claims
(of a new source, or of a new version when the revise page asks for it), a correction's replacement and an agent's
claim approved (corrections sends those itself). Sent inside the write's transaction: a receiver that
queues work does it with `transaction.on_commit`. `inline` is True when the sender is already the worker (an
extraction): then a receiver does its work there and then. Corrections' contradiction watch listens
(corrections/services/watch.py)."""

from __future__ import annotations

from django.dispatch import Signal

from workspaces.models import Workspace

claims_current = Signal()


def claims_became_current(*, workspace: Workspace, claim_ids: list[str], inline: bool = False) -> None:
    """Tells the receivers that these claims (new ones) are current; nothing for no ids."""
    if claim_ids:
        claims_current.send(sender=Workspace, workspace=workspace, claim_ids=list(claim_ids), inline=inline)
