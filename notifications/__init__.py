"""Telling people: the inbox, email, who watches what, and the dispatcher that turns the outbox of the audit trail
into notifications and webhook deliveries (workspaces/models.py `Tell`)."""
