"""A correction citing a passage, applied by a process killed after each step, then recovered."""

from __future__ import annotations

import subprocess
import sys

import pytest

from afterhack import graph
from claims.signals import claims_current
from corrections import intents
from corrections.models import CorrectionIntent
from tests.corrections.conftest import World
from tests.corrections.test_cited_evidence import PASSAGE, add_risks, apply, claim
from tests.corrections.test_processes import ROOT, env, release, wait_until_key_is_free
from workspaces import registry
from workspaces.models import AuditEvent, Tell

pytestmark = [pytest.mark.subprocess, pytest.mark.django_db(transaction=True)]

APPLY_CITING = """
import sys
import django
django.setup()
from django.contrib.auth import get_user_model
from corrections.services import apply as apply_services
from workspaces.models import Workspace
workspace_id, username, claim_id, revision, key, source_id, quote = sys.argv[1:8]
workspace = Workspace.objects.get(id=workspace_id)
actor = get_user_model().objects.get(username=username)
print("ready", flush=True)
sys.stdin.readline()
apply_services.apply(workspace=workspace, claim_id=claim_id, statement="The launch is in July.",
                     reason="The certification slipped.", revision=int(revision), idempotency_key=key, actor=actor,
                     evidence={"source_id": source_id, "quote": quote})
"""


class CitedEvidenceRecoveryTests:
    @pytest.mark.parametrize(("step", "applied"), [("after_intent", False), ("after_graph", True)])
    def test_a_killed_applier_is_recovered_with_its_passage(self, world: World, step: str, applied: bool) -> None:
        risks = add_risks(world)
        revision = world.preview(world.june).json()["revision"]
        args = [
            sys.executable,
            "-c",
            APPLY_CITING,
            world.ws,
            "rita",
            world.june,
            str(revision),
            "crash",
            risks,
            PASSAGE,
        ]
        process = subprocess.Popen(
            args, env=env(AFTERHACK_FAULT_INJECTION=step), cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        release(process)
        process.communicate(timeout=120)
        assert process.returncode == 86  # it died where it was told to
        intent = CorrectionIntent.objects.get(idempotency_key="crash")
        assert intent.state == "pending" and intent.evidence_quote == PASSAGE
        wait_until_key_is_free(world, "crash")

        told: list[str] = []

        def heard(sender: object, *, claim_ids: list[str], **_: object) -> None:
            told.extend(claim_ids)

        claims_current.connect(heard, dispatch_uid="test.recovery")
        # The telling is the teller worker's (Celery runs eagerly in tests): kept back, so its row can be looked at.
        kicks, registry.TELL_SOON[:] = list(registry.TELL_SOON), []
        try:
            report = intents.recover()
        finally:
            claims_current.disconnect(dispatch_uid="test.recovery")
            registry.TELL_SOON[:] = kicks
        assert (report.completed, report.failed) == ((1, 0) if applied else (0, 1))
        # A recovered replacement became current: the contradiction watch is told of it, as after an apply.
        assert told == ([str(intent.replacement_claim_id)] if applied else [])
        events = [e.payload for e in AuditEvent.objects.filter(verb="correction.applied")]
        if applied:
            assert len(events) == 1 and events[0]["recovered"] is True
            assert events[0]["evidence"]["quote"] == PASSAGE and events[0]["evidence"]["source_id"] == risks
        else:
            assert events == [] and claim(world, world.june)["status"] == "current"
        # Told exactly when it happened: its Tell row (the outbox) came with the recovered outcome, or not at all.
        assert Tell.objects.filter(event__verb="correction.applied").count() == (1 if applied else 0)
        # The same request again finishes the job (or answers that it is done), citing the passage.
        again = apply(world, revision, {"source_id": risks, "quote": PASSAGE}, key="crash")
        assert again.json()["status"] == ("already_applied" if applied else "applied"), again.content
        cited = claim(world, again.json()["replacement_claim_id"])["cited_passage"]
        assert cited["quote"] == PASSAGE
        corrections = graph.ro_query(world.trio.workspace, "MATCH (x:Correction) RETURN count(x)")
        assert corrections == [[1]]
