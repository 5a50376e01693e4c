"""A value told of "my new X" replaces the X held whatever it looks like: the thing itself is
new, so its value is no state of the old one ("My new password is swordfish" after "My
password is hunter2" kept both, as if "swordfish" said how hunter2 was)."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("held", "said", "kept"), [
    # a secret, one at a time, is stored as the secret itself
    ("My password is hunter2.", "My new password is swordfish.", "User's password is swordfish"),
    ("My Wi-Fi password is hunter2.", "My new Wi-Fi password is swordfish.",
     "User's Wi-Fi password is swordfish"),
    ("My API key is sk-123.", "My new API key is rotated.", "User's API key is rotated"),
    ("My phone is an iPhone.", "My new phone is a Pixel.", "User's new phone is a Pixel"),
    # held one at a time
    ("My boss is Ana.", "My new boss is Tom.", "User's new boss is Tom"),
    ("My best friend is Ana.", "My new best friend is Tom.", "User's new best friend is Tom"),
    ("My job is at Acme.", "My new job is at Globex.", "User's new job is at Globex"),
])
def test_the_new_one_replaces_the_one_held(held: str, said: str, kept: str) -> None:
    assert core_after(held, said) == [kept]


@pytest.mark.parametrize(("held", "said"), [
    # without "new", a state beside a name still says how the thing is
    ("The primary database is db-01.", "The primary database is down now."),
    ("My boss is Ana.", "My new boss is strict."),
    # "my new" of what is no secret: how the new one is leaves what the one held is
    ("My car is a Golf.", "My new car is red."),
    ("My car is a Golf.", "My new car is in the garage."),
    ("My laptop is a ThinkPad.", "My new laptop is fast."),
    ("My client is Acme.", "My new client is difficult."),
    ("My server is db-01.", "My new server is down."),
    ("My job is at Acme.", "My new job is hard."),
    ("My phone is an iPhone.", "My new phone is great."),
    # one may have several of these: the new one is one more, and the one held was
    # retired as if replaced
    ("My friend is Ana.", "My new friend is Tom."),
    ("My coworker is Ana.", "My new coworker is Tom."),
    ("My roommate is Ana.", "My new roommate is Tom."),
    ("My dog is Rex.", "My new dog is Max."),
    ("My hobby is chess.", "My new hobby is painting."),
    ("My client is Acme.", "My new client is Globex."),
    ("My project is Apollo.", "My new project is Zeus."),
])
def test_a_state_still_leaves_the_name(held: str, said: str) -> None:
    assert len(core_after(held, said)) == 2



@pytest.mark.parametrize(("held", "said", "kept"), [
    # read as a new value, "the same as the old one" ended "hunter2", and it was lost
    ("My password is hunter2.", "My new password is the same as the old one.",
     "User's password is hunter2"),
    ("My PIN is 1234.", "My new PIN is the same.", "User's PIN is 1234"),
    ("My password is hunter2.", "My new password is unchanged.", "User's password is hunter2"),
])
def test_a_new_one_said_to_be_the_old_one_keeps_it(held: str, said: str, kept: str) -> None:
    assert kept in core_after(held, said)
