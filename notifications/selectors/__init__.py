"""Notifications' reads: inbox.py (a person's notifications, the unread count, their email preference) and
watches.py (who watches which nodes, whether a person watches one)."""
