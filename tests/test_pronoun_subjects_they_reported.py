""""They" reporting what was said, after a statement that says who they are: "I work with
Tom and Ana. They said the deploy failed." stored "They said the deploy failed", of no
one, so who said it had no answer, while "Tom works at Globex. He said ..." names Tom.
The report is said of the several right before; with no one, or several groups it may
be, it is kept as said, as what was said names its own subject."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    (["I work with Tom and Ana."], "Tom and Ana said the deploy failed."),
    (["I have two kids."], "My kids said the deploy failed."),
    (["The servers are down.", "Tom and Ana are on it."], "They said the deploy failed."),
    ([], "They said the deploy failed."),
])
def test_a_report_names_the_several_said_right_before(said: list[str], told: str) -> None:
    assert with_pronouns_named([*said, "They said the deploy failed."], None) == [
        *said, told]


def test_core_holds_who_said_it() -> None:
    held = core_after("I work with Tom and Ana. They said the deploy failed.")
    assert ("Tom and Ana said the deploy failed" in held,
            "They said the deploy failed" in held) == (True, False)
