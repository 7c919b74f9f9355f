"""VQA head training on tiny fixtures with the fake trunk: readers, the answer-type step, train_head."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from core.task import SetupContext
from core.testing import make_fake_trunk

QUESTIONS = [
    ("Is there a dog?", "yes"),
    ("Is this a kitchen?", "no"),
    ("What color is the bus?", "white"),
    ("How many people are there?", "2"),
    ("What sport is this?", "tennis"),
    ("What room is this?", "kitchen"),
    ("What kind of tree is this?", "oak"),
    ("Эта собака спит?", "да"),
]


def _write_set(root: Path, n_images: int = 30, seed: int = 0) -> None:
    from PIL import Image

    rng = random.Random(seed)
    images = root / "input" / "VQA" / "images"
    images.mkdir(parents=True)
    (root / "true" / "VQA").mkdir(parents=True)
    questions, gold = {}, {}
    for i in range(n_images):
        name = f"COCO_val2014_{i:012d}.jpg"
        color = tuple(rng.randrange(256) for _ in range(3))
        Image.new("RGB", (32, 32), color).save(images / name)
        for j, (text, answer) in enumerate(rng.sample(QUESTIONS, 3)):
            qid = str(i * 10 + j)
            questions[qid] = {"question": text, "file_name": name}
            if answer in ("yes", "no") and rng.random() < 0.5:
                answer = "no" if answer == "yes" else "yes"
            gold[qid] = {"answer": [answer], "lang": "ru" if answer == "да" else "en"}
    (root / "input" / "VQA" / "questions.json").write_text(json.dumps(questions, ensure_ascii=False), "utf-8")
    (root / "true" / "VQA" / "true_VQA.json").write_text(json.dumps(gold, ensure_ascii=False), "utf-8")


def _write_okvqa(path: Path) -> None:
    rows = [
        {"question": text, "answers": [answer.upper()], "image_id": i}
        for i, (text, answer) in enumerate(QUESTIONS[2:7] * 6)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", "utf-8")


@pytest.mark.parametrize(
    ("answer", "kind"),
    [("white", "color"), ("3", "count"), ("tennis", "sport"), ("kitchen", "place"), ("yes", "yesno"), ("oak", "other")],
)
def test_answer_type(answer: str, kind: str) -> None:
    from plugins.vqa.answerer import answer_type

    assert answer_type(answer) == kind


def test_read_okvqa_jsonl_normalizes(tmp_path: Path) -> None:
    from plugins.vqa.train.fit import read_okvqa_jsonl

    _write_okvqa(tmp_path / "qa.jsonl")
    rows = read_okvqa_jsonl(tmp_path / "qa.jsonl")
    assert len(rows) == 30 and rows[0].answers == ("white",) and rows[0].group == "okvqa0"


def test_read_vqa_v2(tmp_path: Path) -> None:
    from PIL import Image

    from plugins.vqa.train.fit import read_vqa_v2

    (tmp_path / "img").mkdir()
    Image.new("RGB", (8, 8)).save(tmp_path / "img" / "COCO_val2014_000000000042.jpg")
    qs = {"questions": [{"question_id": 1, "image_id": 42, "question": "Is it red?"}]}
    qs["questions"].append({"question_id": 2, "image_id": 7, "question": "No image here?"})
    given = ["Yes", "yes", "no", "maybe", "no", "yes", "yes", "yes", "yes", "yes"]
    anns = {"annotations": [{"question_id": 1, "answers": [{"answer": a} for a in given]}]}
    (tmp_path / "q.json").write_text(json.dumps(qs), "utf-8")
    (tmp_path / "a.json").write_text(json.dumps(anns), "utf-8")
    out = read_vqa_v2(tmp_path / "q.json", tmp_path / "a.json", tmp_path / "img")
    assert len(out) == 1 and out[0].image.name.endswith("42.jpg")
    assert set(out[0].answers) == {"yes", "no"}  # each given by at least 2 annotators


def test_scale_keeps_a_stable_share_of_images() -> None:
    from plugins.vqa.train.fit import within_share

    names = [f"COCO_train2014_{i:012d}.jpg" for i in range(2000)]
    third = {n for n in names if within_share(n, 0.3)}
    assert 540 <= len(third) <= 660  # about 30 %
    assert {n for n in names if within_share(n, 0.1)} < third  # a smaller share is a subset
    assert all(within_share(n, 1.0) for n in names)


def test_sets_without_a_vqa_part_are_skipped(tmp_path: Path) -> None:
    from plugins.vqa.task import VqaTask
    from training import challenge_sets

    _write_set(tmp_path / "vqa")
    (tmp_path / "zsod" / "true" / "zsOD").mkdir(parents=True)  # --data challenge=SET reaches every trainer
    assert challenge_sets([tmp_path / "zsod", tmp_path / "vqa"], VqaTask.info) == [tmp_path / "vqa"]


def test_ship_rule_never_loses_to_a_constant() -> None:
    from plugins.vqa.train.fit import choose_model

    assert choose_model(0.70, 0.65, 0.55) == "model"
    assert choose_model(0.60, 0.65, 0.55) == "prior alone"
    assert choose_model(0.54, 0.53, 0.55) == "constant"
    assert choose_model(0.55, 0.50, 0.55) == "constant"  # a tie is not a win


def test_train_head_writes_a_usable_head(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from plugins.vqa.head import CARD_FILE, WEIGHTS_FILE, load_head
    from plugins.vqa.task import VqaTask
    from plugins.vqa.train import fit, train_head
    from training import HeadCard, Sources, TrainRequest

    CARD_NAME, WEIGHTS_NAME = CARD_FILE.name, WEIGHTS_FILE.name

    # Smaller searches, same code path (the fixture has 90 questions).
    monkeypatch.setattr(fit, "LM_STEPS", 25)
    monkeypatch.setattr(fit, "YESNO_PENALTIES", (1e-2,))
    monkeypatch.setattr(fit, "BIL_EPOCHS", (1, 2))

    _write_set(tmp_path / "set")
    _write_okvqa(tmp_path / "qa.jsonl")
    trunk = make_fake_trunk()
    data = {"challenge": [tmp_path / "set"], "okvqa_jsonl": [tmp_path / "qa.jsonl"]}
    head_card = train_head(TrainRequest(trunk, tmp_path / "head", Sources(data), progress=False, data_root=None))
    assert isinstance(head_card, HeadCard) and set(head_card.dev_score) == {"heldout_set"}
    card_path = head_card.path
    card = json.loads(card_path.read_text("utf-8"))
    assert card_path.name == CARD_NAME and (tmp_path / "head" / WEIGHTS_NAME).is_file()
    assert card["trunk"] == trunk.component_versions
    assert card["data"]["text_questions"] == 30
    assert card["yesno"]["ships"] in ("model", "prior alone", "constant")
    assert "white" in card["answer_counts"]
    head = load_head(trunk, tmp_path / "head" / WEIGHTS_NAME, card_path)
    assert head.has_prior and head.lm_q is not None and head.type_w is not None
    task = VqaTask(tmp_path / "head" / WEIGHTS_NAME)
    task.setup(SetupContext(trunk))
    # The cache (training.FeatureCache stores) makes a second run resume without encoding anything again.
    cache = tmp_path / "head" / "cache"
    assert any(cache.glob("pooled/*/shard_*.pt")) and any(cache.glob("text/*/shard_*.pt"))
    import torch
    from safetensors.torch import load_file

    weights = load_file(tmp_path / "head" / WEIGHTS_NAME)
    calls = {"images": 0, "texts": 0}
    encode_images, embed_texts = trunk.image_feature_maps, trunk.embed_texts

    def count_images(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["images"] += 1
        return encode_images(*args, **kwargs)

    def count_texts(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["texts"] += 1
        return embed_texts(*args, **kwargs)

    trunk.image_feature_maps, trunk.embed_texts = count_images, count_texts  # type: ignore[method-assign]
    train_head(TrainRequest(trunk, tmp_path / "head", Sources(data), progress=False, data_root=None))
    assert calls == {"images": 0, "texts": 0}
    again = load_file(tmp_path / "head" / WEIGHTS_NAME)
    assert list(again) == list(weights)
    for name, tensor in weights.items():  # the same fit, up to the last bits of float sums
        torch.testing.assert_close(again[name], tensor, rtol=1e-5, atol=1e-6, msg=name)


class _FakeDetections:
    """``detect.DetectionCache.get`` for a fixed table: image name -> [(class index, score)]."""

    def __init__(self, table: dict[str, list[tuple[int, float]]]) -> None:
        self.table = table

    def get(self, paths: list[Path]) -> list:
        import numpy as np

        from core.detector import Detections

        out = []
        for p in paths:
            rows = self.table.get(Path(p).name, [])
            out.append(
                Detections(
                    np.zeros((len(rows), 4), np.float32),
                    np.array([s for _, s in rows], np.float32),
                    np.array([c for c, _ in rows], np.int64),
                )
            )
        return out


def test_synthetic_yesno_needs_captions_and_detector_to_agree(tmp_path: Path) -> None:
    from PIL import Image

    from plugins.vqa.train.fit import synthetic_yesno

    # Class 0 person, 16 dog, 17 horse. Images 0-9: a man riding a horse, both surely detected
    # (two "yes", but no class for a "no": balanced, so no question). Images 10-19: a man with a
    # dog the detector sees only faintly (neither "yes" nor "no"), no horse: "person" yes, "horse" no.
    captions, table = {}, {}
    for i in range(20):
        name = f"{i}.jpg"
        Image.new("RGB", (8, 8)).save(tmp_path / name)
        if i < 10:
            captions[name] = ["A man riding a horse.", "A rider on horseback"]
            table[name] = [(0, 0.9), (17, 0.8)]
        else:
            captions[name] = ["A man walks his dog.", "A guy with a dog"]
            table[name] = [(0, 0.9), (16, 0.2)]
    qs = synthetic_yesno(captions, tmp_path, 4, seed=0, detections=_FakeDetections(table))
    assert len(qs) == 20
    assert {q.image.name for q in qs} == {f"{i}.jpg" for i in range(10, 20)}
    for q in qs:
        yes = q.answers[0] in ("yes", "да")
        assert yes == (("person" in q.question) or ("человек" in q.question))
        assert yes != (("horse" in q.question) or ("лошадь" in q.question))
    assert {q.lang for q in qs} == {"en", "ru"}
    assert synthetic_yesno(captions, tmp_path, 4, seed=0, detections=None) == []


def test_detection_cache_keeps_each_input_size_apart(tmp_path: Path) -> None:
    from PIL import Image

    from core.testing import FakeDetector
    from plugins.vqa.train.detect import DetectionCache

    class SizeScored(FakeDetector):
        """One box an image, scored by the input size it was asked for."""

        def detect(self, images, *, input_size=None):  # noqa: ANN001, ANN201
            out = super().detect(images, input_size=input_size)
            for d in out:
                d.scores[:] = (input_size or 0) / 1000
            return out

    image = tmp_path / "a.png"
    Image.new("RGB", (32, 32), (200, 30, 30)).save(image)
    cache = DetectionCache(tmp_path / "cache", input_size=256, count_size=320, progress=False)
    cache._detector = SizeScored(boxes=1)
    assert cache.sizes == (256, 320)
    assert float(cache.get([image])[0].scores[0]) == pytest.approx(0.256)
    assert float(cache.get([image], 320)[0].scores[0]) == pytest.approx(0.32)
    # Read back from disk, one folder per size, no detector needed.
    again = DetectionCache(tmp_path / "cache", input_size=256, count_size=320, progress=False)
    assert float(again.get([image], 320)[0].scores[0]) == pytest.approx(0.32)
    assert float(again.get([image], 256)[0].scores[0]) == pytest.approx(0.256)
    assert again._detector is None
