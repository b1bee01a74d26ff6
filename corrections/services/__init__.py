"""The corrections app's writes: `preview` (what a correction would do, and the revision it depends on), `apply`
(a correction applied atomically and idempotently, over the intents of corrections/intents.py), `evidence` (a
source retracted or given a new version, with what that propagates) `retry` (how a guarded write tries again), `suggestions` (a contradiction flagged, a
suggestion turned down), `watch` (the contradiction watch) and `agent_claims` (agents' proposed claims approved or
rejected, one or many).
A reviewer's answer to a decision these flagged is corrections/review.py."""
