"""Verification battery and micro-benchmarks for the memory engine.

``python cli.py benchmark`` runs ``bench.battery.run_battery``: pass/fail checks
of the memory's invariants (core limit, eviction is not deletion, durability,
snapshot round trip, crash safety) plus timing figures.
"""
