"""``core.morph``: one analyzer per process, however many batches ask at once; parses remembered."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from core import morph


@pytest.fixture
def fresh() -> Iterator[None]:
    morph._load.cache_clear()
    morph.first_parse.cache_clear()
    yield
    morph._load.cache_clear()
    morph.first_parse.cache_clear()


def test_concurrent_callers_share_one_analyzer(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import pymorphy3

    built: list[object] = []

    class Slow:
        def __init__(self) -> None:
            time.sleep(0.05)  # a real load takes ~0.1 s: long enough for a second batch to ask
            built.append(self)

    monkeypatch.setattr(pymorphy3, "MorphAnalyzer", Slow)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(morph.analyzer())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(built) == 1 and all(a is built[0] for a in got)


def test_first_parse_is_pymorphys_first_parse_and_remembered(fresh: None) -> None:
    parse = morph.first_parse("кошки")
    assert parse == morph.analyzer().parse("кошки")[0] and parse.normal_form == "кошка"
    assert morph.first_parse("кошки") is parse
