"""The named vocabulary: templates name statuses and kinds through the enums, and every name they use exists."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

from afterhack.text import LIMITS
from agents.selectors.runs import EVENT_TEMPLATES
from agents.statuses import TrajectoryEventKind
from config.context_processors import VOCABULARY, vocabulary

TEMPLATES = Path(settings.BASE_DIR) / "templates"
ENUMS = {enum.__name__: enum for enum in VOCABULARY}
# `ClaimStatus.CURRENT`: an enum of the vocabulary and one of its members, as a template writes it.
REFERENCE = re.compile(r"\b(" + "|".join(ENUMS) + r")\.(\w+)")
# `claim.status == "current"`: a status or kind compared with a bare string.
# `limits.MAX_TITLE_CHARS`: a text limit, and `maxlength="300"`: a limit written out again.
LIMIT = re.compile(r"\blimits\.(\w+)")
NUMBER_LIMIT = re.compile(r'maxlength="\d')
BARE = re.compile(r"\.(status|kind|confidence_kind|agent) ?[!=]= ?[\"']")


def template_texts() -> dict[str, str]:
    return {str(path.relative_to(TEMPLATES)): path.read_text() for path in TEMPLATES.rglob("*.html")}


class VocabularyTests:
    def test_every_enum_member_a_template_names_exists(self) -> None:
        unknown = [
            f"{name}: {match.group(0)}"
            for name, text in template_texts().items()
            for match in REFERENCE.finditer(text)
            if match.group(2) not in ENUMS[match.group(1)].__members__
        ]
        assert unknown == []

    def test_templates_compare_statuses_and_kinds_by_name(self) -> None:
        bare = [f"{name}: {line.strip()[:80]}" for name, text in template_texts().items()
                for line in text.splitlines() if BARE.search(line)]  # fmt: skip
        assert bare == []

    def test_the_checker_notices_a_misspelt_member_and_a_bare_string(self) -> None:
        misspelt = REFERENCE.search("{% if claim.status == ClaimStatus.CURENT %}")
        assert misspelt is not None and misspelt.group(2) not in ENUMS["ClaimStatus"].__members__
        assert BARE.search('{% if claim.status == "current" %}')

    def test_templates_see_each_enum_by_its_name(self) -> None:
        context = vocabulary(None)
        assert context["ClaimStatus"]["CURRENT"] == "current"
        assert context["TrajectoryEventKind"]["ACTIONS_WITHHELD"] == "actions_withheld"

    def test_every_trajectory_event_kind_has_its_template(self) -> None:
        assert set(EVENT_TEMPLATES) == set(TrajectoryEventKind)
        assert all((TEMPLATES / name).is_file() for name in EVENT_TEMPLATES.values())

    def test_every_text_limit_a_template_names_exists_and_none_is_written_out(self) -> None:
        texts = template_texts()
        named = {match.group(1) for text in texts.values() for match in LIMIT.finditer(text)}
        assert named and named <= set(LIMITS)
        assert [name for name, text in texts.items() if NUMBER_LIMIT.search(text)] == []
        assert vocabulary(None)["limits"]["MAX_TITLE_CHARS"] == 300
