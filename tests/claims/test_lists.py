"""The sources and claims lists: filters, sorts, counts and pages from the address, hostile addresses, access."""

from __future__ import annotations

import re

import pytest

from afterhack import graph
from afterhack.clock import now_iso
from claims.graph import extraction as extraction_graph
from claims.services import extraction as extraction_services
from claims.services import sources as sources_services
from tests.claims.test_pages import HTMX, add_claim, make_source
from tests.conftest import Trio, client_for

pytestmark = pytest.mark.django_db

TEXT = "The launch is in June. Ana owns the launch checklist. The office moves to Berlin in July."


def page(trio: Trio, address: str, **headers: str) -> str:
    response = client_for(trio.viewer).get(f"/w/{trio.workspace.id}{address}", headers=headers)
    assert response.status_code == 200, response.status_code
    return " ".join(response.content.decode().split())


def titles(html: str) -> list[str]:
    """The linked titles or statements of a list's rows, in order."""
    body = html.split("<tbody", 1)[1].split("</tbody>", 1)[0] if "<tbody" in html else ""
    rows = re.findall(r"<tr>(.*?)</tr>", body)
    return [found.group(1) for row in rows if (found := re.search(r'<a href="[^"]+">([^<]+)</a>', row))]


def backdate(trio: Trio, label: str, node_id: str, when: str) -> None:
    # Tests only: set when a node was made, to filter by dates (the app never rewrites it).
    graph.query(
        trio.workspace, "MATCH (n:" + label + " {id: $id}) SET n.created_at = $when", {"id": node_id, "when": when}
    )


class SourceListTests:
    def test_it_searches_titles_filters_by_status_person_day_and_extraction(self, trio: Trio) -> None:
        budget = make_source(trio, TEXT, title="Budget review")
        launch = make_source(trio, TEXT, title="Launch plan")
        memo = sources_services.source_add(
            workspace=trio.workspace, title="Office memo", text=TEXT, actor=trio.viewer
        ).id
        backdate(trio, "Source", budget, "2026-03-02T10:00:00+00:00")
        failed = extraction_services.extraction_request(workspace=trio.workspace, source_id=launch, actor=trio.reviewer)
        extraction_graph.extraction_fail(workspace=trio.workspace, extraction_id=failed.id, error="boom", now=now_iso())
        extraction_services.extraction_request(workspace=trio.workspace, source_id=memo, actor=trio.reviewer)

        assert titles(page(trio, "/sources/")) == ["Office memo", "Launch plan", "Budget review"]
        assert titles(page(trio, "/sources/?q=LAUNCH")) == ["Launch plan"]
        assert titles(page(trio, "/sources/?extraction=failed")) == ["Launch plan"]
        assert titles(page(trio, "/sources/?extraction=running")) == ["Office memo"]
        assert titles(page(trio, "/sources/?extraction=none")) == ["Budget review"]
        viewer = trio.viewer.username
        assert titles(page(trio, f"/sources/?author={viewer[1:4].upper()}")) == ["Office memo"]
        assert titles(page(trio, "/sources/?to=2026-03-02")) == ["Budget review"]
        assert titles(page(trio, "/sources/?from=2026-03-03")) == ["Office memo", "Launch plan"]
        html = page(trio, "/sources/?extraction=failed&status=active")
        assert "1 source matches status Active, extraction Failed." in html and "Clear filters" in html
        assert '<span class="badge st-failed">failed</span>' in html

    def test_it_sorts_by_a_column_and_counts_claims(self, trio: Trio) -> None:
        few = make_source(trio, TEXT, title="b few")
        many = make_source(trio, TEXT, title="A many")
        add_claim(trio, few, "June.", "The launch is in June")
        add_claim(trio, many, "June.", "The launch is in June")
        add_claim(trio, many, "Ana.", "Ana owns the launch checklist")
        assert titles(page(trio, "/sources/?sort=title")) == ["A many", "b few"]
        assert titles(page(trio, "/sources/?sort=-title")) == ["b few", "A many"]
        html = page(trio, "/sources/?sort=-claims")
        assert titles(html) == ["A many", "b few"] and 'aria-sort="descending"' in html
        assert (
            f'href="/w/{trio.workspace.id}/claims/?source={many}" aria-label="2 claims from this source">2</a>' in html
        )

    def test_it_pages_with_a_count(self, trio: Trio) -> None:
        for n in range(27):
            make_source(trio, TEXT, title=f"Source {n:02}")
        first = page(trio, "/sources/?sort=title")
        assert "1–25 of 27 sources" in first and titles(first)[0] == "Source 00"
        second = page(trio, "/sources/?sort=title&page=2")
        assert "26–27 of 27 sources" in second and titles(second) == ["Source 25", "Source 26"]

    def test_a_hostile_address_is_explained_not_an_error(self, trio: Trio) -> None:
        make_source(trio, TEXT)
        html = page(trio, "/sources/?status=gone&extraction=lost&sort=-size&from=yesterday&page=-3&q=" + "x" * 5000)
        assert "“gone” is not a status this list knows" in html and "“lost” is not a extraction" in html
        assert "cannot be sorted by “-size”" in html and "not a date like 2026-05-12" in html
        assert "There is no page “-3”" in html and "0 sources match" in html

    def test_htmx_gets_only_the_list_and_outsiders_nothing(self, trio: Trio) -> None:
        make_source(trio, TEXT)
        asked = client_for(trio.viewer).get(
            f"/w/{trio.workspace.id}/sources/?q=launch&status=&from=", headers={**HTMX, "HX-Target": "sources-list"}
        )
        fragment = asked.content.decode().lstrip()
        assert fragment.startswith('<section id="sources-list"') and "<html" not in fragment
        # The address kept in the history leaves out the form's empty fields; caches keep page and list apart.
        assert asked["HX-Push-Url"] == f"/w/{trio.workspace.id}/sources/?q=launch"
        assert "HX-Target" in asked["Vary"] and "HX-Request" in asked["Vary"]
        # An htmx request for something else on the page gets the page.
        assert "<html" in page(trio, "/sources/", **HTMX, **{"HX-Target": "messages"})
        assert client_for(trio.outsider).get(f"/w/{trio.workspace.id}/sources/").status_code == 404


class ClaimListTests:
    def make(self, trio: Trio) -> dict[str, str]:
        launch = make_source(trio, TEXT, title="Launch plan")
        memo = make_source(trio, "Berlin is the new office. The budget is fixed.", title="Office memo")
        return {
            "june": add_claim(trio, launch, "The launch is in June.", "The launch is in June").id,
            "ana": add_claim(trio, launch, "Ana owns the checklist.", "Ana owns the launch checklist").id,
            "berlin": add_claim(trio, memo, "The office is in Berlin.", "Berlin is the new office").id,
            "launch": launch,
        }

    def test_before_a_search_it_lists_every_claim_newest_first_with_its_source(self, trio: Trio) -> None:
        self.make(trio)
        html = page(trio, "/claims/")
        assert titles(html) == ["The office is in Berlin.", "Ana owns the checklist.", "The launch is in June."]
        assert "1–3 of 3 claims" in html and ">Office memo</a>" in html and trio.reviewer.username in html
        assert titles(page(trio, "/claims/?sort=statement")) == [
            "Ana owns the checklist.", "The launch is in June.", "The office is in Berlin.",
        ]  # fmt: skip

    def test_it_filters_by_source_id_or_title_status_person_and_day(self, trio: Trio) -> None:
        ids = self.make(trio)
        by_id = page(trio, f"/claims/?source={ids['launch']}")
        assert titles(by_id) == ["Ana owns the checklist.", "The launch is in June."]
        assert "2 claims match source “Launch plan”." in by_id
        assert titles(page(trio, "/claims/?source=MEMO")) == ["The office is in Berlin."]
        services_graph_status(trio, ids["ana"], "superseded")
        assert titles(page(trio, "/claims/?status=superseded")) == ["Ana owns the checklist."]
        assert "status Superseded by a correction" in page(trio, "/claims/?status=superseded")
        backdate(trio, "Claim", ids["june"], "2026-01-15T08:00:00+00:00")
        assert titles(page(trio, "/claims/?from=2026-01-15&to=2026-01-15")) == ["The launch is in June."]
        assert titles(page(trio, "/claims/?author=nobody-at-all")) == []
        assert "No claim matches these filters." in page(trio, "/claims/?author=nobody-at-all")

    def test_a_search_is_ranked_paged_and_filtered(self, trio: Trio) -> None:
        ids = self.make(trio)
        html = page(trio, "/claims/?q=launch")
        assert titles(html) == ["The launch is in June."] and "1–1 of 1 claim" in html
        # A whole question falls back to its content words; the filters apply to what it finds.
        question = page(trio, "/claims/?q=who+owns+the+office+launch")
        assert set(titles(question)) == {
            "The launch is in June.",
            "Ana owns the checklist.",
            "The office is in Berlin.",
        }
        assert "showing claims with any of" in question
        filtered = page(trio, f"/claims/?q=who+owns+the+office+launch&source={ids['launch']}")
        assert set(titles(filtered)) == {"The launch is in June.", "Ana owns the checklist."}
        assert "No claim matches “Tokyo”." in page(trio, "/claims/?q=Tokyo")

    def test_a_hostile_address_is_explained_and_outsiders_get_nothing(self, trio: Trio) -> None:
        self.make(trio)
        html = page(trio, "/claims/?status=lost&sort=relevance&page=abc&source=%27%29+OR+1%3D1&to=2026-02-30")
        assert "“lost” is not a status" in html and "cannot be sorted by “relevance”" in html
        assert "There is no page “abc”" in html and "0 claims match" in html and "not a date like" in html
        assert client_for(trio.outsider).get(f"/w/{trio.workspace.id}/claims/").status_code == 404


def services_graph_status(trio: Trio, claim_id: str, status: str) -> None:
    # Tests only: a claim's status changes through corrections; here it is set directly to filter by it.
    graph.query(trio.workspace, "MATCH (c:Claim {id: $id}) SET c.status = $status", {"id": claim_id, "status": status})


BULK_SOURCES = """
UNWIND $rows AS row
CREATE (s:Source {id: row.id, title: row.title, status: 'active', created_at: row.at, created_by: 'bulk'})
       -[:HAS_VERSION]->(:SourceVersion {id: row.version_id, version: 1, current: true, length: 10, created_at: row.at})
"""
BULK_CLAIMS = """
UNWIND $rows AS row
CREATE (:Claim {id: row.id, statement: row.statement, status: 'current', created_at: row.at, created_by: 'bulk',
                source_id: $source_id, version_id: $version_id})
"""


class ListSizeTests:
    def test_a_page_of_thousands_is_two_graph_queries(self, trio: Trio) -> None:
        import time
        import uuid

        # Tests only: thousands of nodes written in one query each, as no service would.
        sources = [
            {
                "id": str(uuid.uuid4()),
                "version_id": str(uuid.uuid4()),
                "title": f"Bulk {n}",
                "at": f"2026-01-01T00:{n % 60:02}",
            }
            for n in range(3000)
        ]
        graph.query(trio.workspace, BULK_SOURCES, {"rows": sources})
        claims = [
            {"id": str(uuid.uuid4()), "statement": f"Bulk claim {n}.", "at": f"2026-02-01T{n:06}"} for n in range(3000)
        ]
        params = {"rows": claims, "source_id": sources[0]["id"], "version_id": sources[0]["version_id"]}
        graph.query(trio.workspace, BULK_CLAIMS, params)
        page(trio, "/sources/?page=2")  # the first request of a test warms the session and the templates
        for address, shown in (
            ("/sources/", "1–25 of 3000 sources"),
            ("/sources/?sort=-claims", "1–25 of 3000 sources"),
            ("/sources/?q=bulk+29", "of 111 sources"),
            ("/claims/?page=7", "151–175 of 3000"),
            ("/claims/?sort=statement&status=current", "1–25 of 3000"),
        ):
            sent, started = graph.queries_sent(), time.perf_counter()
            html = page(trio, address)
            elapsed = time.perf_counter() - started
            # One query for the page and one for the count, whatever the size (no query per row), and the menu's
            # one query for its badges.
            assert shown in html and graph.queries_sent() - sent == 3, (address, graph.queries_sent() - sent)
            print(f"{address}: {elapsed * 1000:.0f} ms")
