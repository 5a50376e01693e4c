"""Operations on a whole memory: snapshots and their schema, diagnostics, the report,
and re-embedding (``reindex``)."""
