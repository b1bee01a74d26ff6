"""The moment a page shows: the present, or the past an address asks for with `?as_of=` (docs/history.md).

Every page that can look back (claim, decision, action, dashboard) reads its moment here, once: `moment_of(params)`
reads `as_of` with `afterhack.clock.moment_iso` (the one parser of a moment). A moment that cannot be read, or one
that has not happened yet, is not an error page: the page shows the present and says why in a sentence
(`Moment.problem`). The picker and the banner (`{% as_of_picker %}`, afterhack/templatetags/as_of.py) show it; the
links of a page in the past carry `{{ as_of.query }}`, so one stays in the past while following the because-chain.
A page in the past renders no form that writes: writes act on the present and never read `as_of`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from afterhack.clock import BadMoment, moment_iso, now_iso

PARAM = "as_of"
# A person's moment is short ("2026-05-12T09:30:00.000000+00:00" is 32 characters); more is not a moment.
MAX_GIVEN = 64


@dataclass(frozen=True)
class Moment:
    """The moment a page shows. `at` is the graph's own time string, '' for the present."""

    at: str = ""
    # `as_of` as the address gave it, for the links that keep it (it reads to the same moment).
    given: str = ""
    # Why the address's `as_of` was not read, in words ('' when it was, or there was none).
    problem: str = ""
    # When the workspace's history began, when the moment is before it ('' otherwise, or unknown).
    history_since: str = ""
    # Whether the history began with the workspace itself (so before it there was nothing), not by a migration.
    from_creation: bool = False

    @property
    def past(self) -> bool:
        return bool(self.at)

    @property
    def query(self) -> str:
        """`?as_of=…` for a link that stays at this moment, '' in the present."""
        return "?" + urlencode({PARAM: self.given}) if self.past else ""

    @property
    def day_only(self) -> bool:
        given = self.given.strip().upper()
        return bool(given) and "T" not in given and " " not in given

    @property
    def words(self) -> str:
        """The moment as a person reads it: "12 May 2026, 09:30 UTC" (the end of a day given alone)."""
        return words(self.at, day_only=self.day_only) if self.past else ""

    @property
    def on_words(self) -> str:
        """ "on 12 May 2026, 09:30 UTC", or "at the end of 12 May 2026 (UTC)" for a day given alone."""
        return ("at " if self.day_only else "on ") + self.words if self.past else ""

    @property
    def input_value(self) -> str:
        """The value of the picker's <input type="datetime-local"> (UTC, to the second when it has seconds)."""
        if not self.past:
            return ""
        moment = datetime.fromisoformat(self.at)
        shape = "%Y-%m-%dT%H:%M:%S" if moment.second or moment.microsecond else "%Y-%m-%dT%H:%M"
        return moment.strftime(shape)

    def before_history(self, since: str | None, *, created: str | None = None) -> Moment:
        """This moment, knowing when the workspace's history began (`w.history_since`; kept when it is later) and
        when its graph was made (`w.created_at`: a history begun then began with the workspace)."""
        if not (self.past and since and self.at < since):
            return self
        return replace(self, history_since=since, from_creation=bool(created) and since == created)


def words(at: str, *, day_only: bool = False) -> str:
    """A graph time in words: "12 May 2026, 09:30 UTC" (with seconds when it has them)."""
    moment = datetime.fromisoformat(at)
    day = f"{moment.day} {moment:%B %Y}"
    if day_only:
        return f"the end of {day} (UTC)"
    clock = f"{moment:%H:%M:%S}" if moment.second or moment.microsecond else f"{moment:%H:%M}"
    return f"{day}, {clock} UTC"


def moment_of(params: Any) -> Moment:
    """The moment `params` (a request's GET) asks for: the past of a readable `as_of` before now; else the present,
    with the reason in words when `as_of` was given but cannot be shown."""
    given = str(params.get(PARAM, "") or "").strip()
    if not given:
        return Moment()
    if len(given) > MAX_GIVEN:
        return Moment(problem=f"“{PARAM}” is not a moment (it is {len(given):,} characters long). This is the present.")
    try:
        at = moment_iso(given, name=PARAM)
    except BadMoment as error:
        return Moment(problem=f"{error} This is the present.")
    if at >= now_iso():
        return Moment(problem=f"{words(at)} has not come yet: this is the present.")
    return Moment(at=at, given=given)


def not_yet(
    request: HttpRequest, context: dict[str, Any], *, present: Any, thing: str, missing: Exception
) -> HttpResponse:
    """The answer for a claim, decision or action a page did not find at its moment (`context["as_of"]`): the page
    in words (404) saying when it was added, with the ways to it as it was then and as it is now, when it exists
    now (`present`, read only for a moment in the past); else `missing` (404) is raised."""
    moment = context.get("as_of")
    if not present or not isinstance(moment, Moment) or not moment.past:
        raise missing
    title = getattr(present, "statement", "") or getattr(present, "title", "")
    said = {"thing": thing, "title": title, "created_at": present.created_at, "added": words(present.created_at)}
    return render(request, "as_of_not_yet.html", {**context, **said}, status=404)
