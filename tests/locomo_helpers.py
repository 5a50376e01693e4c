"""A small LoCoMo conversation for the evaluation's tests, and writing one to a file."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

_TWO_TURNS: dict[str, Any] = {
    "speaker_a": "Ann", "speaker_b": "Bob",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy named Rex yesterday."},
        {"speaker": "Bob", "dia_id": "D1:2", "text": "I started learning the violin."},
    ],
    "qa": [
        {"question": "What is the name of Ann's puppy?", "answer": "Rex",
         "evidence": ["D1:1"], "category": 4},
        {"question": "What did Bob start learning?", "answer": "violin",
         "evidence": ["D1:2"], "category": 4},
    ],
}


def two_turns() -> dict[str, Any]:
    """Two turns and a question about each: a fresh copy, safe to change."""
    return copy.deepcopy(_TWO_TURNS)


def write_conversation(path: Path, conversation: dict[str, Any]) -> Path:
    """``conversation`` as a LoCoMo file at ``path`` (its directory made); returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(conversation))
    return path
