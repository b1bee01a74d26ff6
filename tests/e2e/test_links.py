"""Everything linked both ways, walked in the browser: claim → decision → action → correction → replacement → back."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import screenshot
from tests.e2e.test_attention import correct_june_in_the_browser
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class LinksBothWaysTests:
    def test_a_reviewer_walks_from_a_claim_to_its_actions_and_corrections_and_back(
        self, page: Any, demo_workspace: Workspace
    ) -> None:
        correct_june_in_the_browser(page, demo_workspace)
        screenshot(page, "links-correction-detail")
        # The correction → the action it held.
        page.get_by_role("link", name="Pay the ad agency deposit").click()
        page.get_by_role("heading", name="Pay the ad agency deposit", level=1).wait_for()
        # The action → its decision → the correction that flagged it.
        page.get_by_role("region", name="Where it stands").get_by_role(
            "link", name="Book the May campaign slots"
        ).click()
        page.get_by_role("heading", name="Book the May campaign slots", level=1).wait_for()
        screenshot(page, "links-decision")
        page.get_by_role("link", name=re.compile(r"^correction by admin on ")).click()
        page.wait_for_url("**/corrections/*/")
        # The correction → the replacement claim → back to the claim it replaces and its correction.
        page.locator(".before-after").get_by_role("link", name="The product launch is in July.").click()
        page.get_by_role("heading", name="The product launch is in July.", level=1).wait_for()
        replaces = page.locator(".replaces")
        assert "Replaces “The product launch is in June.” — correction by admin on" in replaces.inner_text()
        screenshot(page, "links-replacement-claim")
        replaces.get_by_role("link", name="“The product launch is in June.”").click()
        page.get_by_role("heading", name="The product launch is in June.", level=1).wait_for()
        # The old claim's "What rests on it": its decisions and the actions under them, each a link.
        rests = page.locator("ul.dependents")
        assert rests.get_by_role("link", name="Launch in June").is_visible()
        assert rests.get_by_role("link", name="Announce the June launch").is_visible()
        assert rests.get_by_role("link", name="Send the launch announcement").is_visible()
        assert rests.get_by_role("link", name="Pay the ad agency deposit").is_visible()
        screenshot(page, "links-old-claim")
        # The announcement that already went out on it: done, and now needing a follow-up.
        rests.get_by_role("link", name="Send the launch announcement").click()
        page.get_by_role("heading", name="Send the launch announcement", level=1).wait_for()
        assert "Done: it was marked done" in page.get_by_role("region", name="Where it stands").inner_text()
        assert "follow-up needed" in page.locator("#follow-up").inner_text()
