"""Reads of the workspaces app: `memberships` (workspaces, memberships, audit grants), `events` (the audit trail:
the activity list, the staff audit, events about one node, their rows and links), `dashboard` (a workspace's
dashboard, now and as of a past moment)."""
