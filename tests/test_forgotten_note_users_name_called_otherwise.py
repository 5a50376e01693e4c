"""Others' name for the user said in other words: "Tom is what everyone calls me.",
"People keep calling me Tom." or "Everybody's calling me Tom." says a forgotten "User is
Tom" as "Everyone calls me Tom." does; read as no name of the user's, a kept message
repeating it went without the note. Calling them so stopped, denied, only wished or of
someone else still says none."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize("text", [
    "Tom is what everyone calls me.", "Tom's what my friends call me.",
    "Tom is what people keep calling me.", "People keep calling me Tom.",
    "Everybody's calling me Tom.", "Everyone is calling me Tom.",
    "My friends have been calling me Tom.",
])
@pytest.mark.parametrize("fact", ["User is Tom", "User is named Tom", "User is called Tom"])
def test_a_name_others_call_the_user_otherwise_worded_says_it(text: str, fact: str) -> None:
    assert says(text, fact)


@pytest.mark.parametrize("text", [
    "Tom is what nobody calls me.", "Tom is what I call my dog.",
    "Tom is what everyone calls my son.", "Tom is what barely anyone calls me.",
    "People stopped calling me Tom.", "Stop calling me Tom.", "Quit calling me Tom.",
    "Nobody's calling me Tom.", "Don't keep calling me Tom.", "I keep calling him Tom.",
    "I wish people kept calling me Tom.", "Everyone keeps calling me Tom's dad.",
    "People aren't calling me Tom.",
])
@pytest.mark.parametrize("fact", ["User is Tom", "User is called Tom"])
def test_a_name_not_so_given_says_none(text: str, fact: str) -> None:
    assert not says(text, fact)
