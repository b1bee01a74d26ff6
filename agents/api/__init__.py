"""The agents app's JSON API (docs/api.md, The agent; Decisions and actions): `runs` (ask the agent, its runs),
`decisions`, `actions` and `review` (the review queue), each with its requests, answers and operations on a router
of its own; `routes` mounts them as the app's one router."""
