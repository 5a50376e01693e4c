"""Recall ranks a window of the newest matches when a query matches more; totals say so."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from memory_helpers import make_memory

import tiermem.memory.store.sqlite.vectors as vector_index
from tiermem.memory import HierarchicalMemory
from tiermem.memory.search.fusion import FusionWeights
from tiermem.memory.search.lexical import common_terms
from tiermem.memory.store.records import RowFilter
from tiermem.memory.tiers.recall import RECALL_WINDOW, NewMessage
from tiermem.tools.dispatch import Toolbox
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

WINDOW = 10


def _chat(n: int = 40) -> list[NewMessage]:
    # "note" is in every message. Old messages say it three times in few words, so they
    # have the best BM25 of all; new ones say it once among many words.
    out = []
    for i in range(n):
        text = "note note note" if i < n // 2 else f"note {' '.join(['filler'] * (i % 5 + 3))}"
        out.append(NewMessage("user" if i % 2 else "assistant", f"{text} item{i}", turn=i))
    return out


def _bm25_order(memory: HierarchicalMemory, word: str, ids: Sequence[int]) -> list[int]:
    """``ids`` by FTS5's BM25 over the whole table, best first, ties by id."""
    rows = memory.store.execute(
        "SELECT rowid, bm25(messages_fts) FROM messages_fts WHERE messages_fts MATCH ?",
        (word,)).fetchall()
    score = {r[0]: r[1] for r in rows}
    return sorted(ids, key=lambda i: (score[i], i))


def _memory(dense: bool = False) -> HierarchicalMemory:
    memory = make_memory(recall_dense=dense)
    memory.recall.append_many(_chat(), bulk=True)
    memory.recall.window = WINDOW
    return memory


def _ids(memory: HierarchicalMemory) -> list[int]:
    return [r[0] for r in memory.store.execute("SELECT id FROM messages ORDER BY id")]


def test_more_matches_than_the_window_rank_the_newest_and_say_there_are_more() -> None:
    with _memory() as memory:
        newest = _ids(memory)[-WINDOW:]
        expected = _bm25_order(memory, "note", newest)[:5]
        result = memory.recall.search("note", k=5)
        memory.recall.window = 1000
        exact = memory.recall.search("note", k=5)
    assert (result.total, result.total_exact, result.pages) == (WINDOW, False, 2)
    assert [h.id for h in result.hits] == expected
    # Without the window the old, denser messages would win.
    assert exact.total_exact and exact.total == 40
    assert not {h.id for h in exact.hits} & set(newest)


def test_up_to_the_window_ranking_and_totals_are_exact() -> None:
    with _memory() as memory:
        ids = _ids(memory)
        query = " ".join(f"item{i}" for i in range(30, 40))  # exactly WINDOW matches
        at_window = memory.recall.search(query, k=5)
        over = memory.recall.search(query + " item0", k=5)
        memory.recall.window = 1000
        wide = memory.recall.search(query, k=5)
    assert wide.total == at_window.total == WINDOW and at_window.total_exact
    assert [(h.id, h.score) for h in at_window.hits] == [(h.id, h.score) for h in wide.hits]
    assert (over.total, over.total_exact) == (WINDOW, False)
    assert ids[0] not in {h.id for h in over.hits}  # the oldest match is past the window


def test_pages_within_the_window_are_one_order_and_past_it_the_window_doubles() -> None:
    with _memory() as memory:
        newest = _ids(memory)[-2 * WINDOW:]
        pages = [memory.recall.search("note", k=5, page=p) for p in (1, 2)]
        third = memory.recall.search("note", k=5, page=3)
    seen = [h.id for r in pages for h in r.hits]
    assert len(seen) == len(set(seen)) == WINDOW
    assert set(seen) == set(newest[-WINDOW:])
    assert [(r.total, r.pages) for r in pages] == [(WINDOW, 2)] * 2
    # The next window ranked is twice the first; it adds only the matches the first lacks.
    assert (third.total, third.total_exact, third.pages) == (2 * WINDOW, False, 4)
    assert len(third.hits) == 5 and {h.id for h in third.hits} <= set(newest) - set(seen)


@pytest.mark.parametrize("dense", [False, True], ids=["lexical", "hybrid"])
def test_before_id_leaves_out_the_current_turn_and_the_window_ends_there(dense: bool) -> None:
    with _memory(dense) as memory:
        ids = _ids(memory)
        cut = ids[-7]
        result = memory.recall.search("note", k=WINDOW, before_id=cut)
        memory.recall.window = 1000
        everything = memory.recall.search("note", k=WINDOW, before_id=cut)
    window = [i for i in ids if i < cut][-WINDOW:]
    assert max(h.id for h in result.hits) < cut and not result.total_exact
    assert len(result.hits) == len(window) and result.total >= len(window)
    if not dense:  # dense matches are not windowed: older ones rank by their cosine
        assert {h.id for h in result.hits} == set(window)
    assert everything.total_exact and everything.total == len(ids) - 7


def test_the_window_counts_only_messages_that_pass_the_filters() -> None:
    with make_memory(recall_dense=False) as memory:
        memory.recall.append_many(_chat(), bulk=True)
        memory.recall.window = WINDOW
        users = [r[0] for r in memory.store.execute(
            "SELECT id FROM messages WHERE role = 'user' ORDER BY id")]
        result = memory.recall.search("note", k=WINDOW, roles=["user"])
    assert {h.id for h in result.hits} == set(users[-WINDOW:])
    assert (result.total, result.total_exact) == (WINDOW, False)


def test_a_date_range_reaches_matches_older_than_the_window() -> None:
    with make_memory(recall_dense=False) as memory:
        day = 86_400.0
        memory.recall.append_many([
            NewMessage("user", f"note {i}", turn=i, created_at=1_700_000_000 + i * day)
            for i in range(30)])
        memory.recall.window = WINDOW
        result = memory.recall.search("note", k=5, end="2023-11-20")  # the first seven days
        # Twenty days hold more than the window: it is the newest ten of them.
        window = memory.recall.search("note", k=WINDOW, end="2023-12-03")
        nothing = memory.recall.search("note", k=5, end="2023-11-01")
    assert (result.total, result.total_exact) == (7, True)
    # Five of the seven (each but the first also holds "note" as its context).
    assert len(result.hits) == 5
    assert {h.text for h in result.hits} <= {f"note {i}" for i in range(7)}
    assert (window.total, window.total_exact) == (WINDOW, False)
    assert sorted(h.turn or 0 for h in window.hits) == list(range(10, 20))
    assert (nothing.total, nothing.total_exact, nothing.hits) == (0, True, [])


def test_archival_keeps_exact_totals() -> None:
    with make_memory(recall_dense=False) as memory:
        for i in range(RECALL_WINDOW // 100):
            memory.archival_insert(f"ticket {i}")
        memory.recall.window = 5
        result = memory.archival_search("ticket", k=5)
        assert (result.total, result.total_exact) == (RECALL_WINDOW // 100, True)


def test_common_terms_are_those_in_more_than_half_of_the_rows() -> None:
    with make_memory(recall_dense=False) as memory:
        rows = 60
        memory.recall.append_many([
            NewMessage("user", " ".join(["kiwi"] * (i < 31) + ["lime"] * (i < 29) + ["x"]), i)
            for i in range(rows)], bulk=True)
        lexical = memory.store.lexical("messages")
        found = common_terms(lexical, ["kiwi", "lime", "x", "absent"], rows)
        # 32 and 60 of 60 (a row holds the words of the one before as context); lime's
        # 29 + 1 is not more than half.
        assert found == {"kiwi", "x"}
        # The count given is the one used.
        assert common_terms(lexical, ["kiwi", "x"], 100) == {"x"}
        assert memory.recall.search("kiwi lime", k=50).total == 30  # kiwi dropped


def test_conversation_search_says_the_total_is_a_lower_bound() -> None:
    box: Toolbox = memory_toolbox()
    with make_memory(recall_dense=False) as memory:
        memory.recall.append_many(_chat(), bulk=True)
        memory.recall.window = WINDOW
        ctx = ToolContext(memory=memory, turn=99)

        def search(query: str, page: int = 1) -> dict[str, object]:
            out = box.dispatch("conversation_search", json.dumps(
                {"query": query, "page": page}), call_id="c1", context=ctx)
            return json.loads(out.content)  # type: ignore[no-any-return]

        many, few = search("note"), search("item3 item4")
        assert many["total"] == f"at least {WINDOW}" and many["page"] == "1 of 2"
        assert "newest" in str(many["ranked"])
        # item3, item4, and item5 (which holds item4 as context).
        assert few["total"] == 3 and "ranked" not in few
        assert search("note", page=2)["page"] == "2 of 2"


def _near_in_meaning(fusion: FusionWeights | None = None) -> HierarchicalMemory:
    """40 messages close to one meaning, eight that share a rare word with the query."""
    memory = make_memory(recall_dense=True, fusion=fusion)
    # More extra words in each later message, so similarities fall instead of tying.
    texts = ["the shared release checklist for the payments service "
             + " ".join(f"owner{i}x{j}" for j in range(i)) for i in range(40)]
    # With the messages after them (their context), more word matches than the RRF
    # depth of 5, and no more than the window.
    for i in (3, 12, 22, 35):
        texts[i] += " zebra"
    texts[30] = "zebra crossing near the office"  # a word match far from the meaning
    memory.recall.append_many([NewMessage("user", t, turn=i) for i, t in enumerate(texts)])
    return memory


@pytest.fixture(params=[False, True], ids=["float-scan", "prefilter"])
def prefilter(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Both dense paths: the float32 scan of small stores and the 8-bit prefilter."""
    if request.param:
        monkeypatch.setattr(vector_index, "PREFILTER_MIN_ROWS", 1)
    return bool(request.param)


@pytest.mark.parametrize("method", ["convex", "rrf"])
@pytest.mark.parametrize("page", [1, 2, 3])
def test_a_capped_dense_list_ranks_as_the_full_one_and_says_there_are_more(
        page: int, method: str, prefilter: bool) -> None:
    memory = _near_in_meaning(FusionWeights(method=method, depth=5))
    assert (memory.recall.vectors.prefilter_min_rows == 1) == prefilter
    meaning = memory.embedder.embed_query("shared release checklist for the payments service")

    def search(window: int) -> tuple[list[tuple[int, float]], int, bool]:
        memory.recall.window = window
        result = memory.recall.search("zebra", k=5, page=page, query_vector=meaning)
        return [(h.id, h.score) for h in result.hits], result.total, result.total_exact

    full, full_total, full_exact = search(1_000_000)
    capped, capped_total, capped_exact = search(WINDOW)
    assert full_exact and full_total == 40  # every message matches, by meaning or by word
    assert not capped_exact and capped_total < full_total
    # Same order and scores, page by page: no row left out of the nearest ten could rank higher,
    # and the far word match (message 31) keeps its exact similarity, if any. (FAISS and numpy
    # may round a similarity one float apart.)
    assert [i for i, _ in capped] == [i for i, _ in full]
    assert [s for _, s in capped] == pytest.approx([s for _, s in full], abs=1e-6)
    assert len(full) == 5


def test_dense_only_queries_rank_the_nearest_when_capped(prefilter: bool) -> None:
    memory = _near_in_meaning()
    meaning = memory.embedder.embed_query("shared release checklist for the payments service")
    memory.recall.window = WINDOW
    result = memory.recall.search("the", k=5, page=3, query_vector=meaning)  # no content word
    exact = memory.recall.vectors.above(meaning, memory.embedder.min_similarity)[0].tolist()
    assert [h.id for h in result.hits] == exact[10:15]
    assert not result.total_exact


@pytest.mark.parametrize("assistant_rows", [9, 12])
def test_filtered_nearest_rows_widen_the_capped_list(assistant_rows: int,
                                                    prefilter: bool) -> None:
    # The nearest rows in meaning are the assistant's; the search wants the user's. With 9 of
    # them, one user row survives in the nearest ten, and the rows beyond its cut must still
    # outrank the weak word matches; with 12, none survives and the scale of the dense
    # scores is unknown until the list widens.
    memory = make_memory(recall_dense=True)
    base = "the shared release checklist for the payments service "
    messages = [NewMessage("assistant", f"{base}a{i}", turn=i) for i in range(assistant_rows)]
    messages += [NewMessage("user", base + " ".join(f"owner{i}x{j}" for j in range(4 + i)),
                            turn=i) for i in range(30 - assistant_rows)]
    messages.append(NewMessage("user", "zebra", turn=30))
    # Apart, so that none holds the word a second time as its context, and long enough
    # to stay weak although the replies after them hold them as context.
    for i in range(6):
        messages += [NewMessage("assistant", "ok", turn=31 + i),
                     NewMessage("user", "zebra " + " ".join(f"far{i}w{j}" for j in range(150)),
                                turn=31 + i)]
    memory.recall.append_many(messages)
    meaning = memory.embedder.embed_query(base)

    def search(window: int) -> tuple[list[int], bool]:
        memory.recall.window = window
        result = memory.recall.search("zebra", k=5, roles=["user"], query_vector=meaning)
        return [h.id for h in result.hits], result.total_exact

    full, exact = search(1_000_000)
    assert exact
    assert sum(1 for i in full if i <= 30) >= 3  # rows near in meaning beat the long word matches
    assert search(WINDOW)[0] == full


def test_searching_tool_messages_alone_has_no_dense_side() -> None:
    memory = make_memory(recall_dense=True)
    ids = memory.recall.append_many([
        NewMessage("user", "deploy the zebra service", turn=1),
        NewMessage("tool", "zebra service deployed", turn=1, tool_name="shell")])
    query = memory.embedder.embed_query("deploy the zebra service")
    # Tool messages have no vectors: asking for both similarities finds only the user's.
    assert set(memory.recall.vectors.similarities(ids, query)) == {ids[0]}
    result = memory.recall.search("zebra", roles=["tool"])
    assert [h.id for h in result.hits] == [ids[1]] and result.total == 1 and result.total_exact


def test_rows_with_vectors_skip_only_the_role_conditions_they_always_pass() -> None:
    from tiermem.memory.tiers.recall import _dense_filter

    assert _dense_filter(None, None, None, 7) == RowFilter(below=7)
    assert _dense_filter(["user", "assistant", "tool"], None, None, None) == RowFilter()
    assert _dense_filter(["user"], None, None, 7) is None  # assistant rows must be dropped
    assert _dense_filter(None, "2026-01-01", None, None) is None  # dates need the rows


def test_a_page_past_the_window_embeds_its_query_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import tiermem.memory.search.fusion as fusion

    with _memory(dense=True) as memory:
        # Few matches in meaning, so the page is reached by widening the word window.
        memory.recall.embedder.min_similarity = 0.99
        embedder, windows, embedded = memory.recall.embedder, [], []
        embed, rank = embedder.embed_query, fusion.hybrid_search

        def counted_embed(text: str) -> object:
            embedded.append(text)
            return embed(text)

        def counted_rank(*args: object, **kwargs: object) -> object:
            windows.append(kwargs["window"])
            return rank(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(embedder, "embed_query", counted_embed)
        monkeypatch.setattr(fusion, "hybrid_search", counted_rank)
        result = memory.recall.search("note", k=5, page=6)
    assert len(result.hits) == 5
    assert windows == [WINDOW, 2 * WINDOW, 4 * WINDOW]
    # The three windows rank one text: embedded once, not once a window.
    assert embedded == ["note"]
