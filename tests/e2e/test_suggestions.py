"""The memory notices, in a browser: a newer email says July, the review queue suggests correcting June's claim;
Correct it opens the correction page filled in and citing the email, preview, apply; the correction names the
suggestion it accepted. Screenshots at the desktop width and at 390 px."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claims.services import claims as claims_services
from claims.services import sources as sources_services
from corrections.selectors import suggestions as suggestions_selectors
from tests.e2e.conftest import screenshot, settled

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

EMAIL = "From Ana Costa, 2 June: the certification slipped. The product launch is in July.\n"
JULY = "The product launch is in July."


def snap(page: Any, tmp_path: Path, name: str) -> None:
    """A full-page screenshot under the test's tmp dir, and under test-artifacts/ for a person to look at."""
    page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True)
    screenshot(page, name)


def july_suggested(workspace: Any) -> tuple[Any, str, Any]:
    """The demo's admin adds Ana's email and its claim that the launch is in July: the admin, the email's id, and
    the suggestion the watch made (correct June's claim)."""
    admin = workspace.memberships.get(role="admin").user
    email = sources_services.source_add(workspace=workspace, title="Email from Ana", text=EMAIL, actor=admin)
    claims_services.claim_add(workspace=workspace, source_id=email.id, statement=JULY, evidence_quote=JULY, actor=admin)
    [suggestion] = [
        s
        for s in suggestions_selectors.suggestions_page(
            workspace=workspace, status="open", kind="", limit=50, cursor=None
        ).items
        if s.statement == JULY
    ]
    return admin, email.id, suggestion


class SuggestionReviewTests:
    def test_correct_it_previews_and_applies_citing_the_email(
        self, page: Any, demo_workspace: Any, tmp_path: Path
    ) -> None:
        workspace = demo_workspace
        _, _, suggestion = july_suggested(workspace)
        page.goto(f"/w/{workspace.id}/")
        tile = page.locator("main a", has_text="suggested correction")
        assert " ".join(tile.first.inner_text().split()) == "1 suggested correction"
        snap(page, tmp_path, "suggestions-dashboard")
        tile.first.click()
        page.wait_for_url("**/review/#suggested")
        item = page.locator(f"#suggestion-{suggestion.id}")
        assert JULY in item.inner_text() and "Email from Ana" in item.inner_text()
        assert item.locator("mark").nth(1).inner_text() == JULY
        snap(page, tmp_path, "suggestions-queue")
        page.set_viewport_size({"width": 390, "height": 844})
        snap(page, tmp_path, "suggestions-queue-390")
        page.set_viewport_size({"width": 1280, "height": 800})

        item.get_by_role("link", name="Correct it").click()
        page.wait_for_url("**/correct?suggestion=*")
        assert page.get_by_label("Corrected statement").input_value() == JULY
        assert page.locator("#evidence-quote").input_value() == JULY
        cited = page.locator("#cited-passage")
        assert cited.is_visible() and JULY in cited.inner_text()
        snap(page, tmp_path, "suggestions-correct-filled")
        page.set_viewport_size({"width": 390, "height": 844})
        snap(page, tmp_path, "suggestions-correct-filled-390")
        page.set_viewport_size({"width": 1280, "height": 800})
        page.get_by_label("Why the claim is wrong").fill("Ana's email says the launch moved to July.")
        page.get_by_role("button", name="Preview the impact").click()
        page.locator("#impact").wait_for()
        settled(page)
        snap(page, tmp_path, "suggestions-correct-preview")
        page.get_by_role("button", name="Apply the correction").click()
        page.wait_for_url("**/corrections/*/")
        main = page.locator("main").inner_text()
        assert "It accepted a suggested correction" in main and "The correction also cites" in main
        assert page.locator("blockquote.cited-passage mark").inner_text() == JULY
        snap(page, tmp_path, "suggestions-correct-applied")
        assert (tmp_path / "suggestions-correct-applied.png").stat().st_size > 0
        accepted = suggestions_selectors.suggestion_get(workspace=workspace, suggestion_id=suggestion.id)
        assert accepted is not None and accepted.status == "accepted" and accepted.correction_id
