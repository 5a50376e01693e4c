"""``PrivacyGuard``: a policy in force on one memory, for the facade to call on every path.

It holds the active ruleset (the file's ``rules`` plus those of the active
runtime policies), asks the layers, and remembers their decisions about
texts it has already judged, so that a message re-screened on its way into
recall, or core rendered at every step of a turn, costs no second question.
The memory (memory/hierarchy.py) calls it; it never calls the memory.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from tiermem.memory.errors import InvalidConfigError, InvalidInputError, RetentionDroppedError
from tiermem.memory.judge import Judge
from tiermem.memory.privacy.config import DEFAULT_CATEGORY, PrivacyConfig
from tiermem.memory.privacy.recall import Allow, Fetch, decide_recall, filtered_page
from tiermem.memory.privacy.retention import Decision, Masked, decide_retention, mask
from tiermem.memory.privacy.rules import RuleSet
from tiermem.memory.tiers.recall import NewMessage
from tiermem.memory.types import Fact, Hit, SearchResult

#: Decisions remembered per layer; old ones are forgotten first.
CACHE_SIZE = 4096


class _Decisions:
    """A bounded memo of decisions by key; failed judgements are never kept."""

    def __init__(self) -> None:
        self._kept: OrderedDict[Any, Decision] = OrderedDict()

    def get_many(self, keys: Sequence[Any], decide: Callable[[list[int]], list[Decision]]
                 ) -> list[Decision]:
        missing = [i for i, key in enumerate(keys) if key not in self._kept]
        fresh = dict(zip(missing, decide(missing), strict=True)) if missing else {}
        out = []
        for i, key in enumerate(keys):
            decision = fresh.get(i) or self._kept[key]
            if i in fresh and decision.cacheable:
                self._kept[key] = decision
                if len(self._kept) > CACHE_SIZE:
                    self._kept.popitem(last=False)
            out.append(decision)
        return out

    def clear(self) -> None:
        self._kept.clear()


def _metadata_key(metadata: Mapping[str, Any]) -> str:
    return json.dumps(metadata, sort_keys=True, default=str) if metadata else ""


class PrivacyGuard:
    """The retention and recall layers of ``config``, asking ``judge`` where a mode needs one."""

    def __init__(self, config: PrivacyConfig, judge: Judge | None) -> None:
        if not isinstance(config, PrivacyConfig):
            raise InvalidInputError("privacy must be a PrivacyConfig (tiermem.memory.privacy."
                                    "load_policy reads one from a YAML file)")
        for name, layer in (("retention", config.retention), ("recall", config.recall)):
            if layer.enabled and layer.mode != "deterministic" and judge is None:
                raise InvalidConfigError(
                    f"invalid policy: {name}.mode is {layer.mode!r}, which asks a model to "
                    f"judge, and no judge was given: pass judge= (e.g. tiermem.agent.judge."
                    f"ModelJudge(client)), or set {name}.mode: deterministic",
                    (f"{name}.mode",))
        self.config = config
        self.judge = judge
        self._retained = _Decisions()
        self._shown = _Decisions()
        self.policies: tuple[str, ...] = ()
        self.rules = RuleSet(config.rules)
        self.set_retention_policy(config.retention.policies)

    # -- runtime policies ---------------------------------------------------------------------
    def set_retention_policy(self, policies: Sequence[str]) -> None:
        """Make ``policies`` the active retention statements, replacing the previous ones.

        In ``deterministic`` and ``hybrid`` mode each statement needs its rules in
        ``retention.policy_rules``; a statement without them raises and changes nothing.
        A statement's rules join the shared ruleset while it is active, so the recall
        layer applies them too.
        """
        if isinstance(policies, str) or not all(isinstance(p, str) for p in policies):
            raise InvalidInputError("policies must be a list of statements (strings)")
        statements = tuple(dict.fromkeys(p.strip() for p in policies if p.strip()))
        retention = self.config.retention
        table = retention.policy_rules or {}
        if retention.mode != "llm":
            missing = [s for s in statements if s not in table]
            if missing:
                raise InvalidConfigError(
                    f"retention policy {missing[0]!r} has no rules in retention.policy_rules, "
                    f"so {retention.mode} mode cannot enforce it; add it there (keyed by the "
                    f"exact statement), or use retention.mode: llm", ("retention.policy_rules",))
        appended = [rule for s in statements for rule in table.get(s, [])]
        self.rules = RuleSet([*self.config.rules, *appended])
        self.policies = statements
        self._retained.clear()
        self._shown.clear()

    # -- retention ----------------------------------------------------------------------------
    def _retain_many(self, items: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Decision]:
        layer = self.config.retention
        if not layer.enabled:
            return [Decision(True)] * len(items)
        keys = [(text, _metadata_key(metadata)) for text, metadata in items]
        return self._retained.get_many(keys, lambda missing: decide_retention(
            layer.mode, self.rules, self.policies, self.judge, [items[i] for i in missing]))

    def check_write(self, text: str, metadata: Mapping[str, Any] | None = None,
                    what: str = "fact") -> None:
        """Raise ``RetentionDroppedError`` when ``text`` may not be stored."""
        decision = self._retain_many([(text, metadata or {})])[0]
        if not decision.allowed:
            raise RetentionDroppedError(what, decision.category or DEFAULT_CATEGORY,
                                        decision.rule_id, decision.by)

    def mask(self, text: str, mark_questions: bool = False) -> Masked:
        """``text`` as recall may keep it: dropped sentences withheld (``retention.mask``)."""
        if not self.config.retention.enabled or not text:
            return Masked(text, text)
        return mask(text, lambda sentences: self._retain_many([(s, {}) for s in sentences]),
                    self.rules.categories(), mark_questions)

    def screen_messages(self, messages: Sequence[NewMessage]) -> list[NewMessage]:
        """Messages as recall may keep them: content and tool-call arguments masked."""
        if not self.config.retention.enabled:
            return list(messages)
        return [replace(m, content=self.mask(m.content).text,
                        tool_calls=self._masked_calls(m.tool_calls)) for m in messages]

    def _masked_calls(self, calls: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        if not calls:
            return calls
        masked = []
        for call in calls:
            function = dict(call.get("function") or {})
            arguments = function.get("arguments")
            if isinstance(arguments, str) and arguments:
                try:
                    function["arguments"] = json.dumps(self._masked_value(json.loads(arguments)))
                except ValueError:  # unreadable arguments are masked as plain text
                    function["arguments"] = self.mask(arguments).text
            masked.append({**call, "function": function})
        return masked

    def _masked_value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.mask(value).text
        if isinstance(value, list):
            return [self._masked_value(v) for v in value]
        if isinstance(value, dict):
            return {k: self._masked_value(v) for k, v in value.items()}
        return value

    # -- recall -------------------------------------------------------------------------------
    def _shown_many(self, request: str, items: Sequence[tuple[str, Mapping[str, Any]]]
                    ) -> list[Decision]:
        layer = self.config.recall
        if not layer.enabled:
            return [Decision(True)] * len(items)
        # Deterministic decisions ignore the request, so they are shared across requests.
        asked = request if layer.mode != "deterministic" else ""
        keys = [(asked, text, _metadata_key(metadata)) for text, metadata in items]
        return self._shown.get_many(keys, lambda missing: decide_recall(
            layer.mode, self.rules, self.config.recall.policies, self.judge, request,
            [items[i] for i in missing]))

    @property
    def recall_enabled(self) -> bool:
        """Whether the recall layer screens reads (without it nothing is withheld)."""
        return self.config.recall.enabled

    def allow_hits(self, request: str, hits: Sequence[Hit]) -> list[bool]:
        decisions = self._shown_many(request, [(h.text, h.metadata) for h in hits])
        return [d.allowed for d in decisions]

    def filter_hits(self, request: str, hits: Sequence[Hit]) -> list[Hit]:
        return [h for h, ok in zip(hits, self.allow_hits(request, hits), strict=True) if ok]

    def search_page(self, request: str, fetch: Fetch, k: int, page: int,
                    allow: Allow | None = None, window: int | None = None) -> SearchResult:
        """One page of a search, over-fetched and filtered (privacy.recall.filtered_page)
        by ``allow``: by default, the hits the recall layer shows for ``request``.
        ``window``: the tier's window of newest matches, which withheld ones may widen."""
        screened = self.config.recall.enabled
        multiplier = self.config.recall.window_multiplier if screened else 1
        return filtered_page(fetch, allow or (lambda hits: self.allow_hits(request, hits)), k,
                             page, multiplier, screened, window)

    def core_view(self, request: str, facts: Sequence[Fact]) -> list[str]:
        """Each fact's text as the prompt may show it: withheld ones as ``[withheld: ...]``."""
        return self.text_view(request, [f.text for f in facts])

    def text_view(self, request: str, texts: Sequence[str]) -> list[str]:
        """Each text as the prompt may show it: withheld ones as ``[withheld: ...]``."""
        decisions = self._shown_many(request, [(text, {}) for text in texts])
        return [text if d.allowed else f"[withheld: {d.category or DEFAULT_CATEGORY}]"
                for text, d in zip(texts, decisions, strict=True)]
