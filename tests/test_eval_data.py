"""LoCoMo data that would fail or mislead a run is refused as it loads, naming where."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from locomo_helpers import two_turns

from tiermem.cli import run
from tiermem.evals.locomo import DataError, load_conversations


def _turn(field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["session_1"][1].__setitem__(field, value)


def _question(field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["qa"][1].__setitem__(field, value)


TURN = r"conversation 7, turn session_1\[1\]"
QUESTION = r"conversation 7, question 7:1 \(qa\[1\]\)"
DAMAGE: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "an empty question": (_question("question", ""), QUESTION + ": the question is empty"),
    "a blank question": (_question("question", " \n"), QUESTION + ": the question is empty"),
    "a null question": (_question("question", None), QUESTION + ": question is missing"),
    "a NUL in a question": (_question("question", "a\x00b"),
                            QUESTION + r": question contains a NUL character \(at 1\)"),
    "a question longer than a search": (_question("question", "why " * 3000),
                                        QUESTION + ": question is 12,000 characters, over "
                                                   "the 10,000"),
    "a NUL in a turn": (_turn("text", "hi\x00there"),
                        TURN + r": text contains a NUL character \(at 2\)"),
    "a turn too long to store": (_turn("text", "x" * 60_000),
                                 TURN + ": text is 60,000 characters, over the 50,000"),
    "a turn and its photo too long to store": (
        lambda data: data["session_1"][1].update(text="x" * 40_000, blip_caption="y" * 20_000),
        TURN + r" \(D1:2\) is 60,003 characters, over the 50,000"),
    "a list as a turn's text": (_turn("text", ["a", "b"]),
                                TURN + r": text is list \[\"a\", \"b\"\], not text"),
    "two turns with one dia_id": (_turn("dia_id", "D1:01"),
                                  TURN + r" has the dia_id D1:1 of session_1\[0\]"),
    "evidence as a string": (_question("evidence", "D1:2"),
                             QUESTION + ": evidence is \"D1:2\"; give a list of dia_ids"),
    "a fractional category": (_question("category", 2.7),
                              QUESTION + ": category is 2.7, not a whole number"),
    "an infinite category": (_question("category", float("inf")),
                             QUESTION + ": category is Infinity, not a whole number"),
    "a category as text": (_question("category", "2"),
                           QUESTION + ": category is \"2\", not a whole number"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_field_the_run_would_fail_on_is_refused_as_the_file_loads(
        tmp_path: Path, damage: str) -> None:
    data = two_turns()
    change, message = DAMAGE[damage]
    change(data)
    path = tmp_path / "7.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DataError, match=rf"^{path}: {message}"):
        load_conversations([path])


@pytest.mark.parametrize(("text", "said"), [
    ('{"qa": [{"category": ' + "9" * 5000 + "}]}",
     "it holds a number of 5,000 digits, which no LoCoMo field has"),
    ("[" * 100_000 + "]" * 100_000, "its arrays or objects nest too deeply to be LoCoMo data"),
])
def test_json_python_cannot_read_is_a_data_error_not_a_traceback(
        tmp_path: Path, text: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "7.json"
    path.write_text(text)
    assert run(["eval", "locomo", "--data", str(path), "--embedder", "hashing"]) == 2
    error = capsys.readouterr().err
    assert f"cannot read {path}: {said}" in error
    assert "Traceback" not in error and "set_int_max_str_digits" not in error


def test_dropped_evidence_is_said_once(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    data = two_turns()
    data["qa"][0]["evidence"] = ["D1:1", "D4:4"]
    data["qa"][1]["evidence"] = ["D9:1; D9:2"]
    path = tmp_path / "7.json"
    path.write_text(json.dumps(data))
    assert run(["eval", "locomo", "--data", str(path), "--embedder", "hashing",
                "--config", "bm25", "dense"]) == 0
    error = capsys.readouterr().err
    said = ("evidence ids that name no turn of their conversation, dropped: 3 (by conversation, "
            "7: 3); questions left with no evidence, which retrieval does not score: 1")
    assert error.count("dropped") == 1 and said in " ".join(error.split())


def test_a_data_path_that_is_not_there_says_what_it_must_hold(tmp_path: Path) -> None:
    # The bare "no LoCoMo data at PATH" gave no next step: what --data takes, and where
    # the data comes from.
    with pytest.raises(DataError) as refused:
        load_conversations([tmp_path / "nonexistent"])
    assert str(refused.value) == (
        f"no LoCoMo data at {tmp_path / 'nonexistent'}: --data takes LoCoMo JSON files or "
        "folders of them (one conversation per file, or the released locomo10.json, in the "
        "data folder of https://github.com/snap-research/locomo)")


@pytest.mark.parametrize(("text", "said"), [
    ("hello", "cannot read {path}: it is not JSON (Expecting value, line 1); --data takes "),
    ("[1, 2]", "{path}: expected a conversation object, got a number; --data takes "),
    ('"x"', "{path}: expected a conversation object, got a string; --data takes "),
])
def test_a_file_of_no_conversation_says_what_data_takes(
        tmp_path: Path, text: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    # These printed the parser's bare "Expecting value: line 1 column 1 (char 0)" and
    # "got <class 'int'>", with no next step.
    path = tmp_path / "7.json"
    path.write_text(text)
    assert run(["eval", "locomo", "--data", str(path), "--embedder", "hashing"]) == 2
    error = " ".join(capsys.readouterr().err.split())
    assert said.format(path=path) in error and "<class" not in error


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-be", "utf-32",
                                      "utf-32-be"])
def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path, encoding: str) -> None:
    # Refused as "not JSON (Unexpected UTF-8 BOM (decode using utf-8-sig))", and in UTF-16
    # as "it is not UTF-8 text (byte 0 is 0xff)"; UTF-32, read as UTF-16 then, as "it is
    # not JSON (Expecting value, line 1)".
    path = tmp_path / "7.json"
    text = json.dumps(two_turns())
    path.write_bytes(("\ufeff" + text).encode(encoding) if encoding.endswith("-be") else
                     text.encode(encoding))
    (conversation,) = load_conversations([path])
    assert conversation.id == "7" and len(conversation.turns) == 2


@pytest.mark.parametrize(("content", "said"), [
    (gzip.compress(b"[]"), "cannot read {path}: it is gzip-compressed; decompress it (gunzip) "
                           "and give the .json file"),
    (b'{"x": "caf\xe9"}', "cannot read {path}: it is not UTF-8 text (byte 10 is 0xe9); save "
                          "it as UTF-8"),
    (b"[]", "no conversations found in {path} (an empty list); --data takes "),
    # These read "it is not UTF-8 text (byte 10 is 0xc1); save it as UTF-8".
    (bz2.compress(b"[]"), "cannot read {path}: it is bzip2-compressed; decompress it "
                          "(bunzip2) and give the .json file"),
    (lzma.compress(b"[]"), "cannot read {path}: it is xz-compressed; decompress it (unxz) "),
    (b"PK\x03\x04\x14\x00", "cannot read {path}: it is a zip archive; decompress it (unzip) "),
    # An archive of no file was read as text: "it is not JSON (Expecting value, line 1)".
    (b"PK\x05\x06" + bytes(18), "cannot read {path}: it is an empty zip archive, holding no "
                                 "conversations (no file at all); --data takes LoCoMo JSON "),
], ids=["gzip", "latin-1", "empty list", "bzip2", "xz", "zip", "empty zip"])
def test_a_file_python_cannot_decode_says_what_it_is(
        tmp_path: Path, content: bytes, said: str) -> None:
    # These read "'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte",
    # and "no conversations found in PATH" with no next step.
    path = tmp_path / "7.json"
    path.write_bytes(content)
    with pytest.raises(DataError) as refused:
        load_conversations([path])
    assert str(refused.value).startswith(said.format(path=path))


def _zipped(members: dict[str, str], path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return path


@pytest.mark.parametrize(("members", "said"), [
    ({"data/": ""}, "of folders alone (no file at all)"),
    ({"notes.txt": "hello", "data/notes.csv": "a,b"}, "of no .json file (2 files of another "
                                                      "type)"),
    ({"locomo10.json": ""}, "whose .json file is empty"),
])
def test_a_zip_archive_of_no_conversation_says_what_it_holds(
        tmp_path: Path, members: dict[str, str], said: str) -> None:
    # Each was told to decompress it (unzip) and give the .json file, which it does not hold.
    path = _zipped(members, tmp_path / "data.zip")
    with pytest.raises(DataError) as refused:
        load_conversations([path])
    assert str(refused.value).startswith(f"cannot read {path}: it is a zip archive {said}, "
                                         "holding no conversations; --data takes LoCoMo JSON ")


def test_a_zip_archive_of_a_json_file_is_told_to_be_decompressed(tmp_path: Path) -> None:
    path = _zipped({"locomo10.json": "[]"}, tmp_path / "data.zip")
    with pytest.raises(DataError) as refused:
        load_conversations([path])
    assert str(refused.value) == (f"cannot read {path}: it is a zip archive; decompress it "
                                  "(unzip) and give the .json file")


def test_a_folder_of_no_json_file_says_so_and_what_data_takes(tmp_path: Path) -> None:
    (tmp_path / "locomo10.json.gz").write_bytes(gzip.compress(b"[]"))
    with pytest.raises(DataError) as refused:
        load_conversations([tmp_path])
    assert str(refused.value).startswith(
        f"no conversations found in {tmp_path} (no .json file there); --data takes LoCoMo "
        f"JSON files or folders of them")
