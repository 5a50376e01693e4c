"""A request naming what was told as a fact ("Delete the fact that I live in Porto") asks to
forget it, as "Forget that I live in Porto" does."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

#: "delete" named nothing of the user's: Porto was kept and the request stored as a fact.
ASKED = ("Delete the fact that I live in Porto.", "Remove the fact that I live in Porto.",
         "Please erase the part that I live in Porto.",
         "Can you delete the fact that I live in Porto?")


@pytest.mark.parametrize("said", ASKED)
def test_the_fact_named_is_forgotten(said: str) -> None:
    assert core_after("I live in Porto.", said) == []


def test_a_fact_not_held_forgets_nothing_and_is_no_fact() -> None:
    assert core_after("I live in Porto.", "Delete the fact that I live in Lisbon.") == [
        "User lives in Porto"]


@pytest.mark.parametrize("said", ["I can't delete the fact that I live in Porto.",
                                  "Delete the fact sheet."])
def test_no_request_is_read_into_a_statement(said: str) -> None:
    assert "User lives in Porto" in core_after("I live in Porto.", said)


@pytest.mark.parametrize("said", ["Remove the fact that I live in Porto from the report.",
                                  "Delete the fact that I live in Porto from my CV.",
                                  "Please remove the part that I live in Porto from the form."])
def test_the_fact_deleted_from_another_place_is_kept(said: str) -> None:
    # read as "Forget that I live in Porto from the report", Porto was forgotten
    assert "User lives in Porto" in core_after("I live in Porto.", said)


def test_the_fact_deleted_from_another_place_is_a_task_on_it() -> None:
    assert len(core_after("I live in Porto.",
                          "Remove the fact that I live in Porto from the report.")) == 2


def test_the_fact_deleted_from_memory_is_forgotten() -> None:
    assert core_after("I live in Porto.", "Delete the fact that I live in Porto from memory.") == []


@pytest.mark.parametrize(("held", "said"), [
    ("I moved from Lisbon.", "Delete the fact that I moved from Lisbon."),
    ("I came from Brazil.", "Remove the fact that I came from Brazil."),
    ("I got back from Paris.", "Erase the fact that I got back from Paris."),
    ("I'm from the Netherlands.", "Delete the fact that I'm from the Netherlands."),
])
def test_a_from_in_the_fact_names_no_other_place(held: str, said: str) -> None:
    # read as a place the fact is deleted from, the request was stored and the fact kept
    assert core_after(held, said) == []


def test_another_place_after_a_from_in_the_fact_is_a_task_on_it() -> None:
    assert "User moved from Lisbon" in core_after(
        "I moved from Lisbon.", "Delete the fact that I moved from Lisbon from my CV.")
