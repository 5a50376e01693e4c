"""The evaluation's JSON report: written after every finished unit, read back to resume.

A *unit* is one configuration on one conversation. The file holds every
unit's per-question records under ``units[config][conversation]`` and, on top,
the aggregates that the issue's schema asks for::

    {"configs": [{"name", "config", "embedder", "overall": {"recall@1", ..., "mrr"},
                  "by_category": {"1": {...}, ...}, "timings": {...}}, ...], ...}

A unit is reused on ``--resume`` only if it was run with the same
configuration; anything else is run again. Whether its answers
were judged does not tell units apart: a verdict is kept with its answer. A report of other
settings (mode, k, limit, embedder, and in QA mode the model, by name and by the id its
server lists, its window, reply budget, text tool calls and encoding; not the
server's address) is refused rather than resumed, and so is a
unit asked of other questions (each fingerprint holds a digest of the unit's
questions) or whose records are not its questions (edited or cut by hand).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tiermem.evals.figures import (
    Record,
    UnitLog,
    by_category,
    format_column,
    mean,
    percentile,
    render,
)
from tiermem.evals.locomo import Question
from tiermem.memory.output_file import write_atomic
from tiermem.memory.text.counts import counted

KEEP = "give --json another PATH, or drop --resume to replace it"
_DIGEST = "questions_digest"


def questions_digest(questions: Sequence[Question]) -> str:
    """What identifies the questions a unit asks: their ids, text, reference, evidence and
    category (another data file of the same ids gives another digest)."""
    text = json.dumps([[q.qid, q.question, q.answer, list(q.evidence), q.category]
                       for q in questions])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Expected:
    """What this run asks of one unit: how it is run (its fingerprint, the questions' digest
    included), which questions, and the numbers each record and a finished unit hold."""

    fingerprint: dict[str, Any]
    qids: tuple[str, ...]
    record_fields: tuple[str, ...] = ()
    unit_fields: tuple[str, ...] = ()

    @classmethod
    def of(cls, settings: dict[str, Any], questions: Sequence[Question],
           record_fields: Sequence[str] = (), unit_fields: Sequence[str] = ()) -> Expected:
        return cls({**settings, _DIGEST: questions_digest(questions)},
                   tuple(q.qid for q in questions), tuple(record_fields), tuple(unit_fields))


#: Fingerprint keys a unit is not told apart by: its questions' digest (checked on its own);
#: whether its answers were judged, which reports before verdicts were reused recorded (a
#: verdict is kept with its answer; a resume with --judge judges those without one); and the
#: model, which older reports recorded with the server's address in each unit (a report holds
#: one model's answers: ``resumable_units`` refuses another, by name, not by address).
_NOT_SETTINGS = (_DIGEST, "judge", "model")


def _settings(fingerprint: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in fingerprint.items() if key not in _NOT_SETTINGS}


def _fault(unit: dict[str, Any], expected: Expected) -> str | None:
    """What makes ``unit``'s records not those of ``expected``'s questions, if anything."""
    numeric = (int, float)
    records = unit.get("questions")
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        return "its questions are not a list of records"
    done = bool(unit.get("done"))
    if not all(all(isinstance(r.get(f), numeric) for f in expected.record_fields)
               and isinstance(r.get("category"), int) for r in records) or (
            done and not all(isinstance(unit.get(f), numeric) for f in expected.unit_fields)):
        return "a field missing or of the wrong type"
    held = [r.get("qid") for r in records]
    wanted = set(expected.qids)
    if len(set(map(str, held))) != len(held):
        return "it holds a question twice"
    other = [qid for qid in held if qid not in wanted]
    if other:
        return f"it holds question {other[0]}, which this run does not ask"
    if done and len(held) != len(wanted):
        return (f"it is marked finished with {len(held)} of the "
                f"{counted(len(wanted), 'question')} this run asks")
    return None


class Report:
    """The report of one run, optionally mirrored to a JSON file."""

    def __init__(self, path: Path | None, header: dict[str, Any], resume: bool = False,
                 chosen: Collection[str] = ()) -> None:
        self.path = path
        self.header = header
        self.units: dict[str, dict[str, dict[str, Any]]] = {}
        self.configs: list[dict[str, Any]] = []
        if resume and path is not None and path.exists():
            self.units = resumable_units(path, header, chosen)

    def finished(self, config: str, conv: str, expected: Expected) -> dict[str, Any] | None:
        """The stored unit, if it is complete and was run the same way."""
        unit = self._stored(config, conv, expected)
        return unit if unit is not None and unit.get("done") else None

    def partial(self, config: str, conv: str, expected: Expected) -> dict[str, Any]:
        """The stored unit run the same way (possibly unfinished), or a new empty one."""
        unit = self._stored(config, conv, expected)
        if unit is not None:
            return unit
        return {"fingerprint": expected.fingerprint, "done": False, "questions": []}

    def check(self, plans: dict[tuple[str, str], Expected]) -> None:
        """ValueError for any stored unit ``_stored`` refuses, ``plans`` giving each unit
        (configuration, conversation) of the run: checked before any work, as a unit refused
        later would stop a run that had already rewritten the report."""
        for (config, conv), expected in plans.items():
            self._stored(config, conv, expected)

    def _stored(self, config: str, conv: str, expected: Expected) -> dict[str, Any] | None:
        """The stored unit run as ``expected`` says, or None (one run another way is run
        again). ValueError for one whose figures this run cannot stand behind: asked other
        questions (the data changed), or edited or cut so its records are not this run's."""
        unit = self.units.get(config, {}).get(conv)
        stored = unit.get("fingerprint") if unit is not None else None
        if not isinstance(stored, dict) or _settings(stored) != _settings(expected.fingerprint):
            return None
        assert unit is not None
        where = f"{config} on conversation {conv}"
        # A report written before the questions were fingerprinted is checked by its qids.
        if stored.get(_DIGEST, expected.fingerprint[_DIGEST]) != expected.fingerprint[_DIGEST]:
            raise ValueError(f"--resume: {self.path} holds {where} asked of other questions than "
                             f"--data holds now (the data changed since); {KEEP}")
        fault = _fault(unit, expected)
        if fault:
            raise ValueError(f"--resume: the record of {where} in {self.path} is damaged or "
                             f"stale ({fault}); {KEEP}")
        return unit

    def put(self, config: str, conv: str, unit: dict[str, Any]) -> None:
        self.units.setdefault(config, {})[conv] = unit
        self.save()

    def save(self) -> None:
        if self.path is None:
            return
        # The summary is indented for people; the per-question records are compact.
        head = json.dumps({**self.header, "configs": self.configs}, indent=1)
        text = head[:-2] + ',\n "units": ' + json.dumps(self.units, separators=(",", ":")) + "\n}"
        write_atomic(self.path, text)  # a crash mid-write never leaves half a report

    def as_dict(self) -> dict[str, Any]:
        return {**self.header, "configs": self.configs, "units": self.units}


#: The model's settings a QA report records (they change what is asked and answered), read
#: from the client once its window is settled.
MODEL_SETTINGS = {"context_window": "--context-window", "max_tokens": "--max-tokens",
                  "text_tool_calls": "--text-tool-calls", "encoding": "TIERMEM_ENCODING"}
# The settings every unit of a report shares, and the option that sets each.
_SETTINGS = {"mode": "--mode", "ks": "--k", "limit": "--limit", "embedder": "--embedder",
             **MODEL_SETTINGS}


def resumable_units(path: Path, header: dict[str, Any], chosen: Collection[str] = ()
                    ) -> dict[str, dict[str, dict[str, Any]]]:
    """The units of the report at ``path`` that a run with ``header`` resumes.

    Only the settings in ``header`` are compared. ``chosen`` names the model settings this
    run set itself (by option or environment) rather than left at their defaults: a report
    written before they were recorded ran with the defaults, so it is resumed only by a run
    that keeps them.

    ValueError when there is nothing to resume from: a resumed run rewrites the file, so
    reading a report of other settings as empty would throw away every answer it holds.
    """
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"--resume cannot read the report {path}: it is not JSON ({exc.msg}, "
                         f"line {exc.lineno}); {KEEP}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--resume cannot read the report {path}: {exc}; {KEEP}") from None
    units = old.get("units") if isinstance(old, dict) else None
    if isinstance(old, dict) and old.get("benchmark") == "LoCoMo" and old.get("mode") == "cv":
        raise ValueError(f"--resume: {path} is a report of --cv, which runs whole and keeps no "
                         f"parts: --cv reports cannot be resumed; {KEEP}")
    if (not isinstance(old, dict) or old.get("benchmark") != header.get("benchmark")
            or not isinstance(units, dict)):
        raise ValueError(f"--resume: {path} is not a report of `tiermem eval locomo`; {KEEP}")
    for config, by_conv in units.items():
        stored = by_conv.items() if isinstance(by_conv, dict) else [("", by_conv)]
        for conv, unit in stored:
            if not isinstance(unit, dict):
                where = f"{config} on conversation {conv}" if conv else f"{config}'s parts"
                raise ValueError(f"--resume: the record of {where} in {path} is damaged (not "
                                 f"an object); {KEEP}")
    # Another mode differs in everything; its other settings would only add noise.
    # Another embedder's parts would be run again, replacing the report's without a word.
    keys = ["mode"] if old.get("mode") != header.get("mode") else \
        [key for key in _SETTINGS if key in header and (key != "embedder" or key in old)]
    unrecorded = [key for key in keys if key in MODEL_SETTINGS and key not in old]
    differ = [f"{_SETTINGS[key]} {_shown(old.get(key), key)} (this run: "
              f"{_shown(header.get(key), key)})"
              for key in keys if key not in unrecorded and old.get(key) != header.get(key)]
    differ += [f"{_SETTINGS[key]} at its default (the report predates its recording; this "
               f"run: {_shown(header.get(key))})" for key in unrecorded if key in chosen]
    if differ:
        raise ValueError(f"--resume: {path} was run with {', '.join(differ)}; run with its "
                         f"settings to finish it, or {KEEP}")
    if "model" in header:
        _check_model(path, old, header)
    # Its units were asked with the defaults, which this run keeps: recorded as such, so they
    # match this run's units.
    for unit in (unit for by_conv in units.values() for unit in by_conv.values()):
        fingerprint = unit.get("fingerprint")
        for key in unrecorded if isinstance(fingerprint, dict) else ():
            fingerprint.setdefault(key, header[key])
    return units


#: How reports before the model was recorded by name held it: the client's name, with the
#: server's address (``openai:NAME @ URL``).
_NAMED_AT = re.compile(r"openai:(.*) @ \S+")


def _model_name(recorded: Any) -> Any:
    """The model's name in a report's ``model``, as this run records it."""
    match = _NAMED_AT.fullmatch(recorded) if isinstance(recorded, str) else None
    return match.group(1) if match else recorded


def _check_model(path: Path, old: dict[str, Any], header: dict[str, Any]) -> None:
    """ValueError when the report at ``path`` holds another model's answers than this run
    asks: another name, or another model the server lists under the name (a llama.cpp
    server answers to any name with the model it loaded). Where the server listens is not
    the model: a server restarted on another port, or reached as localhost rather than
    127.0.0.1, resumes."""
    name, then = header.get("model"), _model_name(old.get("model"))
    if then != name:
        raise ValueError(f"--resume: {path} holds the answers of the model {_shown(then)} and "
                         f"this run asks {_shown(name)}: pass --model {_shown(then)} (at any "
                         f"--base-url that serves it) to finish it, or {KEEP}")
    served, served_then = header.get("served_model"), old.get("served_model")
    if served is None and served_then is not None:
        # The server does not say now (unreached, or listing several models but not this
        # name): the report still holds that model's answers, and a later resume must still
        # tell another model from it, so the id it recorded stays.
        header["served_model"] = served_then
    if served is not None and served_then is not None and served != served_then:
        raise ValueError(f"--resume: {path} holds the answers of {served_then}, as the server "
                         f"listed the model {_shown(name)} then, and the server now lists "
                         f"{served}: load {served_then} again to finish it, or {KEEP}")


def kept_note(path: Path | None) -> str:
    """What an interrupted run leaves: how much of it the report at ``path`` keeps."""
    if path is None:
        return ("interrupted: nothing was kept (with --json PATH each finished part is kept, "
                "and --resume continues the run)")
    if not path.exists():
        return f"interrupted: nothing was kept (no part had finished, so {path} was not written)"
    try:
        units = json.loads(path.read_text(encoding="utf-8"))["units"]
        parts = [unit for by_conv in units.values() for unit in by_conv.values()]
        finished = sum(bool(unit.get("done")) for unit in parts)
        answers = sum(len(unit.get("questions", ())) for unit in parts if not unit.get("done"))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return f"interrupted: nothing was kept ({path} holds no report of this run)"
    unfinished = f", and {_count(answers, 'answer')} of parts not finished" if answers else ""
    return (f"interrupted: the report at {path} keeps {_count(finished, 'finished part')}"
            f"{unfinished}; the same command with --resume continues it")


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


def _shown(value: Any, key: str = "") -> str:
    if value is None:
        return "unset"
    if key == "embedder" and isinstance(value, str):
        # A report records the embedder's id ("hashing-uni-bi-256"), not the name to give.
        from tiermem.evals.embedders import embedder_name

        return embedder_name(value) or value
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


# What is shown of a report (evals/figures.py) is importable from here too.
__all__ = ["KEEP", "MODEL_SETTINGS", "Expected", "Record", "Report", "UnitLog", "by_category",
           "format_column", "kept_note", "mean", "percentile", "questions_digest", "render",
           "resumable_units"]
