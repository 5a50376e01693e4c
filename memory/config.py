"""``MemoryConfig``: every setting that decides how a memory behaves, validated and stored.

A memory's behaviour must not depend on how it was opened. The settings are
validated once (finite numbers, positive limits, known names), written to
the store's ``meta`` table whenever a memory is opened, and carried in
snapshots, so a reopened or restored memory decides exactly as the original.

Each setting is one ``meta`` key named after its field. Text settings are
stored as they are and the others as JSON, which is also how stores written
before this module kept ``core_limit``, ``tau`` and the rest, so those open
unchanged; a setting missing from the store takes its default.

Precedence when a memory is opened: the defaults, then what the store holds,
then a ``config`` passed in (replacing the stored one whole), then each
setting passed as its own keyword argument. A keyword that contradicts a value the
config sets (one other than the default) is refused (``given_once``). The result is stored.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    field_validator,
    model_validator,
)

from tiermem.memory.errors import InvalidConfigError, StoredConfigError
from tiermem.memory.search.fusion import FusionWeights
from tiermem.memory.tiers.policies import DEFAULT_TAU, make_policy

#: The default recency constant with ``clock="wall"``: a day, in seconds.
WALL_TAU = 86_400.0
_TEXT_FIELDS = frozenset({"clock", "core_limit_unit", "policy"})

#: The largest ``core_limit``; the command line's ``--core-limit`` checks against it too.
MAX_CORE_LIMIT = 1_000_000_000
Count = Annotated[int, Strict(), Field(ge=1, le=MAX_CORE_LIMIT)]
Hits = Annotated[int, Strict(), Field(ge=1, le=1_000_000)]
Positive = Annotated[float, Strict(), Field(gt=0)]


class MemoryConfig(BaseModel):
    """The behaviour settings of a ``HierarchicalMemory``.

    Attributes:
        core_limit: core's capacity in ``core_limit_unit``.
        core_limit_unit: ``"tokens"`` (cl100k tokens of the facts' text) or ``"facts"``.
        policy: the eviction policy's name (memory.tiers.policies; ``register_policy`` adds one).
        clock: ``"logical"`` (interaction count) or ``"wall"`` (Unix seconds); fixed
            once a memory exists, since stored access times are on that clock.
        tau: recency decay constant in clock units (default 50 interactions, or a day).
        recall_dense: also embed user and assistant messages for recall search.
        fusion: weights of the lexical and dense ranks in hybrid search.
        promote_hits: hits an archived fact needs to return to core.
        recent_promote_hits: hits needed when it was evicted within ``hysteresis_window``
            (at least ``promote_hits``).
        hysteresis_window: how long after an eviction the higher bar applies, in interactions.

    Invalid values raise ``InvalidConfigError`` naming each field at fault.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    core_limit: Count = 2000
    core_limit_unit: Literal["tokens", "facts"] = "tokens"
    policy: Annotated[str, Strict()] = "freq_recency_durable"
    clock: Literal["logical", "wall"] = "logical"
    tau: Positive = DEFAULT_TAU
    recall_dense: Annotated[bool, Strict()] = True
    fusion: FusionWeights = FusionWeights()
    promote_hits: Hits = 2
    recent_promote_hits: Hits = 4
    hysteresis_window: Annotated[float, Strict(), Field(ge=0)] = 20.0

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise config_error(exc) from None

    @model_validator(mode="before")
    @classmethod
    def _default_tau(cls, values: Any) -> Any:
        # The default decay constant is in the clock's unit, so it follows the clock.
        if isinstance(values, dict) and values.get("tau") is None:
            values = {**values, "tau": WALL_TAU if values.get("clock") == "wall" else DEFAULT_TAU}
        return values

    @field_validator("fusion", mode="before")
    @classmethod
    def _fusion_types(cls, value: Any) -> Any:
        # Lax validation would take true for 1 and 1 for true in the weights' fields, as
        # the other settings (strict) never do.
        # Nor text for a number, nor 100.0 for a whole number.
        if isinstance(value, Mapping):
            for key, given in value.items():
                kind = _FUSION_KINDS.get(key)
                if kind is not None and not _is_kind(given, kind):
                    raise ValueError(f"fusion.{key} must be {kind}, got {given!r}")
        return value

    @field_validator("policy")
    @classmethod
    def _known_policy(cls, name: str) -> str:
        make_policy(name)  # its ValueError names the policies there are
        return name

    @model_validator(mode="after")
    def _hysteresis_raises_the_bar(self) -> MemoryConfig:
        if self.recent_promote_hits < self.promote_hits:
            raise ValueError(
                f"recent_promote_hits ({self.recent_promote_hits}) must be at least "
                f"promote_hits ({self.promote_hits}): a fact evicted recently needs more "
                f"hits to return, not fewer"
            )
        return self

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def parse(cls, values: Any) -> MemoryConfig:
        """Validate a mapping (e.g. JSON loaded from a snapshot) into a config."""
        if not isinstance(values, Mapping) or not all(isinstance(k, str) for k in values):
            raise InvalidConfigError(
                f"invalid memory config: expected an object of settings, got "
                f"{type(values).__name__}")
        return cls(**values)

    def updated(self, **changes: Any) -> MemoryConfig:
        """A copy with ``changes`` applied (and validated); None values are ignored."""
        changes = {k: v for k, v in changes.items() if v is not None}
        values = self.model_dump()
        if changes.get("clock", self.clock) != self.clock and "tau" not in changes:
            values.pop("tau")  # the default for the new clock, not the old clock's tau
        return MemoryConfig.parse({**values, **changes})

    def given_once(self, keywords: Mapping[str, Any]) -> None:
        """Refuse a setting given as a keyword (None: not given) with another value than
        this config sets: which of the two was meant cannot be told. A config that holds
        the default leaves the setting to the keyword, so ``config=MemoryConfig(clock=...)``
        beside ``core_limit=30`` stays what it always meant."""
        defaults = MemoryConfig(clock=self.clock)  # tau's default follows the clock
        for name, value in keywords.items():
            if value is None or name not in MemoryConfig.model_fields:
                continue
            mine = getattr(self, name)
            if mine == getattr(defaults, name):
                continue
            if getattr(MemoryConfig.parse({**self.model_dump(), name: value}), name) != mine:
                shown = mine.model_dump() if isinstance(mine, BaseModel) else mine
                raise InvalidConfigError(
                    f"{name} is given twice, {value!r} as {name}= and {shown!r} in config: "
                    f"pass it once, as {name}= alone or in config "
                    f"(config.updated({name}=...))", (name,))

    def as_json(self) -> dict[str, Any]:
        """JSON-ready values, as snapshots carry them."""
        return self.model_dump(mode="json")

    # -- the store's meta table -------------------------------------------------------------
    def to_meta(self) -> dict[str, str]:
        """One ``meta`` value per field (see the module docstring for the encoding)."""
        out: dict[str, str] = {}
        for name, value in self.as_json().items():
            out[name] = value if name in _TEXT_FIELDS else json.dumps(value, sort_keys=True)
        return out

    @classmethod
    def from_meta(
        cls, get: Callable[[str], str | None], overrides: Mapping[str, Any] | None = None
    ) -> MemoryConfig | None:
        """The config a store holds (``get`` reads one meta key), or None for a new store.

        ``overrides`` (None values ignored) replace stored values before they
        are decoded, so an explicit setting also repairs a damaged stored one.
        """
        explicit = {k: v for k, v in (overrides or {}).items() if v is not None}
        raw = {name: get(name) for name in cls.model_fields}
        present = {name: value for name, value in raw.items() if value is not None}
        if not present:
            return None
        kept = {name: value for name, value in present.items() if name not in explicit}
        try:
            return cls.parse({**decode_meta(kept, "the value"), **explicit})
        except InvalidConfigError as exc:
            stored = tuple(dict.fromkeys(
                top for top in (field.split(".")[0] for field in exc.fields) if top in kept))
            if not stored:
                raise
            raise StoredConfigError(str(exc), exc.fields, stored) from None


def decode_meta(values: Mapping[str, str], what: str) -> dict[str, Any]:
    """Decode meta strings into the values ``MemoryConfig.parse`` takes."""
    decoded: dict[str, Any] = {}
    faults: dict[str, str] = {}
    for name, value in values.items():
        if name in _TEXT_FIELDS or name not in MemoryConfig.model_fields or not isinstance(
                value, str):
            decoded[name] = value  # validated as it is, so a wrong type is named by the model
            continue
        try:
            decoded[name] = json.loads(value)
        except ValueError:
            faults[name] = f"{name}: {what} {value!r} is not a number or JSON value"
    if faults:  # each of them, so one replaced does not reveal the next
        raise InvalidConfigError("invalid memory config: " + "; ".join(faults.values()),
                                 tuple(faults))
    return decoded


#: What a setting of each type accepts, in place of pydantic's wording ("Input should be
#: a valid boolean"), which names no value to give.
_ACCEPTS = {
    "bool_type": "must be true or false",
    "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "string_type": "must be text",
}


#: What each fusion weight takes, as its message says it.
_FUSION_KINDS = {"lexical": "a number", "dense": "a number", "rrf_k": "a whole number",
                 "depth": "a whole number", "prune_common": "true or false"}


def _is_kind(value: Any, kind: str) -> bool:
    if kind == "true or false":
        return isinstance(value, bool)
    number = int if kind == "a whole number" else int | float
    return isinstance(value, number) and not isinstance(value, bool)


#: A FusionWeights check's message: the weight at fault and what it must be.
_FUSION_FAULT = re.compile(r"(?:FusionWeights|fusion)\.(\w+):? (must .*?)(?:, got .*)?$")


def config_error(exc: ValidationError) -> InvalidConfigError:
    """A pydantic error as InvalidConfigError, listing each field at fault."""
    fields: list[str] = []
    parts: list[str] = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error["loc"])
        expected = (error.get("ctx") or {}).get("expected")
        message = _accepted(error["type"], where, expected) or str(error["msg"]).removeprefix(
            "Value error, ").replace("Input should be", "must be", 1)
        shown = "" if isinstance(error.get("input"), dict) else f" (got {error.get('input')!r})"
        got = error.get("input")
        weight = _FUSION_FAULT.match(message) if where == "fusion" else None
        if weight is not None and isinstance(got, dict):
            # FusionWeights names itself and its field; the setting is fusion.NAME.
            where, message = f"fusion.{weight[1]}", weight[2]
            shown = f" (got {got[weight[1]]!r})" if weight[1] in got else ""
            got = got.get(weight[1])
        elif where == "fusion":
            # "fusion: fusion weights lexical and dense must not both be zero" said it twice.
            message = message.removeprefix("fusion weights ")
        if where:
            fields.append(where)
        if message == _ACCEPTS["int_type"] and isinstance(got, float) and got.is_integer():
            shown = f" (got {got!r}; write it as {int(got)})"  # 1e3 is read as 1000.0
        parts.append(f"{where}: {message}{shown}" if where else message)
    return InvalidConfigError("invalid memory config: " + "; ".join(parts), tuple(fields))



def _accepted(kind: str, where: str, expected: Any) -> str | None:
    """What the field ``where`` accepts, for an error of type ``kind`` (``expected``: the
    choices of a literal); None to keep pydantic's message, which then names the bound."""
    if kind in _ACCEPTS:
        return _ACCEPTS[kind]
    if kind == "literal_error" and expected:
        return f"must be {expected}"
    if where == "fusion" and kind in ("dataclass_type", "dict_type"):
        return (f"must be an object of fusion weights, e.g. "
                f"{json.dumps(dataclasses.asdict(FusionWeights()))}")
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        section, _, _ = where.rpartition(".")
        names = ([f.name for f in dataclasses.fields(FusionWeights)] if section == "fusion"
                 else list(MemoryConfig.model_fields))
        return (f"is not a{' fusion weight' if section else ' setting'}; they are "
                + ", ".join(names))
    return None
