"""The offline policy on a request to forget asked as a question ("Can you forget my
password?"): it is still a request, and what it names goes, where "Did you forget my
password?" asks about memory and changes nothing."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.asked_requests import as_request
from tiermem.memory.text.forget_openings import places_apart


@pytest.mark.parametrize(("told", "asked"), [
    ("My password is hunter2.", "Can you forget my password?"),
    ("My password is hunter2.", "Could you please forget my password?"),
    ("My address is 12 Oak St.", "Would you forget my address?"),
    ("My phone number is 555-0101.", "Can you delete my phone number?"),
    ("My password is hunter2.", "Can you forget that, please?"),
    ("My birthday is May 3.", "Will you please forget my birthday?"),
    # with no memory named, of a thing held of the speaker: read as a statement, the
    # password was stored a second time
    ("My password is hunter2.", "Drop my password."),
    ("My PIN is 1234.", "Wipe my PIN, please."),
    ("My phone number is 555-0101.", "Clear my phone number."),
    ("My address is 12 Oak St.", "Drop my address, it's old."),
    # a remark on what goes sent it down the question path, which quoted it back
    ("My password is hunter2.", "Can you drop my password from memory, it's old?"),
])
def test_a_request_asked_forgets_what_it_names(told: str, asked: str) -> None:
    assert core_after(told, asked) == []


@pytest.mark.parametrize("asked", ["Did you forget my password?",
                                   "Do you remember my password?",
                                   "Can you remember my password?",
                                   "Can you tell me my password?",
                                   # a worry that it will, not a request that it should
                                   "Will you forget my password?"])
def test_a_question_about_memory_changes_nothing(asked: str) -> None:
    assert core_after("My password is hunter2.", asked) == ["User's password is hunter2"]
    assert as_request(asked) == asked


def test_the_reply_does_not_quote_back_what_goes() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My password is hunter2.", "Can you forget my password?")[-1]
        assert not core_of(memory)
    assert "From core memory" not in reply


@pytest.mark.parametrize("request_", ["Remove my password.",
                                      "Drop my password from memory.",
                                      "Wipe my password from your notes, please.",
                                      "Can you drop my password from memory?"])
def test_other_verbs_forget_as_delete_does(request_: str) -> None:
    assert core_after("My password is hunter2.", request_) == []


@pytest.mark.parametrize("step", ["Remove the cache before deploying.",
                                  "Drop my kids at school.", "Wipe my laptop.",
                                  "Remove my password from the shared doc.",
                                  "Drop the table.", "Clear my desk.",
                                  "Drop my password at the front desk."])
def test_a_step_told_with_those_verbs_forgets_nothing(step: str) -> None:
    assert "User's password is hunter2" in core_after("My password is hunter2.", step)


@pytest.mark.parametrize("step", ["Clear my email, it's full.", "Purge my email."])
def test_clearing_an_inbox_forgets_no_email_address(step: str) -> None:
    # read as "my email" the address, the address held went
    assert "User's email is a@b.com" in core_after("My email is a@b.com.", step)


def test_a_dot_inside_an_address_does_not_end_the_place() -> None:
    # "St." read as the end of the request: no CRM, and the address held was forgotten
    core = core_after("My address is 3 Oak St.", "Remove my address 3 Oak St. from the CRM.")
    assert "User's address is 3 Oak St." in core
    assert any(fact.endswith("from the CRM") for fact in core)


@pytest.mark.parametrize(("said", "task"), [
    ("Please remove my address 3 Oak St. from the CRM!", "Remove User's address from the CRM"),
    ("Remove my phone number 555-0101 from the CRM.",
     "Remove User's phone number from the CRM"),
    ("Delete my email a@b.com from the wiki.", "Delete User's email from the wiki"),
])
def test_a_task_on_another_place_holds_no_contact_value(said: str, task: str) -> None:
    # kept as said, the task held the value the user wanted gone from there
    told = ["User's address is 3 Oak St.", "User's phone number is 555-0101",
            "User's email is a@b.com"]
    assert sorted(core_after("My address is 3 Oak St.", "My phone number is 555-0101.",
                             "My email is a@b.com.", said)) == sorted([*told, task])


@pytest.mark.parametrize("request_", ["Drop my email.", "Drop my e-mail, please.",
                                      "Drop my email, it's old."])
def test_dropping_my_email_forgets_the_email_alone(request_: str) -> None:
    # no inbox is dropped, yet it was stored as the step "Drop User's email"
    assert core_after("My email is a@b.com.", "My address is 3 Oak St.", request_) == [
        "User's address is 3 Oak St."]


@pytest.mark.parametrize("task", ["Remove my phone number from the invoice.",
                                  "Delete my phone number off the whiteboard.",
                                  "Can you remove my phone number from the invoice?"])
def test_a_task_on_something_else_keeps_the_fact(task: str) -> None:
    # The number is still the user's: only the invoice is to change.
    assert "User's phone number is 555-0101" in core_after("My phone number is 555-0101.",
                                                           task)


@pytest.mark.parametrize("request_", ["Remove my password from your notes.",
                                      "Delete my password from the database."])
def test_removing_from_memory_named_still_forgets(request_: str) -> None:
    assert core_after("My password is hunter2.", request_) == []


@pytest.mark.parametrize(("said", "task"), [
    ("Delete my address from memory and from the CRM.", ["Delete User's address from the CRM"]),
    ("Please remove my address from the CRM and from your notes!",
     ["Remove User's address from the CRM"]),
])
def test_deleting_from_memory_and_elsewhere_forgets_and_keeps_the_task(
        said: str, task: list[str]) -> None:
    # read whole, the CRM made it a task on something else: nothing was forgotten and the
    # request was stored as said; the task is kept as "Remove my number from the invoice" is
    assert core_after("My address is 3 Pine St.", said) == task
    assert "User's address is 3 Pine St." in core_after(
        "My address is 3 Pine St.", "Delete my address from the CRM and from the invoice.")


@pytest.mark.parametrize(("told", "said", "task"), [
    ("My password is hunter2.", "Delete my password hunter2 from memory and from the shared doc.",
     "Delete User's password from the shared doc"),
    ("My password is swordfish.",
     "Delete my password swordfish from the shared doc and from your notes.",
     "Delete User's password from the shared doc"),
    ("My PIN is 1234.", "Remove my PIN 1234 from memory and from the CRM.",
     "Remove User's PIN from the CRM"),
    # memory with no "from" of its own: read as one place, the password was still held
    ("My password is hunter2.", "Delete my password hunter2 from the shared doc and memory.",
     "Delete User's password from the shared doc"),
    ("My PIN is 1234.", "Remove my PIN 1234 from the CRM and your notes, please.",
     "Remove User's PIN from the CRM, please"),
    # "the ..." after memory is the other place: read as a thing, the task was
    # "Delete the shared doc"
    ("My password is hunter2.", "Delete my password hunter2 from memory and the shared doc.",
     "Delete User's password from the shared doc"),
    ("My password is hunter2.",
     "Delete my password hunter2 from the shared doc and memory, thank you so much.",
     "Delete User's password from the shared doc, thank you so much"),
])
def test_the_task_kept_for_the_other_place_holds_no_value(told: str, said: str,
                                                           task: str) -> None:
    # the task held the secret the user had just asked memory to be rid of
    assert core_after(told, said) == [task]


def test_an_email_said_in_the_request_keeps_its_places_apart() -> None:
    # the dot of "a@b.com" ended the request: the CRM was lost and the email held went,
    # and asked of memory and a list, nothing was forgotten
    told = "My email is a@b.com."
    assert "User's email is a@b.com" in core_after(told, "Remove my email a@b.com from the CRM.")
    assert core_after(told, "Remove my email a@b.com from your notes and from the mailing"
                            " list.") == ["Remove User's email from the mailing list"]


@pytest.mark.parametrize(("told", "said", "task"), [
    ("My password is hunter2.", "Delete my password manager from memory and from the laptop.",
     "Delete User's password manager from the laptop"),
    ("My card is Visa 4242.", "Remove my card ending 4242 from memory and from the account.",
     "Remove User's card from the account"),
])
def test_the_task_without_the_value_still_names_the_thing(told: str, said: str,
                                                          task: str) -> None:
    # cut at the word after "password", the task named the password, not its manager;
    # cut at the number, it ended "my card ending"
    assert task in core_after(told, said)


@pytest.mark.parametrize(("told", "said", "task"), [
    ("My PIN is 1234.", "Delete my PIN 1234 from the CRM.", "Delete User's PIN from the CRM"),
    ("My password is swordfish.", "Remove my password swordfish from the shared doc!",
     "Remove User's password from the shared doc"),
    ("My password is hunter2.", "Remove my password hunter2 from the shared doc, please.",
     "Remove User's password from the shared doc, please"),
    ("My PIN is 1111.", "Delete my PIN 1111 from the CRM and from the ATM.",
     "Delete User's PIN from the CRM and from the ATM"),
    ("My PIN is 1111.", "Delete my PIN 1111 from the CRM, thanks a lot!",
     "Delete User's PIN from the CRM, thanks a lot"),
    ("My PIN is 1234.", "Delete my PIN 1234 from the CRM, thanks for your patience.",
     "Delete User's PIN from the CRM, thanks for your patience"),
    # a key is a secret when its kind says so, as "API key" does: the task stored it
    ("My API key is sk-123.", "Remove my API key sk-123 from the repo.",
     "Remove User's API key from the repo"),
    ("My SSH key is zebra.", "Delete my SSH key zebra from the server.",
     "Delete User's SSH key from the server"),
    # cut after "secret", the task asked to remove "my AWS secret", not the key
    ("My AWS secret key is AKIA999.", "Remove my AWS secret key AKIA999 from the wiki.",
     "Remove User's AWS secret key from the wiki"),
    ("My PIN number is 4321.", "Delete my PIN number 4321 from the CRM.",
     "Delete User's PIN number from the CRM"),
    # cut after "key", the task asked to remove the SSH key, not its passphrase
    ("My SSH key passphrase is hunter2.",
     "Delete my SSH key passphrase hunter2 from the wiki.",
     "Delete User's SSH key passphrase from the wiki"),
    ("My SSH key password is zebra.", "Delete my SSH key password zebra from the server.",
     "Delete User's SSH key password from the server"),
    # a phrase's words look like no value: all of them were kept in the task
    ("My recovery phrase is apple banana cherry.",
     "Remove my recovery phrase apple banana cherry from the wiki.",
     "Remove User's recovery phrase from the wiki"),
    ("My seed phrase is apple banana.", "Delete my seed phrase apple banana from the shared doc.",
     "Delete User's seed phrase from the shared doc"),
    # "password:" named no secret, and the value said after the colon was kept
    ("My password is swordfish.", "Delete my password: swordfish from the wiki.",
     "Delete User's password from the wiki"),
    ("My recovery phrase is apple banana cherry.",
     "Delete my recovery phrase: apple banana cherry from the wiki.",
     "Delete User's recovery phrase from the wiki"),
    # "notes" read as memory's: the phrase held was forgotten, and no task kept
    ("My seed phrase is apple banana.", "Delete my seed phrase apple banana from my notes app.",
     "Delete User's seed phrase from User's notes app"),
    ("My passphrase is hunter2.", "Delete my passphrase hunter2 from the notes app.",
     "Delete User's passphrase from the notes app"),
])
def test_a_task_on_another_place_alone_holds_no_secret(told: str, said: str,
                                                       task: str) -> None:
    # kept as said, the task stored the PIN a second time, where the user wanted it gone
    assert sorted(core_after(told, said)) == sorted([told.rstrip(".").replace("My", "User's"),
                                                     task])


@pytest.mark.parametrize(("said", "task"), [
    ("Please remove my address from the CRM!", "Remove User's address from the CRM"),
    ("Please delete my PIN 1234 from the CRM.", "Delete User's PIN from the CRM"),
    ("I want you to remove my address from the CRM.", "Remove User's address from the CRM"),
])
def test_a_task_on_another_place_asked_politely_is_kept(said: str, task: str) -> None:
    # opened with "Please", it was read as a request to the assistant: no task was kept,
    # and nothing held was forgotten either
    told = ["User's address is 3 Oak St.", "User's PIN is 1234"]
    assert sorted(core_after("My address is 3 Oak St.", "My PIN is 1234.", said)) == sorted(
        [*told, task])


@pytest.mark.parametrize("request_", ["Forget my email address.", "Drop my email address."])
def test_the_email_address_is_the_email_held(request_: str) -> None:
    # read with "address", the request matched no fact held as "User's email", and the
    # email stayed; the street address held beside it is no part of it
    assert core_after("My email is a@b.com. My address is 12 Oak St.", request_) == [
        "User's address is 12 Oak St."]


def test_a_key_of_no_secret_kind_stays_in_the_task() -> None:
    assert places_apart("Remove my house key from the hook.") == [
        "Remove my house key from the hook."]
    assert places_apart("Remove my key ring from the drawer.") == [
        "Remove my key ring from the drawer."]


@pytest.mark.parametrize(("held", "request_", "kept"), [
    ("My email is a@b.com. My address is 12 Oak St.", "Forget my e-mail.",
     ["User's address is 12 Oak St."]),
    ("My email is a@b.com. My address is 12 Oak St.", "Forget my e-mail address.",
     ["User's address is 12 Oak St."]),
    ("My e-mail is a@b.com. My address is 12 Oak St.", "Forget my email.",
     ["User's address is 12 Oak St."]),
    ("My email is a@b.com. My PIN is 1234.", "Forget my e-mail and my PIN.", []),
    ("My email is a@b.com.", "Forget my e-mail, it's c@d.com now.", ["User's email is c@d.com"]),
])
def test_the_email_spelled_with_a_hyphen_is_the_email_held(held: str, request_: str,
                                                            kept: list[str]) -> None:
    # spelled otherwise than the fact held, the request matched nothing and the email stayed
    assert core_after(held, request_) == kept


@pytest.mark.parametrize(("held", "request_"), [
    ("My email is a@b.com. My work address is 9 Elm Rd.", "Forget my work email address."),
    ("My address is 3 Pine St.", "Forget my email address."),
])
def test_an_email_address_not_held_forgets_no_street_address(held: str, request_: str) -> None:
    # "address" after "email" kept in the request, the street address held matched it
    assert core_after(held, request_) == core_after(held)


@pytest.mark.parametrize("request_", ["Forget my PIN, thank you so much.",
                                      "Forget my PIN, thanks a lot!",
                                      "Drop my PIN, thank you very much.",
                                      "Drop my PIN from memory, thanks a lot.",
                                      "Can you forget my PIN, thanks a lot?",
                                      # "many" or "for everything" read as what to
                                      # forget outweighed the PIN
                                      "Forget my PIN, many thanks.",
                                      "Forget my PIN, thanks so much for everything!",
                                      "Forget my PIN, thanks for your help.",
                                      "Forget my PIN, thanks a ton.",
                                      "Drop my PIN from memory, many thanks.",
                                      "Can you forget my PIN, thanks for everything?",
                                      # what the user was thankful for outweighed the PIN
                                      "Forget my PIN, thanks for your patience with me.",
                                      "Forget my PIN, thanks for that.",
                                      "Drop my PIN, thanks for your patience.",
                                      "Can you forget my PIN, thanks for your time?"])
def test_warm_thanks_close_the_request_as_thanks_do(request_: str) -> None:
    assert core_after("My PIN is 1234.", request_) == []


@pytest.mark.parametrize("request_", ["Forget my PIN, thanks heaps.", "Forget my PIN, cheers.",
                                      "Forget my PIN, ty.", "Forget my PIN, thanks a million!",
                                      "Drop my PIN, cheers.", "Can you forget my PIN, ty?"])
def test_other_thanks_close_the_request_too(request_: str) -> None:
    # left behind as words of what to forget, they matched no PIN, and the PIN stayed
    assert core_after("My PIN is 1234.", "My email is a@b.com.", request_) == [
        "User's email is a@b.com"]


def test_a_name_like_thanks_is_still_named() -> None:
    assert core_after("My friend Ty is a chef.", "My PIN is 1234.", "Forget my friend Ty.") == [
        "User's PIN is 1234"]


@pytest.mark.parametrize("request_", ["Forget my PIN ty", "Forget my PIN,  ty",
                                      "Forget my PIN - ty", "Forget my PIN ta!",
                                      "Can you forget my PIN ty?"])
def test_thanks_with_no_comma_before_close_the_request(request_: str) -> None:
    # read as a word of what goes, "ty" matched no PIN, and the PIN stayed
    assert core_after("My PIN is 1234.", "My email is a@b.com.", request_) == [
        "User's email is a@b.com"]


@pytest.mark.parametrize("request_", ["Forget ty.", "forget ty", "Forget Ty.",
                                      "Forget about ty.", "Can you forget ty?"])
def test_a_name_in_lower_case_is_no_thanks(request_: str) -> None:
    # read as thanks, "ty" left nothing named, and the boss was kept
    assert core_after("Ty Smith is my boss.", "My PIN is 1234.", request_) == [
        "User's PIN is 1234"]


@pytest.mark.parametrize("request_", ["Cheers, forget my PIN.", "Cheers! Forget my PIN."])
def test_thanks_before_the_request_open_it(request_: str) -> None:
    # stored as the fact "Cheers, forget User's PIN", beside the PIN it asked to forget
    assert core_after("My PIN is 1234.", "My email is a@b.com.", request_) == [
        "User's email is a@b.com"]


@pytest.mark.parametrize(("said", "task"), [
    # "at" was left in: "Remove User's address at from the CRM"
    ("Remove my address at 3 Oak St. from the CRM.", "Remove User's address from the CRM"),
    # an SSN or IBAN given was kept in the task as said
    ("Remove my SSN 123-45-6789 from the CRM.", "Remove User's SSN from the CRM"),
    ("Remove my IBAN GB29NWBK60161331926819 from the CRM.", "Remove User's IBAN from the CRM"),
])
def test_a_task_on_another_place_holds_no_identifying_value(said: str, task: str) -> None:
    assert core_after("My address is 3 Oak St.", said) == [task, "User's address is 3 Oak St."]


@pytest.mark.parametrize(("said", "task"), [
    # the date given was kept in the task, or its month alone: "Remove User's birthday May"
    ("Remove my birthday May 3 from the CRM.", "Remove User's birthday from the CRM"),
    ("Remove my date of birth 3 May 1990 from the CRM.",
     "Remove User's date of birth from the CRM"),
    # an email, however named, is the user's own to be reached by
    ("Remove my contact details a.b@c.co.uk from the CRM.",
     "Remove User's contact details from the CRM"),
])
def test_a_task_on_another_place_holds_no_birthday_or_email(said: str, task: str) -> None:
    assert core_after("My PIN is 1234.", said) == [task, "User's PIN is 1234"]


def test_a_month_is_a_value_only_of_a_birthday() -> None:
    assert core_after("Remove my May invoice 42 from the CRM.") == [
        "Remove User's May invoice 42 from the CRM"]


@pytest.mark.parametrize(("said", "task"), [
    # read at its commas, the address was forgotten from memory and no task was kept
    ("Remove my address, 5 Glass St., from the CRM.", "Remove User's address from the CRM"),
    ("Remove my PIN, 1234, from the CRM.", "Remove User's PIN from the CRM"),
])
def test_a_value_set_apart_by_commas_is_left_out_of_the_task(said: str, task: str) -> None:
    assert core_after("My address is 5 Glass St.", said) == [task, "User's address is 5 Glass St."]


@pytest.mark.parametrize("said", ["Remove my address, 5 Glass St., from the CRM and memory.",
                                  "Delete my address, 5 Glass St., from memory and the CRM."])
def test_a_value_set_apart_goes_from_memory_named_beside_the_place(said: str) -> None:
    # read at its commas, no place was seen: memory kept the address, and no task was kept
    assert core_after("My address is 5 Glass St.", said) == [
        f"{said.split()[0]} User's address from the CRM"]


@pytest.mark.parametrize(("said", "task"), [
    # a word opening as a month's short form does ("dec", "jun", "oct") was read as a date
    ("Remove my birthday decorations photo from the CRM.",
     "Remove User's birthday decorations photo from the CRM"),
    ("Remove my birthday junk from the server.", "Remove User's birthday junk from the server"),
    # an email a note is about, or a reply is to, is not given as the user's: cut at it,
    # the task was "Remove User's note about from Jira"
    ("Remove my note about bob@z.com from Jira.", "Remove User's note about bob@z.com from Jira"),
    ("Remove my reply to bob@z.com from the thread.",
     "Remove User's reply to bob@z.com from the thread"),
])
def test_a_task_on_another_place_keeps_what_it_names(said: str, task: str) -> None:
    assert core_after("My PIN is 1234.", said) == [task, "User's PIN is 1234"]
