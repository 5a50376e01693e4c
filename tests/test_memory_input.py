"""Bad input gets a clear error and loses nothing already stored."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import check_core_invariants, make_memory

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.validation import MAX_STATE_VALUE_CHARS, validate_agent_name
from tiermem.tools.search_results import iso

ONE_MB = "x" * (1 << 20)
BAD_TEXTS: list[tuple[str, Any, str]] = [
    ("empty", "", "empty"),
    ("whitespace", " \t\n ", "empty"),
    ("int", 42, "must be a string"),
    ("none", None, "must be a string"),
    ("bytes", b"User likes tea", "must be a string"),
    ("list", ["a"], "must be a string"),
    ("surrogate", "bad \ud800 text", "lone surrogate"),
    ("nul", "before\x00after", "NUL byte"),
]


@pytest.fixture
def stocked() -> HierarchicalMemory:
    m = make_memory(core_limit=40)
    m.add_fact("User is allergic to peanuts", "durable")
    m.add_fact("The production region is eu-west-1", "durable")
    m.archival_insert("runbook: restart the billing worker", tags=["ops"])
    m.process_interaction("Right now the pod is restarting.", "Watching it.")
    yield m
    m.close()


def _calls(m: HierarchicalMemory) -> dict[str, Callable[[Any], Any]]:
    return {
        "add_fact": lambda v: m.add_fact(v),
        "archival_insert": lambda v: m.archival_insert(v),
        "user_input": lambda v: m.process_interaction(v, "ok"),
        "agent_response": lambda v: m.process_interaction("hello there", v),
        "archival_search": lambda v: m.archival_search(v),
        "recall_search": lambda v: m.recall_search(v),
        "query": lambda v: m.query(v),
        "replace_old": lambda v: m.replace_in_core(v, "x"),
        "replace_new": lambda v: m.replace_in_core("peanuts", v),
    }


CALLS = ["add_fact", "archival_insert", "user_input", "agent_response", "archival_search",
         "recall_search", "query", "replace_old", "replace_new"]


# An empty replacement is not an error: it retires the fact to archival.
CASES = [(call, *bad) for call in CALLS for bad in BAD_TEXTS
         if not (call == "replace_new" and bad[0] in ("empty", "whitespace"))]


@pytest.mark.parametrize("call,name,value,message", CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_bad_text_is_refused_and_nothing_is_lost(
    stocked: HierarchicalMemory, call: str, name: str, value: Any, message: str
) -> None:
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match=message):
        _calls(stocked)[call](value)
    assert stocked.snapshot() == before
    check_core_invariants(stocked)


@pytest.mark.parametrize("call", ["archival_insert", "user_input", "agent_response"])
def test_one_megabyte_is_refused_for_archival_and_recall(
    stocked: HierarchicalMemory, call: str
) -> None:
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match=r"over the limit.*split it"):
        _calls(stocked)[call](ONE_MB)
    assert stocked.snapshot() == before


@pytest.mark.parametrize("unit", ["tokens", "facts"])
def test_one_megabyte_fact_is_refused(unit: str) -> None:
    with make_memory(core_limit=40, core_limit_unit=unit) as m:
        m.add_fact("User is allergic to peanuts")
        before = m.snapshot()
        with pytest.raises(InvalidInputError, match="split it"):
            m.add_fact(ONE_MB)
        assert m.snapshot() == before
        # Long but under the text cap: too large for a core of 40 tokens, so it is kept in
        # archival instead.
        if unit == "tokens":
            fid = m.add_fact("word " * 20_000)
            assert m.fact(fid).tier == "archival"
            assert [f.text for f in m.core] == ["User is allergic to peanuts"]


def test_long_text_under_the_cap_is_stored_whole() -> None:
    with make_memory() as m:
        text = "incident log line " * 10_000  # 180k characters
        pid = m.archival_insert(text)
        assert m.archival.get_many([pid])[pid].text == text.strip()


def test_unicode_that_is_valid_is_kept_exactly() -> None:
    with make_memory() as m:
        text = "Zoë prefers 寿司 and emoji 🎉 — naïve café"
        fid = m.add_fact(text)
        pid = m.archival_insert(text)
        m.process_interaction(text, "ok")
        assert m.fact(fid).text == text
        assert m.archival.get_many([pid])[pid].text == text
        assert m.recall_search("寿司").total >= 1


@pytest.mark.parametrize("kwargs,message", [
    ({"durability": "forever"}, "durability must be"),
    ({"durability": None}, "durability must be"),
    ({"source": 3}, "source must be a string"),
    ({"source": "api\x00x"}, "source contains a NUL byte"),
    ({"source": "api\ud800"}, "source is not valid UTF-8"),
])
def test_bad_fact_arguments(stocked: HierarchicalMemory, kwargs: dict[str, Any],
                            message: str) -> None:
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match=message):
        stocked.add_fact("a fine fact", **kwargs)
    assert stocked.snapshot() == before


@pytest.mark.parametrize("speaker", [None, 5, b"Alice"])
def test_a_speaker_that_is_not_a_name_is_refused(stocked: HierarchicalMemory,
                                                 speaker: Any) -> None:
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match=r"speaker must be a string.*'Alice'"):
        stocked.process_interaction("I live in Rome.", "ok", speaker=speaker)
    assert stocked.snapshot() == before


@pytest.mark.parametrize("kwargs,message", [
    ({"tags": "ops"}, "tags must be a list"),
    ({"tags": [1, 2]}, "tags must be a list"),
    ({"metadata": ["x"]}, "metadata must be a JSON object"),
    ({"metadata": {"f": object()}}, "metadata is not JSON data"),
    # What a snapshot's restore would refuse, making the whole backup useless.
    ({"metadata": {"body": "x" * 250_000}}, r"metadata is 250,\d{3} characters as JSON, "
                                            r"over the limit of 200,000"),
    ({"metadata": {"nested": {"body": "é" * 40_000}}}, "over the limit of 200,000"),
    ({"tags": [f"t{i}" for i in range(30_000)]}, "tags is .* characters as JSON, over"),
    # An emoji takes twelve characters of JSON (two \u escapes), as the store writes it.
    ({"metadata": {"b": "\U0001F600" * 17_000}}, "metadata is 204,0\\d\\d characters"),
    ({"tags": ["\U0001F600" * 17_000]}, "tags is 204,0\\d\\d characters"),
    ({"metadata": {"a": 1, 2: "b"}}, "metadata keys must be strings"),
    ({"metadata": {"x": float("nan")}}, "metadata is not JSON data"),
    ({"metadata": {"x": [float("inf")]}}, "metadata is not JSON data"),
    ({"tags": 5}, "tags must be a list"),
    ({"tags": ["ops\x00"]}, "tag contains a NUL byte"),
    ({"tags": ["\ud800"]}, "tag is not valid UTF-8"),
    # Left out, it would file the passage without the label the caller meant.
    ({"tags": [""]}, r"tag 1 of tags is empty \(''\); give each tag some text"),
    ({"tags": ["ops", "  "]}, r"tag 2 of tags is empty \('  '\)"),
    ({"source": None}, "source must be a string"),
    ({"source": b"agent"}, "source must be a string"),
    ({"source": 5}, "source must be a string"),
    ({"source": "agent\x00x"}, "source contains a NUL byte"),
    ({"source": "agent\ud800"}, "source is not valid UTF-8"),
])
def test_bad_archival_arguments(stocked: HierarchicalMemory, kwargs: dict[str, Any],
                                message: str) -> None:
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match=message):
        stocked.archival_insert("a fine passage", **kwargs)
    assert stocked.snapshot() == before


@pytest.mark.parametrize("when", [
    "yesterday", "2024-05-08", float("nan"), float("inf"), -float("inf"), 1e300, -1e30, 10**400,
    True,
])
def test_a_bad_time_is_refused_and_searches_still_work(stocked: HierarchicalMemory,
                                                       when: Any) -> None:
    before = stocked.snapshot()
    for write in (lambda: stocked.archival_insert("billing worker restarted", created_at=when),
                  lambda: stocked.process_interaction("the billing worker restarted", "ok",
                                                      created_at=when)):
        with pytest.raises(InvalidInputError, match=r"created_at must be Unix seconds.*"
                                                    r"datetime.timestamp"):
            write()
    assert stocked.snapshot() == before
    # What the tools show of each hit, its date, can still be shown for every hit.
    for hit in [*stocked.archival_search("billing").hits, *stocked.recall_search("pod").hits]:
        assert iso(hit.created_at)


@pytest.mark.parametrize("when", [np.int64(1715176560), np.float32(1715176560),
                                  Fraction(1715176560), 1715176560])
def test_a_time_of_any_number_type_is_stored_as_seconds(when: Any) -> None:
    m = make_memory()
    pid = m.archival_insert("the billing worker restarted", created_at=when)
    m.process_interaction("the billing worker restarted", "ok", created_at=when)
    stored = [m.archival.get_many([pid])[pid].created_at,
              *(h.created_at for h in m.recall_search("billing").hits)]
    assert len(stored) == 3
    assert all(type(s) is float and s == float(when) for s in stored)
    # A snapshot of it restores: a blob or a Fraction there was refused as not a number.
    copy = HierarchicalMemory.restore(m.snapshot(), embedder=HashingEmbedder())
    assert copy.archival.get_many([pid])[pid].created_at == float(when)


def test_times_of_any_date_are_kept(stocked: HierarchicalMemory) -> None:
    old = dt.datetime(1850, 3, 1, tzinfo=dt.UTC).timestamp()
    pid = stocked.archival_insert("the ship sailed", created_at=old)
    stocked.process_interaction("the ship sailed", "ok", created_at=int(old))
    assert stocked.archival.get_many([pid])[pid].created_at == old
    assert {h.created_at for h in stocked.recall_search("ship").hits
            if "ship" in h.text} == {old}


@pytest.mark.parametrize("kwargs,message", [
    ({"k": 0}, "k must be a positive integer"),
    ({"k": 5000}, "at most 1000"),
    ({"page": 0}, "page must be a positive integer"),
    ({"page": "2"}, "page must be a positive integer"),
    ({"start": "yesterday-ish"}, "not a date"),
    ({"start": True}, "boolean"),
    ({"start": "2024-05-09", "end": "2024-05-01"}, "start is after end"),
    ({"start": float("nan")}, "start nan is not a date"),
    ({"end": float("nan")}, "end nan is not a date"),
    ({"start": float("inf")}, "start inf is not a date"),
    ({"end": -1e300}, "years 1 to 9999"),
    ({"start": 10**400}, "years 1 to 9999"),
])
def test_bad_search_arguments(stocked: HierarchicalMemory, kwargs: dict[str, Any],
                              message: str) -> None:
    for search in (stocked.archival_search, stocked.recall_search):
        with pytest.raises(InvalidInputError, match=message):
            search("billing", **kwargs)


@pytest.mark.parametrize("search,kwargs,message", [
    ("archival_search", {"tags": 5}, "tags must be a list"),
    ("archival_search", {"tags": ["ops\x00"]}, "tag contains a NUL byte"),
    ("archival_search", {"tags": ["\ud800"]}, "tag is not valid UTF-8"),
    # Left out, it would make a search filtered by it a search of everything.
    ("archival_search", {"tags": [""]}, "tag 1 of tags is empty"),
    ("archival_search", {"tags": ["ops", " "]}, "tag 2 of tags is empty"),
    ("recall_search", {"roles": 3}, "roles must be a list"),
    ("recall_search", {"before_id": "7"}, "before_id must be a message id"),
    ("query", {"hop": "yes"}, "hop must be a HopSettings"),
    ("archival_search", {"hop": {"seeds": 3}}, "hop must be a HopSettings"),
    ("recall_search", {"hop": True}, "hop must be a HopSettings"),
])
def test_search_filters_of_the_wrong_kind(stocked: HierarchicalMemory, search: str,
                                          kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        getattr(stocked, search)("billing", **kwargs)


@pytest.mark.parametrize("call,message", [
    (lambda m: m.fact(2**70), "fact_id must be a fact id"),
    (lambda m: m.fact("1"), "fact_id must be a fact id"),
    # Python's lists count -1 from the end; the ids of stored rows start at 1.
    (lambda m: m.fact(-1), r"fact_id must be a fact id tiermem returned, and ids start at 1 "
                           r"\(a negative one does not count from the end\), got -1"),
    (lambda m: m.fact(0), "ids start at 1"),
    (lambda m: m.events_since(2**70), "event_id must be an event id"),
    (lambda m: m.events_since("x"), "event_id must be an event id"),
    (lambda m: m.forget_requests("x"), "newest must be a positive integer"),
    (lambda m: m.forget_requests(float("nan")), "newest must be a positive integer"),
    (lambda m: m.erase(facts=[2**70], reason="r"), "facts must hold ids"),
    (lambda m: m.recall_search("pod", before_id=2**70), "before_id must be a message id"),
    (lambda m: m.archival_insert("a passage", source_message_id=2**70),
     "source_message_id must be a message id"),
    (lambda m: m.add_fact("User likes green tea", source_message_id=-2**64),
     "source_message_id must be a message id"),
])
def test_ids_the_store_cannot_hold_are_refused(stocked: HierarchicalMemory,
                                               call: Callable[[HierarchicalMemory], Any],
                                               message: str) -> None:
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match=message):
        call(stocked)
    assert stocked.snapshot() == before


@pytest.mark.parametrize("bad", [True, np.True_, 1.0, np.float64(1), "1", Fraction(1), None,
                                 np.uint64(2**64 - 1)])
def test_an_id_that_is_no_integer_is_refused_whatever_its_type(stocked: HierarchicalMemory,
                                                               bad: Any) -> None:
    before = stocked.snapshot()
    calls: list[tuple[Callable[[], Any], str]] = [
        (lambda: stocked.fact(bad), "fact_id must be a fact id tiermem returned"),
        (lambda: stocked.events_since(bad), "event_id must be an event id"),
        (lambda: stocked.erase(facts=[bad], reason="r"), "facts must hold ids")]
    if bad is not None:  # no before_id: no limit
        calls.append((lambda: stocked.recall_search("pod", before_id=bad),
                      "before_id must be a message id"))
    for call, message in calls:
        with pytest.raises(InvalidInputError, match=message):
            call()
    assert stocked.snapshot() == before


def test_ids_from_a_numpy_array_work_as_ints(stocked: HierarchicalMemory) -> None:
    # Ids gathered into an array (a search's hits, a FAISS result) come back as numpy
    # integers; the stores' drivers bind only a plain int, so each is converted.
    stocked.process_interaction("The deploy is on Friday.", "Noted.")
    said = np.array([stocked.store.messages.max_id() - 1], dtype=np.int64)[0]
    facts = np.array([f.id for f in stocked.facts()], dtype=np.int32)
    fact = stocked.fact(facts[0])
    assert fact is not None and type(fact.id) is int and fact.id == int(facts[0])
    assert stocked.events_since(np.int64(0)) == stocked.events_since(0)
    assert stocked.recall_search("deploy", before_id=said).hits == []
    assert [h.id for h in stocked.recall_search("deploy", before_id=np.uint64(said + 1))] == [
        int(said)]
    added = stocked.add_fact("Deploys happen on Fridays", source_message_id=said)
    filed = stocked.archival_insert("deploy calendar notes", source_message_id=said)
    assert stocked.fact(added).source_message_id == int(said)
    report = stocked.erase(facts=facts[:1], messages=np.array([said]), reason="r")
    assert (report.passages, report.messages) == (1, 1) and report.facts >= 2
    assert stocked.fact(facts[0]) is None and stocked.fact(added) is None
    assert filed not in [h.id for h in stocked.archival_search("deploy calendar")]


@pytest.mark.parametrize("key,value,message", [
    ("sum\ud800", "a summary", "state key must be a string"),
    ("sum\x00", "a summary", "state key must be a string"),
    (3, "a summary", "state key must be a string"),
    ("k" * 201, "a summary", "at most 200 characters"),
    ("summary", object(), "state value is not JSON data"),
    ("summary", {"when": dt.date(2024, 5, 8)}, "a date as an ISO string"),
    ("summary", float("nan"), "not JSON data"),
    ("summary", {"score": float("inf")}, "not JSON data"),
    # Its JSON, quoted, is two characters over the bound a snapshot restores.
    pytest.param("summary", "x" * MAX_STATE_VALUE_CHARS,
                 r"over the limit of 10,000,000; keep large text in archival \(archival_insert\)",
                 id="a value over the bound"),
])
def test_state_that_cannot_be_stored_as_json_is_refused(stocked: HierarchicalMemory, key: Any,
                                                        value: Any, message: str) -> None:
    stocked.set_state("summary", {"text": "kept"})
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match=message):
        stocked.set_state(key, value)
    assert stocked.snapshot() == before
    assert stocked.get_state("summary") == {"text": "kept"}


@pytest.mark.parametrize("key", ["sum\ud800", "sum\x00", 3, None])
def test_a_state_key_no_value_can_have_is_refused_on_read(stocked: HierarchicalMemory,
                                                          key: Any) -> None:
    with pytest.raises(InvalidInputError, match="state key must be a string"):
        stocked.get_state(key)


@pytest.mark.parametrize("fact", [None, 1, "User is allergic to peanuts"])
def test_a_score_of_something_not_a_fact_is_refused(stocked: HierarchicalMemory,
                                                    fact: Any) -> None:
    with pytest.raises(InvalidInputError, match="fact must be a Fact"):
        stocked.fact_score(fact)
    assert stocked.fact_score(stocked.facts()[0]) > 0


WRITES_FROM_A_MESSAGE: list[Callable[[HierarchicalMemory, int], Any]] = [
    lambda m, said: m.add_fact("User likes green tea", source_message_id=said),
    lambda m, said: m.archival_insert("notes on green tea", source_message_id=said),
]


@pytest.mark.parametrize("write", WRITES_FROM_A_MESSAGE)
def test_a_source_message_that_is_not_in_recall_is_refused(
        stocked: HierarchicalMemory, write: Callable[[HierarchicalMemory, int], Any]) -> None:
    stocked.process_interaction("My card number is 4111.", "Noted.")
    card = stocked.store.messages.max_id() - 1
    stocked.erase(messages=[card], reason="card number")
    before = stocked.snapshot()
    unused = stocked.store.messages.max_id() + 1
    for missing in (unused, card):
        with pytest.raises(InvalidInputError,
                           match=f"source_message_id {missing} names no message in recall"):
            write(stocked, missing)
    # Linked to no message, it would go with the next message to take that id when that
    # one is erased.
    assert stocked.snapshot() == before


@pytest.mark.parametrize("write", WRITES_FROM_A_MESSAGE)
def test_a_forgotten_source_message_may_still_be_named(
        stocked: HierarchicalMemory, write: Callable[[HierarchicalMemory, int], Any]) -> None:
    stocked.process_interaction("hello there", "Hi.")
    said = stocked.store.messages.max_id() - 1
    stocked.store.forgetting.forget([], [], [said], stocked.now())
    write(stocked, said)
    # Forgotten, the message keeps its row until it is erased, and takes the item with it.
    report = stocked.erase(messages=[said], reason="greeting")
    assert (report.facts, report.passages) in ((1, 0), (0, 1))


@pytest.mark.parametrize("text", [None, 5, b"User is allergic to peanuts", ["a"]])
def test_retained_refuses_what_is_not_text(stocked: HierarchicalMemory, text: Any) -> None:
    with pytest.raises(InvalidInputError, match="text must be a string"):
        stocked.retained(text)
    assert stocked.retained("") == ""  # an empty summary is kept as it is


def test_ids_that_name_nothing_find_nothing(stocked: HierarchicalMemory) -> None:
    assert stocked.fact(2**63 - 1) is None
    assert stocked.events_since(2**63 - 1) == []
    assert stocked.forget_requests(2**70) == []


@pytest.mark.parametrize("k", [None, "3", float("inf"), float("nan"), 2.5, 0, -1, True])
def test_bad_query_k(stocked: HierarchicalMemory, k: Any) -> None:
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match="k must be a positive integer"):
        stocked.query("peanuts", k=k)
    assert stocked.snapshot() == before


@pytest.mark.parametrize("name", [
    "../x", "a/b", "", ".hidden", "x" * 100, "a\\b", "/abs", "a b", "..", "ok/../../etc",
    None, 7, "name\x00", "é-accent",
])
def test_path_like_agent_names_are_refused(name: Any) -> None:
    with pytest.raises(InvalidInputError, match="invalid agent name") as info:
        validate_agent_name(name)
    assert repr(name) in str(info.value)
    assert "letters, digits" in str(info.value)


@pytest.mark.parametrize("name", ["alice", "ops-bot_2", "v1.2", "A", "x" * 64])
def test_ordinary_agent_names_pass(name: str) -> None:
    assert validate_agent_name(name) == name


@pytest.mark.parametrize(("options", "said"), [
    ({"path": ""}, "path is empty"),
    ({"path": "  "}, "path is empty"),
    ({"path": 5}, "path must be a directory path"),
    ({"path": ":memory:"}, "path ':memory:' is SQLite's name for a database in RAM"),
    ({"path": None, "embedder": "minilm"}, "embedder must have id, dim"),
    ({"path": None, "policy": 5}, "policy must be a policy's name or an EvictionPolicy"),
    # Unchecked, these failed only at the first forget (AttributeError, a failed request).
    ({"path": "agent", "judge": "gpt-4o"}, r"judge must have an ask\(system, user\) method"),
    ({"path": "agent", "forget": {"mode": "exact"}}, "forget must be a ForgetConfig"),
])
def test_bad_constructor_arguments_are_invalid_input_and_create_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, object],
        said: str) -> None:
    monkeypatch.chdir(tmp_path)
    options.setdefault("embedder", HashingEmbedder())
    with pytest.raises(InvalidInputError, match=said):
        HierarchicalMemory(**options)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_nearest_is_checked_like_the_other_search_arguments() -> None:
    with make_memory() as m:
        m.archival_insert("sea otters hold hands while they sleep")
        for bad in (-1, None, "20", 2**70, True, 1.5):
            with pytest.raises(InvalidInputError, match="nearest must be an integer"):
                m.archival_search("otters", nearest=bad)  # type: ignore[arg-type]
        assert m.archival_search("otters", nearest=0).total == 1



def test_deeply_nested_metadata_is_refused(stocked: HierarchicalMemory) -> None:
    deep: dict[str, Any] = {}
    for _ in range(100_000):
        deep = {"d": deep}
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match="metadata is not JSON data"):
        stocked.archival_insert("a fine passage", metadata=deep)
    assert stocked.snapshot() == before


@pytest.mark.parametrize("fields,message", [
    ({"tool_calls": [{"id": "c", "function": {"arguments": "x" * 250_000}}]},
     "tool_calls is .* characters as JSON, over the limit"),
    ({"tool_calls": [{"id": "c", "function": {"arguments": float("nan")}}]},
     "tool_calls is not JSON data"),
    ({"tool_calls": "call it"}, "tool_calls must be a list of dicts"),
    ({"tool_call_id": "c\x00"}, "tool_call_id contains a NUL byte"),
    ({"tool_name": "x" * 250_000}, "tool_name is 250,000 characters"),
    ({"tool_call_id": 0}, "tool_call_id must be a string"),
    ({"tool_call_id": []}, "tool_call_id must be a string"),
])
def test_a_message_a_snapshot_could_not_restore_is_refused(
        stocked: HierarchicalMemory, fields: dict[str, Any], message: str) -> None:
    from tiermem.memory.tiers.recall import NewMessage

    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match=message):
        stocked.recall.append_many([NewMessage("assistant", "", turn=9, **fields)])
    assert stocked.snapshot() == before


@pytest.mark.parametrize(("speaker", "message"), [
    ("\udc80", "speaker is not valid UTF-8"), ("Al\x00ice", "speaker contains a NUL byte"),
    ("A" * 201, "speaker is 201 characters, over the limit of 200")])
def test_a_speaker_that_cannot_be_stored_is_refused(stocked: HierarchicalMemory,
                                                     speaker: str, message: str) -> None:
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match=message):
        stocked.process_interaction("My name is Bob.", "ok", speaker=speaker)
    assert stocked.snapshot() == before


@pytest.mark.parametrize("reading", [float("nan"), float("inf"), "now", None])
def test_a_clock_that_reads_no_time_is_refused_when_the_memory_opens(
        reading: Any, tmp_path: Path) -> None:
    # Core reads the clock as it opens (a fact read "in the future" is keyed as read now).
    home = tmp_path / "agent"
    with make_memory(home, clock="wall") as memory:
        memory.add_fact("User likes green tea")
    with pytest.raises(InvalidInputError, match="the clock given as now returned"):
        make_memory(home, clock="wall", now=lambda: reading)
    with make_memory(home, clock="wall") as memory:  # refused whole: the lock is let go
        assert [f.text for f in memory.core] == ["User likes green tea"]
    with pytest.raises(InvalidInputError, match="now must be a callable"):
        make_memory(now=12.5)


@pytest.mark.parametrize(("call", "message"), [
    (lambda m: m.query("tea", touch="no"), "touch must be True or False, got 'no'"),
    (lambda m: m.snapshot(include_vectors="no"), "include_vectors must be True or False"),
    (lambda m: m.forget("User likes tea", erase="yes"), "erase must be True or False"),
    (lambda m: m.query("tea", k=10**9), "ask for at most 1000 results"),
    (lambda m: HierarchicalMemory.restore(m.snapshot(), replace=1), "replace must be True"),
])
def test_a_yes_or_no_given_as_anything_but_a_bool_is_refused(
        stocked: HierarchicalMemory, call: Callable[[HierarchicalMemory], Any],
        message: str) -> None:
    # A string "no" is truthy: read as yes, it would erase or count what was not asked.
    before = stocked.snapshot()
    with pytest.raises(InvalidInputError, match=message):
        call(stocked)
    assert stocked.snapshot() == before
    with pytest.raises(InvalidInputError, match="read_only must be True or False"):
        make_memory(None, read_only="yes")


def test_totals_are_a_copy(stocked: HierarchicalMemory) -> None:
    totals = stocked.totals
    totals["evictions"] = -1
    assert stocked.totals.get("evictions") != -1


@pytest.mark.parametrize("with_policy", [False, True])
def test_what_the_prompt_shows_is_asked_for_with_strings(with_policy: bool) -> None:
    # A str as texts came back as its characters; a non-string text or request passed
    # without a policy and failed inside the rules once one was given.
    from tiermem.memory.privacy import parse_policy

    privacy = parse_policy("rules:\n  - {rule_id: diagnosis, category: medical, "
                           "content_substrings: [diagnosed]}\nrecall: {mode: deterministic}\n")
    with make_memory(privacy=privacy if with_policy else None) as m:
        m.add_fact("User likes tea", "durable")
        for texts in ("I was diagnosed", [None], ["fine", 5], None):
            with pytest.raises(InvalidInputError, match="texts must be a list of strings"):
                m.texts_shown(texts)  # type: ignore[arg-type]
        for request in (None, 5, ["tea"]):
            with pytest.raises(InvalidInputError, match="request must be a string"):
                m.core_shown(request)  # type: ignore[arg-type]
            with pytest.raises(InvalidInputError, match="request must be a string"):
                m.texts_shown(["tea"], request)  # type: ignore[arg-type]
        shown = m.texts_shown(["I was diagnosed", "I like tea"], "")
        assert shown == ["[withheld: medical]" if with_policy else "I was diagnosed",
                         "I like tea"]
        assert [text for _, text in m.core_shown("tea")] == ["User likes tea"]
