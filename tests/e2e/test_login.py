"""A newcomer logs in and finds the demo workspace."""

from __future__ import annotations

from typing import Any

import pytest

from config.demo import DEMO_NAME, demo_load
from tests.conftest import PASSWORD
from tests.e2e.conftest import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class LoginFlowTests:
    def test_it_logs_in_and_shows_the_demo_workspace(self, page: Any, make_user: Any) -> None:
        admin = make_user("admin", is_staff=True, is_superuser=True)
        demo_load(owner=admin)

        page.goto("/")
        assert page.url.endswith("/accounts/login/?next=/w/")
        page.get_by_label("Username").fill("admin")
        page.get_by_label("Password").fill("wrong password")
        page.get_by_role("button", name="Log in").click()
        assert page.get_by_role("alert").inner_text().startswith("Wrong username or password")

        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url("**/w/")
        screenshot(page, "workspace-list")
        link = page.get_by_role("link", name=DEMO_NAME)
        assert link.is_visible()

        link.click()
        page.wait_for_url("**/w/*/")
        assert page.get_by_role("heading", level=1).inner_text() == DEMO_NAME
        screenshot(page, "dashboard")
