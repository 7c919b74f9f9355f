"""The shared detector: NanoDet-g's parity with TensorFlow, its recipe, and how a run shares it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

import registry
from core import runner
from core.detector import WEIGHTS_DIR, DetectorConfig, DetectorError, coco_classes
from core.detector.loader import Detectors, Serialized, load_detector
from core.detector.nanodet import Letterbox, NanoDetG, letterbox
from core.task import Prediction, Sample, TaskBase, TaskInfo
from core.testing import FakeDetector

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parent / "data" / "nanodet_parity.npz"
BUS = ROOT / "demo" / "input" / "zsOD" / "images" / "bus.jpg"


@pytest.fixture(scope="module")
def detector():
    return load_detector(DetectorConfig(), registry.load(load_entrypoints=False))


def test_weights_match_their_card():
    card = json.loads((WEIGHTS_DIR / "nanodet-g-416.json").read_text())
    data = (WEIGHTS_DIR / card["weights"]["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == card["weights"]["sha256"]
    assert len(data) == card["weights"]["bytes"] < 8_000_000
    assert "Apache-2.0" in card["license"] and "MIT" in card["license"]


def test_network_equals_tensorflow_on_the_fixture(detector):
    fixture = np.load(FIXTURE)
    assert hashlib.sha256(BUS.read_bytes()).hexdigest() == str(fixture["image_sha256"])
    x, _ = letterbox(np.asarray(Image.open(BUS).convert("RGB")), 416)
    with torch.inference_mode():
        out = detector._net(x[None])
    step = int(fixture["stride"])
    assert np.abs(out.scores[:, ::step].numpy() - fixture["scores"]).max() < 1e-4
    assert np.abs(out.distances[:, ::step].numpy() - fixture["distances"]).max() < 1e-4


def test_detections_equal_the_reference_decoding(detector):
    fixture = np.load(FIXTURE)
    found = detector.detect([Image.open(BUS)])[0]
    assert found.labels.tolist() == fixture["labels"].tolist()
    assert np.abs(found.boxes - fixture["boxes"]).max() < 0.05
    assert np.abs(found.scores - fixture["box_scores"]).max() < 1e-4
    # The photo's bus is found, with the people in front of it.
    names = [coco_classes().name(i) for i in found.labels[:5]]
    assert names[0] == "bus" and "person" in names


def test_batches_give_what_single_images_give(detector):
    image = np.asarray(Image.open(BUS).convert("RGB"))
    small = image[::3, ::2].copy()
    alone = [detector.detect([im])[0] for im in (image, small)]
    together = detector.detect([image, small])
    for a, b in zip(alone, together, strict=True):
        assert np.allclose(a.boxes, b.boxes, atol=1e-3) and a.labels.tolist() == b.labels.tolist()


def test_channels_last_network_gives_the_plain_layouts_outputs(detector):
    """On the CPU the network runs channels-last (faster); its outputs are the NCHW network's."""
    assert detector._layout is torch.channels_last
    assert detector._net.stages[0][0].weight.is_contiguous(memory_format=torch.channels_last)
    plain = NanoDetG()
    plain.load_state_dict(detector._net.state_dict())
    plain.eval()
    image = np.asarray(Image.open(BUS).convert("RGB"))
    x = torch.stack([letterbox(image, 256)[0], letterbox(image[::2, ::3].copy(), 256)[0]])
    with torch.inference_mode():
        want = plain(x.contiguous())
        got = detector._net(x.contiguous(memory_format=torch.channels_last))
    torch.testing.assert_close(got.scores, want.scores, atol=1e-4, rtol=0)
    torch.testing.assert_close(got.distances, want.distances, atol=1e-3, rtol=1e-4)


def test_batched_decoding_equals_one_image_at_a_time():
    """``decode`` takes the expected bins of a whole batch at once; each image decodes as it does alone."""
    from core.detector.nanodet import HeadOutput, decode

    gen = torch.Generator().manual_seed(3)
    size = 128
    anchors = sum((size // s) ** 2 for s in (8, 16, 32))
    out = HeadOutput(torch.rand(3, anchors, 80, generator=gen) ** 4, torch.randn(3, anchors, 44, generator=gen) * 3)
    boxes = [Letterbox(0.5, 0, 16, 256, 192), Letterbox(1.0, 0, 0, 128, 128), Letterbox(0.25, 8, 0, 480, 512)]
    together = decode(out, boxes, size)
    for b, lb in enumerate(boxes):
        (alone,) = decode(HeadOutput(out.scores[b : b + 1], out.distances[b : b + 1]), [lb], size)
        assert alone[2].tolist() == together[b][2].tolist()
        np.testing.assert_allclose(alone[0], together[b][0], atol=1e-4)
        np.testing.assert_allclose(alone[1], together[b][1], atol=1e-6)


def test_letterbox_centres_and_maps_back():
    image = np.zeros((100, 200, 3), dtype=np.uint8)
    x, box = letterbox(image, 416)
    assert x.shape == (3, 416, 416)
    assert box == Letterbox(scale=2.08, left=0, top=104, width=200, height=100)
    # Black padding normalises to -mean/std, the image itself too (it is black): one value per channel.
    assert torch.allclose(x[:, 0, 0], x[:, 208, 208])


def test_network_runs_at_other_sizes():
    with torch.inference_mode():
        out = NanoDetG()(torch.zeros(2, 3, 320, 320))
    assert out.scores.shape == (2, 40 * 40 + 20 * 20 + 10 * 10, 80)
    assert out.distances.shape[-1] == 44


def test_config_rejects_bad_sizes():
    with pytest.raises(DetectorError):
        DetectorConfig(input_size=300)
    with pytest.raises(DetectorError):
        DetectorConfig(batch_size=0)


def test_detect_rejects_non_rgb(detector):
    with pytest.raises(ValueError, match="RGB uint8"):
        detector.detect([np.zeros((8, 8), dtype=np.uint8)])


def test_coco_classes_have_both_languages():
    names = coco_classes()
    assert len(names) == 80 and names.name(5) == "bus" and names.name(5, "ru") == "автобус"


# -- one detector per run -------------------------------------------------------------------


class _Counting:
    def __init__(self, fail: bool = False) -> None:
        self.builds, self.fail = 0, fail

    def __call__(self, config: DetectorConfig) -> FakeDetector:
        self.builds += 1
        if self.fail:
            raise DetectorError("no weights here")
        return FakeDetector()


def test_shared_detector_is_built_once_and_only_when_asked():
    factory = _Counting()
    shared = Detectors(DetectorConfig(), factory=factory)
    assert not shared.built and factory.builds == 0
    assert shared.get() is shared.get()
    assert factory.builds == 1


def test_a_failed_build_is_not_retried():
    factory = _Counting(fail=True)
    shared = Detectors(DetectorConfig(), factory=factory)
    for _ in range(2):
        with pytest.raises(DetectorError):
            shared.get()
    assert factory.builds == 1


class _Sees(TaskBase[Sample, list, list, bool]):
    """A task that records the detector its setup got."""

    def __init__(self, name: str, needs: bool) -> None:
        self.info = TaskInfo(
            name=name,
            version="1",
            folder=name.upper(),
            output=f"prediction_{name}.json",
            needs_trunk=False,
            needs_detector=needs,
        )
        self.got: list[object] = []

    def setup(self, ctx):  # noqa: ANN001
        self.got.append(ctx.detector() if self.info.needs_detector else None)  # a task asks when it uses one
        return True

    def discover(self, input_dir):  # noqa: ANN001
        return [Sample("k")]

    def preprocess(self, samples, trunk, loaded):  # noqa: ANN001
        return list(samples)

    def predict(self, batch, trunk, loaded):  # noqa: ANN001
        return batch

    def postprocess(self, raw, samples, loaded):  # noqa: ANN001
        return [Prediction(s.key, 1) for s in samples]

    def fallback(self, sample):  # noqa: ANN001
        return Prediction(sample.key, 0)


def _planned(tmp_path: Path, *tasks: _Sees) -> list[runner.Planned]:
    for t in tasks:
        (tmp_path / "in" / t.info.folder).mkdir(parents=True, exist_ok=True)
    return runner.plan(list(tasks), tmp_path / "in")


def test_each_named_detector_is_built_once_and_shared_behind_a_lock_unless_thread_safe():
    factory = _Counting()
    detectors = Detectors(DetectorConfig(), factory=factory)
    assert detectors.get() is detectors.get("nanodet") is detectors.get()  # the run's own, by name or not
    assert factory.builds == 1
    other = detectors.get("yolo:best.pt")
    assert other is not detectors.get() and other is detectors.get("yolo:best.pt") and factory.builds == 2
    assert detectors.config_of("yolo:best.pt") == DetectorConfig("yolo", "best.pt")

    class Unsafe(FakeDetector):
        thread_safe = False

    unsafe = Detectors(DetectorConfig(), factory=lambda config: Unsafe())
    wrapped = unsafe.shared()
    assert isinstance(wrapped, Serialized) and wrapped.detector is unsafe.get() and wrapped.thread_safe
    assert len(wrapped.detect([np.zeros((8, 8, 3), np.uint8)])) == 1
    safe = Detectors(DetectorConfig(), factory=lambda config: FakeDetector())
    assert safe.shared() is safe.get()  # FakeDetector declares thread_safe


def test_a_run_hands_one_detector_to_the_tasks_that_declare_it(tmp_path):
    factory = _Counting()
    a, b, c = _Sees("a", True), _Sees("b", True), _Sees("c", False)
    runner.run(
        _planned(tmp_path, a, b, c), None, tmp_path / "out", detector=Detectors(DetectorConfig(), factory=factory)
    )
    assert factory.builds == 1
    assert a.got[0] is b.got[0] and isinstance(a.got[0], FakeDetector)
    assert c.got == [None]


def test_a_run_without_such_tasks_never_builds_it(tmp_path):
    factory = _Counting()
    task = _Sees("c", False)
    runner.run(_planned(tmp_path, task), None, tmp_path / "out", detector=Detectors(DetectorConfig(), factory=factory))
    assert factory.builds == 0


def test_a_detector_that_cannot_be_built_leaves_the_task_running_without_it(tmp_path):
    task = _Sees("a", True)
    reports = runner.run(
        _planned(tmp_path, task),
        None,
        tmp_path / "out",
        detector=Detectors(DetectorConfig(), factory=_Counting(fail=True)),
    )
    assert task.got == [None]
    assert reports[0].fallbacks == 0 and any("detector" in e for e in reports[0].errors)
    assert json.loads((tmp_path / "out" / "prediction_a.json").read_text()) == {"k": 1}


def test_a_smaller_input_size_per_call(detector):
    found = detector.detect([Image.open(BUS)], input_size=320)[0]
    assert coco_classes().name(int(found.labels[0])) == "bus"
    with pytest.raises(DetectorError):
        detector.detect([Image.open(BUS)], input_size=100)
