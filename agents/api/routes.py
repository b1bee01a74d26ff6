"""The agents app's JSON API as one router (docs/api.md, The agent; Decisions and actions), mounted under
/workspaces by the API root: its parts' operations in the order the API document lists them."""

from ninja import Router

from agents.api import actions, decisions, review, runs

router = Router(tags=["agent, decisions and actions"])
for part in (runs, decisions, actions, review):
    router.add_router("", part.router)
