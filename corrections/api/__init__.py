"""The corrections app's JSON API: `corrections` (preview, apply and the list of corrections, with the shapes of what
a correction affected), `sources` (a source's new version and its retraction), `review` (a reviewer's answer to a
flagged decision, listed with the decisions), `changes` (the changes of belief, docs/history.md), `prov` (the W3C
PROV export, docs/prov.md), `suggestions` (suggested corrections), `agent_claims` (approving and rejecting agents'
proposed claims, one or many), and `router`, the one router the project's API mounts (tag "corrections").
"""
