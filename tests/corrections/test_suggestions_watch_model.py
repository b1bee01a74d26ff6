"""The contradiction watch with a model configured (the scripted local model, over HTTP): the pairs the offline rule
leaves undecided are judged by the model, all of one watch run in batches of at most ten; a `contradicts` becomes a
suggestion found by the model with its reason; a hostile or failed answer stores nothing of the model's and never
loses what the rule found."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pytest

from afterhack import graph
from afterhack.llm import JUDGE_BATCH, NO_QUOTE
from benchmarks.llm_server import call_kind, json_reply
from claims.services import claims as claims_services
from claims.services import sources as sources_services
from config.demo import demo_fill
from corrections.contradiction.frames import analyse
from corrections.services import watch as watch_services
from tests.conftest import Trio

pytestmark = pytest.mark.django_db

PLAN = (
    "Launch plan\n\nThe launch is in June. The contract includes a termination clause. "
    "The launch budget is 40k. The contract is signed by Acme. The launch party is in Lisbon.\n"
)
EMAIL = "From Ana: the launch is in July. The contract has no termination clause. The contract renewal is yearly.\n"
TERMINATION = "The contract includes a termination clause."
NO_TERMINATION = "The contract has no termination clause."
# The quote NO_TERMINATION's claim rests on: not its statement, so that what is sent as the quote is the quote.
NO_TERMINATION_QUOTE = "no termination clause"
QUOTE = rf"(<<<.*?>>>|{re.escape(NO_QUOTE)})"
PAIR = re.compile(
    rf"Pair (\d+)\nOLDER: <<<(.*?)>>>\nOLDER QUOTE: {QUOTE}\nNEWER: <<<(.*?)>>>\nNEWER QUOTE: {QUOTE}", re.DOTALL
)


@dataclass(frozen=True)
class Sent:
    """A pair as the model was sent it; a quote is None when "(no quote: derived)" was sent in its place."""

    number: int
    older: str
    older_quote: str | None
    newer: str
    newer_quote: str | None


def pairs_sent(request: dict[str, Any]) -> list[Sent]:
    """The pairs of a contradiction judgement's request, as sent."""
    assert call_kind(request) == "CONTRADICTION", request["messages"][0]
    return [
        Sent(int(n), older, quote(older_quote), newer, quote(newer_quote))
        for n, older, older_quote, newer, newer_quote in PAIR.findall(request["messages"][1]["content"])
    ]


def quote(sent: str) -> str | None:
    """A quote as it was sent: None for "(no quote: derived)", else the text inside the <<< >>>."""
    return None if sent == NO_QUOTE else sent[3:-3]


def said(request: dict[str, Any]) -> list[tuple[str, str]]:
    """The (older, newer) statements of each pair a request sent."""
    return [(sent.older, sent.newer) for sent in pairs_sent(request)]


def judge_termination(request: dict[str, Any]) -> dict[str, Any]:
    """A model that finds the termination clause's pair contradictory and every other pair unrelated."""
    judgements = [
        {"pair": sent.number,
         "verdict": "contradicts" if (sent.older, sent.newer) == (TERMINATION, NO_TERMINATION) else "unrelated",
         "reason": "One says the contract has the clause, the other that it has none."}
        for sent in pairs_sent(request)
    ]  # fmt: skip
    return json_reply({"judgements": judgements})


class World:
    def __init__(self, trio: Trio) -> None:
        self.trio = trio
        add = sources_services.source_add
        self.plan = add(workspace=trio.workspace, title="Launch plan", text=PLAN, actor=trio.reviewer).id
        self.email = add(workspace=trio.workspace, title="Email", text=EMAIL, actor=trio.reviewer).id
        sentences = [part.rstrip(".") + "." for part in PLAN.split("\n\n")[1].strip().split(". ")]
        self.claims = {quote: self.claim(self.plan, quote) for quote in sentences}

    def claim(self, source_id: str, quote: str, statement: str | None = None) -> str:
        return claims_services.claim_add(
            workspace=self.trio.workspace, source_id=source_id, statement=statement or quote, evidence_quote=quote,
            actor=self.trio.reviewer,
        ).id  # fmt: skip

    def newer(self) -> list[str]:
        """The email's claims, added without their watch (the test runs it)."""
        return [
            self.claim(self.email, "the launch is in July."),
            self.claim(self.email, NO_TERMINATION_QUOTE, NO_TERMINATION),
        ]

    def suggestions(self) -> list[dict[str, Any]]:
        rows = graph.ro_records(
            self.trio.workspace,
            "MATCH (x:Suggestion) RETURN x {.claim_id, .by_claim_id, .found_by, .reason, .rule_kind, .status} AS s",
        )
        return sorted(rows, key=lambda row: row["found_by"])


@pytest.fixture
def world(trio: Trio, llm: Any) -> World:
    return World(trio)


def test_the_rules_undecided_pairs_go_to_the_model_in_one_call_and_its_contradiction_is_stored(
    world: World, llm: Any
) -> None:
    assert world.claims["The launch is in June."] and TERMINATION in world.claims
    llm.script(judge_termination)
    july, none = world.newer()
    report = watch_services.watch(workspace=world.trio.workspace, claim_ids=[july, none])
    by_model, by_rule = world.suggestions()
    assert by_rule["found_by"] == "rule" and by_rule["rule_kind"] == "date"
    assert (by_rule["claim_id"], by_rule["by_claim_id"]) == (world.claims["The launch is in June."], july)
    assert by_model == {
        "claim_id": world.claims[TERMINATION], "by_claim_id": none, "found_by": "model", "rule_kind": None,
        "reason": "One says the contract has the clause, the other that it has none.", "status": "open",
    }  # fmt: skip
    # Both claims' undecided pairs went in one call; the pair the rule decided was never sent.
    (request,) = llm.requests
    sent = pairs_sent(request)
    assert 2 <= len(sent) <= JUDGE_BATCH and (TERMINATION, NO_TERMINATION) in said(request)
    assert ("The launch is in June.", "the launch is in July.") not in said(request)
    # Each statement went with the quote its claim rests on.
    [termination] = [pair for pair in sent if pair.older == TERMINATION]
    assert (termination.older_quote, termination.newer, termination.newer_quote) == (
        TERMINATION, NO_TERMINATION, NO_TERMINATION_QUOTE
    )  # fmt: skip
    assert all(pair.older_quote == pair.older for pair in sent)
    assert len(sent) == report.model_pairs and report.model_calls == 1 and report.model_failures == 0
    assert (report.by_rule, report.by_model, report.prompt_tokens, report.completion_tokens) == (1, 1, 11, 7)
    # Watched again: the pair with a suggestion is not asked about again, and nothing new is stored.
    again = watch_services.watch(workspace=world.trio.workspace, claim_ids=[none])
    assert again.by_model == 0 and again.by_rule == 0
    assert (TERMINATION, NO_TERMINATION) not in said(llm.requests[-1])


def test_a_derived_claim_is_sent_with_no_quote_and_the_claim_it_contradicts_with_its_own(
    world: World, llm: Any
) -> None:
    llm.script(judge_termination)
    renewal = world.claim(world.email, "The contract renewal is yearly.")
    derived = claims_services.derived_claim_add(
        workspace=world.trio.workspace, statement=NO_TERMINATION, derived_from=[renewal], actor=world.trio.reviewer
    ).id  # fmt: skip
    report = watch_services.watch(workspace=world.trio.workspace, claim_ids=[derived])
    [sent] = [pair for pair in pairs_sent(llm.requests[0]) if pair.older == TERMINATION]
    assert (sent.older_quote, sent.newer, sent.newer_quote) == (TERMINATION, NO_TERMINATION, None)
    assert NO_QUOTE in llm.requests[0]["messages"][1]["content"]
    [by_model] = world.suggestions()
    assert (by_model["claim_id"], by_model["by_claim_id"], by_model["found_by"]) == (
        world.claims[TERMINATION], derived, "model"
    )  # fmt: skip
    assert report.by_model == 1 and report.model_failures == 0


def test_many_undecided_pairs_are_judged_in_batches_of_ten(world: World, llm: Any) -> None:
    llm.script(json_reply({"judgements": []}))
    more = "The launch team is small. The launch review is on Friday. The contract owner is Ana. The contract scope is wide.\n"
    notes = sources_services.source_add(
        workspace=world.trio.workspace, title="Notes", text=more, actor=world.trio.reviewer
    )
    for quote in more.strip().split(". "):
        world.claim(notes.id, quote.rstrip(".") + ".")
    newer = [*world.newer(), world.claim(world.email, "The contract renewal is yearly.")]
    report = watch_services.watch(workspace=world.trio.workspace, claim_ids=newer)
    assert report.model_pairs > JUDGE_BATCH
    assert report.model_calls == len(llm.requests) == -(-report.model_pairs // JUDGE_BATCH)
    assert [len(pairs_sent(request)) for request in llm.requests][:-1] == [JUDGE_BATCH] * (report.model_calls - 1)
    assert [s["found_by"] for s in world.suggestions()] == ["rule"]


@pytest.mark.parametrize(
    ("reply", "failed"),
    [
        (
            json_reply(
                {
                    "judgements": [
                        {"pair": 42, "verdict": "contradicts", "reason": "An invented pair."},
                        {"pair": 0, "verdict": "contradicts", "reason": "Nor this one."},
                        {"pair": 1, "verdict": "contradicts!!", "reason": "No such verdict."},
                    ]
                }
            ),
            False,
        ),
        ({"content": '{"judgements": [{"pair": 1, "verdict": "contradicts"'}, True),
        ({"content": "I think pair 1 contradicts."}, True),
        (json_reply({"judgements": "contradicts"}), True),
        # Another shape is a failed call (counted, logged), never an answer that found nothing.
        (
            json_reply(
                {"verdicts": [{"pair": n, "verdict": "contradicts", "reason": "Old shape."} for n in (1, 2, 3)]}
            ),
            True,
        ),
        (json_reply({"claims": []}), True),
        ({"status": 500}, True),
        (
            {
                "delay": 1.5,
                "content": json.dumps({"judgements": [{"pair": 1, "verdict": "contradicts", "reason": "late"}]}),
            },
            True,
        ),
    ],
    ids=[
        "invented-pairs",
        "broken-json",
        "prose",
        "not-a-list",
        "verdicts-shape",
        "extraction-shape",
        "http-500",
        "timeout",
    ],
)
def test_a_hostile_or_failed_answer_stores_nothing_of_the_models_and_keeps_the_rules(
    world: World, llm: Any, settings: Any, reply: dict[str, Any], failed: bool, caplog: Any
) -> None:
    settings.AFTERHACK_LLM_TIMEOUT = 0.5
    llm.script(reply)
    july, none = world.newer()
    with caplog.at_level("WARNING", logger="corrections"):
        report = watch_services.watch(workspace=world.trio.workspace, claim_ids=[july, none])
    [by_rule] = world.suggestions()
    assert by_rule["found_by"] == "rule" and by_rule["by_claim_id"] == july
    assert graph.ro_query(world.trio.workspace, "MATCH (c:Claim {status: 'current'}) RETURN count(c)")[0][0] == 7
    failures = [r.getMessage() for r in caplog.records if "model call failed" in r.getMessage()]
    assert len(failures) == int(failed), failures
    assert report.by_rule == 1 and report.by_model == 0 and report.model_calls == len(llm.requests) == 1
    assert report.model_failures == int(failed) and report.model_pairs == (
        0 if failed else len(pairs_sent(llm.requests[0]))
    )


def test_without_a_model_the_undecided_pairs_are_left_alone(world: World, llm: Any, settings: Any) -> None:
    settings.AFTERHACK_LLM_MODEL = ""
    report = watch_services.watch(workspace=world.trio.workspace, claim_ids=world.newer())
    assert llm.requests == [] and report.model_calls == 0
    assert [s["found_by"] for s in world.suggestions()] == ["rule"]


def test_the_watch_task_returns_what_it_did(world: World, llm: Any) -> None:
    from corrections import tasks

    llm.script(judge_termination)
    done = tasks.claims_watch(str(world.trio.workspace.id), world.newer())
    assert done["by_rule"] == 1 and done["by_model"] == 1 and done["model_calls"] == 1 and done["claims"] == 2
    assert done["prompt_tokens"] == 11 and "stored" not in done


# -- the candidates, and the demo's story -------------------------------------------------------------------------------

NEWER_EMAIL = "From Ana, Tuesday: The launch moved to July. The Lemadu budget request is rejected.\n"
MODEL_FINDS = {
    "Northwind expects the launch in June.",
    "The campaign must be ready in May because the launch is in June.",
}


def demo(trio: Trio) -> tuple[dict[str, str], str]:
    """The demo's launch story in the trio's workspace, and the newer email's claim that the launch moved (not yet
    watched): the demo's current claims by statement, and that claim's id."""
    demo_fill(trio.workspace, trio.owner)
    rows = graph.ro_records(trio.workspace, "MATCH (c:Claim) RETURN c {.id, .statement} AS c")
    claims = {row["statement"]: row["id"] for row in rows}
    email = sources_services.source_add(workspace=trio.workspace, title="Update", text=NEWER_EMAIL, actor=trio.owner)
    moved = claims_services.claim_add(
        workspace=trio.workspace, source_id=email.id, statement="The launch moved to July.",
        evidence_quote="The launch moved to July.", actor=trio.owner,
    ).id  # fmt: skip
    return claims, moved


def about(trio: Trio) -> dict[str, str]:
    rows = graph.ro_records(
        trio.workspace, "MATCH (x:Suggestion)-[:ABOUT]->(c:Claim) RETURN {statement: c.statement, by: x.found_by} AS s"
    )
    return {row["statement"]: row["by"] for row in rows}


def test_the_demos_story_offline_one_suggestion_about_the_june_claim(trio: Trio, no_llm: None) -> None:
    claims, moved = demo(trio)
    assert watch_services.claims_watch(workspace=trio.workspace, claim_ids=[moved]) == 1
    assert about(trio) == {"The product launch is in June.": "rule"}
    assert claims["The product launch is in June."]


def test_the_demos_story_with_a_model_adds_what_only_meaning_tells(trio: Trio, llm: Any) -> None:
    def judge(request: dict[str, Any]) -> dict[str, Any]:
        judgements = [{"pair": sent.number, "verdict": "contradicts" if sent.older in MODEL_FINDS else "unrelated",
                       "reason": "June against July."} for sent in pairs_sent(request)]  # fmt: skip
        return json_reply({"judgements": judgements})

    llm.script(judge)
    _, moved = demo(trio)
    report = watch_services.watch(workspace=trio.workspace, claim_ids=[moved])
    assert about(trio) == {"The product launch is in June.": "rule"} | dict.fromkeys(MODEL_FINDS, "model")
    assert (report.by_rule, report.by_model, report.model_calls) == (1, 2, 1)


def test_candidates_are_the_claims_sharing_the_subject_and_with_a_model_any_word(
    trio: Trio, llm: Any, settings: Any
) -> None:
    source = sources_services.source_add(workspace=trio.workspace, title="N", text=NEWER_EMAIL, actor=trio.owner)
    quotes = ["The Lemadu budget request is approved.", "The Lemadu launch is in June.", "The Lemadu budget is 40k."]
    plan = sources_services.source_add(workspace=trio.workspace, title="P", text=" ".join(quotes), actor=trio.owner)
    ids = {
        quote: claims_services.claim_add(workspace=trio.workspace, source_id=plan.id, statement=quote,
                                         evidence_quote=quote, actor=trio.owner).id
        for quote in quotes
    }  # fmt: skip
    statement = "The Lemadu budget request is rejected."
    rejected = claims_services.claim_add(workspace=trio.workspace, source_id=source.id, statement=statement,
                                         evidence_quote=statement, actor=trio.owner).id  # fmt: skip
    assert watch_services.subject_words(statement, analyse(statement)) == ["lemadu", "budget", "request"]

    def found() -> set[str]:
        hits = watch_services.candidates(workspace=trio.workspace, statement=statement, kin={rejected})
        return {hit.statement for hit in hits}

    # Offline only the claims having every subject word can be contradicted by the rule: only they are read.
    settings.AFTERHACK_LLM_MODEL = ""
    assert found() == {"The Lemadu budget request is approved."}
    assert watch_services.claims_watch(workspace=trio.workspace, claim_ids=[rejected]) == 1
    assert about(trio) == {"The Lemadu budget request is approved.": "rule"}
    # With a model, the claims having any of its words fill the candidates up (the model judges more than the rule).
    settings.AFTERHACK_LLM_MODEL = "scripted-model"
    assert found() == set(quotes) and ids
