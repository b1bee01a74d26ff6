"""The offline contradiction rule (corrections/contradiction): the issue's examples, the demo's launch story, values
written differently that must compare equal, and its precision and recall on the labelled pairs."""

from __future__ import annotations

import pytest

from benchmarks.contradiction import HELD_OUT, LABELLED, Score, load_pairs, score
from config.demo import CLAIMS, LAUNCH_PLAN
from corrections.contradiction.frames import analyse
from corrections.contradiction.rule import Kind, Outcome, judge, judge_analysed
from corrections.contradiction.values import Comparison, Value, compare, read_values


def contradiction(a: str, b: str, kind: Kind) -> str:
    """Asserts that a and b contradict with that kind; returns the reason."""
    judgement = judge(a, b)
    assert (judgement.outcome, judgement.kind) == (Outcome.CONTRADICTS, kind), judgement.reason
    return judgement.reason


def no_contradiction(a: str, b: str) -> Outcome:
    judgement = judge(a, b)
    assert judgement.outcome != Outcome.CONTRADICTS, judgement.reason
    return judgement.outcome


# -- the issue's examples ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        ("The launch is in June.", "The launch is in July.", Kind.DATE),
        ("The board review is on 14 March.", "The board review is on 21 March.", Kind.DATE),
        ("The kickoff meeting is on Tuesday.", "The kickoff meeting is on Thursday.", Kind.DATE),
        ("Release 2.4 ships in Q3.", "Release 2.4 ships in Q4.", Kind.DATE),
        ("The launch budget is 40,000 EUR.", "The launch budget is 45,000 EUR.", Kind.NUMBER),
        ("The discount for Northwind is 15%.", "The discount for Northwind is 20%.", Kind.NUMBER),
        ("The venue holds 120 seats.", "The venue holds 150 seats.", Kind.NUMBER),
        ("The onboarding takes 3 days.", "The onboarding takes 5 days.", Kind.NUMBER),
        ("The venue is Hall B.", "The venue is Hall C.", Kind.NAMED_VALUE),
        ("Ana Costa owns the launch checklist.", "Ben Li owns the launch checklist.", Kind.NAMED_VALUE),
        ("The launch budget is approved.", "The launch budget is not approved.", Kind.NEGATION),
        ("The vendor contract is signed.", "The vendor contract hasn't been signed yet.", Kind.NEGATION),
    ],
)
def test_a_different_date_number_or_named_value_in_one_frame_or_a_negation_contradicts(
    a: str, b: str, kind: Kind
) -> None:
    contradiction(a, b, kind)


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("The launch is in June.", "The launch is in July.",
         "Both say when the launch is, with different months: June and July."),
        ("The launch budget is 40,000 EUR.", "The launch budget is 45,000 EUR.",
         "Both give the launch budget, with different amounts: 40,000 EUR and 45,000 EUR."),
        ("The venue is Hall B.", "The venue is Hall C.", "Both name the venue, with different names: Hall B and Hall C."),
        ("The launch budget is approved.", "The launch budget is not approved.",
         "One says the launch budget is approved; the other says it is not so."),
    ],
)  # fmt: skip
def test_the_reason_says_in_plain_words_what_differs(a: str, b: str, reason: str) -> None:
    assert judge(a, b).reason == reason


def test_statements_that_only_share_words_or_a_topic_do_not_contradict() -> None:
    assert no_contradiction("The launch is in June.", "The launch budget is 40k.") == Outcome.UNDECIDED
    assert no_contradiction("The launch is in June.", "The launch checklist is due in May.") == Outcome.UNDECIDED


def test_the_same_value_written_differently_does_not_contradict() -> None:
    assert no_contradiction("The launch is on June 12.", "The launch is on 12 June.") == Outcome.AGREES
    assert no_contradiction("The launch budget is $40k.", "The launch budget is 40,000 USD.") == Outcome.AGREES


def test_a_differing_date_that_qualifies_another_fact_does_not_contradict_but_the_fact_itself_does() -> None:
    assert no_contradiction("Sales grew 10% in June.", "Sales grew 10% in July.") == Outcome.UNDECIDED
    contradiction("Sales grew 10% in June.", "Sales grew 12% in June.", Kind.NUMBER)


def test_a_different_subject_does_not_contradict() -> None:
    assert no_contradiction("The launch is in June.", "The review is in July.") == Outcome.UNDECIDED
    assert no_contradiction("Acme's quote is $12,500.", "Globex's quote is $14,000.") == Outcome.UNDECIDED


def test_hedged_and_conditional_statements_are_left_undecided() -> None:
    for hedged in ("The launch may move to July.", "If the certification slips, the launch moves to July.",
                   "Is the launch in July?", "The launch might be in June or July."):  # fmt: skip
        judgement = judge("The launch is in June.", hedged)
        assert judgement.outcome == Outcome.UNDECIDED and "hedged" in judgement.reason


def test_what_a_value_was_does_not_contradict_what_it_is() -> None:
    assert no_contradiction("The team has 14 engineers.", "The team had 11 engineers.") == Outcome.UNDECIDED
    assert no_contradiction("Ana Costa is the project lead.", "Ben Li was the project lead.") == Outcome.UNDECIDED
    # "was moved to July" says what holds now.
    contradiction("The townhall is on Feb 13.", "The townhall was rescheduled to Feb 20.", Kind.DATE)


@pytest.mark.parametrize(
    "odd", ["", " ", "?", "$", "2025-13-45", "99:99", "31/02", "from 3 to", "from 3 to 4 from 5 to", "Q5", "week"]
)
def test_odd_text_is_judged_without_error_and_left_undecided(odd: str) -> None:
    assert judge(odd, "The launch is in June.").outcome == Outcome.UNDECIDED
    assert judge(odd, odd).outcome != Outcome.CONTRADICTS


# -- the demo's launch story -------------------------------------------------------------------------------------------


def test_the_demo_launch_claim_is_contradicted_by_the_newer_email_and_nothing_else_of_the_demo_is() -> None:
    claims = [statement for _, statement, _ in CLAIMS]
    assert "The product launch is in June." in claims
    for newer in ("The launch moved to July.", "The launch has been moved to 3 July."):
        found = {claim: judge(claim, newer) for claim in claims}
        contradicted = {claim for claim, judgement in found.items() if judgement.outcome == Outcome.CONTRADICTS}
        assert contradicted == {"The product launch is in June."}
        assert found["The product launch is in June."].kind == Kind.DATE
        assert "June" in found["The product launch is in June."].reason
    # The plan's own risk ("if it does, the launch moves to July") is a condition, not a change.
    risk = next(line for line in LAUNCH_PLAN.splitlines() if line.startswith("Risks"))
    assert judge("The product launch is in June.", risk).outcome == Outcome.UNDECIDED
    contradiction("The launch is planned for June 12.", "The launch moved to July.", Kind.DATE)
    # The correction's replacement says the same as the email: they agree.
    assert judge("The product launch is in July.", "The launch moved to July.").outcome == Outcome.AGREES


@pytest.mark.parametrize(
    "newer",
    [
        "Launch moved to July.", "The launch is now planned for July.", "The launch was postponed to July.",
        "The launch has been pushed back to July.", "The launch will now happen in July.",
        "Launch is delayed until July.", "The launch slipped to July.", "We moved the launch to July.",
        "The launch is now in July, not June.", "The launch date moved to July 3.",
    ],
)  # fmt: skip
def test_the_ways_an_email_may_say_the_launch_moved_all_contradict_the_plan(newer: str) -> None:
    reason = contradiction("The product launch is in June.", newer, Kind.DATE)
    assert reason.startswith("Both say when the product launch is, with different months: June and July")


def test_judging_analyses_is_judging_the_statements_and_one_analysis_serves_many_pairs() -> None:
    claim = analyse("The launch moved to July.")
    candidates = [analyse(statement) for _, statement, _ in CLAIMS]
    assert [judge_analysed(candidate, claim) for candidate in candidates] == [
        judge(statement, "The launch moved to July.") for _, statement, _ in CLAIMS
    ]


# -- values ------------------------------------------------------------------------------------------------------------


def values_of(text: str) -> list[Value]:
    return [piece for piece in read_values(text) if isinstance(piece, Value)]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("June 12", "12 June"), ("the 12th of June", "June 12th"), ("2025-10-06", "6 October 2025"),
        ("Tuesday, 7 October", "Tue 7 Oct"), ("14:00", "2pm"), ("Q1 2026", "the first quarter of 2026"),
        ("$40k", "40,000 USD"), ("€40k", "EUR 40,000"), ("1.2m EUR", "1,200,000 EUR"), ("40 000 EUR", "40,000 EUR"),
        ("$18.2k", "$18,200"), ("40 thousand euros", "40,000 EUR"), ("15%", "15 percent"), ("0.8%", "0.80%"),
        ("3 days", "three days"), ("2 weeks", "14 days"), ("90 minutes", "1.5 hours"), ("24 months", "two years"),
        ("14 engineers", "fourteen engineers"), ("250 attendees", "two hundred and fifty attendees"),
        ("31/12/2025", "31 December 2025"),
    ],
)  # fmt: skip
def test_one_value_written_two_ways_compares_equal(a: str, b: str) -> None:
    [first], [second] = values_of(f"It is {a}."), values_of(f"It is {b}.")
    assert first.slot == second.slot
    assert compare(first, second)[0] == Comparison.EQUAL


@pytest.mark.parametrize(
    ("a", "b"),
    [("June", "June 12"), ("Q3", "August"), ("mid-June", "June 12"), ("about 40,000 EUR", "40,000 EUR"),
     ("more than 100 seats", "120 seats"), ("6/12", "12 June"), ("5.000 EUR", "€5,000")],
)  # fmt: skip
def test_a_less_precise_or_ambiguous_value_is_consistent_with_a_precise_one(a: str, b: str) -> None:
    [first], [second] = values_of(f"It is {a}."), values_of(f"It is {b}.")
    assert compare(first, second)[0] == Comparison.COMPATIBLE


def test_relative_words_are_no_values_and_names_of_things_keep_their_numbers() -> None:
    assert values_of("The launch is next week, not next Tuesday.") == []
    assert values_of("Release 2.4 is in Room 4.12.") == []
    assert [value.text for value in values_of("The launch budget was raised from 40,000 EUR to 55,000 EUR.")] == [
        "40,000 EUR",
        "55,000 EUR",
    ]


# -- the labelled pairs ------------------------------------------------------------------------------------------------


def report(name: str, result: Score) -> str:
    kinds = ", ".join(f"{kind} {result.recall(kind):.2f}" for kind in Kind)
    return f"{name}: {result.pairs} pairs, precision {result.precision:.3f}, recall {result.recall():.3f} ({kinds})"


def test_the_labelled_set_is_what_the_issue_asks_for() -> None:
    pairs = load_pairs(LABELLED)
    assert len(pairs) >= 250 and len({pair["id"] for pair in pairs}) == len(pairs)
    positives = [pair for pair in pairs if pair["expected"] == Outcome.CONTRADICTS]
    assert all(sum(pair["kind"] == kind for pair in positives) >= 40 for kind in Kind)
    assert len(pairs) - len(positives) >= len(positives)
    assert {pair["expected"] for pair in pairs} == set(Outcome)


def test_precision_on_the_labelled_pairs_is_at_least_095_and_recall_is_reported_per_kind() -> None:
    result = score(load_pairs(LABELLED))
    print(report("labelled", result))
    assert result.precision >= 0.95, result.false_positives
    # Floors below what it reaches (0.96 overall, each kind 0.94 or more), so that a change that loses a kind shows.
    assert result.recall() >= 0.85
    assert all(result.recall(kind) >= 0.8 for kind in Kind)


def test_precision_on_the_held_out_pairs_is_at_least_095() -> None:
    result = score(load_pairs(HELD_OUT))
    print(report("held-out", result))
    assert result.precision >= 0.95, result.false_positives
    assert result.recall() >= 0.8


def test_the_judgement_does_not_depend_on_the_order_of_the_two_statements() -> None:
    for pair in load_pairs(LABELLED) + load_pairs(HELD_OUT):
        forward, backward = judge(str(pair["a"]), str(pair["b"])), judge(str(pair["b"]), str(pair["a"]))
        assert (forward.outcome, forward.kind) == (backward.outcome, backward.kind), pair
