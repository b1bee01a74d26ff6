"""The truth-maintenance engine by itself: AND/OR justifications, chains, cycles, the independent-source policy."""

from __future__ import annotations

from corrections.propagation import DECISION, DERIVED, EVIDENCE, Action, Node, holding, impact


def claim(cid: str, status: str = "current", version: str = "v1") -> Node:
    return Node(cid, EVIDENCE, status, version_id=version)


def derived(cid: str, *justifications: set[str], status: str = "current") -> Node:
    return Node(cid, DERIVED, status, tuple(frozenset(j) for j in justifications))


def decision(did: str, *justifications: set[str], status: str = "supported") -> Node:
    return Node(did, DECISION, status, tuple(frozenset(j) for j in justifications))


def graph(*nodes: Node) -> dict[str, Node]:
    return {n.id: n for n in nodes}


class PropagationTests:
    def test_three_independent_supports_keep_a_decision_when_one_is_corrected(self) -> None:
        nodes = graph(
            claim("a"), claim("b", version="v2"), claim("c", version="v3"), decision("d", {"a"}, {"b"}, {"c"})
        )
        result = impact(nodes, [Action("x", "pending", frozenset({"d"}))], roots=["a"])
        assert result.decisions_needing_review == [] and result.decisions_still_supported == ["d"]
        assert result.still_supported_by == {"d": ["b"]} and result.actions_held == []

    def test_an_and_justification_is_lost_when_one_member_is(self) -> None:
        nodes = graph(claim("a"), claim("b"), decision("d", {"a", "b"}))
        result = impact(
            nodes, [Action("x", "pending", frozenset({"d"})), Action("y", "done", frozenset({"d"}))], roots=["b"]
        )
        assert result.decisions_needing_review == ["d"] and result.actions_held == ["x"]

    def test_a_chain_of_depth_four(self) -> None:
        nodes = graph(claim("a"), derived("p", {"a"}), derived("q", {"p"}), decision("r", {"q"}), decision("s", {"r"}))
        result = impact(nodes, [], roots=["a"])
        assert result.claims_unsupported == ["p", "q"] and result.decisions_needing_review == ["r", "s"]

    def test_a_cycle_does_not_hold_itself_up(self) -> None:
        nodes = graph(claim("c"), decision("a", {"c"}, {"b"}), decision("b", {"a"}))
        assert holding(nodes) == {"c", "a", "b"}
        result = impact(nodes, [], roots=["c"])
        assert result.decisions_needing_review == ["a", "b"]

    def test_a_cycle_with_outside_support_still_holds(self) -> None:
        nodes = graph(claim("c"), claim("e"), decision("a", {"c"}, {"b"}), decision("b", {"a"}, {"e"}))
        result = impact(nodes, [], roots=["c"])
        assert result.decisions_needing_review == [] and result.decisions_still_supported == ["a", "b"]

    def test_decisions_on_decisions(self) -> None:
        nodes = graph(
            claim("a"), claim("b"), decision("base", {"a"}), decision("top", {"base", "b"}), decision("other", {"b"})
        )
        result = impact(nodes, [], roots=["a"])
        assert result.decisions_needing_review == ["base", "top"] and "other" in result.decisions_still_supported

    def test_an_antecedent_outside_the_subgraph_holds_by_its_status(self) -> None:
        outside_ok = Node("o", DECISION, "supported", expanded=False)
        outside_flagged = Node("f", DECISION, "needs_review", expanded=False)
        nodes = graph(claim("a"), outside_ok, outside_flagged, decision("d", {"a"}, {"o"}), decision("e", {"a"}, {"f"}))
        result = impact(nodes, [], roots=["a"])
        assert result.decisions_needing_review == ["e"] and result.decisions_still_supported == ["d"]

    def test_the_independent_source_policy_both_ways(self) -> None:
        nodes = graph(claim("a", version="v1"), claim("same", version="v1"), claim("other", version="v2"),
                      decision("d", {"a"}, {"same"}), decision("e", {"a"}, {"other"}))  # fmt: skip
        off = impact(nodes, [], roots=["a"])
        assert off.decisions_needing_review == [] and off.decisions_still_supported == ["d", "e"]
        on = impact(nodes, [], roots=["a"], independent_sources=True)
        assert on.decisions_needing_review == ["d"] and on.decisions_still_supported == ["e"]

    def test_a_node_already_not_holding_is_not_reported_again(self) -> None:
        nodes = graph(
            claim("a"),
            claim("old", status="superseded"),
            decision("d", {"old"}, status="needs_review"),
            decision("e", {"a"}),
        )
        result = impact(nodes, [], roots=["a"])
        assert result.decisions_needing_review == ["e"]

    def test_the_policy_only_judges_alternatives_to_the_corrected_claim(self) -> None:
        nodes = graph(claim("c", version="v1"), claim("indep", version="v2"), claim("same", version="v1"),
                      decision("mid", {"c"}, {"indep"}), decision("top", {"mid", "same"}))  # fmt: skip
        result = impact(nodes, [], roots=["c"], independent_sources=True)
        assert result.decisions_needing_review == [] and result.decisions_still_supported == ["mid", "top"]

    def test_still_supported_by_names_a_justification_the_policy_counts(self) -> None:
        nodes = graph(claim("c", version="v1"), claim("same", version="v1"), claim("other", version="v2"),
                      decision("d", {"c"}, {"same"}, {"other"}))  # fmt: skip
        assert impact(nodes, [], roots=["c"], independent_sources=True).still_supported_by == {"d": ["other"]}
        assert impact(nodes, [], roots=["c"]).still_supported_by == {"d": ["same"]}
