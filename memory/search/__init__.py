"""Search: a query's terms and common-word pruning (``lexical``), hybrid fusion of full-text
and dense ranks (``fusion``), one ranking across the tiers (``query``), and reading dates and
questions about time (``dates``, ``temporal``)."""
