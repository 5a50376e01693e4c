"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint.

Works with OpenAI itself and with local servers that speak the same protocol
(llama.cpp, Ollama, vLLM, LM Studio...). Vectors are re-normalised here, since
not every server returns unit vectors, and the dimension is checked on every
response so a model swap behind the same URL cannot corrupt a store.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from tiermem.memory.embed.embeddings import normalize_rows
from tiermem.memory.errors import InvalidInputError, TiermemError
from tiermem.memory.text.tokenizer import count_tokens

OPENAI_BASE_URL = "https://api.openai.com/v1"
#: Inputs per request; OpenAI accepts up to 2048, local servers often far fewer.
MAX_BATCH_INPUTS = 256
#: Tokens per request; OpenAI rejects a request over 300,000 tokens in total.
MAX_BATCH_TOKENS = 250_000
# Local servers do not check the key, but the client refuses to start without one.
_LOCAL_PLACEHOLDER_KEY = "not-needed"


class EmbeddingServiceError(TiermemError):
    """The embedding endpoint could not be reached or refused the request."""


class OpenAIEmbedder:
    """Embeddings through the ``openai`` client, normalised to float32 unit rows.

    Args:
        model: the embedding model name the server knows.
        base_url: the API root, e.g. ``http://127.0.0.1:8080/v1``; defaults to
            ``OPENAI_BASE_URL`` or OpenAI's public API.
        api_key: defaults to ``OPENAI_API_KEY``; optional when ``base_url``
            points at a server of your own.
        dim: the vector size. Given, it is checked against every response (and
            requested from ``text-embedding-3`` models, which can shorten their
            vectors); omitted, one probe request at construction measures it.
        timeout: seconds per request.
        max_retries: retries, with backoff, of failed connections and 429/5xx.
    """

    min_similarity = 0.3

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        base_url: str | None = None,
        api_key: str | None = None,
        dim: int | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
    ) -> None:
        if not model:
            raise InvalidInputError("OpenAIEmbedder needs a model name")
        if dim is not None and dim < 1:
            raise InvalidInputError("OpenAIEmbedder dim must be positive")
        from openai import OpenAI

        self.model = model
        self.id = f"openai:{model}"
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL).rstrip(
            "/"
        )
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if self.base_url == OPENAI_BASE_URL:
                raise EmbeddingServiceError(
                    "OpenAI embeddings need an API key: set OPENAI_API_KEY or pass api_key, "
                    "or point base_url at a local OpenAI-compatible server"
                )
            key = _LOCAL_PLACEHOLDER_KEY
        self._client = OpenAI(
            api_key=key, base_url=self.base_url, timeout=timeout, max_retries=max_retries
        )
        self._request_dim = (
            dim if dim is not None and model.startswith("text-embedding-3") else None
        )
        self.dim: int = dim if dim is not None else 0
        if dim is None:
            self.dim = int(self._request(["dimension probe"]).shape[1])

    # -- requests -----------------------------------------------------------

    def _request(self, texts: list[str]) -> np.ndarray:
        import openai

        # The API rejects empty strings; a single space embeds as "nothing".
        inputs = [t if t.strip() else " " for t in texts]
        extra: dict[str, Any] = {}
        if self._request_dim is not None:
            extra["dimensions"] = self._request_dim
        try:
            response = self._client.embeddings.create(
                model=self.model, input=inputs, encoding_format="float", **extra
            )
        except openai.APITimeoutError as exc:
            raise EmbeddingServiceError(
                f"the embedding server at {self.base_url} did not answer in time; check that "
                f"it is running and not overloaded, or raise the timeout"
            ) from exc
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise EmbeddingServiceError(
                f"cannot connect to the embedding server at {self.base_url} ({cause}); check "
                f"the base URL and that the server is running"
            ) from exc
        except openai.AuthenticationError as exc:
            raise EmbeddingServiceError(
                f"the embedding server at {self.base_url} rejected the API key (401); set "
                f"OPENAI_API_KEY or pass api_key"
            ) from exc
        except openai.NotFoundError as exc:
            raise EmbeddingServiceError(
                f"the embedding server at {self.base_url} answered 404 for model "
                f"{self.model!r}: check the model name and that the base URL ends in /v1"
            ) from exc
        except openai.RateLimitError as exc:
            raise EmbeddingServiceError(
                f"the embedding server at {self.base_url} is rate limiting requests (429); "
                f"wait and retry"
            ) from exc
        except openai.APIStatusError as exc:
            raise EmbeddingServiceError(
                f"the embedding server at {self.base_url} refused the request "
                f"({exc.status_code}): {exc.message}"
            ) from exc
        except openai.OpenAIError as exc:
            raise EmbeddingServiceError(
                f"embedding request to {self.base_url} failed: {exc}"
            ) from exc

        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(inputs):
            raise EmbeddingServiceError(
                f"the embedding server at {self.base_url} returned {len(rows)} vectors for "
                f"{len(inputs)} inputs"
            )
        try:
            matrix = np.asarray([row.embedding for row in rows], dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise EmbeddingServiceError(
                f"the embedding server at {self.base_url} returned vectors of unequal length"
            ) from exc
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise EmbeddingServiceError(
                f"the embedding server at {self.base_url} returned no usable vectors"
            )
        if self.dim and matrix.shape[1] != self.dim:
            raise EmbeddingServiceError(
                f"model {self.model!r} at {self.base_url} returned {matrix.shape[1]}-d vectors, "
                f"expected {self.dim}"
            )
        if not np.isfinite(matrix).all():
            raise EmbeddingServiceError(
                f"the embedding server at {self.base_url} returned non-finite values"
            )
        return matrix

    def _batches(self, texts: Sequence[str]) -> list[list[str]]:
        batches: list[list[str]] = []
        current: list[str] = []
        current_tokens = 0
        for text in texts:
            tokens = count_tokens(text)
            if current and (
                len(current) >= MAX_BATCH_INPUTS or current_tokens + tokens > MAX_BATCH_TOKENS
            ):
                batches.append(current)
                current, current_tokens = [], 0
            current.append(text)
            current_tokens += tokens
        if current:
            batches.append(current)
        return batches

    # -- Embedder protocol --------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """``(n, dim)`` float32 unit rows, in order; at most 256 texts per request."""
        if isinstance(texts, str):
            raise InvalidInputError("embed_documents takes a list of texts, not one string")
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        for text in texts:
            if not isinstance(text, str):
                raise InvalidInputError(f"embed_documents takes strings, got {type(text).__name__}")
        parts = [self._request(batch) for batch in self._batches(texts)]
        return normalize_rows(np.concatenate(parts, axis=0))

    def embed_query(self, text: str) -> np.ndarray:
        """One ``(dim,)`` float32 unit vector."""
        if not isinstance(text, str):
            raise InvalidInputError(f"embed_query takes a string, got {type(text).__name__}")
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One vector per text, from one request: a search across the tiers embeds two or
        three texts at once."""
        return list(self.embed_documents(texts))
