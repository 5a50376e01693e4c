"""A greeting that names the one greeted ("Hi Tom, I'm Ana.") still opens an
introduction: the speaker's name is Ana. Read as no greeting, the message was stored
as a quote, "User: Hi Tom, I'm Ana", and the speaker's name was not known."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize("said", ["Hi Tom, I'm Ana.", "Hello Tom, I'm Ana.",
                                  "Hi Tom. I'm Ana.", "Hi Tom, I am Ana."])
def test_the_speaker_named_after_a_greeting_by_name(said: str) -> None:
    assert core_after(said) == ["User's name is Ana"]
