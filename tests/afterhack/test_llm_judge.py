"""The model's judgement of pairs of statements (afterhack/llm.py `judge_pairs`; docs/model.md, Contradiction
judgement), against the scripted local model: what is sent, what is taken back, and every hostile answer."""

from __future__ import annotations

from typing import Any

import pytest

from afterhack.llm import Judged, LLMError, Usage, Verdict, judge_pairs
from benchmarks.llm_server import json_reply

PAIRS = [
    ("The launch is planned for June 12.", "The launch moved to July."),
    ("The venue is Hall B.", "Catering is booked for 120 guests."),
    ("The budget is 40,000 EUR.", "The budget is EUR 40k."),
]


def test_each_pair_is_sent_numbered_and_its_verdict_taken_back_by_its_number(llm: Any) -> None:
    llm.script(
        json_reply(
            {
                "verdicts": [
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
    assert system["role"] == "system" and system["content"].startswith("You JUDGE pairs of statements")
    assert "tools" not in request and request["temperature"] == 0
    assert user["content"].split("\n\n") == [
        "Pair 1\nOLDER: <<<The launch is planned for June 12.>>>\nNEWER: <<<The launch moved to July.>>>",
        "Pair 2\nOLDER: <<<The venue is Hall B.>>>\nNEWER: <<<Catering is booked for 120 guests.>>>",
        "Pair 3\nOLDER: <<<The budget is 40,000 EUR.>>>\nNEWER: <<<The budget is EUR 40k.>>>",
    ]


def test_verdicts_for_pairs_it_was_not_asked_about_or_in_other_words_are_left_out(llm: Any) -> None:
    llm.script(
        json_reply(
            {
                "verdicts": [
                    {"pair": 0, "verdict": "contradicts", "reason": "There is no pair 0."},
                    {"pair": 4, "verdict": "contradicts", "reason": "Nor a pair 4."},
                    {"pair": "1", "verdict": "contradicts", "reason": "A number as text."},
                    {"pair": True, "verdict": "contradicts", "reason": "A boolean is no number."},
                    {"pair": 2, "verdict": "probably", "reason": "Not a verdict."},
                    {"pair": 3, "verdict": " Agrees ", "reason": ["not", "text"]},
                    {"pair": 3, "verdict": "contradicts", "reason": "A second verdict for pair 3 is ignored."},
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
    llm.script(json_reply({"verdicts": [{"pair": 1, "verdict": "contradicts", "reason": reason}]}))
    judged, _ = judge_pairs(PAIRS[:1])
    assert judged[0].reason.startswith("Different months: June and July. xxx")
    assert len(judged[0].reason) == 300 and "\x00" not in judged[0].reason


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ({"content": "They contradict, I think."}, "did not answer with the JSON object asked for"),
        ({"content": '{"verdicts": [{"pair": 1,'}, "did not answer with the JSON object asked for"),
        (json_reply([{"pair": 1, "verdict": "contradicts"}]), "did not answer with the JSON object asked for"),
        (json_reply({"verdicts": "contradicts"}), "“verdicts” was not a list of verdicts"),
        ({"delay": 3, "content": '{"verdicts": []}'}, "did not answer within"),
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
