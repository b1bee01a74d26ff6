"""Belief maintenance in the graph, the corrections app's Cypher: `subgraph` (what rests on the roots, read once,
and the revision counter), `apply` (a correction and its propagation in one atomic query, its fence and replay
reads), `evidence` (a source retracted or given a new version), `review` (a reviewer's re-justify, revise and
dismiss), `corrections` (a correction's reads and the history's pages), `chain` (a claim's chain), `prov` (the
W3C PROV export's read), `timeline` (the timeline of changes and the diff between two moments), `suggestions`
(suggested corrections: recorded, listed, decided), `suggestion_sides` (the review queue's one read of both
sides of the suggestions it shows) and `suggestion_history` (a claim's suggestions as its history shows them).
`apply`, `evidence` and `review` alone change the statuses of the other apps' nodes after their creation, each in
one query that belongs to the app that owns the operation (docs/conventions.md)."""
