"""Test helpers shipped with the package, so third-party task plugins can use them.

* ``FakeBackend`` / ``make_fake_trunk``: a seeded, tiny trunk with the real
  ``Trunk`` interface (a few convolutions and an embedding bag), CPU only.
* ``FakeDetector``: a deterministic stand-in for the shared object detector
  (``core.detector``): boxes from image statistics, no weights.
* ``assert_task_conforms``: the conformance suite every task must pass;
  ``assert_detector_conforms`` and ``assert_trunk_backend_conforms``: the same for what a
  ``register_detectors`` / ``register_trunk_backends`` factory builds.
"""

from __future__ import annotations

import json
import tempfile
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.task import Prediction, RunContext, Sample, SetupContext, Task, TaskInfo

if TYPE_CHECKING:
    import torch
    from PIL import Image

    from core.trunk import FeatureMaps, TextTokens, TokenStates, Trunk


def _fake_backend_class() -> type:
    import torch
    from torch import nn

    from core.trunk_types import FeatureMaps, TextTokens, TokenStates

    class FakeBackend(nn.Module):
        """Seeded tiny towers: 3 strided convs (strides 8/16/32) and a hashed embedding bag."""

        embed_dim = 32
        image_size = 64
        vocab = 4096
        component_versions = {"image": "fake-image-1", "text": "fake-text-1", "joint": "fake-joint-1"}
        thread_safe = True  # plain forwards: batches may share it (``core.trunk``: threads)

        def __init__(self, seed: int = 0) -> None:
            super().__init__()
            gen = torch.Generator().manual_seed(seed)
            self.stem = nn.Conv2d(3, 8, kernel_size=8, stride=8)
            self.down16 = nn.Conv2d(8, 16, kernel_size=2, stride=2)
            self.down32 = nn.Conv2d(16, 24, kernel_size=2, stride=2)
            self.image_proj = nn.Linear(24, self.embed_dim)
            self.token_emb = nn.Embedding(self.vocab, 16)
            self.text_proj = nn.Linear(16, self.embed_dim)
            for p in self.parameters():
                with torch.no_grad():
                    p.copy_(torch.randn(p.shape, generator=gen) * 0.3)

        def image_transform(self, image: Image.Image) -> torch.Tensor:
            rgb = image.convert("RGB").resize((self.image_size, self.image_size))
            data = torch.frombuffer(bytearray(rgb.tobytes()), dtype=torch.uint8)
            return data.view(self.image_size, self.image_size, 3).permute(2, 0, 1).float() / 255.0 - 0.5

        def tokenize(self, texts: Sequence[str]) -> TextTokens:
            rows = [[zlib.crc32(w.lower().encode()) % (self.vocab - 1) + 1 for w in t.split()] or [0] for t in texts]
            width = max((len(r) for r in rows), default=1)
            ids = torch.zeros(len(rows), width, dtype=torch.long)
            for i, r in enumerate(rows):
                ids[i, : len(r)] = torch.tensor(r)
            return TextTokens(ids, ids > 0)

        def image_feature_maps(self, pixels: torch.Tensor) -> FeatureMaps:
            s8 = torch.relu(self.stem(pixels))
            s16 = torch.relu(self.down16(s8))
            s32 = torch.relu(self.down32(s16))
            return FeatureMaps((s8, s16, s32), (8, 16, 32))

        can_pool_regions = True

        def pool_map(self, maps: torch.Tensor) -> torch.Tensor:
            return maps.mean(dim=(2, 3))

        def project(self, pooled: torch.Tensor) -> torch.Tensor:
            return self.image_proj(pooled)

        def encode_images(self, pixels: torch.Tensor) -> torch.Tensor:
            return self.project(self.image_feature_maps(pixels).maps[-1].mean(dim=(2, 3)))

        def text_token_states(self, tokens: TextTokens) -> TokenStates:
            return TokenStates(self.token_emb(tokens.ids), tokens.mask)

        def encode_texts(self, tokens: TextTokens) -> torch.Tensor:
            states = self.token_emb(tokens.ids) * tokens.mask.unsqueeze(-1)
            return self.text_proj(states.sum(1) / tokens.mask.sum(1, keepdim=True).clamp(min=1))

    return FakeBackend


def fake_backend(config: Any = None) -> Any:
    """A ``FakeBackend`` (seed 0), as a ``register_trunk_backends`` factory builds one: ``config`` unused."""
    return _fake_backend_class()(0)


def make_fake_trunk(seed: int = 0, *, ablation: str = "none") -> Trunk:
    """A frozen ``Trunk`` over ``FakeBackend``: fast, deterministic, no downloads. ``ablation``: core's
    wrapper (``random``) around it, as ``load_trunk`` puts it (not called here: tests replace it)."""
    from core.default_plugins import trunk_backends
    from core.errors import TrunkError
    from core.trunk import Trunk, TrunkConfig

    config = TrunkConfig(backend="fake", model_name=f"fake-{seed}", ablation=ablation)
    backend = _fake_backend_class()(seed)
    if ablation == trunk_backends.random_features_wrapper.name:
        backend = trunk_backends.random_features_wrapper.wrap(config, backend)
    elif ablation != "none":
        raise TrunkError(f"make_fake_trunk: no ablation {ablation!r}; core's is 'random'")
    return Trunk(backend, config)


class FakeDetector:
    """The ``core.detector.Detector`` interface over image statistics: deterministic, instant.

    Each image gets ``boxes`` boxes on a grid of its quarters and centre, labelled by the
    brightness and the dominant colour channel of the box, scored from 0.9 down; labels
    index ``classes`` (the real COCO names unless given).
    """

    thread_safe = True  # ``detect`` keeps nothing between calls

    def __init__(self, boxes: int = 3, classes: Any = None) -> None:
        from core.detector import coco_classes

        self.boxes = boxes
        self.classes = classes or coco_classes()
        self.calls = 0  # images seen, for tests that check the detector is (not) used

    def detect(self, images: Sequence[Any], *, input_size: int | None = None) -> list[Any]:
        import numpy as np

        from core.detector import Detections

        out = []
        for image in images:
            self.calls += 1
            rgb = np.asarray(image.convert("RGB") if hasattr(image, "convert") else image, dtype=np.float32)
            h, w = rgb.shape[:2]
            cells = [(0, 0, w / 2, h / 2), (w / 2, 0, w, h / 2), (0, h / 2, w / 2, h), (w / 2, h / 2, w, h)]
            cells.insert(0, (w / 4, h / 4, 3 * w / 4, 3 * h / 4))
            boxes, scores, labels = [], [], []
            for i, (x1, y1, x2, y2) in enumerate(cells[: self.boxes]):
                crop = rgb[int(y1) : max(int(y1) + 1, int(y2)), int(x1) : max(int(x1) + 1, int(x2))]
                mean = crop.reshape(-1, 3).mean(0)
                labels.append(int(mean.argmax() * 16 + mean.mean() // 16) % len(self.classes))
                boxes.append((x1, y1, x2, y2))
                scores.append(0.9 - 0.2 * i)
            out.append(
                Detections(
                    np.asarray(boxes, dtype=np.float32).reshape(-1, 4),
                    np.asarray(scores, dtype=np.float32),
                    np.asarray(labels, dtype=np.int64),
                )
            )
        return out


def assert_task_conforms(
    task: Task, sample_dir: Path, trunk: Trunk, *, other_dir: Path | None = None, detector: Any = None
) -> list[Prediction]:
    """Run ``task`` through every stage on ``sample_dir`` and check the contract.

    Checks: ``info`` is a ``TaskInfo``; ``discover`` on an empty dir returns ``[]``;
    on ``sample_dir`` it finds samples; ``postprocess`` gives one prediction per sample
    with the sample's key and a value that survives a JSON round trip; ``fallback``
    does too; ``write`` produces the declared output file holding every key, and
    nothing else.

    Statelessness: two inputs (``sample_dir`` and ``other_dir``; without one, the
    two halves of ``sample_dir``'s samples) are run through one task object with
    their stages interleaved (discover A, discover B, preprocess B, preprocess A,
    predict A, predict B, postprocess B, postprocess A, write A, write B), and each
    output must equal the one from running that input alone. Anything kept between
    stages on ``self`` shows up as a difference.

    The task is set up once with a ``SetupContext`` whose ``detector(name)`` is ``detector``
    whatever the name (default: a ``FakeDetector``).

    Returns the predictions for ``sample_dir``, for task-specific assertions.
    """
    import torch

    info = getattr(task, "info", None)
    assert isinstance(info, TaskInfo), "a task declares its info as a core.task.TaskInfo class attribute"
    assert info.batch_size > 0, "batch_size must be a positive int"
    with tempfile.TemporaryDirectory() as empty:
        assert task.discover(Path(empty)) == [], "discover() on an empty dir must return []"

    fake = detector if detector is not None else FakeDetector()
    loaded = task.setup(SetupContext(trunk, lambda name: fake))

    def stages(samples: Sequence[Sample]) -> tuple[Callable[[], Any], ...]:
        box: dict[str, Any] = {}

        def pre() -> None:
            box["batch"] = task.preprocess(samples, trunk, loaded)

        def pred() -> None:
            with torch.inference_mode():
                box["raw"] = task.predict(box["batch"], trunk, loaded)

        def post() -> None:
            box["out"] = task.postprocess(box["raw"], samples, loaded)

        return pre, pred, post, lambda: box["out"]

    samples_a = task.discover(sample_dir)
    assert samples_a, f"discover() found nothing in {sample_dir}"
    assert all(isinstance(s, Sample) for s in samples_a), "discover() must return Sample objects"
    if other_dir is not None:
        samples_b = task.discover(other_dir)
        assert samples_b, f"discover() found nothing in {other_dir}"
    else:
        half = max(1, len(samples_a) // 2)
        samples_a, samples_b = samples_a[:half], samples_a[half:] or samples_a[:half]
    alone = []
    for samples in (samples_a, samples_b):
        pre, pred, post, result = stages(samples)
        pre(), pred(), post()
        alone.append(result())

    a, b = stages(samples_a), stages(samples_b)
    for step in (b[0], a[0], a[1], b[1], b[2], a[2]):
        step()
    mixed = [a[3](), b[3]()]
    for name, samples, solo, inter in zip(("first", "second"), (samples_a, samples_b), alone, mixed, strict=True):
        _check_predictions(task, samples, inter)
        assert _as_json(inter) == _as_json(solo), (
            f"the {name} input's predictions change when another input's stages are interleaved with its own: "
            "some stage keeps per-input state on the task object"
        )

    for samples, predictions in zip((samples_a, samples_b), mixed, strict=True):
        with tempfile.TemporaryDirectory() as out:
            path = task.write(predictions, samples, RunContext(Path(out), info.folder))
            files = sorted(p.name for p in Path(out).iterdir())
            assert files == [info.output], f"write() must produce exactly {info.output}, got {files}"
            written = json.loads(path.read_text(encoding="utf-8"))
            assert set(written) == {s.key for s in samples}, "the output file must hold every sample key"
    return mixed[0] if other_dir is not None else mixed[0] + mixed[1]


def _check_predictions(task: Task, samples: Sequence[Sample], predictions: Any) -> None:
    assert isinstance(predictions, list) and len(predictions) == len(samples), "one prediction per sample"
    for sample, pred in zip(samples, predictions, strict=True):
        assert isinstance(pred, Prediction) and pred.key == sample.key, f"prediction for {sample.key!r} is off"
        assert json.loads(json.dumps(pred.value)) == pred.value, f"value of {pred.key!r} is not JSON"
        fb = task.fallback(sample)
        assert isinstance(fb, Prediction) and fb.key == sample.key, "fallback must keep the sample key"
        assert json.loads(json.dumps(fb.value)) == fb.value, "fallback value must be JSON"


def _as_json(predictions: Sequence[Prediction]) -> str:
    return json.dumps([[p.key, p.value] for p in predictions], sort_keys=True)


def _probe_images() -> list[Image.Image]:
    """Three small RGB images of different shapes and content (seeded): what the detector check runs on."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    out = []
    for w, h in ((96, 64), (64, 96), (80, 80)):
        pixels = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        pixels[h // 4 : h // 2, w // 4 : w // 2] = (220, 30, 30)  # a flat block: something to find
        out.append(Image.fromarray(pixels))
    return out


def assert_detector_conforms(detector: Any, images: Sequence[Any] = ()) -> list[Any]:
    """Check a built detector (what a ``register_detectors`` factory returns) against the
    ``core.detector.Detector`` contract, on ``images`` (RGB PIL images or ``uint8 [H, W, 3]``
    arrays; default: three small seeded ones).

    Checks: ``classes`` is a ``ClassNames`` whose English and Russian lists have one non-empty
    name per label; ``detect([])`` is ``[]``; ``detect(images)`` gives one ``Detections`` per
    image: boxes ``float32 [N, 4]`` ``xyxy`` inside the image, scores ``float32 [N]`` in (0, 1],
    best first, labels ``int64 [N]`` indexing ``classes``; a PIL image and its array give the
    same detections, and so does an image detected alone or in a batch (to a tolerance: the
    batch may change the arithmetic); ``input_size=`` a smaller multiple of 32 still gives valid
    detections.

    Returns the detections of ``images``, for detector-specific assertions.
    """
    import numpy as np

    from core.detector import ClassNames, Detections

    classes = getattr(detector, "classes", None)
    assert isinstance(classes, ClassNames), "a detector declares its classes as a core.detector.ClassNames"
    assert len(classes.en) == len(classes.ru) > 0, "one English and one Russian name per label"
    assert all(isinstance(n, str) and n.strip() for n in (*classes.en, *classes.ru)), "class names are non-empty"
    assert detector.detect([]) == [], "detect([]) must return []"
    images = list(images) or _probe_images()
    found = detector.detect(images)
    assert isinstance(found, list) and len(found) == len(images), "detect() gives one Detections per image"
    for image, det in zip(images, found, strict=True):
        w, h = image.size if hasattr(image, "size") and not isinstance(image, np.ndarray) else image.shape[1::-1]
        _check_detections(det, w, h, len(classes), Detections)
    alone = [detector.detect([image])[0] for image in images]
    as_arrays = detector.detect([np.asarray(i.convert("RGB")) if hasattr(i, "convert") else i for i in images])
    for batched, single, array in zip(found, alone, as_arrays, strict=True):
        for other, how in ((single, "alone"), (array, "as an array")):
            assert len(other.boxes) == len(batched.boxes), f"an image detected {how} finds another number of boxes"
            np.testing.assert_allclose(other.boxes, batched.boxes, atol=0.5, err_msg=f"boxes change {how}")
            np.testing.assert_allclose(other.scores, batched.scores, atol=1e-3, err_msg=f"scores change {how}")
    for image, det in zip(images, detector.detect(images, input_size=64), strict=True):
        w, h = image.size if hasattr(image, "size") and not isinstance(image, np.ndarray) else image.shape[1::-1]
        _check_detections(det, w, h, len(classes), Detections)
    return found


def _check_detections(det: Any, width: int, height: int, num_classes: int, detections_type: Any) -> None:
    import numpy as np

    assert isinstance(det, detections_type), f"detect() must give core.detector.Detections, got {type(det).__name__}"
    boxes, scores, labels = det.boxes, det.scores, det.labels
    n = len(scores)
    assert boxes.dtype == np.float32 and boxes.shape == (n, 4), (
        f"boxes must be float32 [N, 4], got {boxes.dtype} {boxes.shape}"
    )
    assert scores.dtype == np.float32 and scores.shape == (n,), "scores must be float32 [N]"
    assert labels.dtype == np.int64 and labels.shape == (n,), "labels must be int64 [N]"
    assert ((scores > 0) & (scores <= 1)).all(), "scores lie in (0, 1]"
    assert (np.diff(scores) <= 1e-6).all(), "detections come best first"
    assert ((labels >= 0) & (labels < num_classes)).all(), "labels index the detector's classes"
    assert (boxes[:, 2] >= boxes[:, 0]).all() and (boxes[:, 3] >= boxes[:, 1]).all(), "boxes are x1 y1 x2 y2"
    assert (boxes >= -0.5).all() and (boxes[:, 0::2] <= width + 0.5).all() and (boxes[:, 1::2] <= height + 0.5).all(), (
        "boxes lie inside the image, in its pixels"
    )


def assert_trunk_backend_conforms(factory: Callable[[Any], Any], config: Any = None) -> Trunk:
    """Build a trunk backend with ``factory`` (what ``register_trunk_backends`` registers) through
    ``load_trunk`` and check it against the ``TrunkBackend`` contract.

    ``config``: the ``TrunkConfig`` to build (default: ``TrunkConfig(backend="probe")``; its
    ``backend`` is the name the factory is registered under for the check).

    Checks: the backend is frozen (``Trunk`` refuses otherwise); ``embed_dim`` and ``image_size``
    are positive ints, ``component_versions`` names the image, text and joint parts; the image
    transform gives ``float32 [3, S, S]``; tokens are int64 ids with a bool mask; pooled
    embeddings are ``[B, embed_dim]`` unit vectors, the same for an input alone or in a batch
    and the same twice (to a tolerance); feature maps come finest first, each
    ``[B, C, H / s, W / s]``; token states are ``[B, T, C]`` with the tokens' mask.

    Returns the built ``Trunk``, for backend-specific assertions.
    """
    import numpy as np
    import torch
    from PIL import Image

    from core.factories import Registry
    from core.trunk import load_trunk
    from core.trunk_types import TextTokens, TrunkConfig

    config = config or TrunkConfig(backend="probe")
    trunk = load_trunk(config, Registry(trunk_backends={config.backend: factory}))
    assert isinstance(trunk.embed_dim, int) and trunk.embed_dim > 0, "embed_dim is a positive int"
    assert isinstance(trunk.image_size, int) and trunk.image_size > 0, "image_size is a positive int"
    versions = trunk.base_component_versions
    assert {"image", "text", "joint"} <= set(versions), "component_versions names the image, text and joint parts"
    assert all(isinstance(v, str) and v for v in versions.values()), "component versions are non-empty strings"

    rng = np.random.default_rng(0)
    images = [Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)) for w, h in ((70, 50), (50, 70))]
    pixels = torch.stack([trunk.image_transform(i) for i in images])
    size = trunk.image_size
    assert pixels.dtype == torch.float32 and pixels.shape == (2, 3, size, size), "image_transform gives [3, S, S]"
    texts = ["a red bus", "красная кошка на крыше"]
    tokens = trunk.tokenize(texts)
    assert isinstance(tokens, TextTokens) and tokens.ids.dtype == torch.int64, "tokenize gives int64 TextTokens"
    assert tokens.mask.dtype == torch.bool and tokens.mask.shape == tokens.ids.shape, "the mask is bool, as the ids"

    with torch.inference_mode():
        img = trunk.encode_images(pixels)
        txt = trunk.encode_texts(tokens)
        for emb, n in ((img, 2), (txt, 2)):
            assert emb.shape == (n, trunk.embed_dim), f"pooled embeddings are [B, embed_dim], got {tuple(emb.shape)}"
            torch.testing.assert_close(emb.norm(dim=-1), torch.ones(n), atol=1e-4, rtol=0)
        torch.testing.assert_close(trunk.encode_images(pixels[1:]), img[1:], atol=1e-4, rtol=1e-3)
        torch.testing.assert_close(trunk.embed_texts(texts[1:]), txt[1:], atol=1e-4, rtol=1e-3)
        torch.testing.assert_close(trunk.encode_images(pixels), img, atol=1e-5, rtol=1e-4)
        fm = trunk.image_feature_maps(pixels)
        assert list(fm.strides) == sorted(fm.strides) and len(fm.maps) == len(fm.strides), "feature maps finest first"
        for m, s in zip(fm.maps, fm.strides, strict=True):
            assert m.dim() == 4 and m.shape[0] == 2 and m.shape[2:] == (size // s, size // s), (
                f"the stride-{s} map must be [B, C, {size // s}, {size // s}], got {tuple(m.shape)}"
            )
        states = trunk.text_token_states(tokens)
        assert states.states.dim() == 3 and states.states.shape[:2] == tokens.ids.shape, "token states are [B, T, C]"
    trunk.assert_frozen()
    return trunk
