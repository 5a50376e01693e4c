"""The ``forget`` battery check: after N forget requests, nothing forgotten is found again.

Secrets (each with a unique code) are planted in every way memory takes text:
a fact later evicted to archival (a fact and its passage), a fact that stays
in core, a passage filed directly, and a user message whose extracted fact
enters core. Distractors share words with them but not their codes. Then one
request per secret is sent, and each code is probed through every read path:
``query``, archival and conversation search, core and the fact list.

- **residual leak rate**: the share of secrets whose code any probe still
  returns (target 0);
- **collateral deletions**: distractors no longer stored (target 0 for exact).

``exact`` requests quote each stored text of a secret. ``top_k_llm`` asks in
words ("forget my locker code 4412") and runs with a scripted judge that picks
the candidates holding the code, so the figure measures retrieval and the
tombstones, not a model; with a model configured (TIERMEM_MODEL or
OPENAI_BASE_URL) it runs with that model too.
"""

from __future__ import annotations

import json
import random
from typing import Any

from tiermem.bench.options import BatteryOptions, open_memory
from tiermem.bench.result import CheckResult
from tiermem.memory import HierarchicalMemory
from tiermem.memory.judge import FunctionJudge, Judge
from tiermem.memory.ops.forget_config import ForgetConfig

_THINGS = ("locker code", "door code", "bank PIN", "badge number", "alarm code",
           "safe combination", "bike lock code", "parking spot")


def _plant(memory: HierarchicalMemory, secrets: int, rng: random.Random
           ) -> tuple[dict[str, tuple[str, list[str]]], list[str]]:
    """Secrets by code (what each is, and the texts an exact request must quote), and
    distractors."""
    codes = rng.sample(range(1000, 9999), secrets)
    planted: dict[str, tuple[str, list[str]]] = {}
    for i, code in enumerate(codes):
        thing, way = _THINGS[i % len(_THINGS)], i % 4
        fact = f"User's {thing} is {code}"
        if way == 0:  # a fact, then evicted by the distractors below
            memory.add_fact(fact, "durable")
            planted[str(code)] = (thing, [fact])
        elif way == 1:
            memory.archival_insert(f"note: the {thing} is {code}")
            planted[str(code)] = (thing, [f"note: the {thing} is {code}"])
        elif way == 2:  # a message, and the fact extracted from it
            memory.process_interaction(f"My {thing} is {code}.", "Noted.")
            planted[str(code)] = (thing, [f"My {thing} is {code}.", fact])
        else:
            planted[str(code)] = (thing, [fact])
    distractors = [f"The shared {_THINGS[w % len(_THINGS)]} policy was updated in week {w}"
                   for w in range(secrets)]
    for text in distractors:
        memory.add_fact(text, "durable")
    for i, code in enumerate(codes):  # core keeps the newest: these stay in core
        if i % 4 == 3:
            memory.add_fact(f"User's {_THINGS[i % len(_THINGS)]} is {code}", "durable")
    return planted, distractors


def _leaks(memory: HierarchicalMemory, code: str) -> bool:
    texts = [h.text for h in memory.query(f"code {code}", k=20, touch=False)]
    texts += [h.text for h in memory.archival_search(code, k=50).hits]
    texts += [h.text for h in memory.recall_search(code, k=50).hits]
    texts += [f.text for f in memory.core] + [f.text for f in memory.facts()]
    return any(code in text for text in texts)


def _stored(memory: HierarchicalMemory, text: str) -> bool:
    return (any(f.text == text for f in memory.facts())
            or any(h.text == text for h in memory.archival_search(text, k=50).hits))


def _ideal_judge() -> FunctionJudge:
    """Picks every candidate whose text holds the code named in the request."""
    def answer(system: str, user: str) -> str:
        code = next(w for w in user.split("<candidates>")[0].split() if w.isdigit())
        block = user.split("<candidates>", 1)[1]
        items = [json.loads(line) for line in block.splitlines() if line.startswith("{")]
        return json.dumps({"ids": [item["id"] for item in items if code in item["text"]]})
    return FunctionJudge(answer)


def run_forget_probe(mode: str, judge: Judge | None, secrets: int, seed: int,
                     policy: str = "freq_recency_durable") -> dict[str, Any]:
    """Plant, forget and probe once; the figures of one mode."""
    config = ForgetConfig(mode=mode, max_delete_count=5)  # type: ignore[arg-type]
    with open_memory(None, policy, core_limit=max(4, secrets // 4), core_limit_unit="facts",
                     judge=judge, forget=config) as memory:
        planted, distractors = _plant(memory, secrets, random.Random(seed))
        outcomes: dict[str, int] = {}
        for code, (thing, texts) in planted.items():
            requests = texts if mode == "exact" else [f"forget my {thing} {code}"]
            for request in requests:
                outcome = memory.forget(request).outcome
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
        leaked = [code for code in planted if _leaks(memory, code)]
        lost = [text for text in distractors if not _stored(memory, text)]
    return {"secrets": secrets, "requests": sum(outcomes.values()), "outcomes": outcomes,
            "residual_leak_rate": len(leaked) / secrets, "leaked": len(leaked),
            "collateral_deletions": len(lost), "distractors": len(distractors)}


def check_forget(opts: BatteryOptions) -> CheckResult:
    secrets = 16 if opts.quick else 48
    figures = {"exact": run_forget_probe("exact", None, secrets, opts.seed, opts.policy),
               "top_k_llm_scripted": run_forget_probe("top_k_llm", _ideal_judge(), secrets,
                                                      opts.seed, opts.policy)}
    model = _configured_judge()
    if model is not None:
        figures["top_k_llm_model"] = run_forget_probe("top_k_llm", model, secrets, opts.seed,
                                                      opts.policy)
    checked = [figures["exact"], figures["top_k_llm_scripted"]]
    passed = all(f["leaked"] == 0 and f["collateral_deletions"] == 0 for f in checked)
    exact = figures["exact"]
    detail = (f"{secrets} secrets: residual leak rate {exact['residual_leak_rate']:.3f} "
              f"(exact), {figures['top_k_llm_scripted']['residual_leak_rate']:.3f} (top_k_llm, "
              f"scripted judge); collateral deletions {exact['collateral_deletions']} and "
              f"{figures['top_k_llm_scripted']['collateral_deletions']}")
    return CheckResult("forget", passed, figures, detail)


def _configured_judge() -> Judge | None:
    """The model configured in the environment, as a judge (None when offline)."""
    from tiermem.agent.config import resolve_llm_config

    config = resolve_llm_config()
    if config is None:
        return None
    from tiermem.agent.judge import ModelJudge
    from tiermem.agent.openai_client import OpenAIClient

    return ModelJudge(OpenAIClient.from_config(config))
