"""The policy file: one YAML mapping per agent (``policy.yaml`` in its home) or per run.

Its top-level sections belong to two parts of memory: ``rules``, ``retention``
and ``recall`` to the privacy policies (memory/privacy/config.py), ``forget``
to forgetting (memory/ops/forget_config.py). This module reads the file once
for both and refuses anything that is not a mapping of those sections, naming
the key, so a misspelt section is never silently ignored. Each section is
validated by the code that owns it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from tiermem.memory.errors import InvalidConfigError
from tiermem.memory.text.shown import shown_path
from tiermem.user_paths import expanded

#: The file an agent home may hold; read when present.
POLICY_FILE = "policy.yaml"
#: Every top-level section a policy file may hold.
POLICY_SECTIONS = ("rules", "retention", "recall", "forget")


_MERGE_TAG = "tag:yaml.org,2002:merge"


class _StrictLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping: PyYAML keeps the
    last, so a second ``rules:`` would silently drop every rule of the first."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[tuple[type, Any]] = set()
        for key_node, _ in node.value:
            # A merge key (<<: *anchor) is YAML's own, resolved by the loader below.
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
                continue
            key = self.construct_object(key_node, deep=deep)
            # By type too: 1 and true are equal in Python, not in the file.
            if (type(key), key) in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key!r} is given twice in one mapping; keep one",
                    key_node.start_mark)
            seen.add((type(key), key))
        return super().construct_mapping(node, deep=deep)


def parse_policy_sections(text: str, source: str = "policy") -> dict[str, Any]:
    """The sections of a policy given as YAML text; ``source`` names it in errors."""
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # a SafeLoader: builds plain data only
    except yaml.YAMLError as exc:
        raise InvalidConfigError(f"{source} is not valid YAML ({_yaml_problem(exc)}); fix "
                                 f"it, or remove the file", ("policy",)) from None
    except RecursionError:
        raise InvalidConfigError(f"{source} is not valid YAML (nested too deeply to read); "
                                 f"fix it, or remove the file", ("policy",)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InvalidConfigError(
            f"{source} must be a mapping of sections ({', '.join(POLICY_SECTIONS)}), "
            f"not a {type(data).__name__}", ("policy",))
    sections = {str(key): value for key, value in data.items()}
    try:
        refuse_unknown_sections(sections)
    except InvalidConfigError as exc:
        raise InvalidConfigError(f"{source}: {exc}", exc.fields) from None
    return sections


def refuse_unknown_sections(sections: Iterable[str]) -> None:
    """Raise InvalidConfigError naming the first key that is not a policy section."""
    unknown = sorted(set(sections) - set(POLICY_SECTIONS))
    if unknown:
        raise InvalidConfigError(
            f"invalid policy: unknown top-level key {unknown[0]!r}; a policy file holds only "
            f"{', '.join(POLICY_SECTIONS)}", (unknown[0],))


def read_policy_sections(path: str | Path) -> dict[str, Any]:
    """The sections of the policy file at ``path``; an unreadable file says so."""
    file = expanded(path)
    if not str(path).strip():
        raise InvalidConfigError("the policy file's path is empty; give the path of a YAML "
                                 "policy file", ("policy",))
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidConfigError(f"cannot read the policy file {shown_path(file)}: "
                                 f"{exc.strerror or exc}; check the path", ("policy",)) from None
    except UnicodeDecodeError as exc:
        raise InvalidConfigError(
            f"the policy file {shown_path(file)} is not UTF-8 text (byte {exc.start + 1}); "
            f"save it as UTF-8 YAML, or remove the file", ("policy",)) from None
    return parse_policy_sections(text, shown_path(file))


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """Where and what the YAML error is, on one line (PyYAML's own text spans several)."""
    mark = getattr(exc, "problem_mark", None)
    problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}" if mark else problem
