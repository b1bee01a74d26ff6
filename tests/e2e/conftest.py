"""Browser tests: Playwright driving Debian's Chromium against a live server on the real stores."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls in these tests are
# still plain synchronous calls, which Django would otherwise refuse next to a running loop.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("AFTERHACK_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not shutil.which(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"Chromium is missing at {CHROMIUM}: .ci/run installs Debian's chromium package.")
        pytest.skip(f"Chromium not installed at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def screenshot(page: Any, name: str) -> Path:
    """Saves a full-page screenshot under test-artifacts/ for a person to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def preview_correction(page: Any, statement: str, reason: str | None, *, wait_for: str) -> Any:
    """Fills the correction form (the reason only when given) and previews it; the locator `wait_for`, settled."""
    page.get_by_label("Corrected statement").fill(statement)
    if reason is not None:
        page.get_by_label("Why the claim is wrong").fill(reason)
    page.get_by_role("button", name="Preview the impact").click()
    shown = page.locator(wait_for)
    shown.wait_for()
    settled(page)
    return shown


def settled(page: Any) -> None:
    """Waits until htmx has swapped and settled (its new content has its listeners)."""
    # A function, not an expression: Playwright evaluates an expression with eval(), which the
    # pages' Content-Security-Policy refuses.
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added')"
    )


@pytest.fixture
def celery_worker_thread() -> Iterator[Any]:
    """A real Celery worker (in a thread of this process) on the real broker, instead of eager tasks."""
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    app.conf.task_always_eager = False
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10) as worker:
            yield worker
    finally:
        app.conf.task_always_eager = True


def log_in(page: Any, live_server: Any, user: Any) -> None:
    """Puts a session cookie for `user` into the browser."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    page.context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])


@pytest.fixture
def demo_workspace(page: Any, live_server: Any, make_user: Any) -> Any:
    """The demo workspace (the launch story), with its admin logged in to the browser."""
    from config.demo import demo_load

    admin = make_user("admin", is_staff=True, is_superuser=True)
    workspace = demo_load(owner=admin)
    assert workspace is not None
    log_in(page, live_server, admin)
    return workspace
