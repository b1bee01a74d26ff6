"""The corrections app's router, as the project's API mounts it: corrections, a source's new version and
retraction, a reviewer's answers to flagged decisions and to done actions needing a follow-up, the changes of belief, the PROV export, the suggested
corrections (in that order, a reviewer's answers to agents' claims just before them)."""

from __future__ import annotations

from ninja import Router

from corrections.api import agent_claims, changes, corrections, follow_ups, prov, review, sources, suggestions

router = Router(tags=["corrections"])
router.add_router("", corrections.router)
router.add_router("", sources.router)
router.add_router("", review.router)
router.add_router("", follow_ups.router)
router.add_router("", changes.router)
router.add_router("", prov.router)
# Before the suggestions' own: `suggestions/approve` and `suggestions/reject` are not a suggestion's id.
router.add_router("", agent_claims.router)
router.add_router("", suggestions.router)
