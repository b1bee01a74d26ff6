"""Cypher text from the named vocabulary: a status, kind or cause in a query is written from its StrEnum member.

`word(ClaimStatus.CURRENT)` is `'current'`, `words(JobStatus.QUEUED, JobStatus.RUNNING)` is
`['queued', 'running']`: the text a query had when the words were typed, so each query is unchanged, but a word
can no longer drift from its enum. A query constant that names one is an f-string with `{word(ClaimStatus.CURRENT)}`
in it, and its Cypher maps' braces doubled (`{{id: $claim_id}}`).

tests/afterhack/test_vocabulary.py checks that every status word still typed in a graph module is an enum member.
And back: what a query reads is plain text; `hold_members` makes a shape's fields the members they name.
"""

from __future__ import annotations

import re
from enum import StrEnum

# A value that needs no escaping inside a single-quoted Cypher string.
PLAIN = re.compile(r"[a-z][a-z_]*")


def word(member: StrEnum) -> str:
    """The member's value as a Cypher string literal: `'current'`."""
    if not isinstance(member, StrEnum) or not PLAIN.fullmatch(member.value):
        raise ValueError(f"word({member!r}): not a plain StrEnum member")
    return "'" + member.value + "'"


def words(*members: StrEnum) -> str:
    """The members' values as a Cypher list literal: `['queued', 'running']`."""
    return "[" + ", ".join(word(member) for member in members) + "]"


def hold_members(instance: object, **enums: type[StrEnum]) -> None:
    """The other way: a frozen dataclass built from a graph row (plain text) holds each named field as its enum's
    member (`hold_members(self, status=ClaimStatus)` in `__post_init__`); a word that is no member raises."""
    for name, enum in enums.items():
        object.__setattr__(instance, name, enum(getattr(instance, name)))
