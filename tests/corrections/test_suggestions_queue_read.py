"""The review queue's suggested corrections are read together: the list, then ONE read of every side (both claims,
or a flag's passage) with only the text around each quote, cut in the graph. What the page shows of each side is
what slicing the source's text in Python gives, in a long text of characters beyond ASCII too (FalkorDB's offsets
count code points, as Python's do), for two suggestions citing one long source, a flag, a derived claim (no quote),
a correction's replacement (the passage it cites) and a flag whose passage moved in a new version (no context)."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import pytest

from afterhack import graph
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from corrections.selectors import suggestions as suggestions_selectors
from corrections.selectors.suggestions import CONTEXT_CHARS, Side, SuggestionItem
from tests.conftest import api_for, client_for
from tests.corrections.test_suggestions_watch import EMAIL, JULY, PLAN, Launch, committed, launch

pytestmark = pytest.mark.django_db

__all__ = ["committed", "launch"]  # fixtures

FILLER = "Réunion 🎉 du comité — ça avance; naïve café ✓. " * 12
LONG = "Memo\n\n" + FILLER + "The launch is in July. " + FILLER + "The launch budget is 55k. " + FILLER + "\n"
BUDGET_55 = "The launch budget is 55k."
FINANCE = "Finance\n\nAfter the review the launch budget is 60k now.\n"
PASSAGE_60 = "the launch budget is 60k now"
EMAIL_V2 = "Forwarded.\n" + EMAIL


def around(text: str, quote: str) -> tuple[str, str]:
    """What the queue shows either side of the quote's first occurrence, by slicing the text in Python."""
    start = text.index(quote)
    end = start + len(quote)
    before = ("…" if start > CONTEXT_CHARS else "") + text[max(0, start - CONTEXT_CHARS) : start]
    after = text[end : end + CONTEXT_CHARS] + ("…" if len(text) > end + CONTEXT_CHARS else "")
    return before, after


@dataclass
class Queue:
    launch: Launch
    long: str
    finance: str
    budget_55: str
    july_long: str
    august: str
    sixty: str


@pytest.fixture
def queue(launch: Launch, committed: Any) -> Queue:
    """Five open suggestions: June and July (in the long memo), 40k and 55k (the memo), a flag on June quoting the
    email (whose source then gets a new version), a derived August against June and July, and 55k against the
    correction of 40k to 60k, citing the finance note."""
    trio, ws = launch.trio, launch.trio.workspace
    long = sources_services.source_add(workspace=ws, title="Long memo", text=LONG, actor=trio.reviewer).id
    finance = sources_services.source_add(workspace=ws, title="Finance", text=FINANCE, actor=trio.reviewer).id
    with committed(execute=True):
        july_long = launch.claim(long, JULY)
        budget_55 = launch.claim(long, BUDGET_55)
    flagged = api_for(trio.reviewer).post(
        f"/workspaces/{launch.ws}/claims/{launch.june}/contradictions",
        {"source_id": launch.email, "quote": JULY, "statement": JULY},
    )
    assert flagged.status_code == 201, flagged.content
    with committed(execute=True):
        august = claims_services.derived_claim_add(
            workspace=ws, statement="The launch is in August.", derived_from=[budget_55], actor=trio.reviewer
        ).id
    client = api_for(trio.reviewer)
    preview = client.post(
        f"/workspaces/{launch.ws}/claims/{launch.budget}/correction-preview", {"statement": "The launch budget is 60k."}
    )
    body = {
        "statement": "The launch budget is 60k.", "reason": "Finance.", "revision": preview.json()["revision"],
        "idempotency_key": "sixty", "evidence": {"source_id": finance, "quote": PASSAGE_60},
    }  # fmt: skip
    with committed(execute=True):
        applied = client.post(f"/workspaces/{launch.ws}/claims/{launch.budget}/corrections", body)
    assert applied.status_code == 201, applied.content
    moved = client.post(f"/workspaces/{launch.ws}/sources/{launch.email}/versions", {"text": EMAIL_V2})
    assert moved.status_code == 201, moved.content
    return Queue(launch, long, finance, budget_55, july_long, august, applied.json()["replacement_claim_id"])


def by_pair(items: list[SuggestionItem]) -> dict[tuple[str, str | None], SuggestionItem]:
    return {(item.suggestion.claim_id, item.suggestion.by_claim_id): item for item in items}


def quoted(side: Side, statement: str, claim_id: str | None, source_id: str, title: str, text: str, quote: str) -> None:
    """The side shows this claim (or flag), from this source, with the quote in the text around it."""
    assert (side.statement, side.claim_id, side.source_id, side.title) == (statement, claim_id, source_id, title)
    assert side.quote == quote and (side.before, side.after) == around(text, quote) and side.dated


class QueueReadTests:
    def test_each_side_shows_what_slicing_its_source_shows(self, queue: Queue) -> None:
        launch = queue.launch
        items, total = suggestions_selectors.review_suggestions(workspace=launch.trio.workspace)
        assert total == len(items) == 5
        pairs = by_pair(items)
        june = pairs[(launch.june, queue.july_long)]
        quoted(june.older, "The launch is in June.", launch.june, launch.plan, "Launch plan", PLAN,
               "The launch is in June.")  # fmt: skip
        quoted(june.newer, JULY, queue.july_long, queue.long, "Long memo", LONG, JULY)
        # The second suggestion citing the long memo: its own passage, further in.
        fifty_five = pairs[(queue.budget_55, queue.sixty)]
        quoted(fifty_five.older, BUDGET_55, queue.budget_55, queue.long, "Long memo", LONG, BUDGET_55)
        assert fifty_five.older.before.startswith("…") and fifty_five.older.after.endswith("…")
        # A correction's replacement: the passage it cites, in the finance note.
        quoted(fifty_five.newer, "The launch budget is 60k.", queue.sixty, queue.finance, "Finance", FINANCE,
               PASSAGE_60)  # fmt: skip
        # A derived claim quotes nothing: its statement only, dated when it was made.
        august = pairs[(queue.july_long, queue.august)].newer
        assert (august.statement, august.claim_id, august.quote, august.before, august.title) == (
            "The launch is in August.", queue.august, "", "", ""
        )  # fmt: skip
        assert august.dated
        # The flag quoted the email; a new version moved its passage, and the flag with it: shown in its new context.
        [flag] = [item for item in items if item.suggestion.by_claim_id is None]
        assert (flag.newer.statement, flag.newer.claim_id, flag.newer.source_id) == (JULY, None, launch.email)
        assert (flag.newer.title, flag.newer.quote) == ("Email", JULY)
        assert (flag.newer.before, flag.newer.after) == around(EMAIL_V2, JULY) and flag.newer.before.startswith("Forw")

    def test_the_whole_section_is_two_graph_reads_and_a_refusal_shows_one_item_alike(self, queue: Queue) -> None:
        workspace = queue.launch.trio.workspace
        sent = graph.queries_sent()
        items, _ = suggestions_selectors.review_suggestions(workspace=workspace)
        # The list of the newest open suggestions, then every side of them: not a read per suggestion.
        assert graph.queries_sent() - sent == 2 and len(items) == 5
        for item in items:
            assert suggestions_selectors.suggestion_item(workspace=workspace, suggestion=item.suggestion) == item

    def test_the_page_highlights_each_quote_in_its_context(self, queue: Queue) -> None:
        launch = queue.launch
        body = client_for(launch.trio.viewer).get(f"/w/{launch.ws}/review/").content.decode()
        shown_quotes = ((LONG, JULY), (LONG, BUDGET_55), (FINANCE, PASSAGE_60), (PLAN, "The launch is in June."),
                        (EMAIL_V2, JULY))  # fmt: skip
        for text, quote in shown_quotes:
            before, after = around(text, quote)
            shown = (
                f'<span class="context">{html.escape(before)}</span><mark class="ev d1">{html.escape(quote)}</mark>'
                f'<span class="context">{html.escape(after)}</span>'
            )
            assert shown in body, quote
        assert '<span class="context"></span><mark class="ev d1">' not in body
