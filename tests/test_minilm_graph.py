"""MiniLM's attention and GELU fused at load: the same vectors, each kind rewritten in every
layer or in none."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tiermem.memory.embed import minilm, minilm_graph, onnx_format
from tiermem.memory.embed.minilm import MiniLMEmbedder
from tiermem.memory.embed.minilm_files import default_model_file

pytestmark = pytest.mark.slow

TEXTS = [
    "When did Caroline go to the LGBTQ support group?",
    "hi",
    "",
    "Melanie: I signed up for a pottery class yesterday, and it was so relaxing!",
    " ".join(["a longer text that runs past the model's limit of tokens"] * 40),
]


@pytest.fixture(scope="module")
def shipped() -> bytes:
    return default_model_file().read_bytes()


@pytest.fixture(scope="module")
def fused(shipped: bytes) -> bytes:
    rewritten = minilm_graph.fuse_layers(shipped)
    assert rewritten is not None
    return rewritten


def _ops(model: bytes) -> Counter[str]:
    return Counter(node.op_type for node in onnx_format.load_model(model).graph.node)


def test_fused_layers_give_the_exported_vectors(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="tiermem.memory.embed.minilm"):
        fused, exported = MiniLMEmbedder(), MiniLMEmbedder(fuse_layers=False)
        # One padded batch of every length, then each text alone (no padding).
        together = fused.embed_documents(TEXTS)
    assert fused.fused_layers and not exported.fused_layers
    assert caplog.records == []  # a fused load says nothing
    np.testing.assert_allclose(together, exported.embed_documents(TEXTS), atol=1e-6)
    for text, row in zip(TEXTS, together, strict=True):
        np.testing.assert_allclose(fused.embed_query(text), row, atol=1e-6)
    # Batches of two on one thread: several passes a call, other kernels' splits.
    small = MiniLMEmbedder(threads=1, batch_size=2)
    np.testing.assert_allclose(small.embed_documents(TEXTS), together, atol=1e-6)
    assert small.fused_layers
    # Not merely close to each other: each is still the model (a paraphrase is nearer).
    query = fused.embed_query("Did Melanie take up a craft?")
    assert float(query @ together[3]) > float(query @ together[0]) + 0.1


def test_loads_at_once_all_fuse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_format, "_classes_made", {})  # the message classes made anew
    barrier = threading.Barrier(4)
    embedders = [MiniLMEmbedder(threads=1) for _ in range(4)]

    def load(embedder: MiniLMEmbedder) -> None:
        barrier.wait()
        embedder.embed_query("peanut allergy")

    threads = [threading.Thread(target=load, args=(e,)) for e in embedders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [e.fused_layers for e in embedders] == [True] * 4


def test_the_shipped_graph_gets_one_attention_and_one_gelu_a_layer(
        shipped: bytes, fused: bytes) -> None:
    before, after = _ops(shipped), _ops(fused)
    assert before["Softmax"] == before["Erf"] == 6
    assert before["Attention"] == before["BiasGelu"] == 0
    assert after["Attention"] == after["BiasGelu"] == 6
    for op in ("Softmax", "IsNaN", "Where", "Transpose", "Reshape", "GatherND", "Erf", "Div"):
        assert after[op] == 0, op
    assert after["MatMul"] == before["MatMul"] - 5 * 6  # 3 projections packed, 2 products gone
    assert sum(after.values()) < sum(before.values()) - 150
    model = onnx_format.load_model(fused)
    attention = [n for n in model.graph.node if n.op_type == "Attention"]
    assert {n.domain for n in attention} == {"com.microsoft"}
    settings = {(a.name, a.i or round(a.f, 6)) for n in attention for a in n.attribute}
    assert settings == {("num_heads", 12), ("scale", round(32 ** -0.5, 6))}
    gelus = [n for n in model.graph.node if n.op_type == "BiasGelu"]
    assert {n.domain for n in gelus} == {"com.microsoft"}
    assert all(n.input[1].endswith("intermediate.dense.bias") for n in gelus)
    # Shapes are kept for the tensors still computed, and only for those.
    computed = {name for node in model.graph.node for name in node.output}
    kept = {v.name for v in model.graph.value_info}
    assert kept and kept <= computed
    assert len(kept) < len(onnx_format.load_model(shipped).graph.value_info)
    assert [o.domain for o in model.opset_import].count("com.microsoft") == 1


def test_fields_the_rewrite_does_not_declare_are_written_back(
        shipped: bytes, fused: bytes) -> None:
    """The IR version, producer and graph name are not declared in onnx_format: protobuf
    keeps them as unknown fields, and they must come out as they went in."""
    from google.protobuf.unknown_fields import UnknownFieldSet

    def undeclared(message: Any) -> list[tuple[int, Any]]:
        return sorted((f.field_number, f.data) for f in UnknownFieldSet(message))

    before, after = onnx_format.load_model(shipped), onnx_format.load_model(fused)
    assert [n for n, _ in undeclared(before)] == [1, 2, 3]  # ir_version, producer, its version
    assert undeclared(after) == undeclared(before)
    assert undeclared(after.graph) == undeclared(before.graph) != []


def test_a_graph_not_of_the_known_shape_is_left_whole(shipped: bytes) -> None:
    model = onnx_format.load_model(shipped)
    softmaxes = [n for n in model.graph.node if n.op_type == "Softmax"]
    softmaxes[-1].attribute[0].i = 1  # the last layer's softmax over another axis
    assert minilm_graph.fuse_layers(model.SerializeToString()) is None

    # A GELU of another shape (here x * (0.5 * (1 + erf(x / 2)))) leaves every GELU as
    # exported, and the attentions are still fused.
    model = onnx_format.load_model(shipped)
    divide = next(n for n in model.graph.node if n.op_type == "Div"
                  and any(c.op_type == "Erf" and c.input[0] == n.output[0]
                          for c in model.graph.node))
    model.graph.initializer.add(name="two", data_type=1, raw_data=np.float32(2).tobytes())
    divide.input[1] = "two"
    ops = _ops(minilm_graph.fuse_layers(model.SerializeToString()) or b"")
    assert (ops["Attention"], ops["BiasGelu"], ops["Erf"]) == (6, 0, 6)

    empty = onnx_format.load_model(b"")
    assert minilm_graph.fuse_layers(empty.SerializeToString()) is None
    lone = onnx_format.load_model(b"")
    lone.graph.node.append(onnx_format.make_node("MatMul", ["x", "w"], ["scores"], "product"))
    lone.graph.node.append(onnx_format.make_node("Softmax", ["scores"], ["p"], "soft", axis=-1))
    lone.graph.output.add(name="p")
    assert minilm_graph.fuse_layers(lone.SerializeToString()) is None


def _embedder_after(monkeypatch: pytest.MonkeyPatch, rewrite: Any) -> MiniLMEmbedder:
    monkeypatch.setattr(minilm_graph, "fuse_layers", rewrite)
    embedder = MiniLMEmbedder(threads=1)
    assert embedder.embed_query("peanut allergy").shape == (384,)
    return embedder


def _fails(model: bytes) -> bytes:
    raise RuntimeError("cannot parse")


@pytest.mark.parametrize(("rewrite", "reason"), [
    (_fails, "could not be fused (RuntimeError: cannot parse)"),
    (lambda model: None, "not the shape the rewrite knows"),
    (lambda model: b"not a model", "onnxruntime refused its fused graph"),
])
def test_a_failed_rewrite_costs_speed_not_the_embedder(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, rewrite: Any,
        reason: str) -> None:
    exported = MiniLMEmbedder(threads=1, fuse_layers=False).embed_query("peanut allergy")
    with caplog.at_level(logging.WARNING, logger="tiermem.memory.embed.minilm"):
        embedder = _embedder_after(monkeypatch, rewrite)
    assert not embedder.fused_layers
    assert [r.getMessage() for r in caplog.records if reason in r.getMessage()]
    assert all("runs as exported" in r.getMessage() for r in caplog.records)
    np.testing.assert_allclose(embedder.embed_query("peanut allergy"), exported, atol=1e-6)


def test_a_fused_graph_with_another_vector_is_not_used(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(minilm, "PROBE_VECTOR", -minilm.PROBE_VECTOR)
    with caplog.at_level(logging.WARNING, logger="tiermem.memory.embed.minilm"):
        embedder = MiniLMEmbedder(threads=1)
        vector = embedder.embed_query("peanut allergy")
    assert not embedder.fused_layers
    assert "vector for a test text differs" in caplog.text
    exported = MiniLMEmbedder(threads=1, fuse_layers=False).embed_query("peanut allergy")
    np.testing.assert_allclose(vector, exported, atol=1e-6)


class _FailsOnLongBatches:
    """A fused session that fails on inputs longer than the load-time probe's."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self.runs = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def run(self, outputs: Any, feeds: dict[str, np.ndarray]) -> Any:
        self.runs += 1
        if feeds["input_ids"].shape[1] > 20:
            raise RuntimeError("Attention kernel: unsupported sequence length")
        return self._session.run(outputs, feeds)


def test_a_fused_graph_that_fails_on_a_batch_hands_over_to_the_exported_one(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    made = MiniLMEmbedder._fused_session
    wrapped: list[_FailsOnLongBatches] = []

    def failing_later(self: MiniLMEmbedder, *args: Any) -> Any:
        session = made(self, *args)
        if session is None:  # the exported embedder below
            return None
        wrapped.append(_FailsOnLongBatches(session))
        return wrapped[-1]

    monkeypatch.setattr(MiniLMEmbedder, "_fused_session", failing_later)
    long_text = "the deploy failed because the migration locked the orders table " * 3
    exported = MiniLMEmbedder(threads=1, fuse_layers=False)
    embedder = MiniLMEmbedder(threads=1)
    with caplog.at_level(logging.WARNING, logger="tiermem.memory.embed.minilm"):
        short = embedder.embed_query("peanut allergy")
        assert embedder.fused_layers and caplog.records == []
        vectors = embedder.embed_documents([long_text, "peanut allergy"])
    assert not embedder.fused_layers
    assert "runs as exported from now on" in caplog.text and "unsupported sequence" in caplog.text
    np.testing.assert_allclose(
        vectors, exported.embed_documents([long_text, "peanut allergy"]), atol=1e-6)
    np.testing.assert_allclose(short, exported.embed_query("peanut allergy"), atol=1e-6)
    runs = wrapped[0].runs
    embedder.embed_documents([long_text])  # the exported graph answers from now on
    assert wrapped[0].runs == runs and len(caplog.records) == 1


def test_a_batch_that_failed_while_another_thread_handed_over_runs_again(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    exported = MiniLMEmbedder(threads=1, fuse_layers=False)
    expected = exported.embed_query("peanut allergy")
    embedder = MiniLMEmbedder(threads=1)
    embedder.embed_query("warm up")
    assert embedder.fused_layers

    class HandedOverMeanwhile:
        """The fused session failing just after another thread replaced it."""

        def run(self, outputs: Any, feeds: Any) -> Any:
            embedder._session, embedder.fused_layers = exported._session, False
            raise RuntimeError("fused kernel failed")

    monkeypatch.setattr(embedder, "_session", HandedOverMeanwhile())
    with caplog.at_level(logging.WARNING, logger="tiermem.memory.embed.minilm"):
        vector = embedder.embed_documents(["peanut allergy"])[0]
    np.testing.assert_allclose(vector, expected, atol=1e-6)
    assert caplog.records == []  # the other thread said it already


def test_an_exported_graph_that_fails_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = MiniLMEmbedder(threads=1, fuse_layers=False)
    embedder.embed_query("peanut allergy")
    monkeypatch.setattr(embedder, "_session", _FailsOnLongBatches(embedder._session))
    with pytest.raises(RuntimeError, match="unsupported sequence length"):
        embedder.embed_documents(["the deploy failed because the migration locked " * 3])


def test_only_the_published_file_is_rewritten(
        tmp_path: Path, fused: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def counted(model: bytes) -> bytes | None:
        calls.append(len(model))
        return None

    other = tmp_path / "model.onnx"
    other.write_bytes(fused)  # a valid model file, with another hash
    monkeypatch.setattr(minilm_graph, "fuse_layers", counted)
    embedder = MiniLMEmbedder(model_path=other,
                              model_sha256=hashlib.sha256(fused).hexdigest())
    assert embedder.embed_query("peanut allergy").shape == (384,)
    assert not embedder.fused_layers and calls == []
    assert not MiniLMEmbedder(fuse_layers=False).fused_layers


def test_tensor_values_read_numbers_kept_in_the_file() -> None:
    tensor = onnx_format.load_model(b"").graph.initializer.add(name="t", data_type=1)
    tensor.dims.extend([2, 2])
    tensor.raw_data = np.arange(4, dtype="<f4").tobytes()
    np.testing.assert_array_equal(onnx_format.tensor_values(tensor),
                                  np.arange(4, dtype=np.float32).reshape(2, 2))
    listed = onnx_format.load_model(b"").graph.initializer.add(name="s", data_type=7)
    listed.dims.append(1)
    listed.int64_data.append(32)
    assert onnx_format.tensor_values(listed).tolist() == [32]  # type: ignore[union-attr]
    listed.dims[0] = 3  # fewer values than its shape holds
    assert onnx_format.tensor_values(listed) is None
    tensor.data_location = 1  # the data lives in another file
    assert onnx_format.tensor_values(tensor) is None
    assert onnx_format.tensor_values(
        onnx_format.load_model(b"").graph.initializer.add(name="b", data_type=9)) is None
