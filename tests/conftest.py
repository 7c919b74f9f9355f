"""Shared fixtures: a fresh plugin manager per test, a fake trunk, the shared data folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import registry
from tests._network import refuse_network

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def _shared_data_path() -> Path:
    if SHARED_DATA.is_dir():
        return SHARED_DATA
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but the shared data folder {SHARED_DATA} is missing")
    pytest.skip(f"needs the real data in {SHARED_DATA} (absent here)")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the repo; skips when absent, fails under ``CI=true``."""
    return _shared_data_path()


@pytest.fixture(scope="session")
def jdk() -> None:
    """``javac`` and ``java`` on PATH (the Java oracle); skips when absent, fails under ``CI=true``
    (``make install`` installs Debian's default-jdk-headless when javac is missing)."""
    import shutil

    if shutil.which("javac") and shutil.which("java"):
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("CI=true but no JDK on PATH (make install installs default-jdk-headless)")
    pytest.skip("needs javac and java on PATH")


@pytest.fixture(scope="session")
def fake_trunk():  # type: ignore[no-untyped-def]
    """A seeded, tiny, frozen trunk with the real interface (``core.testing``)."""
    from core.testing import make_fake_trunk

    return make_fake_trunk(seed=0)


@pytest.fixture(scope="session")
def default_trunk():  # type: ignore[no-untyped-def]
    """The real default trunk (pretrained parts from registry packages); built once per session."""
    from core.trunk import TrunkConfig, load_trunk

    return load_trunk(TrunkConfig(), registry.load(load_entrypoints=False))


@pytest.fixture
def pm():  # type: ignore[no-untyped-def]
    """A fresh plugin manager with the built-in plugins and no entry points."""
    from registry import get_plugin_manager

    manager = get_plugin_manager(load_entrypoints=False)
    try:
        yield manager
    finally:
        for plugin in list(manager.get_plugins()):
            manager.unregister(plugin)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Block every outgoing connection and name lookup for the duration of a test."""
    refuse_network(monkeypatch)
    yield


@pytest.fixture(autouse=True)
def _no_vqa_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never read or write VQA's answer-embedding cache (``plugins.vqa.embed_cache``) beside the
    repo's weights or in the user's cache folder; its own tests point it elsewhere."""
    monkeypatch.setenv("FUSIONBRAIN_VQA_CACHE", "off")
