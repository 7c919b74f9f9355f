"""The zsOD task: phrase grounding with the shared detector's boxes and grid proposals, scored by the trunk.

Phrases whose object the trunk's text tower maps to one of the shared detector's classes
are answered from that class's detections (``core.detector.phrases``, ``detected.py``). The
other phrases ("guitar", "leg of the chair") answer ``[]`` unless ``DetectionRule.grid_names`` /
``grid_described`` let the grid pipeline answer them; without a detector every phrase takes the
grid pipeline (``detected.routes`` decides). The grid pipeline runs, and its inputs (the feature-pass
pixels, the whole-image input, the grid proposals: ``with_grid``) are built, only for the images with
a phrase it answers.

Grid pipeline per image: grid proposals (``proposals.py``) -> region embeddings
from one feature-map pass (``pipeline.pool_boxes``) -> cosine with every phrase ->
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
from core.task import Prediction, RequestForm, RunContext, Sample, SetupContext, TaskBase, TaskInfo
from plugins.zsod.boxes import scale_boxes, to_output_boxes, unrotate_boxes
from plugins.zsod.decision import Calibration, choose_boxes
from plugins.zsod.detected import DETECTOR, GRID, Detected, DetectionRule, Route, choose_detected, routes
from plugins.zsod.features import FEATURE_LONG_SIDE
from plugins.zsod.proposals import GridSpec, detector_proposals, grid_proposals

if TYPE_CHECKING:
    import torch
    from PIL import Image

    from core.detector import Detector
    from core.metrics import Metric
    from core.trunk import TextTokens, Trunk
    from plugins.zsod.verifier import Verifier

log = logging.getLogger(__name__)

MAX_PHRASES = 256  # phrases beyond this many per image are answered [] (logged)


@dataclass(frozen=True, slots=True)
class ZsodSample(Sample):
    """One requested image and its phrases (output keys, request order, no duplicates)."""

    image_path: Path | None  # None when the request names no usable file
    phrases: tuple[str, ...]
    problem: str | None = None  # why the sample cannot be solved, when known at discovery


class ImageItem(NamedTuple):
    """One preprocessed image: everything ``predict`` needs. The grid pipeline's inputs (``pixels``,
    ``whole``, ``boxes``) are None until ``with_grid`` builds them, for an image the grid answers."""

    image: Image.Image  # EXIF-upright RGB as loaded
    pixels: torch.Tensor | None  # [3, H, W] normalised feature-pass input
    whole: torch.Tensor | None  # [3, S, S] trunk.image_transform of the whole image
    boxes: np.ndarray | None  # [N, 4] xyxy grid proposals in ``image`` pixels
    tokens: TextTokens | None  # the phrases, tokenised (None when there are none)
    phrases: tuple[str, ...]
    geometry: Geometry  # how boxes map back to the file's stored pixel grid
    queries: PhraseQueries | None = None  # what each phrase names, for the detector's classes


class PhraseQueries(NamedTuple):
    """Each phrase's object as texts for the text tower (``vocabulary.phrase_queries``), flattened."""

    tokens: TextTokens  # every phrase's queries, phrase after phrase
    counts: tuple[int, ...]  # queries per phrase
    together: tuple[int, ...]  # per phrase, how many of its first queries are averaged
    bare: tuple[bool, ...]  # per phrase: a class-like name


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
    routes: tuple[Route, ...]  # [P] who answers each phrase (``detected.routes``, decided once in ``predict``)
    detected: Detected | None = None  # the detector's boxes and the phrases' classes (None: no detector)


class Scorer(NamedTuple):
    """What ``setup`` loads: the heads made for the trunk (None: the no-head mode), the calibration,
    the no-head mode's background vocabulary embeddings, and the detector whose boxes join the grid (if any)."""

    verifier: Verifier | None
    calibration: Calibration
    background: torch.Tensor
    proposer: Detector | None = None  # --zsod-proposals: its boxes join the grid proposals
    detector: Detector | None = None  # the run's shared detector (None: grid pipeline only)
    classes: torch.Tensor | None = None  # [C, D] the detector's class prompts, embedded (core.detector.phrases)


@dataclass(frozen=True, slots=True)
class ZsodOptions:
    """The plugin's ``run.py`` flags (``add_options``), typed."""

    visualize: Path | None = None  # --zsod-visualize DIR
    proposals: str | None = None  # --zsod-proposals NAME[:WEIGHTS], a registered detector
    grid: float | None = None  # --zsod-grid PRESENCE: DetectionRule.grid_names


def metric() -> Metric:
    """``TaskInfo.metric``: this task's metric (``core.metrics.zsod``), imported only when scoring."""
    from core.metrics.zsod import METRIC

    return METRIC


class ZsodTask(TaskBase[ZsodSample, "list[ImageItem | None]", "list[Scored | None]", Scorer]):
    """Zero-shot detection from free-text phrases (SPEC: zsOD)."""

    info = TaskInfo(
        name="zsod",
        version="1",
        folder="zsOD",
        output="prediction_zsOD.json",
        batch_size=4,
        folder_aliases={"OD": "prediction_OD.json"},  # the older rules' name (SPEC, "Older forms")
        metric=metric,
        form=RequestForm(ask="phrases", images="images", answer="boxes"),  # requests.json {image name: [phrase, ...]}
        needs_detector=True,
        parallel_batches=True,  # stages keep nothing on self; core serialises a detector that is not thread-safe
        seconds_per_item=0.055,  # 16.8-19.0 images/s on 2 cores (docs/results.md, the public-size mix)
        setup_seconds=2.0,  # the head and the shared detector's build (python -m bench.task_costs)
    )

    def __init__(
        self,
        visualize_dir: Path | None = None,
        calibration: Calibration | None = None,
        *,
        search: Sequence[Path] = (),
        proposals: str | None = None,
        rule: DetectionRule | None = None,
    ) -> None:
        self.visualize_dir = visualize_dir
        self.calibration = calibration
        self.search = tuple(search)
        self.proposals = proposals  # --zsod-proposals NAME[:WEIGHTS]: that detector's boxes join the grid proposals
        self.grid = GridSpec()
        self.rule = rule or DetectionRule()

    # -- setup ----------------------------------------------------------------------------
    def setup(self, ctx: SetupContext[Trunk]) -> Scorer:
        """Find the heads made for this trunk (the user's heads folders first, then the shipped ones) and
        their calibration; without heads, the no-head mode (``plugins.zsod.pipeline``). Keep the run's
        detector and embed its classes' prompts (without one, every phrase takes the grid pipeline), and
        the ``--zsod-proposals`` detector (one that does not build is logged and left out)."""
        import torch

        trunk, detector = ctx.trunk, ctx.detector()
        proposer = ctx.detector(self.proposals) if self.proposals else None
        from plugins.zsod.pipeline import background_embeddings, no_head_calibration
        from plugins.zsod.verifier import CARD_FILE, WEIGHTS_FILE, load_verifier

        verifier, calibration = None, self.calibration
        folder = find_head(self.info.name, trunk, CARD_FILE.name, shipped=CARD_FILE.parent, search=self.search)
        if folder is not None:
            try:
                verifier = load_verifier(trunk, folder / WEIGHTS_FILE.name, folder / CARD_FILE.name)
                if calibration is None:
                    calibration = Calibration.load(folder / "calibration.json")
            except (TrunkError, OSError, KeyError, ValueError) as exc:
                log.error("zsod heads in %s not used (%s)", folder, exc)
                verifier = None
        if verifier is None:
            log.warning(
                "zsod: no-head mode (region-phrase cosines z-scored against a background vocabulary, no labels); "
                "heads for this trunk: python train.py --tasks zsod --trunk SPEC --heads DIR"
            )
            calibration = self.calibration or no_head_calibration()
        from core.detector.phrases import class_embeddings

        with torch.inference_mode():
            background = background_embeddings(trunk)
            classes = class_embeddings(trunk, detector.classes) if detector is not None else None
        if detector is None:
            log.warning("zsod: no detector; every phrase takes the grid pipeline")
        assert calibration is not None  # loaded beside the verifier, or the no-head mode's
        return Scorer(verifier, calibration, background, proposer, detector, classes)

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
    def preprocess(self, samples: Sequence[ZsodSample], trunk: Trunk, loaded: object) -> list[ImageItem | None]:
        """Load images, tokenise phrases and their class queries (CPU only); the grid's inputs wait
        for ``predict`` to know whether the grid answers any of the image's phrases. Reads nothing of
        what setup loaded (``loaded``), so training calls it before any setup, with None."""
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
                    pixels=None,
                    whole=None,
                    boxes=None,
                    tokens=trunk.tokenize([model_safe_text(p) for p in phrases]),  # a bad phrase costs only itself
                    phrases=phrases,
                    geometry=geometry_of(stored.size, stored.orientation, image.size),
                    queries=make_queries(phrases, trunk),
                )
            )
        return items

    # -- predict ----------------------------------------------------------------------------
    def predict(self, batch: Sequence[ImageItem | None], trunk: Trunk, scorer: Scorer) -> list[Scored | None]:
        """The detector's boxes for the phrases it can answer; every (proposal, phrase) pair scored by the
        grid pipeline (with ``--zsod-proposals``, that detector's boxes too) when a phrase of the image takes
        the grid (``detected.routes``), its inputs built only then (``with_grid``)."""
        from plugins.zsod.pipeline import score_image

        images = [item.image for item in batch if item is not None]
        found = iter(scorer.detector.detect(images) if scorer.detector is not None and images else ())
        out: list[Scored | None] = []
        for item in batch:
            if item is None:
                out.append(None)
                continue
            detections = next(found, None)
            texts = trunk.encode_texts(item.tokens) if item.tokens is not None else None  # once for both scorers
            detected = (
                self._detected(item, trunk, scorer.classes, detections, texts) if detections is not None else None
            )
            chosen = routes(detected, len(item.phrases), self.rule, scorer.calibration)
            if all(r.who != GRID for r in chosen):
                empty = np.zeros((0, 4))
                out.append(Scored(empty, np.zeros((0, len(item.phrases)), np.float32), item.geometry, chosen, detected))
                continue
            item = with_grid(item, trunk, self.grid)
            if scorer.proposer is not None:
                extra = scorer.proposer.detect([item.image])[0]
                extra_boxes = detector_proposals(extra.boxes, *item.image.size)
                item = item._replace(boxes=np.concatenate([item.boxes, extra_boxes]))
            scores = score_image(item, trunk, scorer.verifier, scorer.background, texts)
            out.append(Scored(scores.boxes, scores.probs, item.geometry, chosen, detected))
        return out

    def _detected(
        self, item: ImageItem, trunk: Trunk, classes: torch.Tensor | None, detections: Any, texts: Any
    ) -> Detected | None:
        """The phrases' classes by the text tower (``texts``: the phrases' ``trunk.encode_texts``; ``classes``:
        the detector's class embeddings)."""
        import torch

        from core.detector.phrases import class_match
        from plugins.zsod.described import describe_image

        q = item.queries
        if classes is None or q is None or item.tokens is None:
            return None
        emb = trunk.encode_texts(q.tokens)
        starts = np.cumsum((0, *q.counts))
        matches = tuple(
            class_match([emb[starts[j] : starts[j + 1]] for j in range(len(q.counts))], q.together, classes)
        )
        labels_of = torch.as_tensor([max(m.label, 0) for m in matches])
        phrase_cos = (texts * classes[labels_of]).sum(-1).float().numpy()
        boxes = np.asarray(detections.boxes, dtype=np.float32).reshape(-1, 4)
        scores = np.asarray(detections.scores, dtype=np.float32)
        labels = np.asarray(detections.labels, dtype=np.int64)
        described = describe_image(
            item.image, item.pixels, boxes, labels, scores, item.phrases, [m.label for m in matches],
            trunk, classes, texts, self.rule.described, self.rule.described_present,
        )  # fmt: skip
        return Detected(boxes, scores, labels, matches, q.bare, item.image.size[0], phrase_cos, described)

    # -- postprocess ------------------------------------------------------------------------
    def postprocess(
        self, raw: Sequence[Scored | None], samples: Sequence[ZsodSample], scorer: Scorer
    ) -> list[Prediction]:
        """Per phrase, as routed in ``predict``: the detector's boxes, or the grid's calibrated decision;
        boxes in stored-image ``[x, y, w, h]``."""
        out = []
        for scored, sample in zip(raw, samples, strict=True):
            value: dict[str, list[list[float]]] = {p: [] for p in sample.phrases}
            if scored is not None:
                det = scored.detected
                for j, phrase in enumerate(sample.phrases[: scored.probs.shape[1]]):
                    route = scored.routes[j]
                    if route.who == DETECTOR and det is not None:
                        found = choose_detected(det, j, phrase, self.rule) or []
                        value[phrase] = to_stored(det.boxes[found], scored.geometry)
                    elif route.who == GRID and route.calibration is not None:
                        chosen = choose_boxes(scored.boxes, scored.probs[:, j], route.calibration)
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


def make_queries(phrases: Sequence[str], trunk: Trunk) -> PhraseQueries:
    """Every phrase's object queries (``vocabulary.phrase_queries``), tokenised in one go."""
    from core.detector.phrases import phrase_head, phrase_queries

    texts: list[str] = []
    counts, together = [], []
    for phrase in phrases:
        q, k = phrase_queries(phrase)
        texts += [model_safe_text(t) for t in q]
        counts.append(len(q))
        together.append(k)
    return PhraseQueries(
        trunk.tokenize(texts), tuple(counts), tuple(together), tuple(phrase_head(p).bare for p in phrases)
    )


def with_grid(item: ImageItem, trunk: Trunk, spec: GridSpec) -> ImageItem:
    """``item`` with the grid pipeline's inputs: the feature-pass pixels (``features.feature_input``),
    the whole image as the trunk takes it and the grid proposals (``spec``); built once (CPU only)."""
    from plugins.zsod.features import feature_input

    if item.pixels is not None and item.whole is not None and item.boxes is not None:
        return item
    return item._replace(
        pixels=feature_input(item.image, trunk, FEATURE_LONG_SIDE),
        whole=trunk.image_transform(item.image),
        boxes=grid_proposals(*item.image.size, spec),
    )


def geometry_of(stored: tuple[int, int], orientation: int, loaded: tuple[int, int]) -> Geometry:
    """The map from the loaded (EXIF-upright, maybe reduced) image back to the file's stored grid."""
    upright = (stored[1], stored[0]) if orientation in (5, 6, 7, 8) else stored
    return Geometry(stored, orientation, (upright[0] / loaded[0], upright[1] / loaded[1]))


def to_stored(boxes: np.ndarray, geo: Geometry) -> list[list[float]]:
    """Loaded-image ``xyxy`` -> stored-image ``[[x, y, w, h], ...]``."""
    full = scale_boxes(boxes, *geo.scale)
    return to_output_boxes(unrotate_boxes(full, geo.orientation, geo.stored_size), *geo.stored_size)
