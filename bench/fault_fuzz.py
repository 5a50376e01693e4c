"""Hypothesis fuzzing of tool calls: through the real dispatch, and through the agent loop.

Examples come from a fixed seed, with no example database and without the
literals Hypothesis gathers from loaded modules, so a run is repeatable
whatever else ran in the process. The body of each example never raises: it
counts what happened, so Hypothesis runs every example instead of stopping at
the first finding.

- Dispatch (tools/dispatch.py with the memory tools): a call never raises,
  every failure is an ``Error:`` text for the model and none is a tool's
  unexpected exception, and a failed call changes no stored data.
- The agent loop (agent/loop.py, driven by a model that emits fuzzed tool
  calls): a turn never raises, and memory passes its audit afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tiermem.agent.llm import Completion, ToolCall
from tiermem.bench.fault_audit import audit, content_hash
from tiermem.bench.fault_kill_child import CORE_LIMIT, DIM
from tiermem.bench.fault_result import FaultResult, describe
from tiermem.bench.fixed_examples import without_local_constants
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.tools.dispatch import ToolResult
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

#: Characters that have broken text handling somewhere: surrogates, NUL, line separators.
SPECIALS = ("\ud800", "\udfff", "\x00", "\r", "\u2028", "\u2029", "\x85", "\ufeff", "'", '"',
            "--", "<", "%", "_", "*", "\\", "\n- ", "durable:")
BIG_INTS = (2**31, 2**31 - 1, 2**63, 2**63 - 1, 2**64, -(2**63), 0, -1, 10**30)


def run_examples(strategy: Any, body: Callable[[Any], None], seed: int, examples: int) -> None:
    """Call ``body`` on ``examples`` values drawn from ``strategy`` with a fixed seed."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as fix_seed

    @fix_seed(seed)
    @settings(max_examples=examples, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def each(value: Any) -> None:
        body(value)

    with without_local_constants():
        each()


def nasty_text(max_size: int = 40) -> Any:
    from hypothesis import strategies as st

    pieces = st.one_of(st.characters(), st.characters(), st.sampled_from(SPECIALS))
    return st.lists(pieces, max_size=max_size).map("".join)


def json_values() -> Any:
    from hypothesis import strategies as st

    scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                        st.sampled_from(BIG_INTS), st.floats(), nasty_text(),
                        st.sampled_from(("2024-05-08", "20240508", "2024-13-45", "user", "tool",
                                         "durable", "short-lived", "")))
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(nasty_text(12), inner, max_size=4)),
        max_leaves=8)


def _tool_parameters() -> dict[str, list[str]]:
    return {s["function"]["name"]: list(s["function"]["parameters"]["properties"])
            for s in memory_toolbox().schemas()}


def plausible_value(parameter: str) -> Any:
    """Values of the right shape for ``parameter``, at the edges of what it accepts."""
    from hypothesis import strategies as st

    dates = st.sampled_from(("2024-05-08", "20240508", "2024-05-08T13:56", "2024-13-45",
                             "9999-12-31", "0001-01-01", "yesterday", ""))
    shapes = {
        "page": st.one_of(st.integers(-3, 5), st.sampled_from(BIG_INTS)),
        "tags": st.lists(nasty_text(12), max_size=3),
        "roles": st.lists(st.sampled_from(("user", "assistant", "tool", "system")), max_size=3),
        "start_date": dates, "end_date": dates,
        "durability": st.sampled_from(("durable", "short-lived", "forever")),
        "request_heartbeat": st.one_of(st.booleans(), json_values()),
    }
    return shapes.get(parameter, st.one_of(nasty_text(60), st.sampled_from(
        ("Seed fact 1", "invoices", "eu-west-1", "deploy", " ", "Seed passage"))))


def arguments(parameters: list[str]) -> Any:
    """A tool's arguments: a dict, its JSON text, deeply nested JSON, long legal text, or junk."""
    from hypothesis import strategies as st

    names = st.sampled_from(parameters) if parameters else nasty_text(12)
    plausible = st.fixed_dictionaries({p: plausible_value(p) for p in parameters[:1]},
                                      optional={p: plausible_value(p) for p in parameters[1:]})
    anything = st.dictionaries(st.one_of(names, nasty_text(12)), json_values(), max_size=5)
    deep = st.tuples(names, st.integers(50, 200_000)).map(
        lambda pair: f'{{"{pair[0]}": {"[" * pair[1]}{"]" * pair[1]}}}')
    long_text = st.tuples(names, st.integers(5_000, 60_000)).map(
        lambda pair: json.dumps({pair[0]: "lorem ipsum " * (pair[1] // 12)}))
    as_text = plausible.map(lambda d: json.dumps(d, ensure_ascii=False))
    return weighted((40, plausible), (15, as_text), (20, anything), (10, anything.map(json.dumps)),
                    (5, deep), (5, long_text), (5, nasty_text(200)))


def weighted(*choices: tuple[int, Any]) -> Any:
    """One of the strategies, drawn in proportion to its weight."""
    from hypothesis import strategies as st

    table = [strategy for weight, strategy in choices for _ in range(weight)]
    return st.integers(0, len(table) - 1).flatmap(lambda n: table[n])


def tool_calls() -> Any:
    """(name, arguments): mostly real tools with fuzzed arguments, some unknown names."""
    from hypothesis import strategies as st

    known = st.sampled_from(sorted(_tool_parameters().items())).flatmap(
        lambda item: st.tuples(st.just(item[0]), arguments(item[1])))
    unknown = st.tuples(nasty_text(30), arguments([]))
    return weighted((9, known), (1, unknown))


def _seeded_memory() -> HierarchicalMemory:
    memory = HierarchicalMemory(None, embedder=HashingEmbedder(DIM), core_limit=CORE_LIMIT)
    for i in range(6):
        memory.add_fact(f"Seed fact {i}: the region of service {i} is eu-west-{i}", "durable")
        memory.archival_insert(f"Seed passage {i} about invoices and deployments", tags=["seed"])
        memory.process_interaction(f"Seed talk {i}: deploy at noon.", f"Noted {i}.")
    return memory


def _judge(outcome: ToolResult, what: str, result: FaultResult) -> bool:
    """Count one tool result; True if it was a failure the model was told about."""
    if outcome.ok:
        return False
    if not outcome.content.startswith("Error:"):
        result.crash(f"{what}: a failure without 'Error:': {outcome.content[:80]!r}")
    elif outcome.error_kind == "crashed":
        result.crash(f"{what}: the tool raised {describe(outcome.exception or Exception())}")
    else:
        result.clear()
    return True


def fuzz_dispatch(seed: int, quick: bool, examples: int | None = None) -> FaultResult:
    result = FaultResult("fuzz: tool arguments", "fuzz")
    toolbox = memory_toolbox()
    with _seeded_memory() as memory:
        def one(call: tuple[str, Any]) -> None:
            name, args = call
            result.trials += 1
            before = content_hash(memory)
            what = f"{name[:30]!r}"
            try:
                outcome = toolbox.dispatch(name, args, call_id="fuzz",
                                           context=ToolContext(memory, turn=memory.tick + 1))
            except Exception as exc:
                result.crash(f"dispatch of {what} raised {describe(exc)}")
                return
            if _judge(outcome, what, result) and content_hash(memory) != before:
                result.diverge(f"a failed call of {what} changed stored data")

        run_examples(tool_calls(), one, seed, examples or (60 if quick else 400))
        result.diverge_all(audit(memory), "after the fuzzed calls")
    return result


class FuzzedModel:
    """A model that emits the given tool-call steps, then a plain reply."""

    name = "fuzzed model"
    context_window = 8192

    def __init__(self, steps: list[list[tuple[str, str]]]) -> None:
        self.steps = [Completion(content=None, finish_reason="tool_calls", tool_calls=[
            ToolCall(id=f"call_{i}_{j}", name=name, arguments=args)
            for j, (name, args) in enumerate(step)]) for i, step in enumerate(steps)]

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        if self.steps:
            return self.steps.pop(0)
        return Completion(content="Done.", finish_reason="stop")


def fuzz_loop(seed: int, quick: bool, examples: int | None = None) -> FaultResult:
    from hypothesis import strategies as st

    from tiermem.agent.loop import Agent

    result = FaultResult("fuzz: agent loop", "fuzz")
    as_text = tool_calls().map(
        lambda call: (call[0], call[1] if isinstance(call[1], str) else json.dumps(call[1])))
    steps = st.lists(st.lists(as_text, min_size=1, max_size=3), min_size=1, max_size=3)
    with _seeded_memory() as memory:
        agent = Agent(memory, FuzzedModel([]))

        def one(turn_steps: list[list[tuple[str, str]]]) -> None:
            result.trials += 1
            agent.llm = FuzzedModel(turn_steps)
            names = sorted({name[:20] for step in turn_steps for name, _ in step})
            try:
                turn = agent.step("Please handle this.")
            except Exception as exc:
                result.crash(f"a turn calling {names} raised {describe(exc)}")
                return
            for outcome in turn.tool_results:
                _judge(outcome, f"{outcome.name[:30]!r} in a turn", result)
            if result.trials % 10 == 0:
                result.diverge_all(audit(memory), f"after turn {result.trials}")

        run_examples(steps, one, seed, examples or (30 if quick else 200))
        result.diverge_all(audit(memory), "after the fuzzed turns")
    return result
