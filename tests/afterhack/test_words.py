"""Pages speak human words: no internal status names, counters, offsets, hashes or ids in the text a person reads
(they may sit behind a "Details" toggle), after the demo story has been played through."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest

from afterhack.templatetags.afterhack import IN_WORDS, in_words
from agents.selectors import decisions as agents_selectors
from claims.selectors import search as search_selectors
from config.context_processors import VOCABULARY
from config.demo import demo_load
from corrections.selectors import corrections as corrections_selectors
from corrections.services import apply as apply_services
from corrections.services import preview as preview_services
from tests.conftest import MakeUser, client_for
from workspaces.models import Workspace

pytestmark = pytest.mark.django_db

# Visible text never names a stored value with an underscore, a counter, offsets or a hash.
RAW_VALUES = sorted({str(member) for enum in VOCABULARY for member in enum if "_" in str(member)})
LEAKS = re.compile(
    r"\b(" + "|".join(map(re.escape, RAW_VALUES)) + r")\b|\brevision \d|\bchars? \d|\bcharacters \d|sha256|"
    r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b1 (fragment|claim|decision|action|source|correction|member|step|question|extraction)s\b"
)


class VisibleText(HTMLParser):
    """The text a person reads on a page: not scripts, styles, the page title, nor what a closed <details> hides."""

    HIDDEN = {"script", "style", "title", "details"}

    def __init__(self) -> None:
        super().__init__()
        self.hidden = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def visible(page: str) -> str:
    parser = VisibleText()
    parser.feed(page)
    return " ".join(" ".join(parser.parts).split())


def correct_june(workspace: Workspace, owner: Any) -> None:
    june = next(c for c in search_selectors.newest_claims(workspace=workspace) if "launch is in June" in c.statement)
    preview = preview_services.preview(workspace=workspace, claim_id=june.id, statement="The launch is in July.")
    apply_services.apply(
        workspace=workspace, claim_id=june.id, statement="The launch is in July.", reason="The board moved it.",
        revision=preview.fingerprint, idempotency_key="demo-words", actor=owner,
    )  # fmt: skip


def main_pages(workspace: Workspace) -> list[str]:
    """Every page of the demo a reviewer reads in a day, but a source's own page (the source workflow's)."""
    ws = f"/w/{workspace.id}"
    claims = search_selectors.newest_claims(workspace=workspace)
    decisions = agents_selectors.decisions_page(workspace=workspace, status="", limit=50, cursor=None).items
    actions = agents_selectors.newest_actions(workspace=workspace)
    corrections = corrections_selectors.corrections_page(workspace=workspace, limit=50, cursor=None).items
    return [
        f"{ws}/", f"{ws}/sources/", f"{ws}/claims/", f"{ws}/decisions/", f"{ws}/actions/", f"{ws}/review/",
        f"{ws}/corrections/", f"{ws}/ask/",
        *(f"{ws}/claims/{c.id}/" for c in claims), *(f"{ws}/decisions/{d.id}/" for d in decisions),
        *(f"{ws}/actions/{a.id}/" for a in actions), *(f"{ws}/corrections/{c.id}/" for c in corrections),
        *(f"{ws}/review/{d.id}/" for d in decisions if d.reviewable),
    ]  # fmt: skip


class HumanWordsTests:
    def test_every_status_and_kind_has_words(self) -> None:
        values = {str(member) for enum in VOCABULARY for member in enum}
        assert sorted(values - set(IN_WORDS)) == []
        assert in_words("needs_review") == "needs review" and in_words("human_correction") == "human correction"

    def test_the_demo_pages_show_no_internal_names_counters_offsets_hashes_or_ids(
        self, make_user: MakeUser, django_capture_on_commit_callbacks: Any
    ) -> None:
        owner = make_user("admin", is_superuser=True)
        workspace = demo_load(owner=owner)
        assert workspace is not None
        correct_june(workspace, owner)
        client = client_for(owner)
        # A question the offline agent cannot answer: a run page, and an unanswered question to review.
        with django_capture_on_commit_callbacks(execute=True):
            asked = client.post(f"/w/{workspace.id}/ask/", {"question": "Who paints the office walls?"})
        assert asked.status_code == 302
        pages = [*main_pages(workspace), asked["Location"]]
        assert len(pages) > 20
        dashboard = visible(client.get(pages[0]).content.decode())
        assert "1 decision that lost support" in dashboard and "1 unanswered question" in dashboard
        assert "1 held action" in dashboard
        leaks = {}
        for path in pages:
            response = client.get(path)
            assert response.status_code == 200, path
            text = visible(response.content.decode())
            if found := sorted({m.group(0) for m in LEAKS.finditer(text)}):
                leaks[path] = found
        assert leaks == {}
