""""Forget that." said again in one message, after the first took back what was just told
(or after "I don't anymore" did), has nothing left to take back: it forgets nothing,
where it raised KeyError for the fact no longer held."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("messages", "kept"), [
    (("I like tea. Forget that. Forget that.",), []),
    (("I like tea. Scratch that. Scratch that.",), []),
    (("I like tea. Forget that. Scratch that.",), []),
    (("I like tea. I don't anymore. Forget that.",), []),
    (("I like tea and coffee. Forget it. Forget it.",), []),
    (("I work at Acme now. Forget that. Forget that.",), []),
    (("I like tea. I live in Lisbon. Forget that. Forget that.",), ["User likes tea"]),
    (("I live in Lisbon.", "I like tea. Forget that. Forget that."), ["User lives in Lisbon"]),
    # what the first put back is none the user told: the second keeps it
    (("I live in Lisbon.", "I moved to Porto. Forget that. Forget that."),
     ["User lives in Lisbon"]),
    (("I like tea. Forget that. I like coffee. Forget that.",), []),
])
def test_a_second_forget_that_forgets_nothing_more(messages: tuple[str, ...],
                                                   kept: list[str]) -> None:
    assert core_after(*messages) == kept
