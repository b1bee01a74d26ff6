"""The corrections app's writes: `preview` (what a correction would do, and the revision it depends on), `apply`
(a correction applied atomically and idempotently, over the intents of corrections/intents.py), `evidence` (a
source retracted or given a new version, with what that propagates) and `retry` (how a guarded write tries again).
A reviewer's answer to a decision these flagged is corrections/review.py."""
