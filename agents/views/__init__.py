"""The agents app's pages. `runs`: ask a question, a run and its trajectory (live over HTMX), the runs list;
`decisions`: the decisions list with the new decision form and its justification pickers, a decision, the decision
picker; `actions`: the actions list, an action, adding one to a decision and marking it done, cancelled or
reopened. What each list sorts and filters by is declared once in agents/lists.py."""
