"""Afterhack: agent memory where every belief has a because-chain."""

from afterhack.celery import app as celery_app

__all__ = ["celery_app"]
