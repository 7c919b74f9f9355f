"""The zsOD task: phrase grounding with grid proposals scored by the shared trunk.

Pipeline per image: grid proposals (``proposals.py``) -> region embeddings
from one feature-map pass (``features.py``) -> cosine with every phrase ->
verifier probability per (box, phrase) (``verifier.py``) -> per-phrase
decision with calibrated thresholds (``decision.py``) -> boxes mapped back to
the image's stored pixel grid.

Coordinates: the trunk sees the EXIF-upright image (``core.io.load_image``),
but COCO and Visual Genome annotate the pixels as stored in the file, so boxes
are mapped back through the inverse EXIF transform (and the load-time
downscale of huge images) before they are written.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from core.errors import InputError, TrunkError
from core.heads import find_head
from core.io import find_task_dir, load_image_and_info, model_safe_text, read_request, resolve_input_file
from core.task import Prediction, RunContext, Sample, TaskBase, TaskInfo
from plugins.zsod.boxes import EXIF_ORIENTATION_TAG, scale_boxes, to_output_boxes, unrotate_boxes
from plugins.zsod.decision import Calibration, choose_boxes
from plugins.zsod.proposals import GridSpec, grid_proposals

if TYPE_CHECKING:
    import torch
    from PIL import Image

    from core.trunk import TextTokens, Trunk
    from plugins.zsod.verifier import Verifier

log = logging.getLogger(__name__)

FEATURE_LONG_SIDE = 512  # input side of the feature pass; see README.md for the measurement
MAX_PHRASES = 256  # phrases beyond this many per image are answered [] (logged)
CROP_SIDE = 128  # crop side for stage 2 (a third of the trunk's 224 in cost per side^2; see README.md)


@dataclass(frozen=True, slots=True)
class ZsodSample(Sample):
    """One requested image and its phrases (output keys, request order, no duplicates)."""

    image_path: Path | None  # None when the request names no usable file
    phrases: tuple[str, ...]
    problem: str | None = None  # why the sample cannot be solved, when known at discovery


class ImageItem(NamedTuple):
    """One preprocessed image: everything ``predict`` needs."""

    image: Image.Image  # EXIF-upright RGB as loaded
    pixels: torch.Tensor  # [3, H, W] normalised feature-pass input
    whole: torch.Tensor  # [3, S, S] trunk.image_transform of the whole image
    boxes: np.ndarray  # [N, 4] xyxy proposals in ``image`` pixels
    tokens: TextTokens | None  # the phrases, tokenised (None when there are none)
    phrases: tuple[str, ...]
    geometry: Geometry  # how boxes map back to the file's stored pixel grid


class Geometry(NamedTuple):
    """How to map boxes from the loaded image back to the stored pixel grid."""

    stored_size: tuple[int, int]  # (width, height) as stored in the file
    orientation: int  # EXIF orientation tag, 1 when absent
    scale: tuple[float, float]  # loaded-image pixel -> upright full-resolution pixel


class Scored(NamedTuple):
    """``predict`` output for one image."""

    boxes: np.ndarray  # [N, 4] xyxy in loaded-image pixels
    probs: np.ndarray  # [N, P] verifier probabilities
    geometry: Geometry  # from the ImageItem: maps ``boxes`` to the stored pixel grid


class Scorer(NamedTuple):
    """What ``setup`` loads: the verifier made for the trunk (None: the weight-free scorer) and the calibration."""

    verifier: Verifier | None
    calibration: Calibration


class ZsodTask(TaskBase[ZsodSample, list, list]):
    """Zero-shot detection from free-text phrases (SPEC: zsOD)."""

    info = TaskInfo(
        name="zsod",
        version="1",
        folder="zsOD",
        output="prediction_zsOD.json",
        batch_size=4,
        folder_aliases={"OD": "prediction_OD.json"},  # the older rules' name (SPEC, "Older forms")
        metric="core.metrics.zsod:METRIC",
        trainer="plugins.zsod.train:train_head",
    )

    def __init__(
        self,
        visualize_dir: Path | None = None,
        calibration: Calibration | None = None,
        *,
        search: Sequence[Path] = (),
    ) -> None:
        self.visualize_dir = visualize_dir
        self.calibration = calibration
        self.search = tuple(search)
        self.grid = GridSpec()

    # -- setup ----------------------------------------------------------------------------
    def setup(self, trunk: Trunk) -> None:
        """Load the verifier made for this trunk and the calibration."""
        from plugins.zsod.verifier import CARD_FILE, WEIGHTS_FILE, load_verifier

        calibration = self.calibration if self.calibration is not None else Calibration.load()
        verifier = None
        folder = find_head(self.info.name, trunk, CARD_FILE.name, shipped=CARD_FILE.parent, search=self.search)
        if folder is not None:
            try:
                verifier = load_verifier(trunk, folder / WEIGHTS_FILE.name, folder / CARD_FILE.name)
            except (TrunkError, OSError, KeyError, ValueError) as exc:
                log.error("zsod verifier in %s not used (%s)", folder, exc)
        if verifier is None:
            # The weight-free scorer needs no head (it is much weaker).
            log.warning("zsod: no verifier for this trunk; scoring with the weight-free cosine rule (no-head mode)")
        self._loaded = Scorer(verifier, calibration)

    # -- discover ---------------------------------------------------------------------------
    def discover(self, input_dir: Path) -> list[ZsodSample]:
        """One sample per requested image; broken entries become samples with a ``problem``."""
        root = find_task_dir(input_dir, *self.info.folders())
        if root is None:
            return []
        images_dir = root / "images" if (root / "images").is_dir() else root
        samples: list[ZsodSample] = []
        for key, value in read_request(root, "requests.json", root=input_dir).items():
            phrases, problems = clean_phrases(value)
            path: Path | None
            try:
                path = resolve_input_file(images_dir, key)
            except InputError as exc:
                problems.append(f"image not usable ({exc})")
                path = None
            problem = "; ".join(problems) or None
            if problem:
                log.warning("zsod %s: %s", key, problem)
            samples.append(ZsodSample(key, path, phrases, problem if path is None else None))
        return samples

    # -- preprocess -------------------------------------------------------------------------
    def preprocess(self, samples: Sequence[ZsodSample], trunk: Trunk) -> list[ImageItem | None]:
        """Load images, make proposals and feature-pass inputs, tokenise phrases (CPU only)."""
        from plugins.zsod.features import feature_input

        items: list[ImageItem | None] = []
        for sample in samples:
            if sample.image_path is None or not sample.phrases:
                items.append(None)
                continue
            try:
                image, stored = load_image_and_info(sample.image_path)
            except InputError as exc:
                log.warning("zsod %s: %s; every phrase gets []", sample.key, exc)
                items.append(None)
                continue
            phrases = sample.phrases[:MAX_PHRASES]
            if len(sample.phrases) > MAX_PHRASES:
                log.warning(
                    "zsod %s: %d phrases; the ones past %d get []", sample.key, len(sample.phrases), MAX_PHRASES
                )
            items.append(
                ImageItem(
                    image=image,
                    pixels=feature_input(image, trunk, FEATURE_LONG_SIDE),
                    whole=trunk.image_transform(image),
                    boxes=grid_proposals(*image.size, self.grid),
                    tokens=trunk.tokenize([model_safe_text(p) for p in phrases]),  # a bad phrase costs only itself
                    phrases=phrases,
                    geometry=geometry_of(stored.size, stored.orientation, image.size),
                )
            )
        return items

    # -- predict ----------------------------------------------------------------------------
    def predict(self, batch: Sequence[ImageItem | None], trunk: Trunk) -> list[Scored | None]:
        """Score every (proposal, phrase) pair of every image."""
        verifier = self.loaded().verifier
        return [None if item is None else score_image(item, trunk, verifier) for item in batch]

    # -- postprocess ------------------------------------------------------------------------
    def postprocess(self, raw: Sequence[Scored | None], samples: Sequence[ZsodSample]) -> list[Prediction]:
        """Per phrase: the calibrated decision, boxes in stored-image ``[x, y, w, h]``."""
        cal = self.loaded().calibration
        out = []
        for scored, sample in zip(raw, samples, strict=True):
            value: dict[str, list[list[float]]] = {p: [] for p in sample.phrases}
            if scored is not None:
                for j, phrase in enumerate(sample.phrases[: scored.probs.shape[1]]):
                    chosen = choose_boxes(scored.boxes, scored.probs[:, j], cal)
                    value[phrase] = to_stored(scored.boxes[chosen], scored.geometry)
            out.append(Prediction(sample.key, value))
        return out

    def fallback(self, sample: ZsodSample) -> Prediction:
        """Every phrase absent: ``[]`` costs nothing on negatives, one FN on positives."""
        return Prediction(sample.key, {p: [] for p in sample.phrases})

    # -- write ------------------------------------------------------------------------------
    def write(self, predictions: Sequence[Prediction], samples: Sequence[ZsodSample], ctx: RunContext) -> Path:
        """The prediction file (and ``prediction_OD.json`` for input in ``OD/``); with
        ``--zsod-visualize DIR`` also one drawing per image."""
        path = super().write(predictions, samples, ctx)
        if self.visualize_dir is not None:
            from plugins.zsod.visualize import draw_predictions

            try:
                draw_predictions(predictions, {s.key: s.image_path for s in samples}, self.visualize_dir)
            except Exception:  # a drawing must never cost the prediction file
                log.exception("zsod: drawing the predictions into %s failed", self.visualize_dir)
        return path


def score_image(item: ImageItem, trunk: Trunk, verifier: Verifier | None) -> Scored:
    """Score every (proposal, phrase) pair of one image: verifier stages, or the weight-free rule."""
    from plugins.zsod.verifier import sigmoid

    pair = pair_data(item, trunk)
    if pair.feats.size == 0:
        return Scored(pair.boxes, np.zeros(pair.feats.shape[:2], dtype=np.float32), item.geometry)
    if verifier is None:
        return Scored(pair.boxes, heuristic_probabilities(pair.feats).astype(np.float32), item.geometry)
    logits1 = verifier.logits1(pair.feats)
    if verifier.stage2 is None:
        return Scored(pair.boxes, sigmoid(logits1).astype(np.float32), item.geometry)
    cands, feats2 = crop_stage(item, trunk, pair, logits1)
    return Scored(pair.boxes[cands], sigmoid(verifier.logits2(feats2)).astype(np.float32), item.geometry)


def clean_phrases(value: Any) -> tuple[tuple[str, ...], list[str]]:
    """Request value -> unique output keys (request order) and the problems found.

    Non-string phrases become their JSON text (the only key a JSON object can
    hold for them); a bare string is one phrase; anything else is no phrase.
    """
    problems: list[str] = []
    if isinstance(value, str):
        problems.append("phrase list is a bare string")
        value = [value]
    if not isinstance(value, list):
        problems.append(f"phrase list is a {type(value).__name__}, not a list")
        return (), problems
    if not value:
        problems.append("empty phrase list")
    phrases: dict[str, None] = {}
    for item in value:
        if not isinstance(item, str):
            problems.append(f"non-string phrase {item!r}")
            item = json.dumps(item, ensure_ascii=False)
        if item in phrases:
            problems.append(f"duplicated phrase {item!r}")
        phrases.setdefault(item, None)
    return tuple(phrases), problems


def geometry_of(stored: tuple[int, int], orientation: int, loaded: tuple[int, int]) -> Geometry:
    """The map from the loaded (EXIF-upright, maybe reduced) image back to the file's stored grid."""
    upright = (stored[1], stored[0]) if orientation in (5, 6, 7, 8) else stored
    return Geometry(stored, orientation, (upright[0] / loaded[0], upright[1] / loaded[1]))


def read_geometry(path: Path, loaded_size: tuple[int, int]) -> Geometry:
    """Stored size and EXIF orientation of ``path``; scale from the loaded image to full resolution."""
    from PIL import Image

    from core.io import open_input_file

    with open_input_file(path) as fh, Image.open(fh) as img:
        stored = img.size
        try:
            orientation = int(img.getexif().get(EXIF_ORIENTATION_TAG, 1) or 1)
        except (TypeError, ValueError, SyntaxError):
            orientation = 1
    return geometry_of(stored, orientation, loaded_size)


def to_stored(boxes: np.ndarray, geo: Geometry) -> list[list[float]]:
    """Loaded-image ``xyxy`` -> stored-image ``[[x, y, w, h], ...]``."""
    full = scale_boxes(boxes, *geo.scale)
    return to_output_boxes(unrotate_boxes(full, geo.orientation, geo.stored_size), *geo.stored_size)


class PairData(NamedTuple):
    """Stage-1 data of one image: every proposal against every phrase."""

    boxes: np.ndarray  # [N, 4] xyxy, loaded-image pixels
    feats: np.ndarray  # [N, P, F1] stage-1 verifier features
    sims: np.ndarray  # [N, P] pooled-region cosine
    image_sims: np.ndarray  # [P] whole-image cosine
    texts: Any = None  # [P, D] phrase embeddings (torch), when at hand


def pair_data(item: ImageItem, trunk: Trunk) -> PairData:
    """Embed the proposals (one feature pass) and the phrases; stage-1 features."""
    from plugins.zsod.features import region_embeddings
    from plugins.zsod.verifier import FEATURE_NAMES, pair_features

    regions, boxes = region_embeddings(trunk, item.image, item.pixels, item.boxes)
    n, p = len(boxes), len(item.phrases)
    if item.tokens is None or n == 0:
        return PairData(
            boxes,
            np.zeros((n, p, len(FEATURE_NAMES)), np.float32),
            np.zeros((n, p), np.float32),
            np.zeros(p, np.float32),
        )
    texts = trunk.encode_texts(item.tokens)
    whole = trunk.encode_images(item.whole.unsqueeze(0))
    sims = (regions @ texts.T).numpy()
    image_sims = (whole @ texts.T).numpy()[0]
    feats = pair_features(sims, image_sims, boxes, item.image.size, item.phrases)
    return PairData(boxes, feats, sims, image_sims, texts)


def crop_stage(item: ImageItem, trunk: Trunk, pair: PairData, logits1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Re-score the stage-1 candidates from crops: (candidate indices into ``pair.boxes``, ``[M, P, F2]``)."""
    from plugins.zsod.features import pixel_crop_embeddings
    from plugins.zsod.verifier import FEATURE_NAMES, STAGE2_FEATURES, candidate_indices, stage2_features

    cos_z = pair.feats[..., FEATURE_NAMES.index("cos_z_boxes")]
    cands = candidate_indices(logits1, pair.boxes, cos_z)
    boxes = pair.boxes[cands]
    sx = item.pixels.shape[-1] / item.image.size[0]
    sy = item.pixels.shape[-2] / item.image.size[1]
    crops = pixel_crop_embeddings(trunk, item.pixels, boxes * np.array([sx, sy, sx, sy]), CROP_SIDE)
    texts = pair.texts
    if texts is None and item.tokens is not None:
        texts = trunk.encode_texts(item.tokens)
    if texts is None or len(cands) == 0:
        return cands, np.zeros((len(cands), len(item.phrases), len(STAGE2_FEATURES)), np.float32)
    crop_sims = (crops @ texts.T).numpy()
    feats = stage2_features(
        logits1[cands], crop_sims, pair.sims[cands], pair.image_sims, boxes, item.image.size, item.phrases
    )
    return cands, feats


def heuristic_probabilities(features: np.ndarray) -> np.ndarray:
    """Weight-free stand-in for the verifier: a squashed z-score of the cosine over boxes."""
    from plugins.zsod.verifier import FEATURE_NAMES

    z = features[..., FEATURE_NAMES.index("cos_z_boxes")]
    return 1.0 / (1.0 + np.exp(-(z - 3.0)))
