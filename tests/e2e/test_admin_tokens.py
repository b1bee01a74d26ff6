"""An admin issues an API token in the Django admin, copies it from its panel and revokes it; the lists fit 1280 px."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from urllib.parse import urljoin

import pytest
from django.utils import timezone

from tests.conftest import ApiClient, MakeUser
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_csp import WATCH_VIOLATIONS
from workspaces.models import ApiToken, AuditEvent
from workspaces.services import tokens as token_services
from workspaces.services import workspaces as workspace_services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Functions, not expressions: Playwright evaluates an expression with eval(), which the admin's policy refuses.
SELECTION = "() => window.getSelection().toString()"
CLIPBOARD = "() => navigator.clipboard.readText()"


def clipboard_text(page: Any) -> str:
    """What the clipboard holds, read from a page of the app's origin that sends no Permissions-Policy: the app's
    policy denies reading the clipboard (it only ever writes it)."""
    reader = page.context.new_page()
    probe = urljoin(page.url, "/clipboard-probe")
    reader.route(
        probe, lambda route: route.fulfill(body="<!doctype html><title>probe</title>", content_type="text/html")
    )
    try:
        reader.goto(probe)
        reader.bring_to_front()
        return str(reader.evaluate(CLIPBOARD))
    finally:
        reader.close()
        page.bring_to_front()


# How far the page and the list's table are wider than what they show: 0 when nothing is cut off or scrolls.
OVERFLOW = """() => {
  const results = document.querySelector('#changelist .results');
  return {
    page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    table: results ? results.scrollWidth - results.clientWidth : null,
  };
}"""


def some_tokens(make_user: MakeUser) -> None:
    """Tokens in each state, held by people with long names, so the list is seen as it is in use."""
    for index, name in enumerate(["deploy pipeline of the reporting service", "nightly import", "old laptop"]):
        holder = make_user(f"{'firstname.lastname' if index == 0 else 'bot'}{index}@example.com")
        token, raw = token_services.token_issue(user=holder, name=name)
        ApiClient(raw).get("/workspaces")
        if name == "old laptop":
            token_services.token_revoke(token=token, actor=holder)
    expired, _ = token_services.token_issue(user=holder, name="expired trial")
    ApiToken.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(days=2))


class AdminTokenFlowTests:
    def test_an_admin_issues_copies_and_revokes_a_token(self, page: Any, live_server: Any, make_user: MakeUser) -> None:
        root = make_user("root", is_staff=True, is_superuser=True)
        make_user("agent")
        some_tokens(make_user)
        workspace_services.workspace_create(name="Launch planning for the autumn release", creator=root)
        page.context.add_init_script(WATCH_VIOLATIONS)
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        log_in(page, live_server, root)

        page.goto("/admin/workspaces/apitoken/add/")
        assert page.locator("#id_expires_at_0").input_value() == ""
        assert page.get_by_text("Leave empty for the usual 30 days").is_visible()
        assert page.locator("#id_revoked_at_0").count() == 0
        page.locator(".select2-selection").first.click()
        page.locator(".select2-search__field").fill("agen")
        page.locator(".select2-results__option", has_text="agent").click()
        page.locator("#id_name").fill("nightly")
        screenshot(page, "admin-token-add")
        page.locator("input[name=_save]").click()

        token = page.locator("#new-token")
        raw = token.inner_text()
        assert re.fullmatch(r"ah_[A-Za-z0-9]{43}", raw), raw
        assert page.get_by_role("heading", name="Copy the token now: it is shown only this once").is_visible()
        assert re.search(
            r"expires on \d+ \w+ \d{4} at \d\d:\d\d UTC, in 30 days\.", page.locator(".new-token").inner_text()
        )

        page.get_by_role("button", name="Copy").click()
        page.get_by_role("status").filter(has_text="Copied.").wait_for()
        screenshot(page, "admin-token-panel")
        assert clipboard_text(page) == raw

        page.locator("#content h1").click()
        assert page.evaluate(SELECTION) == ""
        token.dblclick()
        assert page.evaluate(SELECTION) == raw
        assert page.evaluate("() => window.__violations") == []

        page.get_by_role("link", name="Done: back to API tokens").click()
        page.locator("#result_list").wait_for()
        assert raw not in page.content()
        screenshot(page, "admin-token-list")
        assert page.evaluate(OVERFLOW) == {"page": 0, "table": 0}

        page.get_by_role("link", name="nightly", exact=True).click()
        page.get_by_role("button", name="Revoke this token").wait_for()
        screenshot(page, "admin-token-page")
        page.go_back()

        row = page.locator("#result_list tbody tr", has=page.get_by_role("link", name="nightly", exact=True))
        row.locator("input.action-select").check()
        page.locator("select[name=action]").select_option(label="Revoke selected API tokens")
        page.get_by_role("button", name="Run").click()
        page.get_by_text("A revoked token cannot be restored").wait_for()
        screenshot(page, "admin-token-revoke-confirmation")
        page.get_by_role("button", name="Yes, revoke it").click()
        page.get_by_text("Revoked 1 API token: it is refused from now on.").wait_for()
        assert row.locator("td.field-state").inner_text().startswith("Revoked ")
        assert ApiClient(raw).get("/workspaces").status_code == 401
        assert AuditEvent.objects.filter(verb="token.revoked", actor=root, target__endswith="for agent").count() == 1

        page.goto("/admin/workspaces/workspace/")
        page.locator("#result_list").wait_for()
        headers = page.locator("#result_list thead th").all_text_contents()
        assert [header.strip() for header in headers if header.strip()] == [
            "Name",
            "Independent sources",
            "Agent claims need approval",
            "Created at",
        ]
        screenshot(page, "admin-workspace-list")
        assert page.evaluate(OVERFLOW) == {"page": 0, "table": 0}
        assert page.evaluate("() => window.__violations") == []
