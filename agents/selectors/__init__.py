"""Reads of the agents app shaped for pages, the API and other apps. `decisions`: decisions and the actions
resting on them, one or many, as they are or as they were, their pages of the API, the review queue (it also
names the shapes these reads return, so that no page imports a graph module); `runs`: a run with its outcome and
trajectory, pages of runs; `lists`: the list pages' rows; `picker`: the decision picker."""
