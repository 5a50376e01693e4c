"""What follows a request to forget, in the same message: the new value of what goes,
however it is told ("It's 9 Elm Road, Leeds.", "the new one is 4321"), is stored in its
place, and a remark on it ("It's old.") is no fact."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.plan_values import value_kind


@pytest.mark.parametrize("said", [
    "Forget my address. It's 9 Elm Road, Leeds.",
    "Forget my address, it's 9 Elm Road, Leeds.",
])
def test_an_address_told_with_its_town_is_the_new_one(said: str) -> None:
    # cut at the comma, the address was no value, and the new one went with the old
    assert core_after("My address is 7 Glass Street.", said) == [
        "User's address is 9 Elm Road, Leeds"]


def test_a_name_after_a_number_alone_is_no_address() -> None:
    assert value_kind("9 Elm Road, Leeds, UK") == "name"
    assert value_kind("4321, Tom") is None
