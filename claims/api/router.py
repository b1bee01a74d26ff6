"""The claims app's router, as the project's API mounts it: the sources' operations, then the claims'."""

from __future__ import annotations

from ninja import Router

from claims.api import claims, sources

router = Router(tags=["sources and claims"])
router.add_router("", sources.router)
router.add_router("", claims.router)
