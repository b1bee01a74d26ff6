"""What every JSON API schema shares: the error body, request input refused in words with its own
error code, and ids, texts and times as the OpenAPI document names them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, ClassVar

from ninja import Schema
from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictStr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from afterhack.clock import moment_iso
from afterhack.ids import CONTROL, DOCUMENT_CONTROL, unstorable


class ErrorOut(Schema):
    """Every error the API answers: a code a program can test and a sentence for a person."""

    error: str = Field(description="The error code, e.g. not_found, invalid_input, unavailable.")
    detail: str = Field(description="What went wrong, in words a person can act on.")


# What each error status means, with the codes it is answered with (docs/api.md, Errors), for the OpenAPI document.
ERROR_ANSWERS = {
    401: "`unauthorized`: no valid API token (or logged-in session) was sent.",
    403: "`forbidden`: a viewer asked to write, or the caller lacks the permission.",
    404: "`not_found`: no such thing here; a workspace the caller is not a member of is not found either.",
    409: "`conflict`, `claim_not_current` or `stale_correction_preview`: what it acts on changed or is in "
    "the wrong state.",
    415: "`unsupported_media_type`: the request body was not sent as application/json.",
    422: "`invalid_input`, or the operation's own code (`invalid_source`, `invalid_support`, `evidence_not_found`, "
    "`idempotency_key_reused`): the input cannot be used, said in words.",
    429: "`throttled`: too many failed logins; retry after Retry-After seconds.",
    503: "`unavailable`: a store is down or its pool is busy; the detail names it.",
}


def errors(*statuses: int) -> dict[int, type[ErrorOut]]:
    """The error answers of an operation, each with the error body."""
    return dict.fromkeys(statuses, ErrorOut)


# -- input refused in words ------------------------------------------------------------------------


@dataclass(frozen=True)
class Refuse:
    """How the API answers a bad value of one field: its error code and the words a person reads.

    `words` replace pydantic's message for a value of the wrong type or out of bounds, and
    `missing` replace "'field' is required"; a validator's own message is kept as it is.
    """

    code: str = "invalid_input"
    words: str | None = None
    missing: str | None = None


NOT_AN_OBJECT = "The request body must be a JSON object."


class Input(Schema):
    """A request body or query. Invalid input is answered 422 with the code of the first bad field
    (see Refuse), in words; the OpenAPI document states the same rules as types and bounds."""

    # Patterns are matched the way Python's str methods (which the services use) see text.
    model_config = ConfigDict(regex_engine="python-re")
    # What is said when the input is not an object at all (an input nested in another names itself).
    not_an_object: ClassVar[str] = NOT_AN_OBJECT

    @model_validator(mode="wrap")
    @classmethod
    def _refuse_in_words(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        wrong = cls.not_an_object if not isinstance(data, dict) else cls.misshapen(data)
        if wrong is not None:
            raise PydanticCustomError("invalid_input", "{words}", {"words": wrong, "refused": True})
        try:
            return handler(data)
        except ValidationError as error:
            code, words = cls.refusal(error.errors())
            raise PydanticCustomError(code, "{words}", {"words": words, "refused": True}) from None

    @classmethod
    def misshapen(cls, data: dict[str, Any]) -> str | None:
        """What is wrong with the input as a whole, said before anything about its fields (None: nothing)."""
        return None

    @classmethod
    def refusal(cls, problems: list[Any]) -> tuple[str, str]:
        """The error code and words for the first problem found in this input."""
        return refusal_of(cls.model_fields, problems)


def refusal_of(fields: dict[str, FieldInfo], problems: list[Any]) -> tuple[str, str]:
    """The error code and words for the first of pydantic's `problems` with input of these fields (each may say
    how it is refused with a Refuse in its metadata)."""
    first = problems[0]
    if first.get("ctx", {}).get("refused"):
        return str(first["type"]), str(first["msg"])
    location = [str(part) for part in first.get("loc", ())]
    field = fields.get(location[0]) if location else None
    refuse = next((m for m in field.metadata if isinstance(m, Refuse)), Refuse()) if field else Refuse()
    if first["type"] == "missing" and refuse.missing:
        return refuse.code, refuse.missing
    if first["type"] not in ("missing", "value_error") and refuse.words:
        return refuse.code, refuse.words
    return refuse.code, describe_validation_errors([first])


def describe_validation_errors(errors: list[dict[str, Any]]) -> str:
    """Pydantic's errors as one sentence a person can act on; each error's location is the path of field names in
    the input (an MCP tool's arguments, a request body), without django-ninja's prefix (config.api strips it)."""
    parts = []
    for error in errors[:5]:
        location = [str(p) for p in error.get("loc", ())]
        where = ".".join(location) or "the request body"
        message = str(error.get("msg", "is invalid")).removeprefix("Value error, ")
        if error.get("type") == "string_pattern_mismatch":
            message = PATTERN_WORDS.get(error.get("ctx", {}).get("pattern"), message)
        elif error.get("type") == "string_unicode":
            message = "must be valid Unicode text"
        if error.get("type") == "json_invalid":
            parts.append("The request body is not valid JSON.")
        elif error.get("type") in ("missing", "model_type", "model_attributes_type") and not location:
            parts.append(NOT_AN_OBJECT)
        elif error.get("type") == "missing":
            parts.append(f"'{where}' is required.")
        else:
            parts.append(f"'{where}': {message}.")
    return " ".join(dict.fromkeys(parts)) or "The request is not valid."


# -- the types of fields ---------------------------------------------------------------------------


def _storable(value: object, page_breaks: bool = False) -> object:
    # Checked before the string's own rules, so that a control character is named, not left to a pattern's words.
    if isinstance(value, str) and (problem := unstorable(value, page_breaks=page_breaks)) is not None:
        raise ValueError(f"cannot contain {problem}")
    return value


# Exactly the characters str.isspace() (and so strip() and split()) takes for whitespace, spelled
# out so that every regex engine reading the OpenAPI document agrees with the services.
WHITESPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# The patterns state the rules in the OpenAPI document (afterhack.ids.CONTROL); a control character is refused by
# the validator before them, in words that name it.
NO_CONTROL = rf"^[^{CONTROL}]*$"
NOT_BLANK = rf"^[^{CONTROL}]*[^{CONTROL}{WHITESPACE}][^{CONTROL}]*$"
DOCUMENT_TEXT = rf"^[^{DOCUMENT_CONTROL}]*$"
DOCUMENT_WORDS = rf"^[^{DOCUMENT_CONTROL}]*[^{DOCUMENT_CONTROL}{WHITESPACE}][^{DOCUMENT_CONTROL}]*$"
PATTERN_WORDS = {
    NOT_BLANK: "must have something other than whitespace in it",
    DOCUMENT_WORDS: "must have something other than whitespace in it",
    NO_CONTROL: "must not contain control characters other than tab and line breaks",
    DOCUMENT_TEXT: "must not contain control characters other than tab, line breaks and page breaks",
}


# Any string a field may hold: no control character but tab and line breaks (afterhack.ids.CONTROL), valid Unicode.
Text = Annotated[StrictStr, Field(pattern=NO_CONTROL), BeforeValidator(_storable)]


# Text with something other than whitespace in it (give it a max_length where it is used).
Words = Annotated[StrictStr, Field(min_length=1, pattern=NOT_BLANK), BeforeValidator(_storable)]


# A document's text (a source's) and a quote of one: page breaks (form feed, vertical tab) may be in it too, since
# the service turns them into line breaks (claims.text.normalize).
DocumentText = Annotated[StrictStr, Field(pattern=DOCUMENT_TEXT), BeforeValidator(partial(_storable, page_breaks=True))]
DocumentWords = Annotated[
    StrictStr, Field(min_length=1, pattern=DOCUMENT_WORDS), BeforeValidator(partial(_storable, page_breaks=True))
]


def _not_true_or_false(value: object) -> object:
    # Python's bool is an int, so pydantic's lax mode would take JSON's true as 1.
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", "Input should be a whole number, not true or false")
    return value


# A whole number read leniently ("10" is 10: an MCP tool's argument), but never true or false. (The API's bodies
# take StrictInt, and its query parameters are text, where "true" is no number either.)
WholeNumber = Annotated[int, BeforeValidator(_not_true_or_false)]


UUID_FORM = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")


def _uuid(value: str) -> str:
    if not UUID_FORM.fullmatch(value):
        raise ValueError(f"{value[:40]!r} is not an id (ids are UUIDs)")
    return value.lower()


# An id sent in a request body: a UUID string.
Id = Annotated[StrictStr, AfterValidator(_uuid), WithJsonSchema({"type": "string", "format": "uuid"})]

# An id in a path: any string, since an id that is not a UUID is simply not found (404).
PathId = Annotated[str, WithJsonSchema({"type": "string", "format": "uuid"})]

# An id in an answer, and a time in an answer (ISO 8601 UTC, as the graph stores it).
IdOut = Annotated[str, WithJsonSchema({"type": "string", "format": "uuid"})]
Timestamp = Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]


# -- reading the past (docs/history.md) --------------------------------------------------------------------

MAX_MOMENT_CHARS = 64


def moment_described(meaning: str, *, day_starts: bool = False) -> str:
    """The description of a query parameter that is a moment: what it means, and how it may be written."""
    return (
        meaning
        + " ISO 8601: a date and time with or without an offset (UTC without one), or a date alone (the "
        + ("start" if day_starts else "end")
        + " of that day, UTC)."
    )


def moment_refused(name: str) -> Refuse:
    """How a moment too long or not text is refused (afterhack.clock.moment_iso refuses one it cannot read)."""
    return Refuse(words=f"“{name}” must be a moment in ISO 8601, like 2026-05-12T09:30:00Z or 2026-05-12.")


AsOf = Annotated[
    Text | None,
    Field(
        max_length=MAX_MOMENT_CHARS, description=moment_described("The answer as it would have been at this moment.")
    ),
    moment_refused("as_of"),
]


class AsOfIn(Input):
    """A read of the past: `as_of`, a moment (left out: now)."""

    as_of: AsOf = None

    def moment(self) -> str | None:
        """`as_of` in the graph's time form, or None (now); BadMoment (422, in words) when it is not a moment."""
        return None if self.as_of is None else moment_iso(self.as_of, name="as_of")
