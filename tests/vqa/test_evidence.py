"""The detector's evidence (plugins/vqa/evidence.py) from hand-made Detections, and the task with
and without a detector."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from core.detector import Detections
from core.task import SetupContext
from core.testing import FakeDetector, assert_task_conforms, make_fake_trunk
from plugins.vqa.evidence import (
    COLOURS,
    COUNT_DETECTOR_SIZE,
    DETECTOR_SIZE,
    EVIDENCE_NAMES,
    N_EVIDENCE,
    OPEN_EVIDENCE,
    DetectorSizes,
    candidate_class_match,
    candidate_colours,
    candidate_numbers,
    class_match,
    colour_shares,
    detector_size,
    open_evidence,
    wants_detections,
    yesno_evidence,
)
from plugins.vqa.question import parse_question
from plugins.vqa.task import VqaTask

DATA = Path(__file__).parent / "data"
NO_HEAD = DATA / "no_head.safetensors"

# Three "classes" with orthogonal embeddings; a subject equal to one of them names it.
CLASSES = torch.eye(4)[:3]


def _found(*rows: tuple[int, float, tuple[float, float, float, float]]) -> Detections:
    labels = np.array([r[0] for r in rows], dtype=np.int64)
    scores = np.array([r[1] for r in rows], dtype=np.float32)
    boxes = np.array([r[2] for r in rows], dtype=np.float32).reshape(-1, 4)
    return Detections(boxes, scores, labels)


def test_subject_is_matched_to_its_class() -> None:
    match, conf = class_match(CLASSES[[1]], CLASSES)
    assert match[0].tolist() == pytest.approx([float(np.exp(-10.0)), 1.0, float(np.exp(-10.0))])
    assert float(conf[0]) == pytest.approx((1 - 1 / 3) / float(torch.tensor([0.0, 1.0, 0.0]).std()))


def test_presence_and_count_of_the_asked_class() -> None:
    subject = CLASSES[[1, 1]]
    there = _found((1, 0.9, (0, 0, 10, 10)), (1, 0.4, (5, 5, 9, 9)), (0, 0.8, (0, 0, 4, 4)))
    absent = _found((0, 0.8, (0, 0, 4, 4)))
    ev = yesno_evidence(subject, CLASSES, [there, absent])
    assert ev.shape == (2, N_EVIDENCE + 4) and len(EVIDENCE_NAMES) == N_EVIDENCE
    names = dict(zip(EVIDENCE_NAMES, ev[0, :N_EVIDENCE].tolist(), strict=True))
    assert names["subject detected"] == pytest.approx(0.9)
    assert names["subject class detected"] == pytest.approx(0.9)
    assert names["objects"] == pytest.approx(np.log1p(3))
    assert names["subject class count"] == pytest.approx(np.log1p(2))
    gone = dict(zip(EVIDENCE_NAMES, ev[1, :N_EVIDENCE].tolist(), strict=True))
    assert gone["subject class detected"] == 0.0 and gone["subject class count"] == 0.0
    assert gone["subject detected"] == pytest.approx(0.8 * np.exp(-10.0))


def test_nothing_detected_gives_zero_evidence() -> None:
    ev = yesno_evidence(CLASSES[[2]], CLASSES, [_found()])
    assert ev[0, [0, 1, 3, 5, 6]].tolist() == [0.0] * 5 and ev[0, N_EVIDENCE:].abs().sum() == 0


def test_open_evidence_names_counts_and_colours() -> None:
    texts = ["ball", "3", "2", "red", "blue"]
    # "ball" is class 1's name; the others name no class.
    cand_match = torch.zeros(5, 3)
    cand_match[0, 1] = 1.0
    image = np.zeros((20, 20, 3), dtype=np.uint8)
    image[:10, :10] = (220, 20, 20)  # a red square where the ball is
    found = _found((1, 0.9, (0, 0, 10, 10)), (1, 0.6, (10, 10, 20, 20)), (1, 0.35, (0, 10, 5, 15)))
    parsed = [parse_question("How many balls are there?"), parse_question("What color is the ball?")]
    ev = open_evidence(
        parsed, CLASSES[[1, 1]], CLASSES, cand_match, torch.tensor(candidate_numbers(texts)),
        torch.tensor(candidate_colours(texts)), [found, found], [None, image],
    )  # fmt: skip
    assert ev.shape == (2, 5, len(OPEN_EVIDENCE))
    assert ev[0, :, 0].tolist() == pytest.approx([0.9, 0, 0, 0, 0])  # "ball" is detected
    assert ev[0, :, 1].tolist() == [0, 1, 0, 0, 0]  # three balls at >= 0.3
    assert ev[0, :, 2].tolist() == [0, 0, 1, 0, 0]  # two at >= 0.5
    assert ev[1, 3, 3] == pytest.approx(1.0) and ev[1, 4, 3] == 0.0  # the ball's box is red
    assert ev[1, :, 1].abs().sum() == 0  # no count evidence for a colour question
    assert (
        open_evidence(parsed[:1], CLASSES[[1]], CLASSES, cand_match, torch.zeros(5), torch.zeros(5), [None], [None])
        .abs()
        .sum()
        == 0
    )  # noqa: E501


def test_candidate_class_match_picks_the_naming_answer() -> None:
    # 200 answers in a 64-d space: one is the class's own name, the rest unrelated to it.
    classes = torch.eye(64)[:3]
    cands = torch.nn.functional.normalize(torch.randn(200, 64, generator=torch.Generator().manual_seed(0)), dim=1)
    cands[7] = classes[2]
    match = candidate_class_match(cands, classes)[:, 2]
    assert float(match[7]) == 1.0 and int(match.argmax()) == 7 and float(match.median()) == 0.0


@pytest.mark.parametrize(
    ("rgb", "name"),
    [((250, 250, 250), "white"), ((5, 5, 5), "black"), ((128, 128, 128), "gray"), ((220, 20, 20), "red"),
     ((20, 30, 220), "blue"), ((30, 200, 40), "green"), ((240, 220, 20), "yellow"), ((110, 60, 20), "brown")],
)  # fmt: skip
def test_colour_names(rgb: tuple[int, int, int], name: str) -> None:
    image = np.full((8, 8, 3), rgb, dtype=np.uint8)
    shares = colour_shares(image, (0, 0, 8, 8))
    assert COLOURS[int(shares.argmax())] == name and shares.max() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("question", "wanted", "subject"),
    [("Is there a dog?", True, "dog"), ("How many people are there?", True, "people"),
     ("Сколько здесь жирафов?", True, "жирафов"), ("Какого цвета машина?", True, "машина"),
     ("What color is the bus?", True, "bus"), ("Есть ли на фото собака?", True, None),
     ("Why is the bus stopping?", False, None), ("Это мяч или коробка?", False, None)],
)  # fmt: skip
def test_the_detector_runs_for_the_questions_it_answers(question: str, wanted: bool, subject: str | None) -> None:
    parsed = parse_question(question)
    assert wants_detections(parsed) is wanted
    if subject is not None:
        assert parsed.subject == subject


class SizeLog(FakeDetector):
    """A fake detector that records the input size of each call and how many images it got."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[tuple[int | None, int]] = []

    def detect(self, images, *, input_size=None):  # noqa: ANN001, ANN201
        self.sizes.append((input_size, len(images)))
        return super().detect(images, input_size=input_size)


def test_the_task_uses_the_detector_once_per_image_and_size() -> None:
    detector = FakeDetector()
    assert_task_conforms(VqaTask(NO_HEAD), DATA, make_fake_trunk(seed=0), detector=detector)
    assert detector.calls > 0
    task = VqaTask(NO_HEAD)
    trunk = make_fake_trunk(seed=0)
    counting = SizeLog()
    loaded = task.setup(SetupContext.with_detector(trunk, counting))
    samples = task.discover(DATA)
    batch = task.preprocess(samples, trunk, loaded)
    with torch.inference_mode():
        task.predict(batch, trunk, loaded)
    # Two readable images (0.jpg: 5 questions, 1.png: 2), each detected once at the base size, in one
    # call; 0.jpg is asked "How many balls are there?", so it is detected once more at the count size.
    assert sum(image is not None for image in batch.rgb) == 2
    assert sorted(counting.sizes) == sorted([(DETECTOR_SIZE, 2), (COUNT_DETECTOR_SIZE, 1)])


def test_counting_questions_have_their_own_detector_size() -> None:
    sizes = DetectorSizes(base=256, counting=320)
    assert detector_size(parse_question("How many dogs are there?"), sizes) == 320
    assert detector_size(parse_question("Сколько здесь жирафов?"), sizes) == 320
    assert detector_size(parse_question("Is there a dog?"), sizes) == 256
    assert detector_size(parse_question("Какого цвета машина?"), sizes) == 256
    assert detector_size(parse_question("Why is the bus stopping?"), sizes) is None
    assert detector_size(None, sizes) is None


def test_without_a_detector_every_question_is_still_answered() -> None:
    task = VqaTask(NO_HEAD)
    trunk = make_fake_trunk(seed=0)
    loaded = task.setup(SetupContext.with_detector(trunk, None))
    samples = task.discover(DATA)
    with torch.inference_mode():
        preds = task.postprocess(task.predict(task.preprocess(samples, trunk, loaded), trunk, loaded), samples, loaded)
    assert len(preds) == len(samples) and all(isinstance(p.value, str) and p.value for p in preds)
