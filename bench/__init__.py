"""Benchmarks (the protocol-level load client they share with the tests is tests/loadclient.py)."""
