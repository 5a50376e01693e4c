"""An erasure leaves no digest of what it erased: a SHA-256 of a short secret (a PIN) is
reversed by trying every candidate, so neither the hash that blocks a forgotten fact's
extraction nor the audit's hash of the forget request may survive it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from memory_helpers import backend_place, make_memory

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops.forget import request_hash
from tiermem.memory.text.digest import norm_hash
from tiermem.memory.text.extract import fact_norm

PIN_FACT = "User's PIN is 8675309"


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    return backend_place(request, tmp_path, "digests")


def _digests(memory: HierarchicalMemory) -> tuple[bool, bool]:
    """Whether the memory still holds the fact's norm hash, and the request's hash."""
    blocked = norm_hash(fact_norm(PIN_FACT)) in memory.store.forgetting.blocked_norms()
    audited = request_hash(memory, PIN_FACT) in {
        r.request_hash for r in memory.store.forgetting.requests()}
    return blocked, audited


def test_a_forget_that_erases_keeps_no_digest_of_the_secret(where: dict[str, Any]) -> None:
    with make_memory(**where) as memory:
        memory.add_fact(PIN_FACT, "durable")
        assert memory.forget(PIN_FACT, erase=True).outcome == "matched"
        assert _digests(memory) == (False, False)
        assert len(memory.forget_requests()) == 1  # the request stays recorded


def test_erasing_what_was_forgotten_before_takes_its_digests_too(
        where: dict[str, Any]) -> None:
    with make_memory(**where) as memory:
        memory.add_fact(PIN_FACT, "durable")
        assert memory.forget(PIN_FACT).outcome == "matched"
        # Forgotten, not erased: the text is still stored, and extraction must not store
        # the fact again.
        assert _digests(memory) == (True, True)
        memory.erase_forgotten()
        assert _digests(memory) == (False, False)


def test_the_erasure_reports_digest_cannot_be_checked_against_guesses() -> None:
    import hashlib

    with make_memory() as memory:
        fact_id = memory.add_fact(PIN_FACT, "durable")
        report = memory.erase(facts=[fact_id], reason="asked")
    # What anyone could compute from a guess: the plain digest of "fact:ID" and the text.
    plain = hashlib.sha256()
    for part in (f"fact:{fact_id}", PIN_FACT):
        data = part.encode()
        plain.update(len(data).to_bytes(8, "big") + data)
    assert plain.hexdigest() not in report.digest
    assert report.digest.startswith("hmac-sha256:")
    with make_memory() as other:  # in this process, two reports still compare
        again = other.erase(facts=[other.add_fact(PIN_FACT, "durable")], reason="asked")
    assert again.digest == report.digest


def _checkable(memory: HierarchicalMemory, text: str) -> list[int]:
    """The audit rows whose hash a guess of ``text`` checks against, as anyone holding the
    database can compute it (the key is stored beside the hash)."""
    digest = request_hash(memory, text)
    return [r.id for r in memory.forget_requests() if r.request_hash == digest]


def test_an_erase_request_that_matches_nothing_keeps_no_digest(where: dict[str, Any]) -> None:
    with make_memory(**where) as memory:
        memory.add_fact(PIN_FACT, "durable")
        assert memory.forget(PIN_FACT, erase=True).outcome == "matched"
        # Asked again once it is gone, or in words that match nothing stored: recorded,
        # nothing changed, and its hash is no check of a guess at the PIN.
        again = memory.forget(PIN_FACT, erase=True)
        wrong = memory.forget("User's PIN: 8675309", erase=True)
        assert (again.outcome, wrong.outcome) == ("unmatched", "unmatched")
        assert not again.forgotten and again.erasure is None
        assert len(memory.forget_requests()) == 3
        assert _checkable(memory, PIN_FACT) == []
        assert _checkable(memory, "User's PIN: 8675309") == []
        # A request forgetting without erasing keeps its hash (it tells a request made
        # again), until what it forgot is erased.
        memory.add_fact("User's dog is Rex", "durable")
        kept = memory.forget("User's dog is Rex")
        assert _checkable(memory, "User's dog is Rex") == [kept.audit_id]


def test_an_erasure_takes_the_digests_of_the_requests_asking_for_it(
        where: dict[str, Any]) -> None:
    with make_memory(**where) as memory:
        memory.process_interaction("My PIN is 8675309.", "Noted.")
        memory.add_fact("User's dog is Rex", "durable")
        typo = memory.forget("My PIN is 8675309 please")          # matches nothing
        forgot = memory.forget("My PIN is 8675309.")             # forgets, no erasure
        dog = memory.forget("User's dog is Rex")
        assert (typo.outcome, forgot.outcome, dog.outcome) == ("unmatched", "matched",
                                                               "matched")
        assert _checkable(memory, "My PIN is 8675309 please") == [typo.audit_id]
        assert _checkable(memory, "My PIN is 8675309.") == [forgot.audit_id]
        done = forgot.forgotten
        memory.erase(facts=done.facts, passages=done.passages, messages=done.messages,
                     reason="asked")
        assert _checkable(memory, "My PIN is 8675309 please") == []
        assert _checkable(memory, "My PIN is 8675309.") == []
        # A request of something not erased keeps its hash.
        assert _checkable(memory, "User's dog is Rex") == [dog.audit_id]
        assert len(memory.forget_requests()) == 3
