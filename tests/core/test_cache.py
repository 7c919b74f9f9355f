"""core.cache: the one rule for the user's cache folder, and the fallback when it cannot be written."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from core.cache import TEMPORARY, user_cache_dir, writable


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("FUSIONBRAIN_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache_dir() == tmp_path / "home" / ".cache" / "fusionbrain"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert user_cache_dir() == tmp_path / "xdg" / "fusionbrain"
    monkeypatch.setenv("FUSIONBRAIN_CACHE", str(tmp_path / "chosen"))
    assert user_cache_dir() == tmp_path / "chosen"
    for name in ("FUSIONBRAIN_CACHE", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name)
    assert user_cache_dir() is None  # no home: the caller falls back to the temporary folder


def test_an_unwritable_folder_falls_back_to_the_temporary_folder(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    wanted = tmp_path / "a-file" / "inside" / "lib.so"  # its folder cannot be made
    got = writable(wanted)
    assert got == Path(tempfile.gettempdir()) / TEMPORARY / "lib.so" and got.parent.is_dir()
    fine = tmp_path / "cache" / "lib.so"
    assert writable(fine) == fine and fine.parent.is_dir()
