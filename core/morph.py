"""Russian morphology for every task and metric: one pymorphy3 analyzer per process, and a word's
first (most probable) parse remembered (a run's phrases, questions and answers repeat their words;
a parse is about 0.1 ms of Python). pymorphy3 is imported on first use, not with this module."""

from __future__ import annotations

import threading
from functools import cache, lru_cache
from typing import Any

_loading = threading.Lock()  # concurrent batches asked at once and each loaded its own


def analyzer() -> Any:
    """The process's ``pymorphy3.MorphAnalyzer`` (its dictionaries load once, ~0.1 s)."""
    with _loading:
        return _load()


@cache
def _load() -> Any:
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


@lru_cache(maxsize=1 << 16)
def first_parse(word: str) -> Any:
    """``analyzer().parse(word)[0]``: a pure function of the word, remembered."""
    return analyzer().parse(word)[0]
