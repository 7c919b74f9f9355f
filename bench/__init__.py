"""Benchmarks: each module runs from the repository root as ``python -m bench.<name>``."""

from __future__ import annotations

import argparse
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def data_set(value: str) -> Path:
    """An argparse type for a set: a folder, or the name of one in ../shared/data."""
    path = Path(value)
    if path.is_dir():
        return path
    if (DATA / value).is_dir():
        return DATA / value
    raise argparse.ArgumentTypeError(f"{value}: neither a folder nor a set in {DATA}")
