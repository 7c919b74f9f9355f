"""The compiled CTC search (plugins/htr/ctc_native.c) against the Python versions it replaces, and its fallback."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from plugins.htr import lexdecode, native
from plugins.htr.charset import NUM_CLASSES
from plugins.htr.ctc import prefix_beam_search
from plugins.htr.lexdecode import shared_decoder
from plugins.htr.script import label_scripts
from plugins.htr.task import free_readings, pick_readings

ROWS = Path(__file__).parent / "data" / "decoder_rows.npz"
needs_cc = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")


@pytest.fixture
def python_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The Python versions: as when the library cannot be had (``FB_HTR_NATIVE=0``)."""
    monkeypatch.setenv(native.ENV, "0")
    native.library.cache_clear()
    yield
    native.library.cache_clear()


def _both(call):  # type: ignore[no-untyped-def]
    """``call()`` compiled, then with the Python versions."""
    native.library.cache_clear()
    assert native.library() is not None
    compiled = call()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(native.ENV, "0")
        native.library.cache_clear()
        python = call()
    native.library.cache_clear()
    return compiled, python


@pytest.fixture(scope="module")
def real_log_probs() -> np.ndarray:
    with np.load(ROWS) as data:
        return np.asarray(data["log_probs"])


@needs_cc
def test_library_builds_into_the_cache_named_by_its_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUSIONBRAIN_CACHE", str(tmp_path))
    built = native.build()
    assert built == native.library_path() and built.parent == tmp_path and built.exists()
    assert native.build() == built  # reused, not rebuilt


@needs_cc
def test_a_damaged_build_is_rebuilt_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("FUSIONBRAIN_CACHE", str(tmp_path))
    monkeypatch.delenv(native.ENV, raising=False)
    native.library_path().write_bytes(b"not a shared library")
    native.library.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="plugins.htr.native"):
            assert native.library() is not None
        assert any("does not load" in r.getMessage() for r in caplog.records)
        assert native.library_path().read_bytes()[:4] == b"\x7fELF"
    finally:
        native.library.cache_clear()


@needs_cc
def test_prefix_beam_search_compiled_is_the_python_search(real_log_probs: np.ndarray) -> None:
    rng = np.random.default_rng(3)
    with np.errstate(divide="ignore"):  # some labels get probability 0: log -inf
        rows = [*real_log_probs, *np.log(rng.dirichlet(np.full(NUM_CLASSES, 0.05), size=(6, 20)))]
    scripts = label_scripts()
    for lp in rows:
        for kwargs in ({"scripts": scripts}, {}, {"beam_width": 3, "top_k": NUM_CLASSES + 1, "prune": -30.0}):
            compiled, python = _both(lambda lp=lp, kw=kwargs: prefix_beam_search(lp, **kw))
            assert compiled == python  # the same prefixes in the same order, the same doubles


@needs_cc
def test_a_batch_s_free_readings_are_each_row_s_alone(real_log_probs: np.ndarray) -> None:
    def read() -> tuple[list[list[str]], list[list[str]]]:
        return free_readings(real_log_probs), [free_readings(lp[None])[0] for lp in real_log_probs]

    (compiled, compiled_alone), (python, python_alone) = _both(read)
    assert compiled == compiled_alone == python == python_alone


@needs_cc
def test_forward_compiled_is_the_numpy_pass_to_the_bit() -> None:
    rng = np.random.default_rng(5)
    probs = rng.dirichlet(np.full(NUM_CLASSES, 0.1), size=(4, 15)).transpose(1, 0, 2)  # [T, R, C], a view
    for width in (1, 3, 7, 20):  # 20 labels cannot fit 15 frames: -inf
        labels = rng.integers(1, NUM_CLASSES, size=(37, width))
        labels[::4, width // 2 :] = 0  # shorter words, padded
        labels[1::5, 1:] = labels[1::5, :1]  # repeated labels: no skipping the blank between them
        lengths = np.maximum((labels > 0).sum(1), 1)
        rows = rng.integers(0, 4, size=37)
        compiled, python = _both(lambda r=rows, la=labels, le=lengths: lexdecode._forward(probs, r, la, le, 0))
        assert np.array_equal(compiled, python)
        assert (width < 8) == np.isfinite(compiled).all()


@needs_cc
def test_task_readings_compiled_are_the_python_readings(real_log_probs: np.ndarray) -> None:
    decoder = shared_decoder()
    upright = np.zeros(len(real_log_probs))
    owner = tuple(range(len(real_log_probs)))

    def read() -> tuple[list[list[str]], list[str]]:
        free = [free_readings(lp[None])[0] for lp in real_log_probs]
        return free, pick_readings(real_log_probs, upright, owner, len(owner), decoder)

    compiled, python = _both(read)
    assert compiled == python


def test_without_a_compiler_it_warns_once_and_decodes_in_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, real_log_probs: np.ndarray
) -> None:
    monkeypatch.setenv("FUSIONBRAIN_CACHE", str(tmp_path))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    monkeypatch.delenv(native.ENV, raising=False)
    native.library.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="plugins.htr.native"):
            free = [free_readings(lp[None])[0] for lp in real_log_probs]
            texts = pick_readings(
                real_log_probs, np.zeros(len(free)), tuple(range(len(free))), len(free), shared_decoder()
            )
        assert native.library() is None
        warnings = [r for r in caplog.records if "compiled CTC search is unavailable" in r.getMessage()]
        assert len(warnings) == 1  # said once, not per word
        assert len(texts) == len(free) and any(texts)
    finally:
        native.library.cache_clear()


def test_python_only_switch(python_only: None) -> None:
    assert native.library() is None
    assert prefix_beam_search(np.log(np.full((3, NUM_CLASSES), 1.0 / NUM_CLASSES)), 2)
