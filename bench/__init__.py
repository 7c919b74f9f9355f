"""Benchmarks: each module runs as ``python -m bench.<name>`` (or ``python bench/<name>.py``)."""
