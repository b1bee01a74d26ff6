"""afterhack.clock.moment_iso: every moment a person or a program gives (API ?as_of=, from, to; the pages' pickers)
is read into the graph's own time form, or refused with a sentence."""

from __future__ import annotations

import pytest

from afterhack.clock import BadMoment, moment_iso, now_iso
from afterhack.templatetags.afterhack import when, when_exact


@pytest.mark.parametrize(
    ("given", "read"),
    [
        ("2026-05-12T09:30:00Z", "2026-05-12T09:30:00.000000+00:00"),
        ("2026-05-12t09:30:00z", "2026-05-12T09:30:00.000000+00:00"),
        ("2026-05-12T09:30:00+02:00", "2026-05-12T07:30:00.000000+00:00"),
        # what an address's unencoded "+" becomes
        ("2026-05-12T09:30:00 02:00", "2026-05-12T07:30:00.000000+00:00"),
        ("2026-05-12T09:30", "2026-05-12T09:30:00.000000+00:00"),  # a datetime-local field: UTC
        ("2026-05-12 09:30", "2026-05-12T09:30:00.000000+00:00"),
        ("2026-05-12", "2026-05-12T23:59:59.999999+00:00"),  # a day: as of its end
        ("20260512", "2026-05-12T23:59:59.999999+00:00"),  # the same day in ISO's basic form
        ("2026-W20-2", "2026-05-12T23:59:59.999999+00:00"),  # and as a week date
    ],
)
def test_it_reads_a_moment_as_the_graph_writes_times(given: str, read: str) -> None:
    assert moment_iso(given) == read


@pytest.mark.parametrize("given", ["2026-05-12", "20260512", "2026-W20-2"])
def test_a_day_that_starts_a_window_means_its_start(given: str) -> None:
    # "changes from 12 May" includes 12 May
    assert moment_iso(given, name="from", day_starts=True) == "2026-05-12T00:00:00.000000+00:00"


def test_a_read_moment_orders_among_the_graphs_own_times() -> None:
    assert moment_iso("2026-05-12") < moment_iso("2026-05-13T00:00:00Z") < now_iso()


@pytest.mark.parametrize("given", ["", "nonsense", "2026-13-01", "²", "12 May", "2026-05-12T09:30 x"])
def test_it_refuses_what_is_not_a_moment_in_words(given: str) -> None:
    with pytest.raises(BadMoment, match="must be a moment in ISO 8601"):
        moment_iso(given, name="from")


def test_it_refuses_a_moment_out_of_range_in_words() -> None:
    with pytest.raises(BadMoment, match="out of range"):
        moment_iso("0001-01-01T00:00:00+01:00")


def test_the_sentence_names_the_parameter() -> None:
    with pytest.raises(BadMoment, match="“to”"):
        moment_iso("soon", name="to")


def test_pages_tell_changes_apart_to_the_second_and_pad_the_year() -> None:
    assert when_exact("2026-05-12T09:30:05.123456+00:00") == "2026-05-12 09:30:05 UTC"
    assert when("0001-01-01T23:59:59.999999+00:00") == "0001-01-01 23:59 UTC"
    assert when_exact("") == "—" and when_exact("not a time") == "not a time"
