"""The corrections app's pages, one module per feature: `correct` (a claim's correction: preview, then Apply),
`review` (the review queue and a decision's review), `proposed` (approving or rejecting agents' proposed claims
from the queue), `history` (the workspace's corrections and a correction's
page), `chain` (a claim's chain), `sources` (a source's new version or retraction), `timeline` (the timeline of
changes and the diff between two moments), `prov` (the W3C PROV export), `audit` and `audit_export` (the staff
audit and its CSV), with `staff` (the staff audit's guard) and `words` (words the pages share)."""
