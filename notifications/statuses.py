"""The words of telling people, as stored: what a watch follows and how a person wants their email."""

from enum import StrEnum


class WatchKind(StrEnum):
    """What kind of node a watch follows."""

    CLAIM = "claim"
    DECISION = "decision"
    ACTION = "action"


class EmailMode(StrEnum):
    """How a person wants their notifications by email: each at once, one email a day, or none."""

    INSTANT = "instant"
    DIGEST = "digest"
    OFF = "off"
