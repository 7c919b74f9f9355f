"""The HTR trainer: real handwriting sources are read, a head is trained, exported with its card, and resumed.

Rendering is replaced by plain synthetic arrays (no fonts needed) and the trunk is
the fake one, so this runs in a few seconds anywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from plugins.htr.train import fit, train_head
from training import HeadCard, Sources, TrainRequest


def fake_render_batch(n: int, seed: int, **kwargs: object) -> tuple[list[np.ndarray], list[str], list[int]]:
    rng = np.random.default_rng(seed)
    height = int(kwargs.get("height", 64))
    words = [rng.integers(0, 255, (height, height * 4, 3), dtype=np.uint8) for _ in range(n)]
    return words, ["ab" if i % 2 else "за" for i in range(n)], [1] * n


@pytest.fixture
def sources(tmp_path: Path) -> dict[str, list[Path]]:
    htr = tmp_path / "hand"
    (htr / "images").mkdir(parents=True)
    for i in range(3):
        Image.new("RGB", (60, 20), (200, 200, 200)).save(htr / "images" / f"{i}.png")
    (htr / "labels.tsv").write_text("0.png\tмы\n1.png\tyears\n2.png\tза\nmissing.png\tx\n", encoding="utf-8")
    challenge = tmp_path / "set"
    (challenge / "input" / "HTR" / "images").mkdir(parents=True)
    (challenge / "true" / "HTR").mkdir(parents=True)
    Image.new("RGB", (50, 20)).save(challenge / "input" / "HTR" / "images" / "a.png")
    (challenge / "true" / "HTR" / "true_HTR.json").write_text('{"a.png": "гор."}', encoding="utf-8")
    no_htr = tmp_path / "vqa_only"
    (no_htr / "input" / "VQA").mkdir(parents=True)
    return {"htr": [htr], "challenge": [challenge, no_htr], "coco_captions": [tmp_path / "ignored.json"]}


def test_read_real_reads_both_layouts(sources: dict[str, list[Path]]) -> None:
    real = fit.read_real(sources)
    assert [t for _, t in real["htr"]] == ["мы", "years", "за"]  # the missing image is skipped
    assert [t for _, t in real["challenge"]] == ["гор."]


def test_train_head_writes_a_card_and_resumes(
    sources: dict[str, list[Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.testing import make_fake_trunk

    monkeypatch.setattr(fit, "WordBatches", lambda: fake_render_batch)
    monkeypatch.setattr(fit, "SHARD_SIZE", 8)
    monkeypatch.setattr("plugins.htr.train.render.find_fonts", lambda *a, **k: [])  # the card's font list: none here
    trunk = make_fake_trunk()
    out = tmp_path / "head"
    options = {"shards": 2, "steps": 4, "batch": 4}
    req = TrainRequest(trunk, out, Sources(sources), seed=3, progress=False, options=options)
    head = train_head(req)
    assert isinstance(head, HeadCard) and head.path == out / "htr_head.json"
    assert set(head.dev_score) == {"dev_accuracy", "dev_cer"} and head.dev_score["dev_cer"] >= 0
    card = json.loads(head.path.read_text(encoding="utf-8"))
    assert card["task"] == "htr" and card["steps"] == 4 and card["seed"] == 3
    assert card["trunk"] == {"image": trunk.component_versions["image"]}
    assert card["data"]["real_samples"] == {"htr": 3, "challenge": 1}
    assert card["data"]["train_samples"] == 16
    assert (out / "htr_head.safetensors").stat().st_size > 0
    assert sorted(p.name for p in (out / "cache").glob("real_*.npz")) == ["real_00000.npz"]
    # A second call resumes: the checkpoint is at its last step, so nothing more is trained.
    again = json.loads(train_head(req).path.read_text(encoding="utf-8"))
    assert again["steps"] == 4


def test_a_checkpoint_of_another_recipe_is_not_resumed(
    sources: dict[str, list[Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A smoke run (``--scale``) then the full run in the same folder: the short schedule is not continued."""
    from core.testing import make_fake_trunk

    monkeypatch.setattr(fit, "WordBatches", lambda: fake_render_batch)
    monkeypatch.setattr(fit, "SHARD_SIZE", 8)
    monkeypatch.setattr("plugins.htr.train.render.find_fonts", lambda *a, **k: [])
    trunk, out = make_fake_trunk(), tmp_path / "head"
    req = TrainRequest(trunk, out, Sources(sources), progress=False)
    fit.fit_head(req, shards=2, steps=4, batch=4)
    card = fit.fit_head(req, shards=2, steps=7, batch=4)
    assert json.loads(card.read_text(encoding="utf-8"))["steps"] == 7
