"""The agents app's slice of the graph: it creates AgentRun, Handoff, Decision, Action, SUPPORTS, DEPENDS_ON, SEARCHED,
RETRIEVED and PRODUCED, sets a run's status and a person's own marks on an action, and reads those with the claims
they rest on; each write is one query, and the ones that make or mark what a correction may rest on (decisions,
actions, a run's finish, an MCP decision) bump the workspace revision, while a run's start, progress, failure and
MCP steps do not; none changes what holds (that is corrections' graph modules). `shapes` has the dataclasses every
read returns; `decisions` creates and reads decisions; `past` reads decisions and actions as they were; `actions`
creates, marks and reads actions; `runs` writes and reads the built-in agent's runs; `mcp` writes outside agents'
runs over MCP (steps and decisions under rule 2); `review` reads the review queue; `lists` holds the list pages'
queries, built on the base's list toolkit (afterhack/lists/graph.py).
"""
