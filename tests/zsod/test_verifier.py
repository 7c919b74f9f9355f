from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from core.errors import TrunkError
from core.task import SetupContext
from plugins.zsod.decision import Calibration
from plugins.zsod.task import ZsodTask
from plugins.zsod.train.fit import save_verifier
from plugins.zsod.verifier import (
    FEATURE_NAMES,
    STAGE2_FEATURES,
    build_head,
    candidate_indices,
    load_verifier,
    pair_features,
)

DATA = Path(__file__).parent / "data"


def test_pair_features_exact_values() -> None:
    sims = np.array([[0.1, 0.3], [0.5, 0.3]], dtype=np.float32)
    boxes = np.array([[0, 0, 10, 10], [0, 0, 20, 5]], dtype=float)
    f = pair_features(sims, np.array([0.2, 0.4]), boxes, (20, 10), ["red car", "машина"])
    col = {name: f[..., i] for i, name in enumerate(FEATURE_NAMES)}
    assert f.shape == (2, 2, len(FEATURE_NAMES))
    np.testing.assert_allclose(col["cos_minus_phrase_mean"], [[-0.1, 0.1], [0.1, -0.1]], atol=1e-6)
    np.testing.assert_allclose(col["cos_rank_boxes"], [[0.5, 1.0], [1.0, 0.5]])
    np.testing.assert_allclose(col["cos_gap_top"], [[-0.4, 0.0], [0.0, 0.0]], atol=1e-6)
    np.testing.assert_allclose(col["image_cos_minus_mean"], [[-0.1, 0.1], [-0.1, 0.1]], atol=1e-6)
    np.testing.assert_allclose(col["log_area_frac"][:, 0], [np.log(0.5), np.log(0.5)])
    np.testing.assert_allclose(col["cyrillic"], [[0, 1], [0, 1]])


def test_candidates_are_each_phrases_best_distinct_boxes(monkeypatch: pytest.MonkeyPatch) -> None:
    import plugins.zsod.verifier as verifier

    monkeypatch.setattr(verifier, "CANDIDATES_PER_PHRASE", 2)
    monkeypatch.setattr(verifier, "MAX_CANDIDATES", 40)
    boxes = np.array([[0, 0, 10, 10], [0, 0, 10, 11], [50, 50, 60, 60], [20, 0, 30, 10]], dtype=float)
    logits = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.7], [0.5, 0.6]])
    # phrase 0: box 0, box 1 is a near-duplicate of it (IoU 0.91) -> box 3; phrase 1: 2, 3.
    # The fill by mean logit reaches box 1 last and skips it as a duplicate.
    assert candidate_indices(logits, boxes).tolist() == [0, 2, 3]
    # a phrase-specific cosine ranking brings its own best box in
    cos_z = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    cos_z[1, 1] = 5.0
    # (duplicates are only skipped within one ranking: another phrase may want a near-identical box)
    assert candidate_indices(logits, boxes, cos_z).tolist() == [0, 1, 2, 3]


def _write_random_verifier(trunk, folder: Path) -> None:  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    heads = {"stage1": build_head(len(FEATURE_NAMES)), "stage2": build_head(len(STAGE2_FEATURES))}
    card = {
        "features": list(FEATURE_NAMES),
        "stage2_features": list(STAGE2_FEATURES),
        "trunk": dict(trunk.component_versions),
    }
    save_verifier(heads, card, folder / "v.safetensors", folder / "v.json")


def test_two_stage_pipeline_answers_every_phrase(fake_trunk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _write_random_verifier(fake_trunk, tmp_path)
    task = ZsodTask(calibration=Calibration(present=0.0, extra=0.0, max_boxes=2))
    loaded = task.setup(SetupContext(fake_trunk))
    task.verifier = load_verifier(fake_trunk, tmp_path / "v.safetensors", tmp_path / "v.json")
    samples = task.discover(DATA)
    with torch.inference_mode():
        raw = task.predict(task.preprocess(samples, fake_trunk, loaded), fake_trunk, loaded)
    preds = {p.key: p.value for p in task.postprocess(raw, samples, loaded)}
    assert all(1 <= len(b) <= 2 for b in preds["0.jpg"].values())
    assert set(preds["0.jpg"]) == {"red square", "blue circle", "a green dog"}


def test_a_verifier_for_another_trunk_refuses_to_load(fake_trunk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from core.testing import make_fake_trunk

    _write_random_verifier(fake_trunk, tmp_path)
    other = make_fake_trunk(seed=1)
    other._backend.component_versions = {"image": "fake-image-1", "text": "fake-text-1", "joint": "fake-joint-2"}
    with pytest.raises(TrunkError, match="joint"):
        load_verifier(other, tmp_path / "v.safetensors", tmp_path / "v.json")
