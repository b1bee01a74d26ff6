"""Claim extraction, fragment by fragment: through the model when one is configured, else by rules.

Both extractors only *propose* claims. Every proposal goes through `claims.evidence`, and
only quotes that validate become claims; the rest are recorded as rejected with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from afterhack import llm
from afterhack.ids import storable
from claims.evidence import Reason, Rejection, validate_quote
from claims.graph.shapes import Fragment
from claims.text import Span, normalize, sentence_spans

RULE_EXTRACTOR = "rule_based"


@dataclass(frozen=True)
class Proposal:
    """A claim an extractor proposes: a statement and the quote it says supports it."""

    statement: str
    evidence_quote: str
    confidence: float | None


@dataclass(frozen=True)
class Accepted:
    statement: str
    evidence_quote: str
    span: Span
    confidence: float | None


@dataclass(frozen=True)
class Refused:
    statement: str
    evidence_quote: str
    rejection: Rejection


# -- the offline rule-based extractor ------------------------------------------------------

MIN_WORDS = 4
MAX_SENTENCE_CHARS = 600
MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
# Verbs and auxiliaries that make a sentence state something ("is", "will ship", "costs").
STATING_VERBS = set(
    "is are was were be been being will would shall should can could may might must has have had "
    "does did do costs cost owns own leads lead launches launch ships ship starts start ends end "
    "moves moved moving delayed approved decided agreed signed confirmed plans planned planning "
    "requires required expects expected reported reports grew fell rose increased decreased "
    "becomes became remains remained includes included uses used runs ran".split()
)
WORD = re.compile(r"[^\W\d_][\w'’-]*|\d[\d.,:%/-]*", re.UNICODE)
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _states_something(word: str) -> bool:
    """A known verb, a past tense, or a lower-case word in -s ("opens", "seats")."""
    lowered = word.lower()
    return (
        lowered in STATING_VERBS
        or lowered.endswith("ed")
        or (word.islower() and word.endswith("s") and not word.endswith("ss"))
    )


def fact_score(sentence: str) -> float:
    """How strongly a sentence looks like it states a fact (0 = not at all), from surface features."""
    stripped = sentence.strip()
    if not stripped or stripped.endswith("?") or len(stripped) > MAX_SENTENCE_CHARS:
        return 0.0
    # A statement ends like one; a heading or a list label does not.
    if not stripped.rstrip("\"'”’)]").endswith((".", "!", "。", "！")):
        return 0.0
    if CJK.search(stripped):
        # Word features don't apply; a complete CJK sentence of some length is taken as a statement.
        return 0.5 if len(stripped) >= 6 and stripped[-1] in "。！.!" else 0.0
    words = WORD.findall(stripped)
    if len(words) < MIN_WORDS:
        return 0.0
    lowered = [word.lower() for word in words]
    if not any(_states_something(word) for word in words[1:]):
        return 0.0
    score = 0.4
    if any(word[0].isdigit() for word in words):
        score += 0.2
    if any(word in MONTHS for word in lowered):
        score += 0.2
    if any(word[0].isupper() for word in words[1:]):
        score += 0.1
    return min(score, 0.9)


def rule_proposals(text: str) -> list[Proposal]:
    """One proposal per fact-bearing sentence: the statement and the quote are that exact sentence."""
    proposals = []
    for span in sentence_spans(text):
        sentence = text[span.start : span.end]
        score = fact_score(sentence)
        if score > 0:
            proposals.append(Proposal(statement=" ".join(sentence.split()), evidence_quote=sentence, confidence=score))
    return proposals


# -- the model -------------------------------------------------------------------------------


def model_proposals(*, title: str, fragment_text: str) -> list[Proposal]:
    """The model's proposals for one fragment; raises LLMError on a failed call."""
    extracted, _ = llm.extract_claims(title=title, fragment=fragment_text)
    proposals = []
    for item in extracted:
        statement = item.statement if isinstance(item.statement, str) else ""
        quote = item.evidence_quote if isinstance(item.evidence_quote, str) else ""
        confidence = (
            item.confidence
            if isinstance(item.confidence, int | float) and not isinstance(item.confidence, bool)
            else None
        )
        if confidence is not None:
            confidence = max(0.0, min(1.0, float(confidence)))
        # What a model says is data: make it storable, and give its quote the ingest normalisation.
        proposals.append(
            Proposal(
                statement=" ".join(storable(statement).split()), evidence_quote=normalize(quote), confidence=confidence
            )
        )
    return proposals


# -- validation ------------------------------------------------------------------------------


def place(text: str, fragment: Fragment, proposal: Proposal) -> Accepted | Refused:
    """Validates a proposal against the version text, preferring an occurrence inside its fragment."""
    if not proposal.statement:
        return Refused(proposal.statement, proposal.evidence_quote, Rejection(Reason.EMPTY, "The statement is empty."))
    quote = proposal.evidence_quote
    inside = text.find(quote, fragment.start, fragment.end) if quote.strip() else -1
    result = validate_quote(text, quote, inside if inside != -1 else None)
    if isinstance(result, Rejection):
        return Refused(proposal.statement, quote, result)
    return Accepted(proposal.statement, quote, result, proposal.confidence)


def extract_fragments(
    *,
    text: str,
    fragments: list[Fragment],
    propose: Callable[[Fragment], list[Proposal]],
) -> Iterator[list[Accepted | Refused]]:
    """For each fragment in turn, its proposals validated against the version text."""
    for fragment in fragments:
        yield [place(text, fragment, proposal) for proposal in propose(fragment)]
