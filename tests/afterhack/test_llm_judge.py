"""The model's judgement of pairs of statements (afterhack/llm.py `judge_pairs`; docs/model.md, Contradiction
judgement), against the scripted local model: what is sent, what is taken back, and every hostile answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from afterhack.llm import JUDGE_SYSTEM, NO_QUOTE, Judged, LLMError, Stated, Usage, Verdict, judge_pairs
from benchmarks.llm_server import call_kind, json_reply

PAIRS = [
    (
        Stated("The launch is planned for June 12.", "We plan the launch for June 12."),
        Stated("The launch moved to July.", "Quick update: the launch moved to July."),
    ),
    (Stated("The venue is Hall B.", "Venue: Hall B"), Stated("Catering is booked for 120 guests.", None)),
    (Stated("The budget is 40,000 EUR.", "budget 40,000 EUR"), Stated("The budget is EUR 40k.", "EUR 40k")),
]


def test_each_pair_is_sent_numbered_with_its_quotes_and_its_judgement_taken_back_by_its_number(llm: Any) -> None:
    llm.script(
        json_reply(
            {
                "judgements": [
                    {"pair": 3, "verdict": "agrees", "reason": "Both say 40,000 euros."},
                    {"pair": 1, "verdict": "contradicts", "reason": "June and July cannot both be the launch month."},
                    {"pair": 2, "verdict": "unrelated", "reason": "A venue and catering."},
                ]
            },
            fenced=True,
        )
    )
    judged, usage = judge_pairs(PAIRS)
    assert judged == {
        0: Judged(Verdict.CONTRADICTS, "June and July cannot both be the launch month."),
        1: Judged(Verdict.UNRELATED, "A venue and catering."),
        2: Judged(Verdict.AGREES, "Both say 40,000 euros."),
    }
    assert usage.prompt_tokens == 11
    (request,) = llm.requests
    system, user = request["messages"]
    assert system["role"] == "system" and "CONTRADICTION" in system["content"] and call_kind(request) == "CONTRADICTION"
    assert '{"judgements": [{"pair"' in system["content"] and "verdicts" not in system["content"]
    assert "tools" not in request and request["temperature"] == 0
    assert user["content"].split("\n\n") == [
        "Pair 1\nOLDER: <<<The launch is planned for June 12.>>>\nOLDER QUOTE: <<<We plan the launch for June 12.>>>\n"
        "NEWER: <<<The launch moved to July.>>>\nNEWER QUOTE: <<<Quick update: the launch moved to July.>>>",
        f"Pair 2\nOLDER: <<<The venue is Hall B.>>>\nOLDER QUOTE: <<<Venue: Hall B>>>\n"
        f"NEWER: <<<Catering is booked for 120 guests.>>>\nNEWER QUOTE: {NO_QUOTE}",
        "Pair 3\nOLDER: <<<The budget is 40,000 EUR.>>>\nOLDER QUOTE: <<<budget 40,000 EUR>>>\n"
        "NEWER: <<<The budget is EUR 40k.>>>\nNEWER QUOTE: <<<EUR 40k>>>",
    ]


def test_a_long_statement_and_quote_are_each_cut_to_a_thousand_characters(llm: Any) -> None:
    llm.script(json_reply({"judgements": []}))
    judge_pairs([(Stated("S" * 1_500, "Q" * 1_500), Stated("The launch moved to July.", ""))])
    user = llm.requests[0]["messages"][1]["content"]
    assert f"OLDER: <<<{'S' * 1_000}>>>\nOLDER QUOTE: <<<{'Q' * 1_000}>>>\n" in user
    assert user.endswith(f"NEWER QUOTE: {NO_QUOTE}")


def test_judgements_for_pairs_it_was_not_asked_about_or_in_other_words_are_left_out(llm: Any) -> None:
    llm.script(
        json_reply(
            {
                "judgements": [
                    {"pair": 0, "verdict": "contradicts", "reason": "There is no pair 0."},
                    {"pair": 4, "verdict": "contradicts", "reason": "Nor a pair 4."},
                    {"pair": "1", "verdict": "contradicts", "reason": "A number as text."},
                    {"pair": True, "verdict": "contradicts", "reason": "A boolean is no number."},
                    {"pair": 2, "verdict": "probably", "reason": "Not a verdict."},
                    {"pair": 3, "verdict": " Agrees ", "reason": ["not", "text"]},
                    {"pair": 3, "verdict": "contradicts", "reason": "A second judgement of pair 3 is ignored."},
                    "not an object",
                    ["nor", "this"],
                ]
            }
        )
    )
    judged, _ = judge_pairs(PAIRS)
    assert judged == {2: Judged(Verdict.AGREES, "")}


def test_a_reason_is_made_storable_and_short(llm: Any) -> None:
    reason = "Different\x00 months:\nJune\tand July. " + "x" * 400
    llm.script(json_reply({"judgements": [{"pair": 1, "verdict": "contradicts", "reason": reason}]}))
    judged, _ = judge_pairs(PAIRS[:1])
    assert judged[0].reason.startswith("Different months: June and July. xxx")
    assert len(judged[0].reason) == 300 and "\x00" not in judged[0].reason


NO_JUDGEMENTS = "had no “judgements” list of judgements"


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ({"content": "They contradict, I think."}, "did not answer with the JSON object asked for"),
        ({"content": '{"judgements": [{"pair": 1,'}, "did not answer with the JSON object asked for"),
        (json_reply([{"pair": 1, "verdict": "contradicts"}]), "did not answer with the JSON object asked for"),
        (json_reply({"judgements": "contradicts"}), NO_JUDGEMENTS),
        (json_reply({"judgements": None}), NO_JUDGEMENTS),
        # Another shape, even one saying "contradicts", is a failed call, never an answer judging nothing.
        (json_reply({"verdicts": [{"pair": 1, "verdict": "contradicts", "reason": "Old shape."}]}), NO_JUDGEMENTS),
        (json_reply({"claims": []}), NO_JUDGEMENTS),
        (json_reply({}), NO_JUDGEMENTS),
        ({"delay": 3, "content": '{"judgements": []}'}, "did not answer within"),
    ],
    ids=[
        "prose",
        "broken-json",
        "a-list",
        "not-a-list",
        "null",
        "verdicts-shape",
        "extraction-shape",
        "empty-object",
        "timeout",
    ],
)
def test_a_broken_answer_or_a_timeout_is_an_error_in_words(llm: Any, reply: dict[str, Any], words: str) -> None:
    llm.script(reply)
    with pytest.raises(LLMError, match=words):
        judge_pairs(PAIRS)


def test_no_pairs_make_no_call_and_too_many_are_refused(llm: Any) -> None:
    assert judge_pairs([]) == ({}, Usage())
    assert llm.requests == []
    with pytest.raises(ValueError, match="at most 10 pairs"):
        judge_pairs(PAIRS * 4)


def test_an_empty_list_of_judgements_judges_nothing_and_is_what_the_unscripted_model_answers(llm: Any) -> None:
    judged, usage = judge_pairs(PAIRS)
    assert judged == {} and usage.prompt_tokens == 11 and call_kind(llm.requests[0]) == "CONTRADICTION"
    assert llm.requests[0]["messages"][0]["content"].startswith("You judge CONTRADICTION between pairs of statements")


def test_the_docs_show_the_system_message_exactly_as_sent() -> None:
    model_md = (Path(__file__).resolve().parents[2] / "docs" / "model.md").read_text()
    assert f"```text\n{JUDGE_SYSTEM}\n```" in model_md
