"""The demo workspace a newcomer sees on first start; loaded once per database."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from workspaces import services as workspace_services
from workspaces.models import AuditEvent, Workspace

DEMO_NAME = "Demo: product launch"
DEMO_LOADED = "demo.loaded"


def demo_load(*, owner: Any) -> Workspace | None:
    """Creates the demo workspace with `owner` as admin, unless it was loaded before; returns it."""
    with transaction.atomic():
        # The audit trail remembers that the demo was loaded, so deleting it is respected.
        if AuditEvent.objects.filter(verb=DEMO_LOADED).exists():
            return None
        workspace = workspace_services.workspace_create(name=DEMO_NAME, creator=owner)
        workspace_services.record_event(actor=owner, workspace=workspace, verb=DEMO_LOADED, target=DEMO_NAME)
    return workspace
