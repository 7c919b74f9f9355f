from __future__ import annotations

import json
import logging
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from plugins.zsod.head import build_grounding_head, image_logit
from plugins.zsod.train import phrases as ph
from plugins.zsod.train.weak_fit import WeakImage, box_pool_matrix, fit_grounding, weak_auc
from tests._close import assert_same_answers


def test_mining_cuts_captions_into_chunks_relations_and_counts() -> None:
    got = ph.mine_english("A little girl in a pink dress is climbing up a set of stairs .")
    assert got[:3] == ["a little girl", "a pink dress", "a set of stairs"]
    assert "a little girl in a pink dress" in got
    assert "two dogs" in ph.mine_english("Two dogs play on the beach")
    assert ph.mine_russian("спальня с кроватью и окном") == [
        "спальня с кроватью и окном",
        "спальня с кроватью",
        "окном",
    ]
    assert ph.head_noun("a group of people on a beach") == "people"
    assert ph.head_noun("two black dogs") == "dog"


def test_swaps_use_words_the_image_never_mentions() -> None:
    vocab = ph.caption_vocabulary(["A black dog and a white dog on the grass"])
    rng = random.Random(0)
    for _ in range(20):
        swapped = ph.swap_attribute("a black dog", vocab, rng)
        assert swapped is not None and swapped.endswith(" dog")
        assert swapped.split()[1] not in vocab
        obj = ph.swap_object("a black dog", ["cat", "dog", "grass", "car"], vocab, rng)
        assert obj in ("a black cat", "a black car")
    assert ph.swap_attribute("a dog", vocab, rng) is None


def test_box_codes_are_the_mean_of_cell_codes() -> None:
    torch.manual_seed(0)
    head = build_grounding_head(6, 5, code=4, hidden=3)
    head.mean.copy_(torch.randn(6))
    head.std.copy_(torch.rand(6) + 0.5)
    cells = torch.randn(9, 6)
    pool = torch.from_numpy(box_pool_matrix(3, 3))
    assert pool.shape[1] == 9 and torch.allclose(pool.sum(1), torch.ones(len(pool)))
    np.testing.assert_allclose(
        (pool @ head.region_codes(cells)).detach(), head.region_codes(pool @ cells).detach(), atol=1e-5
    )
    assert torch.allclose(image_logit(torch.full((7, 2), 1.5), dim=0), torch.full((2,), 1.5))


def test_multiple_instance_training_learns_which_phrase_is_in_which_image() -> None:
    """Synthetic: image i holds the feature of "its" concept in one random cell; phrases name concepts."""
    rng = np.random.default_rng(0)
    concepts = rng.normal(size=(6, 16)).astype(np.float32)
    texts = rng.normal(size=(6, 8)).astype(np.float32)
    fmaps, weak = [], []
    for i in range(96):
        c = rng.choice(6, size=2, replace=False)
        f = rng.normal(scale=0.5, size=(16, 4, 4)).astype(np.float32)
        for k in c:
            y, x = rng.integers(0, 4, size=2)
            f[:, y, x] += 3 * concepts[k]
        fmaps.append(f)
        absent = [k for k in range(6) if k not in c]
        weak.append(WeakImage(str(i), [*map(int, c), *absent], [1, 1] + [0] * len(absent)))
    fm = torch.from_numpy(np.stack(fmaps)).to(torch.float16)
    head = fit_grounding(fm[:80], weak[:80], texts, [], epochs=6, seed=0, batch=16, lr=1e-2, progress=False)
    assert weak_auc(head, fm[80:], weak[80:], texts)["weak_auc"] > 0.9


def test_labelled_boxes_alone_train_the_grounding_head() -> None:
    """No captioned images (a user with COCO instances only): the boxes' proposals and phrases suffice."""
    from plugins.zsod.train.weak_fit import StrongImage

    rng = np.random.default_rng(1)
    concepts = rng.normal(size=(6, 16)).astype(np.float32)
    texts = rng.normal(size=(6, 8)).astype(np.float32)

    def image(i: int) -> StrongImage:
        c = rng.choice(6, size=2, replace=False)
        pooled = rng.normal(scale=0.5, size=(10, 16)).astype(np.float32)  # 10 proposals
        labels = np.zeros((10, 6), np.float32)
        for box, k in zip(rng.choice(10, size=2, replace=False), c, strict=True):
            pooled[box] += 3 * concepts[k]
            labels[box, k] = 1
        return StrongImage(str(i), pooled, texts, labels, labels.max(0))

    train, held = [image(i) for i in range(40)], [image(i) for i in range(40, 50)]
    with pytest.raises(ValueError, match="neither captioned images nor labelled boxes"):
        fit_grounding(None, [], None, [], epochs=1, seed=0, progress=False)
    head = fit_grounding(None, [], None, train, epochs=2, seed=0, lr=1e-2, progress=False)
    with torch.inference_mode():
        scores = [head(torch.from_numpy(im.pooled), torch.from_numpy(im.texts)).numpy() for im in held]
    pos = np.concatenate([s[im.labels == 1] for s, im in zip(scores, held, strict=True)])
    neg = np.concatenate([s[im.labels == 0] for s, im in zip(scores, held, strict=True)])
    assert (pos[:, None] > neg[None]).mean() > 0.9  # box-phrase AUC on held-out images


def _image(path: Path, colour: tuple[int, int, int], box: tuple[int, int, int, int]) -> None:
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (96, 64), (128, 128, 128))
    ImageDraw.Draw(im).rectangle(box, fill=colour)
    path.parent.mkdir(parents=True, exist_ok=True)
    im.save(path)


@pytest.fixture
def tiny_sources(tmp_path: Path) -> dict[str, list[Path]]:
    challenge = tmp_path / "set"
    requests, gold = {}, {}
    for i in range(6):
        colour, name = ((200, 30, 30), "red box") if i % 2 else ((30, 30, 200), "blue box")
        box = (10 + 5 * i, 8, 50 + 5 * i, 40)
        _image(challenge / "input" / "zsOD" / "images" / f"{i}.jpg", colour, box)
        requests[f"{i}.jpg"] = [name, "a cat"]
        gold[f"{i}.jpg"] = {name: [[box[0], box[1], box[2] - box[0], box[3] - box[1]]], "a cat": []}
    (challenge / "input" / "zsOD" / "requests.json").write_text(json.dumps(requests))
    (challenge / "true" / "zsOD").mkdir(parents=True)
    (challenge / "true" / "zsOD" / "true_zsOD.json").write_text(json.dumps(gold))
    caps = tmp_path / "caps"
    captions = {}
    for i in range(10):
        colour, word = ((200, 30, 30), "red") if i % 2 else ((30, 30, 200), "blue")
        _image(caps / "images" / f"c{i}.jpg", colour, (20, 10, 60, 50))
        captions[f"c{i}.jpg"] = [f"A {word} box on a grey wall .", f"a {word} square"]
    (caps / "captions_en.json").write_text(json.dumps(captions))
    return {"challenge": [challenge], "coco_captions": [caps]}


def test_train_head_writes_loadable_heads_and_a_card(fake_trunk, tiny_sources, tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    from plugins.zsod.train import fit, train_head
    from plugins.zsod.verifier import load_verifier
    from training import HeadCard, Sources, TrainRequest

    out = tmp_path / "heads"
    options = {"epochs": 1, "cache": tmp_path / "c"}
    req = TrainRequest(fake_trunk, out, Sources(tiny_sources), progress=False, data_root=None, options=options)
    head = train_head(req)
    assert isinstance(head, HeadCard) and set(head.dev_score) == {"dev_f1", "dev_precision", "dev_recall"}
    card_path = head.path
    card = json.loads(card_path.read_text())
    assert card["task"] == "zsod" and card["trunk"] == fake_trunk.component_versions
    assert card["data"]["grounding"]["caption_images"] == 10 and card["data"]["labelled_train_images"] == 3
    verifier = load_verifier(fake_trunk, out / "verifier.safetensors", card_path)
    assert verifier.grounding is not None
    assert (out / "calibration.json").exists()
    # resume: the grounding head is reused, the result is the same
    caplog.set_level(logging.INFO)
    again = train_head(req).path
    # dev_scores are written to 4 decimals: the same fit may round to a neighbour, no further
    assert_same_answers(json.loads(again.read_text())["dev_scores"], card["dev_scores"], abs_tol=1e-4 + 1e-9)
    assert "reusing the grounding head" in caplog.text
    # another recipe (here: two epochs) trains its own grounding head instead of reusing that one
    caplog.clear()
    fit.train_heads(req, epochs=2, cache=tmp_path / "c")
    assert "trained for another run" in caplog.text and "reusing" not in caplog.text


def test_no_head_mode_prefers_the_region_that_matches_the_phrase() -> None:
    from plugins.zsod.pipeline import RegionData, no_head_scores, no_head_z

    rng = np.random.default_rng(0)
    unit = lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)  # noqa: E731
    regions = unit(rng.normal(size=(5, 16)))
    texts = unit(np.stack([regions[3] + 0.1 * rng.normal(size=16), rng.normal(size=16)]))
    background = unit(rng.normal(size=(12, 16)))
    data = RegionData(np.zeros((5, 4)), None, torch.tensor(regions), torch.tensor(texts), None)
    z = no_head_z(data, torch.tensor(background))
    assert int(np.argmax(z[:, 0])) == 3 and z[3, 0] > 3
    p = no_head_scores(data, torch.tensor(background))
    assert p.shape == (5, 2) and p[3, 0] > 0.9 and p[:, 1].max() < p[3, 0]


def test_one_file_name_in_two_sources_is_two_training_images() -> None:
    from plugins.zsod.task import ZsodSample
    from plugins.zsod.train.fit import Labelled, image_key

    sample = ZsodSample("COCO_val2014_000000000632.jpg", Path("a.jpg"), ("a bed",))
    keys = {image_key(Labelled(sample, {}, source)) for source in ("coco_instances", "challenge:zsod_coco_dev")}
    assert len(keys) == 2


def test_challenge_sets_without_a_zsod_part_are_skipped(tiny_sources, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from plugins.zsod.train.fit import challenge_sets

    (tmp_path / "vqa_only" / "true" / "VQA").mkdir(parents=True)  # --data challenge=SET reaches every trainer
    train, dev = challenge_sets([tmp_path / "vqa_only", *tiny_sources["challenge"]])
    assert len(train) + len(dev) == 6
