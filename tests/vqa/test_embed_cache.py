"""The answer-embedding cache (``plugins.vqa.embed_cache``): reused bit-identically when everything
matches, rebuilt with a warning when damaged, never reused for other texts or another trunk, and a
plain computation where no folder takes it."""

from __future__ import annotations

import logging
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest
import torch

from core.testing import make_fake_trunk
from plugins.vqa.embed_cache import CACHE_ENV, cache_dirs, cached_embeddings

TEXTS = ["a photo of a dog.", "a photo of a red bus.", "собака", "two"]


class Counting:
    """``trunk.embed_texts`` that counts the texts it embeds."""

    def __init__(self, trunk) -> None:  # type: ignore[no-untyped-def]
        self.trunk, self.texts = trunk, 0

    def __call__(self, texts: Sequence[str]) -> torch.Tensor:
        self.texts += len(texts)
        return self.trunk.embed_texts(list(texts))


def test_warm_cache_gives_identical_embeddings_without_embedding_again(tmp_path: Path) -> None:
    trunk = make_fake_trunk(seed=0)
    cold, warm = Counting(trunk), Counting(trunk)
    first = cached_embeddings(trunk, TEXTS, cold, dirs=[tmp_path])
    second = cached_embeddings(trunk, TEXTS, warm, dirs=[tmp_path])
    assert first.dtype == second.dtype == torch.float32
    assert torch.equal(first, second)
    assert torch.equal(second, trunk.embed_texts(TEXTS))
    assert cold.texts == len(TEXTS) + 1 and warm.texts == 1  # warm: only the probe
    assert len(list(tmp_path.glob("*.safetensors"))) == 1 and not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("damage", [b"", b"not a safetensors file", None])
def test_damaged_cache_is_rebuilt_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: bytes | None
) -> None:
    trunk = make_fake_trunk(seed=0)
    expected = cached_embeddings(trunk, TEXTS, Counting(trunk), dirs=[tmp_path])
    (path,) = tmp_path.glob("*.safetensors")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage is None else damage)  # None: cut in half
    again = Counting(trunk)
    with caplog.at_level(logging.WARNING, logger="plugins.vqa.embed_cache"):
        got = cached_embeddings(trunk, TEXTS, again, dirs=[tmp_path])
    assert torch.equal(got, expected) and again.texts == len(TEXTS) + 1
    assert any("damaged" in r.getMessage() for r in caplog.records)
    warm = Counting(trunk)  # rebuilt in place: the next run reads it
    assert cached_embeddings(trunk, TEXTS, warm, dirs=[tmp_path]).equal(expected) and warm.texts == 1


def test_changed_vocabulary_is_not_reused(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    trunk = make_fake_trunk(seed=0)
    cached_embeddings(trunk, TEXTS, Counting(trunk), dirs=[tmp_path])
    other = [*TEXTS[:-1], "three"]
    again = Counting(trunk)
    with caplog.at_level(logging.WARNING, logger="plugins.vqa.embed_cache"):
        got = cached_embeddings(trunk, other, again, dirs=[tmp_path])
    assert again.texts == len(other) + 1
    assert torch.equal(got, trunk.embed_texts(other))
    assert any("texts" in r.getMessage() for r in caplog.records)


def test_another_trunk_version_is_not_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog) -> None:  # type: ignore[no-untyped-def]
    trunk = make_fake_trunk(seed=0)
    first = cached_embeddings(trunk, TEXTS, Counting(trunk), dirs=[tmp_path])
    (old,) = tmp_path.glob("*.safetensors")
    monkeypatch.setattr(trunk._backend, "component_versions", {**trunk.component_versions, "text": "fake-text-2"})
    # Even under the new version's file name, the file's metadata name the old trunk.
    (tmp_path / f"answers-{trunk.version}.safetensors").write_bytes(old.read_bytes())
    again = Counting(trunk)
    with caplog.at_level(logging.WARNING, logger="plugins.vqa.embed_cache"):
        got = cached_embeddings(trunk, TEXTS, again, dirs=[tmp_path])
    assert again.texts == len(TEXTS) + 1 and torch.equal(got, first)
    assert any("another components, trunk" in r.getMessage() for r in caplog.records)


def test_other_weights_under_the_same_version_are_not_reused(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    trunk, reseeded = make_fake_trunk(seed=0), make_fake_trunk(seed=1)
    assert reseeded.version == trunk.version  # same version strings, other weights: the probe catches it
    first = cached_embeddings(trunk, TEXTS, Counting(trunk), dirs=[tmp_path])
    again = Counting(reseeded)
    with caplog.at_level(logging.WARNING, logger="plugins.vqa.embed_cache"):
        got = cached_embeddings(reseeded, TEXTS, again, dirs=[tmp_path])
    assert again.texts == len(TEXTS) + 1
    assert torch.equal(got, reseeded.embed_texts(TEXTS)) and not torch.equal(got, first)
    assert any("weights" in r.getMessage() for r in caplog.records)


def test_unwritable_folder_falls_back_to_computing(tmp_path: Path) -> None:
    trunk = make_fake_trunk(seed=0)
    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"x")  # a file where a folder should be: mkdir fails even for root
    got = cached_embeddings(trunk, TEXTS, Counting(trunk), dirs=[blocker / "sub"])
    assert torch.equal(got, trunk.embed_texts(TEXTS))
    assert blocker.read_bytes() == b"x" and sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_cache_folders_follow_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    weights = tmp_path / "weights"
    weights.mkdir()
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dirs(weights) == [weights / ".cache", tmp_path / "home" / ".cache" / "fusionbrain" / "vqa"]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dirs(weights)[1] == tmp_path / "xdg" / "fusionbrain" / "vqa"
    # A read-only install (its mode, which root's os.access ignores) with HOME unset: no folder at all.
    weights.chmod(weights.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.delenv("HOME")
    try:
        assert cache_dirs(weights) == []
        trunk = make_fake_trunk(seed=0)
        got = cached_embeddings(trunk, TEXTS, Counting(trunk))
        assert torch.equal(got, trunk.embed_texts(TEXTS))
    finally:
        weights.chmod(0o755)
    monkeypatch.setenv(CACHE_ENV, "off")
    assert cache_dirs(weights) == []
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert cache_dirs(weights) == [tmp_path / "mine"]


def test_fp32_and_bf16_runs_keep_a_file_each(tmp_path: Path) -> None:
    fp32 = make_fake_trunk(seed=0)
    bf16 = make_fake_trunk(seed=0)
    bf16.autocast_dtype = torch.bfloat16  # what --precision bf16 gives on a CPU with bf16 units
    cached_embeddings(fp32, TEXTS, Counting(fp32), dirs=[tmp_path])
    cached_embeddings(bf16, TEXTS, Counting(bf16), dirs=[tmp_path])
    assert len(list(tmp_path.glob("*.safetensors"))) == 2
    assert (tmp_path / f"answers-{fp32.version}.safetensors").is_file()  # the default's name is kept
    for trunk in (fp32, bf16):  # each still warm after the other ran
        warm = Counting(trunk)
        cached_embeddings(trunk, TEXTS, warm, dirs=[tmp_path])
        assert warm.texts == 1


def test_runs_on_different_thread_counts_keep_a_file_each(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    trunk, before = make_fake_trunk(seed=0), torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            cached_embeddings(trunk, TEXTS, Counting(trunk), dirs=[tmp_path])
        assert len(list(tmp_path.glob("*.safetensors"))) == 2
        with caplog.at_level(logging.WARNING):
            for threads in (1, 2):  # each still warm after the other ran, nothing rebuilt
                torch.set_num_threads(threads)
                warm = Counting(trunk)
                cached_embeddings(trunk, TEXTS, warm, dirs=[tmp_path])
                assert warm.texts == 1
        assert not caplog.records
    finally:
        torch.set_num_threads(before)
