""""They" after several named in a word that is also a verb of one ("runs", "spikes",
"loads"), which what happened to them follows: "The test runs failed." or "The CPU spikes
lasted an hour." are the runs and the spikes, whom a "they" after goes on about; read as
one's verb, "They restarted it." was asked about and lost. One whose verb it is, with
what it did after ("The script runs automated tests.") or how it is ("The container runs
privileged."), is still no several: "The container runs restarted it." was stored."""

from __future__ import annotations

import pytest

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named
from tiermem.memory.text.several_before import several_before


@pytest.mark.parametrize("said", [
    "The test runs failed.", "The CPU spikes lasted an hour.", "The page loads got slower.",
    "The memory leaks got worse.", "The server restarts fixed it.", "The phone rings woke me.",
    "The app crashes started yesterday.", "Our weekend runs got cancelled.",
    "The job runs took 3 hours.", "The job runs timed out.",
])
def test_a_plural_a_verb_of_the_past_follows_is_several(said: str) -> None:
    assert several_before(said) == " ".join(said.split()[:3])


@pytest.mark.parametrize("said", [
    "The script runs automated tests.", "The app loads cached data.",
    "The job runs scheduled backups.", "The server runs hot.", "The dog barks all night.",
    "The job runs at midnight.", "The server keeps crashing.",
    "The container runs privileged.", "The job runs scheduled.", "The page loads cached.",
    "The report shows improved.", "The build shows failed.", "The status looks stopped.",
    "The pod gets restarted.", "The script runs failed tests.",
])
def test_one_whose_verb_it_is_is_no_several(said: str) -> None:
    assert several_before(said) is None


def test_they_after_such_several_is_them() -> None:
    named = with_pronouns_named(["The test runs failed.", "They restarted it."], None)
    assert named[1:] == ["The test runs restarted it."]


def test_they_after_one_and_how_it_is_is_asked_about() -> None:
    said = ["The container runs privileged.", "They restarted it."]
    assert with_pronouns_named(said, None) == said[:1]
    assert unnamed_pronouns(said, None) == ["They"]
