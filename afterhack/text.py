"""Text a person types: how long each kind may be, and the one check that cleans it before a store sees it."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from afterhack.errors import UserError
from afterhack.ids import unstorable

# How long each kind of typed text may be. The services refuse more (clean_text), the forms and
# the API schemas say so, and the pages' inputs stop there: templates read them as
# `limits.<NAME>` (config.context_processors), e.g. maxlength="{{ limits.MAX_TITLE_CHARS }}".
MAX_QUESTION_CHARS = 2_000
# A decision's, an action's or a source's title.
MAX_TITLE_CHARS = 300
MAX_RATIONALE_CHARS = 4_000
# A claim's statement, and the statement a correction puts in its place.
MAX_STATEMENT_CHARS = 2_000
MAX_REASON_CHARS = 2_000
MAX_SEARCH_CHARS = 500
MAX_WORKSPACE_NAME_CHARS = 200
MAX_USERNAME_CHARS = 150
# A webhook's URL (webhooks/addresses.py).
MAX_URL_CHARS = 2_000
# An id typed into a filter: a UUID, with room to spare for what people paste.
MAX_ID_CHARS = 64

LIMITS = {name: value for name, value in dict(globals()).items() if name.startswith("MAX_") and name.endswith("_CHARS")}


def clean_text(
    value: object,
    *,
    noun: str,
    max_chars: int,
    missing: str,
    not_text: str | None = None,
    required: bool = True,
    fold: bool = True,
    error: type[UserError] = UserError,
) -> str:
    """The text with its whitespace folded to single spaces (only stripped when not `fold`), or `error` in words
    (control characters other than tab and line breaks, and invalid Unicode, are refused: afterhack.ids.CONTROL).

    `noun` names the text in the messages ("A question"); `missing` is said when it is absent or
    blank, `not_text` when it is something other than text (`missing` by default). Text that is
    not `required` may be absent or blank: that gives "".
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        if not required:
            return ""
        raise error(missing)
    if not isinstance(value, str):
        raise error(not_text or missing)
    if (problem := unstorable(value)) is not None:
        raise error(f"{noun} cannot contain {problem}.")
    text = " ".join(value.split()) if fold else value.strip()
    if len(text) > max_chars:
        raise error(f"{noun} can be at most {max_chars:,} characters (this one has {len(text):,}).")
    return text


def refuse_unstorable(value: str) -> None:
    """A form field's validator for text a form reads but no service cleans (a username to look up): what no
    stored text may hold is refused in words, in place."""
    if (problem := unstorable(value)) is not None:
        raise ValidationError(f"It cannot contain {problem}.")
