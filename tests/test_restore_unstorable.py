"""A snapshot an older version wrote holding text no store of this version holds.

Older versions wrote a NUL, or a lone surrogate, into a snapshot as they stored it. Such a
backup restores, found usable when it is needed: each one held as U+FFFD, as a migrate
copies it and a snapshot holds it, and the values so changed named. The file is checked
as it was written; nothing else a restore refuses is let through (the refusals are pinned
in tests/test_snapshot_restore_refusals.py).
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from snapshot_helpers import facts_of, restore, row_index, small_snapshot

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import SnapshotError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops.snapshot import read_snapshot


def _old_snapshot() -> tuple[dict[str, Any], int, int]:
    """The small snapshot as an older version could write it: a NUL in a fact's text and
    in the summary's JSON text, a lone surrogate in a message; the fact's and the
    message's ids."""
    snap = small_snapshot()
    fact = facts_of(snap)[0]
    fact["text"] = fact["text"].replace(" ", "\x00 ", 1)
    messages = snap["tables"]["messages"]
    message = messages[row_index(messages, role="user")]
    message["content"] = "hi \ud800 there"
    snap["state"]["summary"] = snap["state"]["summary"].replace("a summary", "a\x00 summary")
    return snap, fact["id"], message["id"]


def test_a_file_holding_a_nul_restores_with_u_fffd_and_names_what_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    snap, fact, message = _old_snapshot()
    text = facts_of(snap)[0]["text"]
    file = tmp_path / "old.json"
    file.write_text(json.dumps(snap), encoding="utf-8")  # as json.dumps wrote it then
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "homes"))
    assert main(["restore", str(file), "--agent", "zed"]) == 0
    err = capsys.readouterr().err
    assert ("restored with U+FFFD in place of each NUL or lone surrogate the snapshot holds, "
            "which no store of this version holds: setting 'state.summary', facts "
            f"{fact} (text), messages {message} (content); the snapshot keeps them as they "
            "were") in err, err
    with HierarchicalMemory(tmp_path / "homes" / "agents" / "zed",
                            embedder=HashingEmbedder()) as restored:
        assert text.replace("\x00", "\ufffd") in [f.text for f in restored.facts()]
        contents = {m["id"]: m["content"] for m in restored.store.export_rows("messages")}
        assert contents[message] == "hi \ufffd there"
        assert restored.get_state("summary")["text"] == "a\ufffd summary"
    assert json.loads(file.read_text(encoding="utf-8")) == snap  # the file as it was


def test_the_file_is_checked_as_it_was_written(tmp_path: Path) -> None:
    # The bytes a restore reads twice (checked, then written) are hashed as they are in the
    # file, before any U+FFFD is put in: a file changed between the two is still caught.
    snap, _, _ = _old_snapshot()
    file = tmp_path / "old.json"
    file.write_text(json.dumps(snap), encoding="utf-8")
    assert read_snapshot(file).digest == hashlib.sha256(file.read_bytes()).hexdigest()


def test_a_dict_holding_a_nul_restores_and_is_left_as_it_was(
        caplog: pytest.LogCaptureFixture) -> None:
    snap, fact, message = _old_snapshot()
    given = copy.deepcopy(snap)
    with caplog.at_level(logging.WARNING, logger="tiermem"), restore(snap) as restored:
        assert "\x00" not in json.dumps(restored.snapshot(), ensure_ascii=False)
    assert snap == given
    assert [r.getMessage().split(": ", 1)[1] for r in caplog.records] == [
        f"setting 'state.summary', facts {fact} (text), messages {message} (content); the "
        f"snapshot keeps them as they were"]


def test_a_snapshot_of_storable_text_restores_saying_nothing(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="tiermem"), restore(small_snapshot()):
        pass
    assert caplog.records == []


@pytest.mark.parametrize("as_file", [False, True])
def test_state_keys_that_would_merge_into_one_are_refused_by_name(
        tmp_path: Path, as_file: bool) -> None:
    # "note\0" and "note\ud800" are two keys in the file, but one once each is held as
    # U+FFFD: taking both would keep one value and silently drop the other.
    snap = small_snapshot()
    snap["state"]["note\x00"] = json.dumps({"text": "first"})
    snap["state"]["note\ud800"] = json.dumps({"text": "second"})
    source: Any = snap
    if as_file:
        source = tmp_path / "old.json"
        source.write_text(json.dumps(snap), encoding="utf-8")
    with pytest.raises(SnapshotError) as refused:
        read_snapshot(source)
    assert "'note\\x00' and 'note\\ud800'" in str(refused.value)
    assert "rename or remove one of them" in str(refused.value)
    assert refused.value.fields == ("state.note\ufffd",)


def test_a_key_already_holding_u_fffd_and_one_that_would_are_refused() -> None:
    snap = small_snapshot()
    snap["state"]["note\ufffd"] = json.dumps({"text": "first"})
    snap["state"]["note\x00"] = json.dumps({"text": "second"})
    with pytest.raises(SnapshotError, match="'note\ufffd' and 'note\\\\x00'"):
        read_snapshot(snap)
