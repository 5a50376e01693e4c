"""A tie to one person shared by someone else is shared in kind only: "I'm married to
Anna, my son is too." says the son is married, and was stored as "User's son is married
to Anna", a marriage no one said."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "after"), [
    ("I'm married to Anna, my son is too.", ["User is married to Anna", "User's son is married"]),
    ("I'm married to Anna. So is my son.", ["User is married to Anna", "User's son is married"]),
    ("I'm engaged to Tom, my sister is too.",
     ["User is engaged to Tom", "User's sister is engaged"]),
    # a state that is no tie is shared whole
    ("I'm allergic to nuts, my son is too.",
     ["User is allergic to nuts", "User's son is allergic to nuts"]),
])
def test_the_one_married_to_is_not_shared(said: str, after: list[str]) -> None:
    assert core_after(said) == after
