"""Dates and times in a statement, read into their parts (year, quarter, month, a range of days, weekday, time of
day) so that "June 12", "12 June", "the 12th of June", "Thursday, June 12" and "2025-06-12" compare as the same day
and "June" as consistent with any of them. A weekday or month after "next", "last", "this" or "coming" is relative:
no value. "6/12" is read both ways (6 December, June 12) and differs only if both readings differ."""

from __future__ import annotations

from dataclasses import dataclass, replace

from corrections.contradiction.tokens import Token

MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
}  # fmt: skip
MONTH_ABBREVIATIONS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11,
    "dec": 12,
}  # fmt: skip
MONTH_NAMES = {number: name.capitalize() for name, number in MONTHS.items()}
WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
WEEKDAY_ABBREVIATIONS = {"tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4}
WEEKDAY_NAMES = {number: name.capitalize() for name, number in WEEKDAYS.items()}
RELATIVE = {"next", "last", "this", "coming", "previous"}
ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
# Parts of a month, as ranges of days.
MONTH_PARTS = {
    ("early",): (1, 10), ("mid",): (11, 20), ("late",): (21, 31), ("end", "of"): (21, 31), ("the", "end", "of"): (21, 31),
    ("beginning", "of"): (1, 10), ("start", "of"): (1, 10), ("middle", "of"): (11, 20),
    ("first", "week", "of"): (1, 7), ("second", "week", "of"): (8, 14), ("third", "week", "of"): (15, 21),
    ("fourth", "week", "of"): (22, 28), ("last", "week", "of"): (22, 31),
}  # fmt: skip
MONTH_PARTS_BY_FIRST: dict[str, list[tuple[tuple[str, ...], tuple[int, int]]]] = {}
for _words, _days in MONTH_PARTS.items():
    MONTH_PARTS_BY_FIRST.setdefault(_words[0], []).append((_words, _days))


@dataclass(frozen=True, slots=True)
class DateParts:
    """A date as far as the text says it; `alt` is the other reading of an ambiguous "6/12"."""

    text: str
    start: int
    end: int
    year: int | None = None
    quarter: int | None = None
    month: int | None = None
    day_low: int | None = None
    day_high: int | None = None
    weekday: int | None = None
    minute: int | None = None
    week: int | None = None
    alt: DateParts | None = None


def month_of(token: Token, first: bool, following: Token | None) -> int | None:
    """The month a token names: capitalised names and abbreviations ("June", "Jun"), lowercase full names but for
    "may" and "march" (verbs more often than not); "May" opening a statement only before a number."""
    if token.kind != "word":
        return None
    if token.lower in MONTHS:
        if not token.capitalised and token.lower in ("may", "march"):
            return None
        if first and token.lower == "may" and (following is None or following.kind not in ("num", "ordinal")):
            return None
        return MONTHS[token.lower]
    if token.capitalised and token.lower in MONTH_ABBREVIATIONS:
        return MONTH_ABBREVIATIONS[token.lower]
    return None


def weekday_of(token: Token) -> int | None:
    if token.kind != "word":
        return None
    if token.lower in WEEKDAYS:
        return WEEKDAYS[token.lower]
    return WEEKDAY_ABBREVIATIONS.get(token.lower) if token.capitalised else None


def day_of(token: Token | None) -> int | None:
    if token is None or token.kind not in ("num", "ordinal") or token.number is None:
        return None
    day = token.number
    return int(day) if day == int(day) and 1 <= day <= 31 and "," not in token.text else None


def year_of(token: Token | None) -> int | None:
    if token is None or token.kind != "num" or token.number is None or len(token.text) != 4:
        return None
    return int(token.number) if 1990 <= token.number <= 2100 and token.text.isdigit() else None


def minute_of(token: Token) -> int | None:
    """Minutes after midnight of "14:00", "2pm", "2:14 am", "noon", "midnight"."""
    if token.lower in ("noon", "midday", "midnight"):
        return 0 if token.lower == "midnight" else 720
    if token.kind != "time":
        return None
    text = token.lower.replace(".", "").replace(" ", "")
    meridiem = text[-2:] if text[-2:] in ("am", "pm") else ""
    clock = text[:-2] if meridiem else text
    hours, _, minutes = clock.partition(":")
    hour, minute = int(hours), int(minutes or 0)
    if meridiem:
        hour = hour % 12 + (12 if meridiem == "pm" else 0)
    return hour * 60 + minute if hour < 24 and minute < 60 else None


def read_date(tokens: list[Token], i: int) -> tuple[DateParts, int] | None:
    """A date starting at token i, and the index after it; None if none starts there."""
    token = tokens[i]
    previous = tokens[i - 1].lower if i > 0 else ""
    if token.kind == "iso":
        iso_year, iso_month, iso_day = (int(part) for part in token.text.split("-"))
        if 1 <= iso_month <= 12 and 1 <= iso_day <= 31:
            parts = DateParts(token.text, token.start, token.end, iso_year, None, iso_month, iso_day, iso_day)
            return with_time(tokens, i + 1, parts)
        return None
    if token.kind == "slash":
        return read_slash(tokens, i)
    if token.kind == "code" and len(token.text) == 2 and token.text[0] in "Qq" and token.text[1] in "1234":
        quarter = int(token.text[1])
        year = year_of(tokens[i + 1]) if i + 1 < len(tokens) else None
        end = i + (2 if year else 1)
        return DateParts(span(tokens, i, end), token.start, tokens[end - 1].end, year, quarter), end
    if token.lower in ORDINAL_WORDS and i + 1 < len(tokens) and tokens[i + 1].lower == "quarter":
        j = i + 2 + (1 if i + 2 < len(tokens) and tokens[i + 2].lower == "of" else 0)
        year = year_of(tokens[j]) if j < len(tokens) else None
        end = j + 1 if year else i + 2
        return DateParts(span(tokens, i, end), token.start, tokens[end - 1].end, year, ORDINAL_WORDS[token.lower]), end
    weekday = weekday_of(token)
    if weekday is not None:
        if previous in RELATIVE:
            return None
        j = i + 1 + (1 if i + 1 < len(tokens) and tokens[i + 1].text == "," else 0)
        found = read_day_month(tokens, j) if j < len(tokens) else None
        if found is not None:
            parts, end = found
            return with_time(tokens, end, replace(parts, weekday=weekday, start=token.start, text=span(tokens, i, end)))
        return with_time(tokens, i + 1, DateParts(token.text, token.start, token.end, weekday=weekday))
    year = year_of(token)
    if year is not None and not plural_after(tokens, i):
        return DateParts(token.text, token.start, token.end, year), i + 1
    if token.kind == "time":
        minute = minute_of(token)
        if minute is None:
            return None
        if i + 2 < len(tokens) and tokens[i + 1].lower == "on" and (moment := read_date(tokens, i + 2)) is not None:
            parts, end = moment  # "at 06:00 on Sunday": one moment
            if parts.minute is None:
                return replace(parts, minute=minute, start=token.start, text=span(tokens, i, end)), end
        return DateParts(token.text, token.start, token.end, minute=minute), i + 1
    week = day_of(tokens[i + 1]) if token.lower == "week" and i + 1 < len(tokens) else None
    if week is not None and previous not in RELATIVE:  # "week 12" (of the year); "next week" is no value
        return DateParts(span(tokens, i, i + 2), token.start, tokens[i + 1].end, week=week), i + 2
    if token.kind == "word" and not could_start_day_month(token.lower):
        return None
    if previous in RELATIVE and month_of(token, i == 0, None) is not None:
        return None
    found = read_day_month(tokens, i)
    return with_time(tokens, found[1], found[0]) if found else None


def could_start_day_month(word: str) -> bool:
    return word in MONTHS or word in MONTH_ABBREVIATIONS or word in MONTH_PARTS_BY_FIRST or word.startswith("mid-")


def read_day_month(tokens: list[Token], i: int) -> tuple[DateParts, int] | None:
    """ "12 June", "12th of June", "June 12", "June 12-14", "12 to 14 May", "mid-June", "the first week of July",
    "June", each with an optional year after it."""
    start = i
    days: tuple[int, int] | None = None
    day: int | None
    month: int | None
    for words, part in MONTH_PARTS_BY_FIRST.get(tokens[i].lower, ()):
        if tuple(token.lower for token in tokens[i : i + len(words)]) == words:
            days, i = part, i + len(words)
            break
    token = tokens[i] if i < len(tokens) else None
    if token is None:
        return None
    if token.kind == "word" and token.lower.startswith("mid-") and token.lower[4:] in MONTHS:
        month, days, i = MONTHS[token.lower[4:]], (11, 20), i + 1
    elif (month := month_of(token, i == 0, tokens[i + 1] if i + 1 < len(tokens) else None)) is not None:
        i += 1
        day = day_of(tokens[i]) if i < len(tokens) and days is None and year_of(tokens[i]) is None else None
        if day is not None:
            days, i = (day, day), i + 1
            if i + 1 < len(tokens) and tokens[i].text in ("-", "–") and (high := day_of(tokens[i + 1])) is not None:
                days, i = (day, high), i + 2
    elif days is None and (day := day_of(token)) is not None:
        j = i + 1
        high = day
        if j + 1 < len(tokens) and tokens[j].lower in ("-", "–", "to") and day_of(tokens[j + 1]) is not None:
            high, j = day_of(tokens[j + 1]) or day, j + 2
        if j < len(tokens) and tokens[j].lower == "of":
            j += 1
        month = month_of(tokens[j], j == 0, None) if j < len(tokens) else None
        if month is None:
            return None
        days, i = (day, high), j + 1
    else:
        return None
    if i < len(tokens) and tokens[i].text == "," and i + 1 < len(tokens) and year_of(tokens[i + 1]) is not None:
        i += 1
    year = year_of(tokens[i]) if i < len(tokens) else None
    if year is not None:
        i += 1
    low, high = days if days else (None, None)
    return DateParts(span(tokens, start, i), tokens[start].start, tokens[i - 1].end, year, None, month, low, high), i


def read_slash(tokens: list[Token], i: int) -> tuple[DateParts, int] | None:
    """ "31/12/2025" (day first: a day above 12 settles it), "6/12" (either way: read both)."""
    token = tokens[i]
    numbers = [int(part) for part in token.text.split("/")]
    first, second = numbers[0], numbers[1]
    year = numbers[2] if len(numbers) == 3 else None
    if year is not None and year < 100:
        year += 2000
    readings = [(day, month) for day, month in ((first, second), (second, first)) if 1 <= month <= 12 and day <= 31]
    if not readings:
        return None
    if first > 12 or second > 12:
        readings = readings[:1]
    dates = [DateParts(token.text, token.start, token.end, year, None, month, day, day) for day, month in readings]
    if len(dates) == 2 and dates[0] != dates[1]:
        dates[0] = replace(dates[0], alt=dates[1])
    return dates[0], i + 1


def with_time(tokens: list[Token], i: int, parts: DateParts) -> tuple[DateParts, int]:
    """The date with the time after it ("Thursday at 3pm"), if there is one."""
    j = i + (1 if i < len(tokens) and tokens[i].lower == "at" else 0)
    minute = minute_of(tokens[j]) if j < len(tokens) else None
    if minute is None:
        return parts, i
    return replace(parts, minute=minute, end=tokens[j].end, text=f"{parts.text} at {tokens[j].text}"), j + 1


def plural_after(tokens: list[Token], i: int) -> bool:
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    return following is not None and following.kind == "word" and following.lower.endswith("s")


def span(tokens: list[Token], i: int, j: int) -> str:
    return " ".join(token.text for token in tokens[i:j]).replace(" ,", ",")


def quarter_of(parts: DateParts) -> int | None:
    return parts.quarter or ((parts.month - 1) // 3 + 1 if parts.month else None)


def compare_dates(a: DateParts, b: DateParts) -> tuple[str, str]:
    """How two dates compare (a `Comparison` word) and what differs: "years", "months", "quarters", "days",
    "weekdays", "times". An ambiguous date differs only if each of its readings does."""
    if a.alt is not None or b.alt is not None:
        outcomes = [compare_dates(x, y) for x in readings(a) for y in readings(b)]
        if all(outcome == "different" for outcome, _ in outcomes):
            return outcomes[0]
        return ("compatible", "dates") if any(o in ("equal", "compatible") for o, _ in outcomes) else outcomes[0]
    shared = 0
    if a.year is not None and b.year is not None:
        if a.year != b.year:
            return "different", "years"
        shared += 1
    if a.month is not None and b.month is not None:
        if a.month != b.month:
            return "different", "months"
        shared += 1
        if a.day_low is not None and b.day_low is not None:
            if (a.day_high or 0) < b.day_low or (b.day_high or 0) < a.day_low:
                return "different", "days"
            shared += 1
    elif quarter_of(a) is not None and quarter_of(b) is not None:
        if quarter_of(a) != quarter_of(b):
            return "different", "quarters"
        shared += 1
    if a.weekday is not None and b.weekday is not None:
        if a.weekday != b.weekday:
            return "different", "weekdays"
        shared += 1
    if a.minute is not None and b.minute is not None:
        if a.minute != b.minute:
            return "different", "times"
        shared += 1
    if a.week is not None and b.week is not None:
        if a.week != b.week:
            return "different", "weeks"
        shared += 1
    if not shared:
        return "incomparable", "dates"
    same = (a.year, quarter_of(a), a.month, a.day_low, a.day_high, a.weekday, a.minute, a.week) == (
        b.year, quarter_of(b), b.month, b.day_low, b.day_high, b.weekday, b.minute, b.week,
    )  # fmt: skip
    return ("equal" if same else "compatible"), "dates"


def readings(parts: DateParts) -> list[DateParts]:
    return [replace(parts, alt=None)] + ([parts.alt] if parts.alt is not None else [])
