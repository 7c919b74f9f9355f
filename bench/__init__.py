"""Benchmarks: each module runs from the repository root as ``python -m bench.<name>``."""
