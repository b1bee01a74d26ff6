"""The shapes the claims graph modules share, and other apps' graph modules read (a claim, its fragments, the
passage a correction cites, a background job as a page sees it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from afterhack.clock import is_stale
from afterhack.cypher import hold_members
from claims.statuses import ClaimStatus, JobStatus


@dataclass(frozen=True)
class Fragment:
    id: str
    start: int
    end: int
    text: str
    origin_type: str

    @classmethod
    def from_map(cls, row: dict[str, Any]) -> Fragment:
        return cls(row["id"], row["start"], row["end"], row["text"], row.get("origin_type") or "source")


# The role of the SUPPORTED_BY edges from a correction's replacement claim to the fragments of the
# source passage the correction cites, beside its own fragment (role 'reviewer_correction').
CITED_PASSAGE_ROLE = "cited_passage"


@dataclass(frozen=True)
class CitedPassage:
    """A passage of a source that a correction cites: its replacement claim rests on it as well as on the correction."""

    source_id: str
    version_id: str
    version: int
    quote: str
    start: int
    end: int
    fragments: list[Fragment]

    def record(self) -> dict[str, Any]:
        """The passage as its claim records it (the fragments are its SUPPORTED_BY edges)."""
        return {k: getattr(self, k) for k in ("source_id", "version_id", "version", "quote", "start", "end")}


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    status: ClaimStatus
    evidence_quote: str | None
    start: int | None
    end: int | None
    confidence: float | None
    confidence_kind: str
    extractor: str
    source_id: str | None
    version_id: str | None
    created_at: str
    created_by: str | None
    fragments: list[Fragment] = field(default_factory=list)
    supersedes: str | None = None
    superseded_by: str | None = None
    derived_from: list[list[str]] = field(default_factory=list)
    status_changed_at: str | None = None
    retraction: str | None = None
    cited_passage: CitedPassage | None = None

    def __post_init__(self) -> None:
        # Read from the graph as plain text: held as the member it always is.
        hold_members(self, status=ClaimStatus)

    @classmethod
    def from_map(cls, row: dict[str, Any]) -> Claim:
        """A claim from a CLAIM_MAP row: its properties, fragments, neighbours by supersession and premises."""
        props, fragments, premises = row["claim"], row["fragments"], row["premises"]
        cited = [Fragment.from_map(f) for f in fragments if f.get("role") == CITED_PASSAGE_ROLE]
        justifications: dict[int, list[str]] = {}
        for index, premise_id in premises:
            if premise_id is not None:
                justifications.setdefault(int(index), []).append(premise_id)
        return cls(
            id=props["id"],
            statement=props["statement"],
            status=props["status"],
            evidence_quote=props.get("evidence_quote"),
            start=props.get("start"),
            end=props.get("end"),
            confidence=props.get("confidence"),
            confidence_kind=props.get("confidence_kind") or "",
            extractor=props.get("extractor") or "",
            source_id=props.get("source_id"),
            version_id=props.get("version_id"),
            created_at=props.get("created_at") or "",
            created_by=props.get("created_by"),
            fragments=[Fragment.from_map(f) for f in fragments if f.get("role") != CITED_PASSAGE_ROLE],
            supersedes=row["supersedes"],
            superseded_by=row["superseded_by"],
            derived_from=[sorted(ids) for _, ids in sorted(justifications.items())],
            status_changed_at=props.get("status_changed_at"),
            retraction=props.get("retraction"),
            cited_passage=CitedPassage(
                props["cited_source_id"], props["cited_version_id"], props["cited_version"], props["cited_quote"],
                props["cited_start"], props["cited_end"], cited,
            ) if props.get("cited_version_id") else None,
        )  # fmt: skip


class BackgroundJob:
    """A queued or running job as a page sees it: stalled when it stopped reporting progress, busy otherwise."""

    status: str
    updated_at: str

    @property
    def stalled(self) -> bool:
        return self.status in (JobStatus.QUEUED, JobStatus.RUNNING) and is_stale(self.updated_at)

    @property
    def busy(self) -> bool:
        return self.status in (JobStatus.QUEUED, JobStatus.RUNNING) and not self.stalled
