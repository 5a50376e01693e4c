"""LoCoMo conversations as data, and the retrieval metrics scored on them.

LoCoMo (Maharana et al., ACL 2024) ships each conversation as a JSON object with
``speaker_a``, ``speaker_b``, ``session_N`` turn lists, ``session_N_date_time``
strings and a ``qa`` list. Two layouts are read: one conversation per file (the
object itself), and the released ``locomo10.json`` (a list of samples, each with
``sample_id``, ``conversation`` and ``qa``).

Quirks handled here, because the released data has them:

- Session dates are free text such as ``1:56 pm on 8 May, 2023``.
- An evidence entry may hold several ids in one string (``"D8:6; D9:17"``),
  and a few ids are malformed (``"D:11:26"``, ``"D30:05"``); every
  ``D<session>:<turn>`` pair in an entry is read and normalised.
- Evidence that names no turn of the conversation is dropped; a question left
  with no evidence is not scored for retrieval. How many were dropped is said
  once, as the run starts (``dropped_note``).

Anything else that would fail the run part-way or mislead its figures is
refused as the file loads (``DataError``, naming the file, the conversation and
the question or turn): text the memory cannot store, an empty question, a
category that is not a whole number, evidence that is not a list, two turns
with one dia_id.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tiermem.evals.data_file import DATA_TAKES, DataError, file_text, json_int
from tiermem.memory.validation import MAX_TEXT_CHARS
from tiermem.user_paths import expanded

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

_DATE = re.compile(
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<ampm>[ap])\.?\s*m\.?\s+on\s+"
    r"(?P<day>\d{1,2})\s+(?P<month>[A-Za-z]+)\.?,?\s+(?P<year>\d{4})",
    re.IGNORECASE,
)
_MONTHS = {
    name: number
    for number, full in enumerate(
        ("january", "february", "march", "april", "may", "june", "july", "august",
         "september", "october", "november", "december"), start=1)
    for name in (full, full[:3], full[:4])
}
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)
_SESSION_KEY = re.compile(r"session_(\d+)")
#: The longest turn taken, in characters: the memory stores a turn with its two neighbours
#: in one passage of at most MAX_TEXT_CHARS.
MAX_TURN_CHARS = MAX_TEXT_CHARS // 4
#: The longest question taken, in characters: the most a search takes (memory/search/fusion.py).
MAX_QUESTION_CHARS = 10_000


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    index: int  # position in its session, from 0
    speaker: str
    text: str
    caption: str | None
    created_at: float  # the session's date, Unix seconds (UTC)


@dataclass(frozen=True)
class Question:
    qid: str  # "<conversation>:<index in qa>"
    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int


@dataclass
class Conversation:
    id: str
    speakers: tuple[str, str]
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    dropped_evidence: int = 0  # evidence ids that name no turn of the conversation
    dropped_questions: int = 0  # questions all of whose evidence was dropped

    def scored_questions(self) -> list[Question]:
        """Questions with at least one evidence turn (the ones retrieval can be scored on)."""
        return [q for q in self.questions if q.evidence]


def parse_session_date(text: str) -> dt.datetime:
    """``"1:56 pm on 8 May, 2023"`` -> 2023-05-08 13:56 UTC (LoCoMo gives no time zone)."""
    match = _DATE.search(text or "")
    month = _MONTHS.get(match.group("month").lower()) if match else None
    if match is None or month is None:
        raise DataError(f"cannot read the session date {text!r} (expected like "
                        "'1:56 pm on 8 May, 2023')")
    hour = int(match.group("hour")) % 12 + (12 if match.group("ampm").lower() == "p" else 0)
    return dt.datetime(int(match.group("year")), month, int(match.group("day")), hour,
                       int(match.group("minute")), tzinfo=dt.UTC)


def parse_evidence(entries: Iterable[Any]) -> list[str]:
    """Every ``D<session>:<turn>`` id in ``entries``, normalised, de-duplicated, in order."""
    seen: dict[str, None] = {}
    for entry in entries:
        for session, turn in _EVIDENCE.findall(str(entry)):
            seen.setdefault(f"D{int(session)}:{int(turn)}", None)
    return list(seen)


def _answer_text(qa: dict[str, Any], where: str) -> str:
    value = qa.get("answer", qa.get("adversarial_answer", ""))
    if value is None:
        return ""
    # A few released answers are numbers (a year).
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return _text(value, f"{where}: answer")


def _text(value: Any, what: str, *, most: int = MAX_TURN_CHARS) -> str:
    """``value`` when it is text the memory can store: a string with no NUL and no lone
    surrogate, at most ``most`` characters; DataError (naming ``what``) otherwise."""
    if value is None:
        raise DataError(f"{what} is missing; give its text")
    if not isinstance(value, str):
        raise DataError(f"{what} is {type(value).__name__} {json.dumps(value)[:40]}, not text; "
                        "give a string")
    if "\x00" in value:
        raise DataError(f"{what} contains a NUL character (at {value.index(chr(0))}); remove it")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise DataError(f"{what} is not valid UTF-8 (a lone surrogate at {exc.start}); fix "
                        "the file's encoding") from None
    if len(value) > most:
        raise DataError(f"{what} is {len(value):,} characters, over the {most:,} the memory "
                        f"takes; shorten it")
    return value


def _optional_text(value: Any, what: str) -> str:
    return "" if value is None else _text(value, what).strip()


def _category(qa: dict[str, Any], where: str) -> int:
    value = qa.get("category", 0)
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(f"{where}: category is {json.dumps(value)[:40]}, not a whole number; "
                        "give one of 1 to 5 (see the README of the data)")
    return value


def _evidence(qa: dict[str, Any], where: str) -> list[str]:
    entries = qa.get("evidence")
    if entries is None:
        return []
    # A string would be read character by character, and no id found in it.
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise DataError(f"{where}: evidence is {json.dumps(entries)[:40]}; give a list of "
                        'dia_ids like ["D1:3"]')
    return parse_evidence(entries)


def parse_conversation(raw: dict[str, Any], conv_id: str) -> Conversation:
    """One conversation from its JSON object (either layout).

    DataError for a field that would fail or mislead the run: text the memory cannot store,
    an empty question, a category that is not a whole number, evidence that is not a list,
    two turns with one dia_id.
    """
    body = raw.get("conversation", raw)
    try:
        speakers = (str(body["speaker_a"]), str(body["speaker_b"]))
    except KeyError as exc:
        raise DataError(f"conversation {conv_id} has no {exc.args[0]}") from None
    conv = Conversation(id=conv_id, speakers=speakers)
    sessions = sorted(
        int(m.group(1)) for key in body if (m := _SESSION_KEY.fullmatch(key))
    )
    where_turn: dict[str, str] = {}
    for number in sessions:
        turns = body.get(f"session_{number}") or []
        if not turns:
            continue
        stamp = parse_session_date(str(body.get(f"session_{number}_date_time", ""))).timestamp()
        for index, turn in enumerate(turns):
            where = f"conversation {conv_id}, turn session_{number}[{index}]"
            dia_id = parse_evidence([turn.get("dia_id", "")])
            text = _optional_text(turn.get("text"), f"{where}: text")
            caption = _optional_text(turn.get("blip_caption"), f"{where}: blip_caption") or None
            speaker = _optional_text(turn.get("speaker"), f"{where}: speaker")
            if not dia_id or not (text or caption):
                continue
            if dia_id[0] in where_turn:
                raise DataError(f"{where} has the dia_id {dia_id[0]} of "
                                f"{where_turn[dia_id[0]]}; give each turn its own")
            where_turn[dia_id[0]] = f"session_{number}[{index}]"
            length = len(speaker) + len(text) + len(caption or "")
            if length > MAX_TURN_CHARS:
                raise DataError(f"{where} ({dia_id[0]}) is {length:,} characters, over the "
                                f"{MAX_TURN_CHARS:,} the memory takes; shorten it")
            conv.turns.append(Turn(dia_id[0], number, index, speaker, text, caption, stamp))
    for index, qa in enumerate(raw.get("qa", [])):
        qid = f"{conv_id}:{index}"
        where = f"conversation {conv_id}, question {qid} (qa[{index}])"
        question = _text(qa.get("question"), f"{where}: question", most=MAX_QUESTION_CHARS)
        if not question.strip():
            raise DataError(f"{where}: the question is empty; give its text, or remove it")
        evidence = _evidence(qa, where)
        kept = tuple(e for e in evidence if e in where_turn)
        conv.dropped_evidence += len(evidence) - len(kept)
        conv.dropped_questions += bool(evidence) and not kept
        conv.questions.append(Question(qid, question, _answer_text(qa, where), kept,
                                       _category(qa, where)))
    return conv


def _conv_id(raw: dict[str, Any], fallback: str) -> str:
    sample = str(raw.get("sample_id") or "")
    digits = re.findall(r"\d+", sample)
    return digits[-1] if digits else (sample or fallback)


_JSON_KINDS = {list: "a list", str: "a string", int: "a number", float: "a number",
               bool: "true or false", type(None): "null"}


def load_conversations(paths: Sequence[str | Path]) -> list[Conversation]:
    """Conversations from files and directories (``*.json`` inside), in a stable order."""
    files: list[Path] = []
    for item in paths:
        path = expanded(item)
        if path.is_dir():
            files.extend(sorted(path.glob("*.json"), key=_natural))
        elif path.is_file():
            files.append(path)
        else:
            raise DataError(f"no LoCoMo data at {path}: {DATA_TAKES}")
    # A file named twice (itself and in its directory) is read once.
    unique: dict[Path, Path] = {}
    for file in files:
        unique.setdefault(file.resolve(), file)
    conversations: list[Conversation] = []
    read_from: dict[str, Path] = {}
    for file in unique.values():
        try:
            raw = json.loads(file_text(file), parse_int=json_int)
        except json.JSONDecodeError as exc:
            raise DataError(f"cannot read {file}: it is not JSON ({exc.msg}, line "
                            f"{exc.lineno}); {DATA_TAKES}") from None
        except (OSError, ValueError) as exc:
            raise DataError(f"cannot read {file}: {exc}") from None
        except RecursionError:
            raise DataError(f"cannot read {file}: its arrays or objects nest too deeply to be "
                            "LoCoMo data") from None
        samples = raw if isinstance(raw, list) else [raw]
        for number, sample in enumerate(samples):
            if not isinstance(sample, dict):
                raise DataError(f"{file}: expected a conversation object, got "
                                f"{_JSON_KINDS.get(type(sample), type(sample).__name__)}; "
                                f"{DATA_TAKES}")
            fallback = file.stem if len(samples) == 1 else f"{file.stem}-{number}"
            conv_id = _conv_id(sample, fallback)
            if conv_id in read_from:
                # Reports and --conversations name conversations by id: two with one id
                # would mix, and one given twice would count twice in every figure.
                raise DataError(
                    f"two conversations have the id {conv_id}, in {read_from[conv_id]} and "
                    f"{file} (an id is the last number of a conversation's sample_id, else its "
                    f"file's name); give each conversation once, and distinct ones distinct "
                    f"ids")
            read_from[conv_id] = file
            try:
                conversations.append(parse_conversation(sample, conv_id))
            except DataError as exc:
                raise DataError(f"{file}: {exc}") from None
            except (AttributeError, TypeError, ValueError, KeyError) as exc:
                # A field of another shape than LoCoMo's: say where, not a traceback.
                raise DataError(
                    f"{file}: conversation {conv_id} is not in LoCoMo's format "
                    f"({type(exc).__name__}: {exc}); see the README of the data for the "
                    f"fields each conversation needs") from None
    if not conversations:
        where = ", ".join(map(str, paths))
        raise DataError(f"no conversations found in {where} ("
                        f"{'no .json file there' if not files else 'an empty list'}); "
                        f"{DATA_TAKES}")
    return conversations


def dropped_note(conversations: Sequence[Conversation]) -> str | None:
    """What loading dropped, in one line: evidence ids that name no turn, and the questions
    left with none (retrieval does not score those)."""
    ids = sum(c.dropped_evidence for c in conversations)
    if not ids:
        return None
    where = ", ".join(f"{c.id}: {c.dropped_evidence}" for c in conversations
                      if c.dropped_evidence)
    questions = sum(c.dropped_questions for c in conversations)
    return (f"evidence ids that name no turn of their conversation, dropped: {ids} "
            f"(by conversation, {where}); questions left with no evidence, which retrieval "
            f"does not score: {questions}")


def select(conversations: list[Conversation], wanted: Sequence[str] | None) -> list[Conversation]:
    """The conversations whose id is in ``wanted`` (all when it is empty)."""
    if not wanted:
        return conversations
    chosen = [c for c in conversations if c.id in wanted]
    missing = set(wanted) - {c.id for c in chosen}
    if missing:
        have = ", ".join(c.id for c in conversations)
        raise DataError(f"no conversation {', '.join(sorted(missing))} (have: {have})")
    return chosen


def _natural(path: Path) -> tuple[int, str]:
    digits = re.findall(r"\d+", path.stem)
    return (int(digits[-1]) if digits else 1 << 30, path.stem)


# -- metrics ---------------------------------------------------------------------------------
def evidence_recall(ranked: Sequence[Sequence[str]], evidence: Sequence[str], k: int) -> float:
    """Share of ``evidence`` among the dia_ids of the first ``k`` hits.

    Each hit maps to one or more dia_ids (a fact extracted from a turn maps to
    that turn).
    """
    found = {d for hit in ranked[:k] for d in hit}
    return sum(e in found for e in evidence) / len(evidence)


def reciprocal_rank(ranked: Sequence[Sequence[str]], evidence: Sequence[str]) -> float:
    """1 / rank of the first hit that is evidence, or 0 when none is."""
    wanted = set(evidence)
    for rank, hit in enumerate(ranked, start=1):
        if wanted.intersection(hit):
            return 1.0 / rank
    return 0.0
