"""A request to remove a thing of the user's from another place, with a name set apart by
commas ("Remove my cat, Tom, from the CRM"): a task on that place, which forgets nothing
held unless memory is named beside it."""

from __future__ import annotations

from offline_helpers import core_after


def test_a_name_set_apart_keeps_the_task_and_forgets_nothing() -> None:
    # read at its commas, no place was seen: the cat was forgotten and no task kept
    assert core_after("My cat is Tom.", "My address is 5 Oak St.",
                      "Remove my cat, Tom, from the CRM.") == [
        "Remove User's cat Tom from the CRM", "User's address is 5 Oak St.", "User's cat is Tom"]
    assert core_after("My sister is Ana.", "Delete my sister, Ana, from the contact list.") == [
        "Delete User's sister Ana from the contact list", "User's sister is Ana"]


def test_a_remark_set_apart_is_left_out_of_the_task() -> None:
    # kept in it: "Remove User's car sadly from the insurance", or the message as said
    for said in ("Remove my car, sadly, from the insurance.",
                 "Remove my car, which I sold, from the insurance.",
                 "Remove my car, now sold, from the insurance."):
        assert core_after("My car is a Golf.", said) == [
            "Remove User's car from the insurance", "User's car is a Golf"]
    # a name that ends as a remark may is kept as a name
    assert core_after("My car is a Golf.", "Remove my car, Holly, from the insurance.") == [
        "Remove User's car Holly from the insurance", "User's car is a Golf"]


def test_a_remark_set_apart_before_memory_is_left_out_of_what_goes() -> None:
    # read with it, "cat sadly" matched no cat held, and the cat was kept
    for said in ("Remove my cat, sadly, from memory.", "Remove my cat, who died, from memory.",
                 "Delete my cat, please, from your notes."):
        assert core_after("My cat is Tom.", said) == []


def test_a_name_set_apart_goes_from_memory_named_beside_the_place() -> None:
    # stored as "Remove Tom" and "Remove User's from the CRM"
    assert core_after("My cat is Tom.", "Remove my cat, Tom, from the CRM and memory.") == [
        "Remove User's cat Tom from the CRM"]


def test_a_street_named_of_the_address_is_left_out_of_the_task() -> None:
    # kept as "Remove User's address on Oak St. from the CRM"
    for said, task in [
            ("Please remove my address on Oak St. from the CRM.",
             "Remove User's address from the CRM"),
            ("Remove my work address on Oak Street from the CRM.",
             "Remove User's work address from the CRM")]:
        assert core_after("My address is 5 Oak St.", said) == [
            task, "User's address is 5 Oak St."]
    assert core_after("My address is 5 Oak St.", "Remove my address on file from the CRM.") == [
        "Remove User's address on file from the CRM", "User's address is 5 Oak St."]
