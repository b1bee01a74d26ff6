"""Writes of the agents app. `runs`: asking the agent, and running the Analyst and the Coordinator on a queued
run; `decisions`: decisions and actions made by people, and a person's marks on an action; `mcp`: the runs of
outside agents over MCP (their steps, and their decisions under rule 2). A reviewer's answer to a flagged decision
changes what holds: corrections/review.py."""
