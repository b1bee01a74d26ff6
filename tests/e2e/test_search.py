"""A viewer searches claims by meaning on the claims page, switches the mode, and sees a degraded search said quietly."""

from __future__ import annotations

from typing import Any

import pytest

from claims.services import claims as claims_services
from claims.services import embeddings as embeddings_services
from claims.services import sources as sources_services
from tests.conftest import Trio
from tests.e2e.conftest import log_in, screenshot, settled

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TEXT = "The launch is in June. Ana owns the launch checklist. The office moves to Berlin in July."


class SearchModeTests:
    def test_the_mode_control_switches_between_meaning_and_words(
        self, page: Any, live_server: Any, trio: Trio, embedder: Any
    ) -> None:
        source = sources_services.source_add(
            workspace=trio.workspace, title="Launch plan", text=TEXT, actor=trio.reviewer
        )
        for quote in ("The launch is in June", "Ana owns the launch checklist", "The office moves to Berlin in July"):
            claims_services.claim_add(
                workspace=trio.workspace, source_id=source.id, statement=quote + ".", evidence_quote=quote,
                actor=trio.reviewer,
            )  # fmt: skip
        # Each claim was embedded as it was added (the task runs once its write commits): nothing is left.
        assert embeddings_services.claims_embed(workspace=trio.workspace) == 0 and len(embedder.embedding_requests) == 3
        log_in(page, live_server, trio.viewer)
        page.goto(f"/w/{trio.workspace.id}/claims/")
        mode = page.get_by_label("Match by")
        # No mode is the default: words and meaning fused.
        assert mode.input_value() == ""
        page.get_by_label("Search", exact=True).fill("When is the release?")
        first = page.locator("#claims-list tbody tr").first
        first.get_by_text("The launch is in June.").wait_for()
        assert "meaning" in first.locator(".badge.match").inner_text()
        assert "Berlin" not in page.locator("#claims-list").inner_text()
        screenshot(page, "search-hybrid-by-meaning")

        mode.select_option("lexical")
        page.get_by_role("button", name="Filter").click()
        page.get_by_text("No claim matches “When is the release?”").wait_for()
        settled(page)
        assert page.url.endswith("?q=When+is+the+release%3F&mode=lexical")
        screenshot(page, "search-lexical-finds-nothing")

        embedder.embeddings_reply = {"status": 500}
        mode.select_option("semantic")
        page.get_by_role("button", name="Filter").click()
        note = page.locator("#claims-list .degraded")
        note.wait_for()
        assert note.inner_text().startswith("Searched by words only.")
        screenshot(page, "search-degraded")
