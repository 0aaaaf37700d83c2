"""Benchmarks, run by ``make bench-*`` (not shipped in the wheel); docs/benchmarks.md has the figures."""
