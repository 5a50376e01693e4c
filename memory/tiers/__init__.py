"""The three tiers: core (with its eviction policies), recall and archival, and the moves
of facts between core and archival (``lifecycle``)."""
