"""A bare denial of one named that opens the next message ("Tom smokes." then "Ana
doesn't.") stored nothing, where said in one message it is told in full ("Ana doesn't
smoke"). It is told in full after the last message's statement too; one that cannot be
told so (of a pronoun, or a person after a thing's doing) still stores nothing."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "kept"), [
    (["Tom smokes.", "Ana doesn't."], ["Ana doesn't smoke", "Tom smokes"]),
    (["Tom works at Acme.", "Ana doesn't."], ["Ana doesn't work at Acme", "Tom works at Acme"]),
    (["Tom is vegan.", "Ana isn't."], ["Ana isn't vegan", "Tom is vegan"]),
    (["Tom smokes.", "My wife doesn't."], ["Tom smokes", "User's wife doesn't smoke"]),
    (["Tom smokes.", "Ana doesn't.", "Forget that."], ["Tom smokes"]),
])
def test_a_bare_denial_after_the_last_message_is_told_in_full(said: list[str],
                                                              kept: list[str]) -> None:
    assert core_after(*said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    (["Tom smokes.", "She doesn't."], ["Tom smokes"]),
    (["It works.", "Ana doesn't."], ["It works"]),
    (["Tom's car is red.", "Ana isn't."], ["Tom's car is red"]),
])
def test_what_cannot_be_told_stays_unstored(said: list[str], kept: list[str]) -> None:
    assert core_after(*said) == kept
