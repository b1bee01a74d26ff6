"""Every kind of page works under the Content-Security-Policy: no violation, nothing loaded from elsewhere."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.csp import build_policy

from claims.graph import search as search_graph
from config.demo import demo_load
from tests.conftest import MakeUser
from tests.e2e.conftest import log_in, preview_correction, screenshot, settled
from workspaces.models import Workspace

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Runs before any script of each page (it is injected by the browser, not the page, so the
# policy does not apply to it) and records every violation the page reports.
WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.effectiveDirective} refused ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`);
});
"""


class Watch:
    """What the pages of one browser tab complained about, and where they fetched from."""

    def __init__(self, page: Any, origin: str) -> None:
        self.page, self.origin = page, origin
        self.console: list[str] = []
        self.elsewhere: list[str] = []
        page.on("console", self._on_console)
        page.on("request", self._on_request)

    def _on_console(self, message: Any) -> None:
        # The Permissions-Policy too: a feature Chromium does not know, or one a page uses and the policy denies.
        if any(name in message.text for name in ("Content Security Policy", "Content-Security-Policy", "ermissions")):
            self.console.append(f"{self.page.url}: {message.text}")

    def _on_request(self, request: Any) -> None:
        if not request.url.startswith((self.origin, "data:")):
            self.elsewhere.append(request.url)

    def visit(self, path: str) -> Any:
        response = self.page.goto(path)
        self.page.wait_for_load_state("networkidle")
        return response

    def assert_clean(self) -> None:
        violations = self.page.evaluate("window.__violations")
        assert violations == [], f"{self.page.url}: {violations}"
        assert self.console == [], self.console
        assert self.elsewhere == [], self.elsewhere


@pytest.fixture
def watch(page: Any, live_server: Any) -> Iterator[Watch]:
    page.context.add_init_script(WATCH_VIOLATIONS)
    yield Watch(page, live_server.url)


def error_page(status: int) -> Any:
    """A route handler answering with the error page's template under the pages' policy."""

    def fulfill(route: Any) -> None:
        route.fulfill(
            status=status,
            body=render_to_string(f"{status}.html"),
            headers={"Content-Type": "text/html", "Content-Security-Policy": build_policy(settings.SECURE_CSP)},
        )

    return fulfill


class ContentSecurityPolicyTests:
    def test_the_apps_pages_and_their_htmx_interactions_raise_no_violation(
        self, page: Any, watch: Watch, live_server: Any, make_user: MakeUser
    ) -> None:
        admin = make_user("admin", is_staff=True, is_superuser=True)
        make_user("rita")
        workspace = demo_load(owner=admin)
        assert workspace is not None
        june = search_graph.claim_search_phrase(workspace=workspace, phrase="the product launch is in june", limit=1)[0]

        response = watch.visit("/accounts/login/")
        assert "script-src 'self'" in response.headers["content-security-policy"]
        watch.assert_clean()
        log_in(page, live_server, admin)
        base = f"/w/{workspace.id}"
        for path in ("/w/", f"{base}/", f"{base}/sources/", f"{base}/claims/?q=launch", f"{base}/decisions/",
                     f"{base}/actions/", f"{base}/ask/", f"{base}/corrections/", f"{base}/review/",
                     f"{base}/claims/{june.id}/", f"{base}/claims/{june.id}/chain", "/audit/"):  # fmt: skip
            watch.visit(path)
            assert page.locator("main h1, main h2").first.is_visible(), path
            watch.assert_clean()

        # A source's highlight shows its claims over HTMX.
        watch.visit(f"{base}/sources/")
        page.locator("main tbody a").first.click()
        page.locator("#source-text mark").first.click()
        page.locator("#claim-panel .claim-card").first.wait_for()
        settled(page)
        watch.assert_clean()

        # Members: a role changed in place over HTMX, to admin through the confirm step.
        watch.visit(f"{base}/members/")
        page.get_by_label("Username").fill("rita")
        page.get_by_role("button", name="Add", exact=True).click()
        page.get_by_text("rita added as reviewer").wait_for()
        settled(page)
        page.get_by_label("Role of rita").select_option("admin")
        page.locator("tr", has_text="rita").get_by_role("button", name="Change role").click()
        page.get_by_role("button", name="Make rita admin").click()
        page.get_by_text("rita is now admin").wait_for()
        settled(page)
        screenshot(page, "csp-members")
        watch.assert_clean()

        # A correction's impact preview, swapped in by HTMX.
        watch.visit(f"{base}/claims/{june.id}/correct")
        impact = preview_correction(
            page, "The product launch is in July.", "The board moved the launch.", wait_for="#impact"
        )
        impact.get_by_text("Will need review").first.wait_for()
        screenshot(page, "csp-correction-preview")
        watch.assert_clean()

    def test_retracting_a_source_still_asks_first(self, page: Any, watch: Watch, demo_workspace: Workspace) -> None:
        workspace = demo_workspace
        watch.visit(f"/w/{workspace.id}/sources/")
        page.locator("main tbody a").first.click()
        page.get_by_role("link", name="New version or retract").click()
        questions: list[str] = []

        def decline(dialog: Any) -> None:
            questions.append(dialog.message)
            dialog.dismiss()

        page.once("dialog", decline)
        page.get_by_role("button", name="Retract").click()
        assert questions == ["Retract this source and all its claims?"]
        assert "/revise" in page.url
        watch.assert_clean()

    def test_the_admin_the_api_docs_and_the_error_pages_raise_no_violation(
        self, page: Any, watch: Watch, live_server: Any, make_user: MakeUser
    ) -> None:
        admin = make_user("admin", is_staff=True, is_superuser=True)
        make_user("agent")
        assert demo_load(owner=admin) is not None

        watch.visit("/admin/login/")
        watch.assert_clean()
        log_in(page, live_server, admin)
        for path in ("/admin/", "/admin/workspaces/workspace/", "/admin/workspaces/auditevent/",
                     "/admin/workspaces/apitoken/", "/admin/workspaces/loginfailures/", "/admin/auth/user/"):  # fmt: skip
            watch.visit(path)
            page.locator("#content h1").wait_for()
            watch.assert_clean()
        screenshot(page, "csp-admin-changelist")

        # Issuing a token in the admin: the user autocomplete and the date widgets run their scripts.
        watch.visit("/admin/workspaces/apitoken/add/")
        page.locator(".select2-selection").first.click()
        page.locator(".select2-search__field").fill("age")
        page.locator(".select2-results__option", has_text="agent").click()
        page.locator("#id_name").fill("nightly")
        page.locator("#id_expires_at_0").fill("2099-05-06")
        page.get_by_role("button", name="Choose a Time").first.click()
        page.get_by_role("dialog").get_by_role("button", name="Noon").click()
        assert page.locator("#id_expires_at_1").input_value() == "12:00:00"
        page.locator("input[name=_save]").click()
        page.locator("#new-token").wait_for()
        screenshot(page, "csp-admin-token")
        watch.assert_clean()
        watch.visit("/admin/workspaces/workspace/")
        page.locator("#result_list tbody th a").first.click()
        page.locator(".inline-group").wait_for()
        watch.assert_clean()

        # django-ninja's Swagger page, from this server's own static files.
        watch.visit("/api/v1/docs")
        page.locator(".opblock").first.wait_for()
        page.locator(".opblock-summary", has_text="/api/v1/auth/token").first.click()
        page.get_by_role("button", name="Try it out").first.wait_for()
        screenshot(page, "csp-api-docs")
        watch.assert_clean()

        assert watch.visit("/w/no-such-page/").status == 404
        watch.assert_clean()

        # The 400 and 500 pages as the server sends them (no view fails on purpose): template and policy.
        for status in (400, 500):
            page.route(f"**/fails-{status}", error_page(status))
        watch.visit("/w/")
        watch.visit("/fails-400")
        page.get_by_role("link", name="Go back").click()
        page.wait_for_url("**/w/")
        watch.assert_clean()
        watch.visit("/fails-500")
        assert page.locator("h1").inner_text() == "Something went wrong"
        assert page.locator("section.card").evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"
        screenshot(page, "csp-500")
        watch.assert_clean()
