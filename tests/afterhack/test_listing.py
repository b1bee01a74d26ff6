"""The list controls every page shares: what a query string asks for, and the addresses the controls link to."""

from __future__ import annotations

from django.template import Context, Template

from afterhack.lists.filters import Filter, FilterKind
from afterhack.lists.spec import ListSpec

SPEC = ListSpec(
    name="things",
    noun=("thing", "things"),
    sorts={"created": "Added", "title": "Title"},
    default_sort="-created",
    filters={
        "status": Filter("Status", kind=FilterKind.CHOICE, choices=(("held", "Held"), ("done", "Done"))),
        "author": Filter("Added by"),
        "from": Filter("Added from", kind=FilterKind.DAY),
    },
    search="Title",
    per_page=10,
)
ITEMS = list(range(1, 124))


def listing(query: dict[str, str]):
    def read(criteria, offset, limit):
        return ITEMS[offset : offset + limit]

    return SPEC.listing(query, read=read, count=lambda criteria: len(ITEMS), path="/things/")


class ListSpecTests:
    def test_the_first_page_has_the_defaults_and_says_where_it_is(self) -> None:
        page = listing({})
        assert (page.number, page.pages, page.first, page.last, page.items) == (1, 13, 1, 10, ITEMS[:10])
        assert page.criteria.sort == "created" and page.criteria.descending and page.notes == []
        assert page.next_href == "/things/?page=2" and page.previous_href is None

    def test_filters_and_sort_are_kept_in_every_link_and_a_change_starts_at_page_one(self) -> None:
        page = listing({"page": "3", "sort": "title", "status": "held", "q": " budget  plan "})
        assert page.criteria.q == "budget plan" and page.criteria.get("status") == "held"
        assert page.next_href == "/things/?q=budget+plan&status=held&sort=title&page=4"
        assert page.href(status="done") == "/things/?q=budget+plan&status=done&sort=title"
        assert page.sort_href("title") == "/things/?q=budget+plan&status=held&sort=-title"
        assert page.clear_href == "/things/?sort=title"
        assert page.active == [("Title", "“budget plan”"), ("Status", "Held")]

    def test_a_new_column_sorts_dates_newest_first_and_words_from_a(self) -> None:
        by_title = listing({"sort": "title"})
        assert by_title.sort_href("created") == "/things/"  # the default: newest first
        assert listing({}).sort_href("title") == "/things/?sort=title"
        assert by_title.sorted_by("title") == "ascending" and by_title.sorted_by("created") == "none"

    def test_values_it_does_not_know_are_left_out_with_a_sentence(self) -> None:
        page = listing({"status": "exploded", "sort": "size", "from": "last tuesday", "page": "99", "q": "a\x00b"})
        assert page.criteria.get("status") == "" and page.criteria.sort == "created" and page.number == 13
        assert page.criteria.get("from") == "" and page.criteria.q == ""
        words = " ".join(page.notes)
        assert "“exploded” is not a status" in words and "“Held”, “Done”" in words
        assert "cannot be sorted by “size”" in words and "not a date like" in words
        assert "no page “99”; showing page 13 of 13" in words and "search could not be read" in words

    def test_an_id_filter_takes_ids_in_their_canonical_form_and_explains_anything_else(self) -> None:
        by_claim = Filter("Claim", kind=FilterKind.ID)
        assert by_claim.clean("claim", "6F9619FF-8B86-D011-B42D-00C04FC964FF") == (
            "6f9619ff-8b86-d011-b42d-00c04fc964ff",
            None,
        )
        assert by_claim.clean("claim", "not-a-claim") == (
            "",
            "“not-a-claim” is not the id of a claim; the claim filter was left out.",
        )

    def test_page_links_show_the_neighbours_the_ends_and_gaps(self) -> None:
        numbers = [link.number for link in listing({"page": "7"}).links()]
        assert numbers == [1, None, 5, 6, 7, 8, 9, None, 13]

    def test_an_empty_list_reads_nothing_and_has_one_page(self) -> None:
        page = SPEC.listing({}, read=lambda *a: [1 / 0], count=lambda criteria: 0)
        assert (page.items, page.count, page.pages, page.first, page.last) == ([], 0, 1, 0, 0)

    def test_the_controls_render_a_form_a_sorting_header_and_a_pager(self) -> None:
        page = listing({"page": "2", "status": "held", "author": "Ana"})
        html = Template(
            "{% load listing %}{% list_filters listing %}<table><tr>{% sort_header listing 'title' %}</tr></table>"
            "{% pager listing %}"
        ).render(Context({"listing": page}))
        assert '<option value="held" selected>Held</option>' in html and 'value="Ana"' in html
        assert "123 things match status Held, added by “Ana”." in " ".join(html.split())
        assert 'aria-sort="none"' in html and 'href="/things/?status=held&amp;author=Ana&amp;sort=title"' in html
        assert "11–20 of 123 things" in html and '<span aria-current="page" class="current">2</span>' in html


class ListingAdditionsTests:
    def test_a_day_range_takes_the_last_day_whole(self) -> None:
        criteria, _ = SPEC.criteria({"from": "2026-02-28", "to": "2026-02-28"})
        assert criteria.day_range(end="from") == ("2026-02-28", "2026-03-01")
        far, _ = SPEC.criteria({"from": "9999-12-31"})
        assert far.day_range(end="from") == ("9999-12-31", "")

    def test_an_id_in_the_address_is_named_in_words_and_the_address_is_the_shortest(self) -> None:
        page = listing({"author": "3f2a", "status": "", "sort": "-created", "page": "2"}).with_shown(author="Ana Lima")
        assert page.active == [("Added by", "Ana Lima")] and page.address == "/things/?author=3f2a&page=2"
        assert listing({"page": "1", "q": " "}).address == "/things/"

    def test_a_choice_filter_names_its_empty_choice(self) -> None:
        spec = ListSpec(
            name="modes", noun=("x", "xs"), sorts={"created": "Added"}, default_sort="-created",
            filters={"mode": Filter("Match by", kind=FilterKind.CHOICE, choices=(("lexical", "Words"),), blank="Both")},
        )  # fmt: skip
        page = spec.read_page({}, path="/x/", read=lambda **kw: [], count=lambda **kw: 0)
        html = Template("{% load listing %}{% list_filters listing %}").render(Context({"listing": page}))
        assert '<option value="">Both</option>' in html
