"""Mail servers for tests, as Django email backends (MAILERS): Django's locmem backend (what is handed over lands in
`django.core.mail.outbox`) that drops the connection after some emails, or refuses some addresses."""

from __future__ import annotations

import smtplib
from collections.abc import Sequence
from typing import Any, ClassVar

from django.core.mail import EmailMessage
from django.core.mail.backends import locmem


class Script:
    """What the test server does: take this many emails and then drop the connection (None: never), refuse these
    addresses (550), answer the sender with 451 (a busy server). `connections` counts the connections opened."""

    take: int | None = None
    refuse: ClassVar[set[str]] = set()
    busy = False
    connections = 0

    @classmethod
    def reset(cls, *, take: int | None = None, refuse: Sequence[str] = (), busy: bool = False) -> None:
        cls.take, cls.refuse, cls.busy, cls.connections = take, set(refuse), busy, 0


class ScriptedServer(locmem.EmailBackend):
    """Hands each email over as the locmem backend does, unless the Script says to fail."""

    def open(self) -> bool:
        Script.connections += 1
        return True

    def send_messages(self, messages: Sequence[EmailMessage]) -> int:
        for message in messages:
            if Script.busy:
                raise smtplib.SMTPSenderRefused(451, b"Try again later", message.from_email)
            if Script.take is not None and Script.take <= 0:
                raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
            refused = {to: (550, b"5.1.1 No such user") for to in message.to if to in Script.refuse}
            if refused:
                raise smtplib.SMTPRecipientsRefused(refused)
            super().send_messages([message])
            if Script.take is not None:
                Script.take -= 1
        return len(messages)


def use_scripted_server(settings: Any, **script: Any) -> None:
    settings.MAILERS = {"default": {"BACKEND": "tests.notifications.mailers.ScriptedServer"}}
    Script.reset(**script)
