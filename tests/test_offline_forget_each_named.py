"""A request naming several things to forget ("Forget my locker code and my gym.") retires
each of them: read whole, the locker code's words outweighed the gym's, and the gym stayed
in core."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.statements import each_named_apart


@pytest.mark.parametrize(("said", "forget", "now"), [
    ("My locker code is 4411. I go to the gym on Mondays.",
     "Forget my locker code and my gym.", []),
    ("My locker code is 4411. My dentist is Dr. Lee. I live in Porto.",
     "Please forget my dentist, and my locker code!", ["User lives in Porto"]),
    ("My locker code is 4411. My dentist is Dr. Lee. I go to the gym on Mondays.",
     "Delete my gym, my dentist and my locker code.", []),
    # Two owners of one thing: the addresses go, the mum's name stays.
    ("My mum's name is Ann. My mum's address is 1 Elm St. My dad's address is 2 Oak St.",
     "Forget my mum's and my dad's address.", ["User's mum's name is Ann"]),
    # The thing named before an owner alone, or after it with another thing between.
    ("My mum's name is Ann. My mum's address is 1 Elm St. My dad's address is 2 Oak St.",
     "Forget my dad's address and my mum's.", ["User's mum's name is Ann"]),
    ("My dog's name is Rex. My dog's vet is Dr. Lee. My cat's vet is Dr. Kim. "
     "I go to the gym on Mondays.", "Forget my dog's and my cat's vet, and my gym.",
     ["User's dog's name is Rex"]),
])
def test_each_thing_named_is_retired(said: str, forget: str, now: list[str]) -> None:
    assert core_after(said, forget) == now


@pytest.mark.parametrize(("sentence", "apart"), [
    ("Forget my locker code and my gym.", ["Forget my locker code.", "Forget my gym."]),
    ("Please forget about my gym, my dentist and the locker code!",
     ["Please forget about my gym.", "Please forget about my dentist.",
      "Please forget about the locker code."]),
    ("Forget my mum's and my dad's address.",
     ["Forget my mum's address.", "Forget my dad's address."]),
    ("Forget my parents', my sister's and the dog's vet.",
     ["Forget my parents' vet.", "Forget my sister's vet.", "Forget the dog's vet."]),
    ("Forget my gym and my dad's address.", ["Forget my gym.", "Forget my dad's address."]),
    ("Forget my mum's address and my dad's.",
     ["Forget my mum's address.", "Forget my dad's address."]),
    ("Forget my dog's and my cat's vet, and my gym.",
     ["Forget my dog's vet.", "Forget my cat's vet.", "Forget my gym."]),
    # No list without its "and": the second is the first said again.
    ("Forget my address, the one in Berlin.", ["Forget my address, the one in Berlin."]),
    # No request to forget, or one thing named.
    ("I like my tea and my coffee.", ["I like my tea and my coffee."]),
    ("Forget my sister and her husband.", ["Forget my sister and her husband."]),
])
def test_a_request_is_split_only_at_a_list_of_things_named(sentence: str,
                                                            apart: list[str]) -> None:
    assert each_named_apart([sentence]) == apart
