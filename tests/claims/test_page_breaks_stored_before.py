"""Sources stored before page breaks became line breaks at ingest keep their form feeds and vertical tabs: a quote
of such a text is found whether it carries the page break or a line break in its place, the claim keeps the stored
text's own characters, extraction quotes across the break, and a new version (whose page breaks are line breaks)
keeps every claim whose quote spans one. Nothing stored earlier becomes unquotable or is retracted."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

import pytest

from afterhack.clock import now_iso
from benchmarks.llm_server import json_reply
from claims.graph import claims as claims_graph
from claims.graph import sources as sources_graph
from claims.services.claims import claim_key
from claims.services.sources import cut_fragments, fragment_ids
from claims.text import Span, page_breaks_as_line_breaks
from tests.claims.test_extraction import extract
from tests.conftest import Trio, api_for
from workspaces.models import Workspace

pytestmark = pytest.mark.django_db

# Page one ends, a form feed starts page two (as in an RFC's plain text), a vertical tab breaks a line.
RFC = (
    "RFC 9999: The launch protocol\n\nThe protocol ends here.\n\x0cPage two begins the appendix.\x0b"
    "The launch is in\x0cJune, after the audit.\n"
)
ACROSS = "here.\n\x0cPage two"


def stored_before(workspace: Workspace, text: str = RFC, title: str = "RFC 9999") -> str:
    """A source written as ingest wrote it before page breaks became line breaks: its text as sent, page breaks
    and all, cut into fragments, through the graph module. Its id."""
    source_id = str(uuid.uuid4())
    fragments = [[f.id, f.start, f.end, f.text] for f in cut_fragments(text)]
    row = {
        "source_id": source_id, "version_id": str(uuid.uuid4()), "title": title, "text": text,
        "sha256": hashlib.sha256(text.encode()).hexdigest(), "length": len(text), "fragments": fragments,
    }  # fmt: skip
    sources_graph.sources_create(
        workspace=workspace, sources=[row], origin_type="document", origin_name="old ingest", created_by="old ingest",
        now=now_iso(),
    )  # fmt: skip
    return source_id


def claimed_before(trio: Trio, source_id: str, quote: str) -> str:
    """A claim of that source's quote (as the text has it) written as claims were before: through the graph module.
    Its id."""
    version = sources_graph.source_get(workspace=trio.workspace, source_id=source_id)
    assert version is not None
    start = version.text.index(quote)
    span = Span(start, start + len(quote))
    fragments = sources_graph.version_fragments(workspace=trio.workspace, version_id=version.id)
    statement = f"It says {quote!r}."
    row = {
        "key": claim_key(version_id=version.id, start=span.start, end=span.end, statement=statement),
        "id": str(uuid.uuid4()), "statement": statement, "evidence_quote": quote, "start": span.start,
        "end": span.end, "confidence": None, "confidence_kind": "manual", "extractor": "manual",
        "fragment_ids": fragment_ids(fragments, span),
    }  # fmt: skip
    stored = claims_graph.claims_record(
        workspace=trio.workspace, version_id=version.id, claims=[row], rejected=[], created_by="rita",
        now=now_iso(), write_id=str(uuid.uuid4()),
    )  # fmt: skip
    assert stored is not None
    return stored[0][0]


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Any:
    return django_capture_on_commit_callbacks


@pytest.fixture
def rfc(trio: Trio) -> str:
    source_id = stored_before(trio.workspace)
    stored = api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/sources/{source_id}").json()
    assert stored["text"] == RFC and "\x0c" in stored["text"]
    return source_id


def add_claim(trio: Trio, source_id: str, quote: str, **extra: Any) -> Any:
    body = {"statement": "The protocol ends on page one.", "source_id": source_id, "evidence_quote": quote, **extra}
    return api_for(trio.reviewer).post(f"/workspaces/{trio.workspace.id}/claims", body)


class ReadingTests:
    def test_page_breaks_read_as_line_breaks_keep_every_offset(self) -> None:
        read = page_breaks_as_line_breaks(RFC)
        assert len(read) == len(RFC) and "\x0c" not in read and "\x0b" not in read
        assert [i for i, (a, b) in enumerate(zip(RFC, read, strict=True)) if a != b] == [
            i for i, c in enumerate(RFC) if c in "\x0b\x0c"
        ]
        # Nothing else is touched: a lone carriage return stays (what ingest does with it is normalize's business).
        assert page_breaks_as_line_breaks("a\rb\x0cc") == "a\rb\nc"

    def test_a_text_stored_since_is_used_as_it_is(self) -> None:
        text = "Page one.\nPage two.\n"
        assert page_breaks_as_line_breaks(text) is text


class QuoteTests:
    def test_a_quote_copied_with_its_page_break_is_accepted_as_the_text_has_it(self, trio: Trio, rfc: str) -> None:
        added = add_claim(trio, rfc, ACROSS)
        assert added.status_code == 201, added.content
        claim = added.json()
        assert (claim["start"], claim["end"]) == (RFC.index(ACROSS), RFC.index(ACROSS) + len(ACROSS))
        assert claim["evidence_quote"] == ACROSS == RFC[claim["start"] : claim["end"]]

    def test_a_quote_with_a_line_break_in_its_place_is_found_and_keeps_the_texts_own(
        self, trio: Trio, rfc: str
    ) -> None:
        at = RFC.index(ACROSS)
        for quote, start in (("here.\n\nPage two", None), ("here.\n\nPage two", at), ("in\nJune, after", None)):
            added = add_claim(trio, rfc, quote, **({} if start is None else {"start": start}))
            assert added.status_code == 201, added.content
            claim = added.json()
            assert claim["evidence_quote"] == RFC[claim["start"] : claim["end"]]
            assert claim["evidence_quote"].replace("\x0c", "\n").replace("\x0b", "\n") == quote

    def test_a_quote_that_is_not_there_is_still_refused(self, trio: Trio, rfc: str) -> None:
        for quote, extra in (("here.\n\x0cPage three", {}), (ACROSS, {"start": 0})):
            refused = add_claim(trio, rfc, quote, **extra)
            assert refused.status_code == 422 and refused.json()["error"] == "evidence_not_found", refused.content
        assert api_for(trio.viewer).get(f"/workspaces/{trio.workspace.id}/sources/{rfc}").json()["claims"] == []


class ExtractionTests:
    def test_a_models_quote_across_a_page_break_is_kept_as_the_text_has_it(
        self, trio: Trio, rfc: str, committed: Any, llm: Any
    ) -> None:
        llm.script(json_reply({"claims": [
            {"statement": "The launch is in June.", "evidence_quote": "The launch is in\x0cJune", "confidence": 0.9},
            {"statement": "The appendix is on page two.", "evidence_quote": ACROSS, "confidence": 0.8},
        ]}))  # fmt: skip
        detail = extract(trio, rfc, committed)
        assert detail["extraction"]["status"] == "done"
        quotes = {RFC[c["start"] : c["end"]] for c in detail["claims"]}
        assert quotes == {"The launch is in\x0cJune", ACROSS}
        rejected = api_for(trio.reviewer).get(f"/workspaces/{trio.workspace.id}/sources/{rfc}/rejected").json()
        assert rejected["results"] == []

    def test_the_rules_quote_a_sentence_across_a_page_break_exactly(
        self, trio: Trio, rfc: str, committed: Any, no_llm: None
    ) -> None:
        detail = extract(trio, rfc, committed)
        assert detail["extraction"]["status"] == "done"
        quotes = [RFC[c["start"] : c["end"]] for c in detail["claims"]]
        assert "The launch is in\x0cJune, after the audit." in quotes and not detail["extraction"]["rejected"]


class NewVersionTests:
    def test_a_new_version_keeps_the_claims_whose_quotes_span_a_page_break(self, trio: Trio, rfc: str) -> None:
        ws, reviewer = trio.workspace.id, api_for(trio.reviewer)
        across, line = claimed_before(trio, rfc, ACROSS), claimed_before(trio, rfc, "appendix.\x0bThe launch")
        # The same file again, with a new last line: its page breaks become line breaks now.
        changed = reviewer.post(f"/workspaces/{ws}/sources/{rfc}/versions", {"text": RFC + "Signed off.\n"})
        assert changed.status_code == 201, changed.content
        assert changed.json()["moved"] == 2 and changed.json()["retracted"] == []
        source = api_for(trio.viewer).get(f"/workspaces/{ws}/sources/{rfc}").json()
        new_text = source["text"]
        assert source["version"] == 2 and "\x0c" not in new_text and "\x0b" not in new_text
        assert {c["id"] for c in source["claims"]} == {across, line}
        for claim_id, quote in ((across, "here.\n\nPage two"), (line, "appendix.\nThe launch")):
            claim = api_for(trio.viewer).get(f"/workspaces/{ws}/claims/{claim_id}").json()
            assert claim["status"] == "current", claim
            # One character for one: the quote sits where it sat.
            assert new_text[claim["start"] : claim["end"]] == quote and claim["start"] == RFC.index(quote[:5])

    def test_a_quote_really_gone_from_the_new_version_is_still_retracted(self, trio: Trio, rfc: str) -> None:
        across = claimed_before(trio, rfc, ACROSS)
        changed = api_for(trio.reviewer).post(
            f"/workspaces/{trio.workspace.id}/sources/{rfc}/versions", {"text": RFC.replace("Page two", "Page 2")}
        )
        assert changed.status_code == 201 and changed.json()["retracted"] == [across]
