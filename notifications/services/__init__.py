"""Notifications' writes: notices.py (telling people, marking read), email.py (instant emails and the daily digest,
each person's email preference), watches.py (watching and unwatching a claim, decision or action)."""
