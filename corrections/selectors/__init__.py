"""The corrections app's reads, one module per feature: `corrections` (corrections by page, id or history filter,
a claim's chain, what happened to a claim), `preview` (the correction page's preview, read once, and its passage
picker), `pictures` (a chain's and an impact's pictures), `review` (the review queue's items), `detail` (a
correction's page, for members and for staff), `audit` (the staff audit's rows), `prov` (the W3C PROV export),
`changes` (the changes of belief between two moments), `timeline` (the timeline and the diff, in rows) and
`suggestion_history` (the suggestions in a claim's history, as of a moment too)."""
