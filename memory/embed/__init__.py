"""Embedders: the protocol and the hashing embedder (``embeddings``), the local MiniLM model
and its files, and OpenAI-compatible embedding endpoints."""
