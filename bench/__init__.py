"""Benchmarks and the protocol-level load client (``bench.loadclient``, shared with tests/deploy)."""
