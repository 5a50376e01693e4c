"""Search: a query's terms and common-word pruning (``lexical``), hybrid fusion of full-text
and dense ranks (``fusion``, by the weights of ``fusion_weights`` and the scores of
``fusion_scores``), one ranking across the tiers (``query``), and reading dates and
questions about time (``dates``, ``temporal``)."""
