"""A property test that writes down what it drew, for tests/test_property_examples.py.

Its name keeps it out of the suite: that test runs it alone, in a process of its own,
with ``DRAWN_EXAMPLES`` naming the file to append each drawn value to.
"""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=100)
@given(st.integers(-10**6, 10**6), st.text(max_size=8))
def test_draws(number: int, text: str) -> None:
    with open(os.environ["DRAWN_EXAMPLES"], "a", encoding="utf-8") as drawn:
        drawn.write(f"{number!r} {text!r}\n")
