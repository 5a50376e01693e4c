"""Snapshot files of any size restored in bounded memory: read a row at a time, checked
whole before anything is written, with the same errors the snapshot as a dict gets (and,
as the cause of a SnapshotError, the JSON errors ``json.loads`` gives), and restored to
the same memory."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from snapshot_helpers import check_restored, leftovers, restore, small_snapshot

import tiermem.memory.ops.snapshot_source as snapshot_source
from tiermem.memory.errors import SnapshotError
from tiermem.memory.ops.snapshot import read_snapshot

DATA = Path(__file__).parent / "data"


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Any]:
    with restore(small_snapshot(), tmp_path / "home") as m:
        yield m


def _snapshot_of(m: Any) -> dict[str, Any]:
    return json.loads(json.dumps(m.snapshot()))


def test_a_file_restores_the_memory_its_dict_restores(memory: Any, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot_source, "CHUNK", 7)  # every value split across reads
    memory.write_snapshot(tmp_path / "s.json")
    steps: list[tuple[str, int, int]] = []
    with restore(tmp_path / "s.json", tmp_path / "from-file",
                 progress=lambda *step: steps.append(step)) as from_file:
        check_restored(from_file)
        got = _snapshot_of(from_file)
    with restore(json.loads((tmp_path / "s.json").read_text()), tmp_path / "from-dict") as m:
        assert got == _snapshot_of(m)
    size = (tmp_path / "s.json").stat().st_size
    assert ("reading", size, size) in steps
    rows = sum(len(t) for t in memory.snapshot()["tables"].values())
    assert ("restoring", rows, rows) in steps
    assert steps[-1] == ("committed", rows, rows)  # once, when the memory is in place
    assert [step for step, _, _ in steps].count("committed") == 1


def test_a_smaller_chunk_reads_the_file_in_pieces_of_it(memory: Any, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # The tests that split values across reads set CHUNK: each read must take it, not the
    # size it had when the reader was defined.
    monkeypatch.setattr(snapshot_source, "CHUNK", 64)
    memory.write_snapshot(tmp_path / "s.json")
    reads: list[int] = []
    read_snapshot(tmp_path / "s.json", lambda step, done, size: reads.append(done))
    size = (tmp_path / "s.json").stat().st_size
    assert reads[0] == 64 < size and len(reads) > 10


def test_rows_restored_without_a_vector_are_embedded_a_page_at_a_time(
        memory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.memory.ops import snapshot_rows
    from tiermem.memory.store.sqlite.messages import SQLiteMessages
    from tiermem.memory.store.sqlite.passages import SQLitePassages

    memory.write_snapshot(tmp_path / "s.json", include_vectors=False)
    monkeypatch.setattr(snapshot_rows, "_EMBED_PAGE", 2)
    limits: list[int | None] = []
    for cls in (SQLitePassages, SQLiteMessages):
        texts = cls.texts

        def paged(self: Any, *args: Any, _texts: Any = texts, **kwargs: Any) -> Any:
            limits.append(kwargs.get("limit"))
            return _texts(self, *args, **kwargs)

        monkeypatch.setattr(cls, "texts", paged)
    steps: list[tuple[str, int, int]] = []
    with restore(tmp_path / "s.json", tmp_path / "home2",
                 progress=lambda *step: steps.append(step)) as m:
        check_restored(m)
        vectors = m.store.execute("SELECT count(*) FROM passages WHERE embedding IS NOT NULL"
                                  ).fetchone()[0]
        assert vectors == len(m.archival) > 2
    assert limits and set(limits) == {2}  # never every row at once
    embedded = [done for step, done, _ in steps if step == "embedding"]
    total = {total for step, _, total in steps if step == "embedding"}
    assert embedded == sorted(embedded) and total == {embedded[-1]}


def test_a_format_1_file_with_its_tables_in_another_order_restores(tmp_path: Path) -> None:
    # Its keys are sorted: "tables" is last, its members in another order than written now.
    source = DATA / "snapshot_v1.json"
    with restore(source, tmp_path / "a") as from_file:
        got = _snapshot_of(from_file)
    with restore(json.loads(source.read_text()), tmp_path / "b") as from_dict:
        assert got == _snapshot_of(from_dict)


def test_the_reader_holds_a_bounded_piece_of_the_file(memory: Any, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    snap = memory.snapshot()
    rows = snap["tables"]["messages"]
    snap["tables"]["messages"] = [{**rows[i % len(rows)], "id": i + 1} for i in range(3000)]
    (tmp_path / "big.json").write_text(json.dumps(snap))
    monkeypatch.setattr(snapshot_source, "CHUNK", 4096)
    held = {"most": 0}
    fill = snapshot_source.JsonStream._fill

    def watched(self: Any, at_least: int = 4096) -> bool:
        more = fill(self, at_least)
        held["most"] = max(held["most"], len(self._buf))
        return more

    monkeypatch.setattr(snapshot_source.JsonStream, "_fill", watched)
    read = read_snapshot(tmp_path / "big.json")
    assert read.checked.rows["messages"] == 3000
    assert held["most"] < 3 * 4096 < (tmp_path / "big.json").stat().st_size // 100


def _error(snap: Any) -> str:
    with pytest.raises(SnapshotError) as caught:
        read_snapshot(snap)
    return f"{caught.value} {caught.value.fields}"


@pytest.mark.parametrize("edit", [
    lambda s: s["settings"].update(embedder_id="\x00"),
    lambda s: s["tables"]["facts"][0].update(extra=1),
    lambda s: s["tables"]["passages"].append(s["tables"]["passages"][0]),
    lambda s: s["tables"].update(facts=3),
    lambda s: s["tables"].update(other=[]),
    lambda s: s["settings"].update(tick=0),
    lambda s: s["tables"]["messages"][0].update(embedding="AAAA"),
    lambda s: s.update(extra=1),
])
def test_a_file_is_refused_with_the_error_its_dict_gets(edit: Any, tmp_path: Path) -> None:
    snap = small_snapshot()
    edit(snap)
    (tmp_path / "bad.json").write_text(json.dumps(snap))
    assert _error(tmp_path / "bad.json") == _error(snap)


def test_a_file_that_is_no_json_says_where_as_json_loads_does(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    monkeypatch.setattr(snapshot_source, "CHUNK", 5)
    text = json.dumps(small_snapshot(), indent=1)
    for cut in (len(text) // 3, len(text) // 2, len(text) - 2):
        # Cut short, and a control character (refused in a string too).
        for broken in (text[:cut], text[:cut] + "\x01" + text[cut:]):
            (tmp_path / "broken.json").write_text(broken)
            with pytest.raises(json.JSONDecodeError) as expected:
                json.loads(broken)
            with pytest.raises(SnapshotError) as got:
                read_snapshot(tmp_path / "broken.json")
            assert isinstance(got.value.__cause__, json.JSONDecodeError)
            assert str(got.value.__cause__) == str(expected.value)
            assert f"not JSON: {expected.value}" in str(got.value)


def test_a_damaged_file_raises_the_snapshot_error_and_writes_nothing(memory: Any,
                                                                      tmp_path: Path) -> None:
    # A caller restoring a file catches SnapshotError, as for a dict: a snapshot cut short
    # (a full disk, a copy stopped half-way) or not UTF-8 is a damaged snapshot too.
    memory.write_snapshot(tmp_path / "s.json")
    whole = (tmp_path / "s.json").read_bytes()
    for name, data in {"cut.json": whole[: len(whole) // 2],
                       "latin1.json": whole.replace(b'"tables"', b'"t\xe4bles"'),
                       "binary.json": b"\xff\xfe" + whole[2:]}.items():
        (tmp_path / name).write_bytes(data)
        home = tmp_path / f"home-{name}"
        with pytest.raises(SnapshotError, match="is not a snapshot \\(not JSON: "):
            restore(tmp_path / name, home)
        assert not (home / "memory.sqlite3").exists() and leftovers(home) == []


@pytest.mark.parametrize("text", [
    '{"a": -Infinity, "b": [Infinity, NaN]}', "[-Infinity]", "1.5", "-2e-3", "1E+5",
    '"\\ud83d\\ude00 \\u0000"',
])
def test_a_value_cut_anywhere_by_a_read_is_read_as_json_loads_reads_it(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first read ends at each place of the text in turn.
    for chunk in range(1, len(text) + 1):
        monkeypatch.setattr(snapshot_source, "CHUNK", chunk)
        stream = snapshot_source.JsonStream(io.BytesIO(text.encode()))
        assert repr(stream.value()) == repr(json.loads(text)), chunk


def test_a_file_laid_out_otherwise_is_read_whole_as_json_loads_reads_it(tmp_path: Path) -> None:
    snap = small_snapshot()
    tables_first = {"tables": snap["tables"], **{k: v for k, v in snap.items() if k != "tables"}}
    (tmp_path / "first.json").write_text(json.dumps(tables_first))
    twice = json.dumps(snap)[:-1] + ', "tables": ' + json.dumps(snap["tables"]) + "}"
    (tmp_path / "twice.json").write_text(twice)
    for name in ("first.json", "twice.json"):
        with restore(tmp_path / name, tmp_path / f"home-{name}") as m:
            assert len(m.recall) == sum(1 for r in snap["tables"]["messages"])


def test_a_file_changed_between_its_check_and_its_rows_restores_nothing(
        memory: Any, tmp_path: Path) -> None:
    memory.write_snapshot(tmp_path / "s.json")
    read = read_snapshot(tmp_path / "s.json")
    snap = json.loads((tmp_path / "s.json").read_text())
    snap["tables"]["facts"][0]["text"] = "User lives in Porto"
    (tmp_path / "s.json").write_text(json.dumps(snap))
    home = tmp_path / "home2"
    with pytest.raises(SnapshotError, match="changed while it was restored"):
        restore(read, home)
    assert not (home / "memory.sqlite3").exists() and leftovers(home) == []




def test_a_file_restores_into_postgres_as_its_dict_does(tmp_path: Path,
                                                       postgres_dsn: str) -> None:
    snap = small_snapshot()
    (tmp_path / "s.json").write_text(json.dumps(snap))
    with restore(tmp_path / "s.json", store=postgres_dsn, agent="streamed") as m:
        got = _snapshot_of(m)
    with restore(snap, tmp_path / "home") as m:
        assert got == _snapshot_of(m)


def test_the_checks_keep_no_fact_text_while_they_read() -> None:
    from types import SimpleNamespace

    from tiermem.memory.ops.snapshot_norms import FactNorms

    norms = FactNorms()
    fact = SimpleNamespace(id=1, forgotten_at=None, text="User's vault phrase is quietmoth")
    assert "quietmoth" in norms.of(0, fact)  # the key the row is written under
    assert "quietmoth" not in repr(vars(norms))  # kept as a digest only
    with pytest.raises(SnapshotError, match=r"states the same fact as tables.facts\[0\]"):
        norms.of(1, SimpleNamespace(id=2, forgotten_at=None, text=fact.text))
