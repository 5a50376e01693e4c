"""The memory tools as the model sees them: through ``memory_toolbox().dispatch``."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.tiers.recall import NewMessage
from tiermem.tools.dispatch import Toolbox, ToolResult
from tiermem.tools.memory_tools import PAGE_SIZE, ToolContext, memory_toolbox

# 2024-03-05 06:07 UTC and a day later, as Unix seconds.
T0 = dt.datetime(2024, 3, 5, 6, 7, tzinfo=dt.UTC).timestamp()
T1 = T0 + 86_400


class Clock:
    """A settable wall clock for the memory's timestamps."""

    def __init__(self, start: float) -> None:
        self.value = start

    def __call__(self) -> float:
        return self.value


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def memory(clock: Clock) -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, core_limit=40, embedder=HashingEmbedder(), now=clock) as m:
        yield m


@pytest.fixture
def box() -> Toolbox:
    return memory_toolbox()


def run(box: Toolbox, memory: HierarchicalMemory, name: str, args: Any, turn: int = 1,
        ctx: ToolContext | None = None) -> ToolResult:
    ctx = ctx or ToolContext(memory=memory, turn=turn)
    arguments = args if isinstance(args, str) else json.dumps(args)
    return box.dispatch(name, arguments, call_id="c1", context=ctx)


def core_texts(memory: HierarchicalMemory) -> list[str]:
    return [f.text for f in memory.core]


# -- schemas ------------------------------------------------------------------------------


def test_schemas_offer_heartbeat_only_on_chaining_tools(box: Toolbox) -> None:
    params = {s["function"]["name"]: s["function"]["parameters"] for s in box.schemas()}
    assert set(params) == {
        "send_message", "core_memory_append", "core_memory_replace", "archival_memory_insert",
        "archival_memory_search", "conversation_search", "forget",
    }
    assert "request_heartbeat" not in params["send_message"]["properties"]
    for name in set(params) - {"send_message"}:
        assert params[name]["properties"]["request_heartbeat"]["type"] == "boolean", name
        assert "request_heartbeat" not in params[name].get("required", []), name
    assert params["core_memory_append"]["properties"]["durability"]["enum"] == [
        "durable", "short-lived"]
    assert params["core_memory_replace"]["required"] == ["old_content", "new_content"]


# -- send_message and core_memory_append ----------------------------------------------------


def test_send_message_records_the_reply(box: Toolbox, memory: HierarchicalMemory) -> None:
    ctx = ToolContext(memory=memory, turn=1)
    result = run(box, memory, "send_message", {"message": "Hello there"}, ctx=ctx)
    assert result.ok and not result.heartbeat
    assert ctx.replies == ["Hello there"]
    for nothing in ("   ", "\u0000", "\x00 \x00\n", "\x1b\x07", " \t\x7f "):
        blank = run(box, memory, "send_message", {"message": nothing}, ctx=ctx)
        assert not blank.ok and "message is empty" in blank.content, repr(nothing)
    assert ctx.replies == ["Hello there"]


def test_append_reports_the_addition_and_core_usage(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    ctx = ToolContext(memory=memory, turn=3)
    result = run(box, memory, "core_memory_append",
                 {"content": "User is allergic to peanuts", "durability": "durable",
                  "request_heartbeat": True}, ctx=ctx)
    assert result.ok and result.heartbeat
    assert result.content.startswith("core + User is allergic to peanuts")
    assert f"(core {memory.core.used}/40 tokens)" in result.content
    assert ctx.changes == ["core + User is allergic to peanuts"]
    fact = next(iter(memory.core))
    assert (fact.durability, fact.source) == ("durable", "tool:turn:3")
    again = run(box, memory, "core_memory_append", {"content": "User is allergic to peanuts"})
    assert again.content.startswith("Already in core; counted as a re-assertion")
    assert len(memory.core) == 1


def test_append_evicts_to_archival_and_says_so(box: Toolbox, memory: HierarchicalMemory) -> None:
    outputs = []
    for i in range(8):
        result = run(box, memory, "core_memory_append",
                     {"content": f"Project number {i} ships on Friday", "durability": "durable"})
        assert result.ok, result.content
        assert memory.core.used <= 40
        outputs.append(result.content)
        assert result.content.endswith(f"(core {memory.core.used}/40 tokens)")
    evicted = [f for f in memory.facts() if f.tier == "archival"]
    assert evicted, "eight facts of 7 tokens cannot fit in 40"
    first = evicted[0]
    notes = [o for o in outputs if f"core -> archival: {first.text}" in o]
    assert len(notes) == 1
    assert first.text not in core_texts(memory)


def test_append_larger_than_core_goes_to_archival_and_says_so(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    run(box, memory, "core_memory_append", {"content": "User name is Ada"})
    before = [f.to_dict() for f in memory.core]
    text = "The deploy checklist has " + "one more careful step " * 20
    result = run(box, memory, "core_memory_append", {"content": text})
    assert result.ok, result.content
    [fact] = [f for f in memory.facts() if f.text == text.strip()]
    assert fact.tier == "archival"
    assert result.content.startswith(
        f"too large for core ({fact.tokens} tokens; core holds 40), so stored in archival, "
        "where archival_memory_search finds it; raise the core limit to keep facts this size "
        "in core: The deploy checklist has one more careful step")
    assert result.content.endswith(f"(core {memory.core.used}/40 tokens)")
    assert [f.to_dict() for f in memory.core] == before
    found = run(box, memory, "archival_memory_search", {"query": "deploy checklist step"})
    [item] = json.loads(found.content)["results"]
    assert item["text"] == fact.text and item["was_in_core"] is False

    # Stated again, it stays there, and the result says why rather than counting uses.
    again = run(box, memory, "core_memory_append", {"content": text}, turn=2)
    assert again.ok and memory.fact(fact.id).tier == "archival"
    assert again.content.startswith(
        "Already in archival, where archival_memory_search finds it: it is too large for "
        f"core ({fact.tokens} tokens; core holds 40); raise the core limit")


def test_replace_that_makes_a_fact_larger_than_core_moves_it_to_archival(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    run(box, memory, "core_memory_append", {"content": "User name is Ada"})
    run(box, memory, "core_memory_append", {"content": "The deploy checklist has four steps"})
    result = run(box, memory, "core_memory_replace", {
        "old_content": "four steps",
        "new_content": "these steps: " + "one more careful step, " * 20})
    assert result.ok, result.content
    [fact] = [f for f in memory.facts() if f.text.startswith("The deploy checklist")]
    assert fact.tier == "archival" and fact.text.endswith("one more careful step,")
    assert core_texts(memory) == ["User name is Ada"]
    assert (f"too large for core ({fact.tokens} tokens; core holds 40), so stored in "
            "archival, where archival_memory_search finds it" in result.content)
    found = run(box, memory, "archival_memory_search", {"query": "deploy checklist step"})
    [item] = json.loads(found.content)["results"]
    assert item["text"] == fact.text and item["was_in_core"] is True and item["evicted"]


# -- core_memory_replace ------------------------------------------------------------------


def test_replace_edits_exactly_one_fact(box: Toolbox, memory: HierarchicalMemory) -> None:
    run(box, memory, "core_memory_append", {"content": "User lives in Lyon"})
    run(box, memory, "core_memory_append", {"content": "User works as a nurse"})
    result = run(box, memory, "core_memory_replace",
                 {"old_content": "Lyon", "new_content": "Marseille"})
    assert result.ok, result.content
    assert result.content.startswith("core edited: User lives in Marseille")
    assert sorted(core_texts(memory)) == ["User lives in Marseille", "User works as a nurse"]


def test_replace_with_empty_old_content_is_an_error(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    run(box, memory, "core_memory_append", {"content": "User lives in Lyon"})
    for old in ("", "   "):
        result = run(box, memory, "core_memory_replace", {"old_content": old, "new_content": "x"})
        assert not result.ok
        assert result.content.startswith("Error:")
        assert "old_content is empty" in result.content
    assert core_texts(memory) == ["User lives in Lyon"]


def test_replace_matching_nothing_or_twice_explains_what_to_send(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    run(box, memory, "core_memory_append", {"content": "User likes green tea"})
    run(box, memory, "core_memory_append", {"content": "User likes black coffee"})
    before = [f.to_dict() for f in memory.core]

    none = run(box, memory, "core_memory_replace", {"old_content": "jasmine", "new_content": "x"})
    assert none.content.startswith("Error:")
    assert "no core fact contains 'jasmine'" in none.content
    assert "copy the text exactly" in none.content

    two = run(box, memory, "core_memory_replace", {"old_content": "User likes", "new_content": "x"})
    assert two.content.startswith("Error:")
    assert "more than one place" in two.content and "quote more of the fact" in two.content
    assert "green tea" in two.content and "black coffee" in two.content
    assert [f.to_dict() for f in memory.core] == before


def test_replacing_a_fact_core_let_go_says_where_it_went_and_what_to_call(
    box: Toolbox, clock: Clock
) -> None:
    # A small model reads core a few turns late and edits a fact evicted meanwhile:
    # "copy the text exactly as core shows it" sent it looking for text core no longer has.
    with HierarchicalMemory(None, core_limit=12, embedder=HashingEmbedder(),
                            now=clock) as memory:
        run(box, memory, "core_memory_append",
            {"content": "User's car is a red Volvo", "durability": "short-lived"})
        clock.value = T1
        run(box, memory, "core_memory_append", {"content": "User lives in Oslo by the fjord"})
        run(box, memory, "core_memory_append", {"content": "User is on call today",
                                                "durability": "short-lived"})
        assert core_texts(memory) == ["User lives in Oslo by the fjord"]
        before = [f.to_dict() for f in memory.facts()]

        edit = run(box, memory, "core_memory_replace",
                   {"old_content": "red Volvo", "new_content": "blue Saab"})
        assert edit.content == (
            "Error: no core fact contains 'red Volvo': the fact holding it left core for "
            "archival (evicted 2024-03-06T06:07Z), where archival_memory_search still finds "
            "it; to record the change, call core_memory_append with the new fact")
        retire = run(box, memory, "core_memory_replace",
                     {"old_content": "red Volvo", "new_content": ""})
        assert retire.content.endswith("; nothing is left in core to retire")
        assert [f.to_dict() for f in memory.facts()] == before

        run(box, memory, "core_memory_replace",
            {"old_content": "User lives in Oslo by the fjord", "new_content": ""})
        again = run(box, memory, "core_memory_replace",
                    {"old_content": "Oslo", "new_content": "Bergen"})
        assert "the fact holding it was retired as no longer true" in again.content
        never = run(box, memory, "core_memory_replace", {"old_content": "Saab",
                                                         "new_content": "x"})
        assert "copy the text exactly as core shows it" in never.content


def test_replace_with_empty_new_content_retires_to_archival(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    run(box, memory, "core_memory_append", {"content": "User is on call this week"})
    result = run(box, memory, "core_memory_replace",
                 {"old_content": "User is on call this week", "new_content": ""})
    assert result.ok, result.content
    assert "core -> archival" in result.content
    assert len(memory.core) == 0
    found = run(box, memory, "archival_memory_search", {"query": "on call week"})
    assert "User is on call this week" in found.content


# -- archival -----------------------------------------------------------------------------


def test_archival_insert_then_search_shows_tier_paging_and_stored_time(
    box: Toolbox, memory: HierarchicalMemory, clock: Clock
) -> None:
    ctx = ToolContext(memory=memory, turn=2)
    for i in range(12):
        memory.archival_insert(f"Invoice {i} for the acme account was paid", tags=["billing"],
                               created_at=T0)
    memory.archival_insert("The office plants need water on Mondays", created_at=T0)
    inserted = run(box, memory, "archival_memory_insert",
                   {"content": "Acme renewed their contract", "tags": ["acme"]}, ctx=ctx)
    assert inserted.ok and inserted.content.startswith("Filed in archival as passage 14")
    assert "(14 passages)" in inserted.content
    assert ctx.changes == ["archival + Acme renewed their contract"]

    clock.value = T1  # searching later must not change the stored times
    first = json.loads(run(box, memory, "archival_memory_search", {"query": "invoice"}).content)
    assert first["tier"] == "archival"
    assert first["total"] == 12
    assert first["page"] == "1 of 3"
    assert len(first["results"]) == PAGE_SIZE
    assert all(r["stored"] == "2024-03-05T06:07Z" for r in first["results"])
    assert all(r["was_in_core"] is False and r["evicted"] is None for r in first["results"])
    assert all(r["tags"] == ["billing"] for r in first["results"])

    last = json.loads(run(box, memory, "archival_memory_search",
                          {"query": "invoice", "page": 3}).content)
    assert last["page"] == "3 of 3" and len(last["results"]) == 2
    seen = {r["id"] for r in first["results"]} | {r["id"] for r in last["results"]}
    assert len(seen) == 7

    past = run(box, memory, "archival_memory_search", {"query": "invoice", "page": 4})
    assert past.content.startswith("Error:") and "past the last page (3)" in past.content

    tagged = json.loads(run(box, memory, "archival_memory_search",
                            {"query": "acme", "tags": ["acme"]}).content)
    assert [r["text"] for r in tagged["results"]] == ["Acme renewed their contract"]
    assert tagged["total"] == 1


def test_filing_a_passage_again_names_the_one_filed(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    # A small model that echoes its earlier calls as text in a reply has them run again.
    call = {"content": "Acme renewed their contract", "tags": ["acme", "Billing"]}
    first = run(box, memory, "archival_memory_insert", call)
    assert first.ok and first.content.startswith("Filed in archival as passage 1")
    ctx = ToolContext(memory=memory, turn=2)
    again = run(box, memory, "archival_memory_insert", call, ctx=ctx)
    assert again.ok and again.content.startswith("Already in archival memory as passage 1")
    assert len(memory.archival) == 1 and ctx.changes == []
    # Fewer of its tags is the same passage too; a tag it lacks, or another text, is not.
    assert "Already" in run(box, memory, "archival_memory_insert",
                            {"content": " Acme renewed their contract\n", "tags": ["ACME"]}).content
    for other in ({"content": "Acme renewed their contract", "tags": ["legal"]},
                  {"content": "acme renewed their contract"}):
        assert run(box, memory, "archival_memory_insert", other).content.startswith("Filed")
    assert len(memory.archival) == 3


def test_a_passage_filed_again_after_it_was_forgotten_or_retired_is_filed_anew(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    run(box, memory, "archival_memory_insert", {"content": "The vpn key rotates on Fridays"})
    memory.forget("The vpn key rotates on Fridays", erase=False)
    assert run(box, memory, "archival_memory_insert",
               {"content": "The vpn key rotates on Fridays"}).content.startswith("Filed")
    # A retired fact's passage says it stopped being true: filing it says it is true again.
    run(box, memory, "core_memory_append", {"content": "User is on call this week"})
    run(box, memory, "core_memory_replace",
        {"old_content": "User is on call this week", "new_content": ""})
    assert run(box, memory, "archival_memory_insert",
               {"content": "User is on call this week"}).content.startswith("Filed")


def test_archival_date_filters_filter(box: Toolbox, memory: HierarchicalMemory) -> None:
    memory.archival_insert("Backup job moved to 02:00", created_at=T0)
    memory.archival_insert("Backup job moved to 03:00", created_at=T1)
    later = json.loads(run(box, memory, "archival_memory_search",
                           {"query": "backup job", "start_date": "2024-03-06"}).content)
    assert [r["text"] for r in later["results"]] == ["Backup job moved to 03:00"]
    earlier = json.loads(run(box, memory, "archival_memory_search",
                             {"query": "backup job", "end_date": "2024-03-05"}).content)
    assert [r["text"] for r in earlier["results"]] == ["Backup job moved to 02:00"]
    swapped = run(box, memory, "archival_memory_search",
                  {"query": "backup", "start_date": "2024-03-07", "end_date": "2024-03-01"})
    assert swapped.content.startswith("Error:")
    assert "start_date is after end_date" in swapped.content


@pytest.mark.parametrize("tool", ["archival_memory_search", "conversation_search"])
@pytest.mark.parametrize("key", ["start_date", "end_date"])
def test_a_date_that_is_none_is_refused_naming_it_and_saying_to_leave_it_out(
        box: Toolbox, memory: HierarchicalMemory, tool: str, key: str) -> None:
    refused = run(box, memory, tool, {"query": "backup", key: "None"})
    assert not refused.ok
    assert f"{key} 'None' is not a date" in refused.content
    assert f"leave {key} out for no limit" in refused.content


def test_evicted_fact_is_found_with_was_in_core_and_eviction_time(
    box: Toolbox, memory: HierarchicalMemory, clock: Clock
) -> None:
    run(box, memory, "core_memory_append", {"content": "User's cat is called Miso"})
    clock.value = T1
    for i in range(6):
        run(box, memory, "core_memory_append", {"content": f"Server rack {i} is in hall B"})
    assert "User's cat is called Miso" not in core_texts(memory)
    found = json.loads(run(box, memory, "archival_memory_search", {"query": "cat Miso"}).content)
    hit = next(r for r in found["results"] if "Miso" in r["text"])
    assert hit["was_in_core"] is True
    assert hit["stored"] == "2024-03-05T06:07Z"  # when it was learned
    assert hit["evicted"] == "2024-03-06T06:07Z"  # when core let it go


def test_a_retired_fact_is_found_as_replaced_not_as_evicted(
    box: Toolbox, memory: HierarchicalMemory, clock: Clock
) -> None:
    run(box, memory, "core_memory_append", {"content": "User lives in Paris"})
    clock.value = T1
    run(box, memory, "core_memory_replace",
        {"old_content": "User lives in Paris", "new_content": ""})
    assert "User lives in Paris" not in core_texts(memory)
    found = json.loads(run(box, memory, "archival_memory_search", {"query": "Paris"}).content)
    hit = next(r for r in found["results"] if "Paris" in r["text"])
    assert hit["superseded"] == "2024-03-06T06:07Z"  # when it stopped being true
    # Before: "evicted" of the same moment beside it, as if core had let a current fact go.
    assert "evicted" not in hit


# -- promotion back to core by use ----------------------------------------------------------


@pytest.fixture
def two_facts(clock: Clock) -> Iterator[HierarchicalMemory]:
    """A core of two facts whose first fact, the cat's name, was just evicted."""
    with HierarchicalMemory(None, core_limit=2, core_limit_unit="facts",
                            embedder=HashingEmbedder(), now=clock, promote_hits=2,
                            recent_promote_hits=3, hysteresis_window=20) as m:
        for text in ("User's cat is called Miso", "Server rack one is in hall B",
                     "Server rack two is in hall C"):
            with m.interaction() as turn:
                run(memory_toolbox(), m, "core_memory_append", {"content": text}, turn=turn)
        assert core_texts(m) == ["Server rack one is in hall B", "Server rack two is in hall C"]
        yield m


def _search_turn(box: Toolbox, memory: HierarchicalMemory, query: str,
                 times: int = 1) -> tuple[dict[str, Any], ToolContext]:
    """One interaction in which the model runs ``archival_memory_search`` ``times`` times."""
    with memory.interaction() as turn:
        ctx = ToolContext(memory=memory, turn=turn)
        for _ in range(times):
            result = run(box, memory, "archival_memory_search", {"query": query}, ctx=ctx)
            assert result.ok, result.content
    return json.loads(result.content), ctx


def test_archival_search_hits_bring_an_evicted_fact_back_to_core_and_say_so(
    box: Toolbox, two_facts: HierarchicalMemory
) -> None:
    m = two_facts
    miso = next(f.id for f in m.facts() if "Miso" in f.text)
    # Evicted within the hysteresis window: it takes recent_promote_hits (3) turns of use,
    # and a turn that searches twice uses it once.
    for turn in (1, 2):
        found, ctx = _search_turn(box, m, "cat Miso", times=2)
        assert m.fact(miso).tier == "archival"
        assert m.fact(miso).hits_since_eviction == turn
        assert "memory_changes" not in found and ctx.changes == []
        assert "in_core" not in found["results"][0]
    found, ctx = _search_turn(box, m, "cat Miso")
    assert m.fact(miso).tier == "core"
    # Core stays within its limit: the promotion evicted the policy's victim, and says so.
    assert len(m.core) == 2
    assert found["memory_changes"] == ctx.changes == [
        "core -> archival: Server rack one is in hall B",
        "archival -> core: User's cat is called Miso"]
    assert found["results"][0]["text"] == "User's cat is called Miso"
    assert found["results"][0]["in_core"] is True
    assert m.diagnostics()["promotions"]["total"] == 1
    # Back in core, its passage is no longer shown as evicted.
    again, _ = _search_turn(box, m, "cat Miso")
    assert again["results"][0]["in_core"] is True and again["results"][0]["evicted"] is None


def test_archival_search_counts_only_the_facts_it_found(
    box: Toolbox, two_facts: HierarchicalMemory
) -> None:
    m = two_facts
    m.add_fact("Server rack three is in hall D")  # the first rack goes to archival
    facts = {f.text: f for f in m.facts() if f.tier == "archival"}
    assert set(facts) == {"User's cat is called Miso", "Server rack one is in hall B"}
    found, _ = _search_turn(box, m, "cat Miso")
    assert [r["text"] for r in found["results"]] == ["User's cat is called Miso"]
    assert m.fact(facts["User's cat is called Miso"].id).hits_since_eviction == 1
    assert m.fact(facts["Server rack one is in hall B"].id).hits_since_eviction == 0


def test_append_of_an_archived_fact_returns_it_when_core_has_room(
    box: Toolbox, two_facts: HierarchicalMemory
) -> None:
    m = two_facts
    # Core is full: stating the fact again is one use of the three it needs.
    with m.interaction() as turn:
        full = run(box, m, "core_memory_append", {"content": "User's cat is called Miso"},
                   turn=turn)
    assert full.content == ("Already in archival, and core has no room for it; it has 1 of "
                            "the 3 uses that bring it back to core (core 2/2 facts).")
    assert "User's cat is called Miso" not in core_texts(m)
    m.replace_in_core("Server rack two is in hall C", "")  # a fact stops being true: room
    with m.interaction() as turn:
        room = run(box, m, "core_memory_append", {"content": "User's cat is called Miso"},
                   turn=turn)
    assert room.content == "archival -> core: User's cat is called Miso (core 2/2 facts)"
    assert "User's cat is called Miso" in core_texts(m)
    assert m.diagnostics()["promotions"]["total"] == 1


# -- conversation_search ------------------------------------------------------------------


def _message(memory: HierarchicalMemory, role: str, text: str, turn: int,
             tool_name: str | None = None, created_at: float = T0) -> int:
    return memory.recall.append_many([NewMessage(role=role, content=text, turn=turn,
                                                 tool_name=tool_name, tool_call_id="x"
                                                 if tool_name else None,
                                                 created_at=created_at)])[0]


def test_conversation_search_reports_tier_totals_and_sent_time(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    for i in range(7):
        _message(memory, "user", f"My kayak trip number {i} was fun", turn=i + 1)
    result = json.loads(run(box, memory, "conversation_search", {"query": "kayak"},
                            turn=20).content)
    assert result["tier"] == "recall"
    assert result["total"] == 7 and result["page"] == "1 of 2"
    assert len(result["results"]) == PAGE_SIZE
    assert all(r["sent"] == "2024-03-05T06:07Z" and r["role"] == "user"
               for r in result["results"])


def test_conversation_search_never_returns_its_own_outputs(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    _message(memory, "user", "Where is the kayak stored?", turn=1)
    _message(memory, "tool", '{"results": "kayak kayak kayak"}', turn=1,
             tool_name="conversation_search")
    _message(memory, "tool", '{"results": "kayak in the garage"}', turn=1,
             tool_name="archival_memory_search")
    default = json.loads(run(box, memory, "conversation_search", {"query": "kayak"},
                             turn=5).content)
    assert [r["role"] for r in default["results"]] == ["user"]
    tools_only = json.loads(run(box, memory, "conversation_search",
                                {"query": "kayak", "roles": ["tool"]}, turn=5).content)
    assert [r["text"] for r in tools_only["results"]] == ['{"results": "kayak in the garage"}']
    assert tools_only["total"] == 1


def test_conversation_search_excludes_the_current_turn(
    box: Toolbox, memory: HierarchicalMemory
) -> None:
    _message(memory, "user", "The kayak is red", turn=1)
    asked = _message(memory, "user", "What colour is my kayak?", turn=2)
    ctx = ToolContext(memory=memory, turn=2, first_message_id=asked)
    result = json.loads(run(box, memory, "conversation_search", {"query": "kayak"},
                            ctx=ctx).content)
    assert [r["text"] for r in result["results"]] == ["The kayak is red"]
    assert result["total"] == 1
    assert result["results"][0]["turn"] == 1


# -- what the model gets wrong ------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "fragment"),
    [
        ("core_memory_delete", "{}", "there is no tool named 'core_memory_delete'"),
        ("archival_memory_search", '{"query": "x"', "not valid JSON"),
        ("archival_memory_search", "[1, 2]", "must be a JSON object, not an array"),
        ("archival_memory_search", '{"query": "x", "page": "two"}', "page: should be a valid"),
        ("archival_memory_search", '{"query": 5}', "query: should be a valid string"),
        ("archival_memory_search", '{"query": "x", "page": 0}', "page"),
        ("core_memory_append", '{"content": "x", "durability": "forever"}', "durability"),
        ("core_memory_append", '{"text": "x"}', "missing required field(s): 'content'"),
        ("conversation_search", '{"query": "x", "roles": ["robot"]}', "roles"),
    ],
)
def test_model_mistakes_come_back_as_error_text(
    box: Toolbox, memory: HierarchicalMemory, name: str, arguments: str, fragment: str
) -> None:
    result = run(box, memory, name, arguments)
    assert not result.ok
    assert result.content.startswith("Error:")
    assert fragment in result.content
    assert len(memory.core) == 0 and len(memory.archival) == 0


def test_unknown_tool_suggests_the_close_name(box: Toolbox, memory: HierarchicalMemory) -> None:
    result = run(box, memory, "archival_memory_serch", {"query": "x"})
    assert result.error_kind == "unknown_tool"
    assert "did you mean 'archival_memory_search'?" in result.content


@pytest.mark.parametrize("name,args", [
    ("conversation_search", {"query": "???"}),
    ("conversation_search", {"query": "the"}),
    ("conversation_search", {"query": "tea"}),
    ("archival_memory_search", {"query": "???"}),
    ("core_memory_append", {"content": "User likes green tea"}),
])
def test_every_tool_of_a_closed_memory_says_it_is_closed(
    box: Toolbox, memory: HierarchicalMemory, name: str, args: dict[str, Any]
) -> None:
    memory.process_interaction("I like green tea", "Noted.")
    memory.close()
    # An empty page would tell the model there is nothing to find.
    result = run(box, memory, name, args)
    assert (result.ok, result.content) == (
        False, "Error: this memory is closed; open it again to use it")
