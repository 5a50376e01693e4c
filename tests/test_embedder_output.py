"""What an embedder returns is checked before anything is stored or searched with it:
a wrong shape or a value that is not finite raises EmbedderOutputError and stores
nothing; rows of another length are brought to unit length."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from memory_helpers import make_memory

from tiermem.memory.embed.checked import CheckedEmbedder, checked
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import EmbedderOutputError, InvalidInputError, TiermemError
from tiermem.memory.hierarchy import HierarchicalMemory


class Faulty(HashingEmbedder):
    """The hashing embedder, but a text holding a trigger word comes back broken."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        rows = super().embed_documents(texts)
        if any("DROPROW" in t for t in texts):
            return rows[1:]
        if any("WIDE" in t for t in texts):
            return np.hstack([rows, rows])
        for i, text in enumerate(texts):
            if "NAN" in text:
                rows[i, 0] = np.nan
            if "LONG" in text:
                rows[i] *= 300.0
        return rows

    def embed_query(self, text: str) -> np.ndarray:
        vector = super().embed_query(text)
        return vector[:10] if "SHORT" in text else vector


@pytest.mark.parametrize(("text", "said"), [
    ("DROPROW otters hold hands", "shape (0, 256) where (1, 256) was due"),
    ("WIDE otters hold hands", "shape (1, 512) where (1, 256) was due"),
    ("NAN otters hold hands", "not finite"),
])
def test_a_broken_vector_stores_nothing_and_names_the_embedder(text: str, said: str) -> None:
    with make_memory(embedder=Faulty()) as m:
        m.archival_insert("sea otters hold hands while they sleep")
        before = m.snapshot()
        with pytest.raises(EmbedderOutputError) as caught:
            m.archival_insert(text)
        assert said in str(caught.value) and "'hashing" in str(caught.value)
        assert "Fix the embedder" in str(caught.value)
        assert isinstance(caught.value, TiermemError)
        assert m.snapshot() == before
        with pytest.raises(EmbedderOutputError):
            m.process_interaction(text, "Noted.")
        assert m.snapshot() == before


def test_a_vector_of_another_length_is_stored_as_a_unit_vector() -> None:
    with make_memory(embedder=Faulty()) as m:
        m.archival_insert("sea otters hold hands while they sleep")
        m.archival_insert("LONG the deploy runbook for the billing worker")
        hits = m.archival_search("sea otters sleep").hits
        assert hits[0].text.startswith("sea otters")
        assert all(h.similarity is None or h.similarity <= 1.0 + 1e-5 for h in hits)
        stored = m.store.passages.count() - m.store.passages.count_without_vector(m.embedder.id)
        assert stored == 2


def test_a_query_vector_of_the_wrong_shape_is_refused() -> None:
    with make_memory(embedder=Faulty()) as m:
        m.archival_insert("sea otters hold hands while they sleep")
        with pytest.raises(EmbedderOutputError, match=r"shape \(10,\) where \(256,\)"):
            m.archival_search("SHORT otters")
        with pytest.raises(EmbedderOutputError):
            m.query("SHORT otters")


def test_a_search_s_query_embedder_is_checked_as_the_memory_s_own_is() -> None:
    # query_embedder (archival_search, recall_search) embeds the query in place of the
    # memory's embedder: its vectors get the same checks, and one of another model is
    # refused by name, not met as a reshape error inside the vector search.
    with make_memory(embedder=HashingEmbedder()) as m:
        m.archival_insert("sea otters hold hands while they sleep")
        m.process_interaction("do sea otters sleep?", "They hold hands.")
        for search in (m.archival_search, m.recall_search):
            with pytest.raises(EmbedderOutputError, match=r"shape \(10,\) where \(256,\)"):
                search("SHORT otters", query_embedder=Faulty())
            with pytest.raises(InvalidInputError, match=r"of 64 dimensions .* of 256"):
                search("otters", query_embedder=HashingEmbedder(dim=64))
            with pytest.raises(InvalidInputError, match=r"must be an Embedder .* got str"):
                search("otters", query_embedder="hashing")  # type: ignore[arg-type]
            assert search("otters", query_embedder=Faulty()).hits[0].text.startswith(
                ("sea otters", "do sea otters"))


def test_a_reindex_with_a_broken_embedder_stops_before_storing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with make_memory(home) as m:
        m.archival_insert("NAN sea otters hold hands")

    class Renamed(Faulty):
        id = "faulty"

    with pytest.raises(EmbedderOutputError):
        HierarchicalMemory.reindex(home, Renamed())


def test_the_checked_embedder_keeps_the_inner_ones_attributes() -> None:
    inner = HashingEmbedder()
    inner.near_similarity = 0.05  # type: ignore[attr-defined]
    wrapped = checked(inner)
    assert checked(wrapped) is wrapped
    assert (wrapped.id, wrapped.dim, wrapped.min_similarity) == (inner.id, inner.dim,
                                                                 inner.min_similarity)
    assert wrapped.near_similarity == 0.05
    copy = pickle.loads(pickle.dumps(wrapped))
    assert isinstance(copy, CheckedEmbedder) and copy.id == inner.id
    np.testing.assert_array_equal(copy.embed_query("otters"), inner.embed_query("otters"))

