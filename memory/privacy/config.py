"""The privacy policy file: one shared PII ruleset and the retention and recall layers.

A policy file is YAML with up to four top-level sections::

    rules:              # the PII ruleset both layers read
      - rule_id: diagnosis
        category: medical
        category_description: the user's health, diagnoses, medication and treatment
        content_substrings: [diagnosed, prescription, chemotherapy]
        regex: '\\b(?:HIV|diabetes)\\b'
        metadata_fields: [patient_id]
    retention:          # on every write
      mode: hybrid      # deterministic | hybrid | llm
      policies: ["Do not record anything about my ex."]
      policy_rules:
        "Do not record anything about my ex.":
          - {rule_id: ex, category: relationships, content_substrings: [my ex]}
    recall:             # on every read
      mode: deterministic
      window_multiplier: 3
    forget: ...         # read by forgetting (memory/ops), not validated here

The ruleset is one list rather than a copy per layer, so the two layers
cannot drift apart. Any other top-level key is refused with an error naming
it, and every error names the field at fault (``rules[2].regex``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from tiermem.memory.errors import InvalidConfigError
from tiermem.memory.policy_file import (
    parse_policy_sections,
    read_policy_sections,
    refuse_unknown_sections,
)
from tiermem.memory.text.shown import shown_path
from tiermem.user_paths import expanded

#: The category shown for content withheld without a named category.
DEFAULT_CATEGORY = "private"

Mode = Literal["deterministic", "hybrid", "llm"]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Statement = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1,
                                             max_length=2000)]
Category = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=60,
                                            pattern=r"^[\w][\w .&/-]*$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PiiRule(_Strict):
    """One rule of the shared ruleset.

    A rule matches an item when any of its matchers does: a ``content_substrings``
    entry found in the text as a whole word or phrase (case-insensitive, so
    ``cat`` does not match "category"), its ``regex`` found anywhere in the text, or a
    ``metadata_fields`` key present with a non-empty value in the item's metadata.
    A rule with no matcher still lends its ``category_description`` to the judges'
    prompts.
    """

    rule_id: Name
    category: Category = DEFAULT_CATEGORY
    category_description: Statement | None = None
    content_substrings: list[Annotated[str, StringConstraints(min_length=1, max_length=200)]] = (
        Field(default_factory=list))
    regex: Annotated[str, StringConstraints(min_length=1, max_length=2000)] | None = None
    metadata_fields: list[Name] = Field(default_factory=list)

    @field_validator("content_substrings")
    @classmethod
    def _not_blank(cls, values: list[str]) -> list[str]:
        for value in values:
            if not value.strip():
                raise ValueError("an entry is blank; it would match every text")
        return values

    @field_validator("regex")
    @classmethod
    def _compiles(cls, pattern: str | None) -> str | None:
        if pattern is None:
            return None
        if compile_rule_regex(pattern).search("") is not None:
            raise ValueError("matches the empty text, so it would match everything")
        return pattern


def compile_rule_regex(pattern: str) -> Any:
    """A rule's ``regex``, compiled with the ``regex`` package: Python's own syntax and
    Unicode classes (``\\w`` matches "é", ``\\d`` Arabic-Indic digits), and a time limit on
    each match (memory/privacy/rules.py), which Python's ``re`` has not."""
    import regex

    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise ValueError(f"not a valid regular expression ({exc})") from None


class RetentionConfig(_Strict):
    """What may be stored: checked on every write, before anything reaches a tier.

    ``policy_rules`` maps a policy statement, exactly as written, to the rules that
    enforce it where no model reads the statement (``deterministic`` and ``hybrid``
    modes); while the statement is active its rules join the shared ruleset.
    """

    enabled: bool = True
    mode: Mode = "deterministic"
    policies: list[Statement] = Field(default_factory=list)
    policy_rules: dict[Statement, list[PiiRule]] | None = None


class RecallConfig(_Strict):
    """What may be shown: checked on every read, against the current query.

    Searches fetch ``window_multiplier`` times the results asked for, so that
    withholding some still leaves enough to fill the page.
    """

    enabled: bool = True
    mode: Mode = "deterministic"
    policies: list[Statement] = Field(default_factory=list)
    window_multiplier: Annotated[int, Field(ge=1, le=20, strict=True)] = 3


class PrivacyConfig(_Strict):
    """A whole policy file: the shared ``rules`` and the two layers.

    ``forget`` belongs to forgetting; it is kept as given for that code to validate.
    """

    rules: list[PiiRule] = Field(default_factory=list)
    retention: RetentionConfig = RetentionConfig()
    recall: RecallConfig = RecallConfig()
    forget: dict[str, Any] | None = None

    def __init__(self, **values: Any) -> None:
        refuse_unknown_sections(values)
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise policy_error(exc) from None

    @model_validator(mode="after")
    def _consistent(self) -> PrivacyConfig:
        seen: set[str] = set()
        for index, rule in enumerate(self.rules):
            if rule.rule_id in seen:
                raise ValueError(f"rules[{index}].rule_id: {rule.rule_id!r} is used twice; "
                                 f"give each rule its own id")
            seen.add(rule.rule_id)
        table = self.retention.policy_rules or {}
        if self.retention.mode != "llm":
            for index, statement in enumerate(self.retention.policies):
                if statement not in table:
                    raise ValueError(
                        f"retention.policies[{index}]: {statement!r} has no entry in "
                        f"retention.policy_rules, so {self.retention.mode} mode could not "
                        f"enforce it; add its rules there, or use mode: llm")
        return self

    @property
    def needs_judge(self) -> bool:
        """Whether an enabled layer asks a model (``hybrid`` or ``llm`` mode)."""
        return any(layer.enabled and layer.mode != "deterministic"
                   for layer in (self.retention, self.recall))


def policy_error(exc: ValidationError) -> InvalidConfigError:
    """The first problem pydantic found, naming its field as the file spells it."""
    problems, fields = [], []
    for error in exc.errors():
        where = _field_path(error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "unknown key; check its spelling"
        problems.append(f"{where}: {message}" if where and not message.startswith(where)
                        else message)
        fields.append(where)
    return InvalidConfigError("invalid policy: " + "; ".join(problems), tuple(fields))


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def parse_policy(text: str, source: str = "policy") -> PrivacyConfig:
    """A policy from YAML text; ``source`` names it in errors."""
    return _from_sections(parse_policy_sections(text, source), source)


def load_policy(path: str | Path) -> PrivacyConfig:
    """A policy from a YAML file; a missing or unreadable file says so."""
    return _from_sections(read_policy_sections(path), shown_path(expanded(path)))


def _from_sections(sections: dict[str, Any], source: str) -> PrivacyConfig:
    try:
        return PrivacyConfig(**sections)
    except InvalidConfigError as exc:
        raise InvalidConfigError(f"{source}: {exc}", exc.fields) from None
