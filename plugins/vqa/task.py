"""The VQA task: one answer per question, in the question's language.

Pipeline: ``discover`` reads ``VQA/questions.json`` (``file_name``, or the
older ``image_id``) and validates every entry without dropping any;
``preprocess`` parses the question (language, type, choices, subject) and
loads each image of the batch once (VQA asks several questions per picture);
``predict`` encodes those images, runs the run's shared detector once on each
image that a question the detector can help with asks about (presence, counts,
colours, objects: ``evidence.wants_detections``; a second time, at their own input
size, on images that counting questions ask about) and embeds the question texts;
the ``Answerer`` then picks yes/no, one of the quoted choices, or the best
vocabulary answer, weighing the detector's evidence (``evidence.py``). Without a
head trained for the trunk, hand-set weights answer from the trunk's embeddings
and the question rules alone (logged); without a detector, from everything else.

Bad input never loses a question: a missing or unreadable image is answered
from the question alone (the image embedding is replaced by the mean image,
which zeroes every image term of the head), an empty question gets the
fallback "yes"/"да"; each problem is logged.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from core.errors import InputError
from core.heads import find_head
from core.io import find_task_dir, load_image, model_safe_text, read_request, resolve_input_file
from core.task import Prediction, RequestForm, Sample, SetupContext, TaskBase, TaskInfo
from plugins.vqa.evidence import detector_size
from plugins.vqa.question import ParsedQuestion, QType, detect_language, parse_question
from plugins.vqa.typed import subject_queries

N_REGIONS = 6  # rows of ``region_pool``
# The image tower's pass, on one CPU thread, over this many images at a time: the same bits as one
# pass over the whole batch (oneDNN computes each image alone there; checked on the public-size mix),
# in 0.56 of the CPU time (64 images: 0.80 against 1.43 CPU-s), the smaller maps staying in cache.
# With more threads the work split depends on the pass's size (passes of 4 differ in the last bit at
# 2 threads), so the batch then goes through in one pass, as before.
TOWER_CHUNK = 4

if TYPE_CHECKING:
    import numpy as np
    import torch

    from core.detector import Detector
    from core.metrics import Metric
    from core.trunk import Trunk
    from plugins.vqa.answerer import Answerer

log = logging.getLogger(__name__)

_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp")


@dataclass(frozen=True, slots=True)
class VqaSample(Sample):
    """One question of ``questions.json``."""

    image: Path | None  # None when the entry names no usable image file
    question: str  # "" when missing, empty or not a string
    lang: str  # "ru" or "en": the answer's language


class VqaBatch(NamedTuple):
    """What ``preprocess`` hands to ``predict``."""

    parsed: list[ParsedQuestion | None]  # None for an empty question
    image_rows: list[int | None]  # per sample: its image's row of ``pixels``; None: answer without the image
    sizes: list[int | None]  # per sample: the detector input size its evidence is made at; None: no detector
    queries: list[tuple[tuple[str, ...], int]]  # per sample: its asked object's texts (``typed.subject_queries``)
    pixels: torch.Tensor | None  # [distinct readable images of the batch, 3, S, S]
    rgb: list[np.ndarray | None]  # per row of ``pixels``: the RGB uint8 image when the detector is to see it


class _Loaded(NamedTuple):
    answerer: Answerer
    detector: Detector | None

    def num_parameters(self) -> int:
        """The head's weights (plain tensors, not an ``nn.Module``); counted by ``core.params``."""
        return self.answerer.head.num_parameters()


def _resolve_image(images_dir: Path, entry: dict[str, Any], qid: str) -> Path | None:
    """The image an entry names (``file_name``, or the older ``image_id``), or None, logged."""
    name = entry.get("file_name")
    if name is None:
        name = entry.get("image_id")
    if name is None or isinstance(name, bool) or not isinstance(name, str | int) or str(name).strip() == "":
        log.warning("VQA question %s names no image (no file_name/image_id); answering from the question", qid)
        return None
    name = str(name).strip()
    path = images_dir / name
    if path.suffix.lower() in _IMAGE_SUFFIXES or os.path.lexists(path):
        try:
            return resolve_input_file(images_dir, name)
        except InputError as exc:
            log.warning("VQA question %s: %s; answering from the question", qid, exc)
            return None
    # An older image_id may be a bare number: "42" -> "42.jpg" or whatever suffix exists.
    for suffix in _IMAGE_SUFFIXES:
        if os.path.lexists(images_dir / f"{name}{suffix}"):
            return _resolve_image(images_dir, {"file_name": f"{name}{suffix}"}, qid)
    log.warning("VQA question %s: image %s is missing; answering from the question", qid, path)
    return None


def metric() -> Metric:
    """``TaskInfo.metric``: this task's metric (``core.metrics.vqa``), imported only when scoring."""
    from core.metrics.vqa import METRIC

    return METRIC


class VqaTask(TaskBase[VqaSample, VqaBatch, "list[str | None]", _Loaded]):
    """Visual question answering in Russian and English (SPEC "VQA")."""

    info = TaskInfo(
        name="vqa",
        version="1.0",
        folder="VQA",
        output="prediction_VQA.json",
        batch_size=64,
        metric=metric,
        form=RequestForm(ask="question", request_file="questions.json", images="images", image_field="file_name"),
        needs_detector=True,
        parallel_batches=True,  # stages keep nothing on self; setup's objects are read, or memoise alike
        seconds_per_item=0.026,  # 38.0-40.5 questions/s on 2 cores (docs/results.md, the public-size mix)
        setup_seconds=7.5,  # embedding the candidate answers (python -m bench.task_costs)
    )

    def __init__(self, head_weights: Path | None = None, *, search: Sequence[Path] = ()) -> None:
        """``head_weights``: a head's safetensors file (its card beside it, same stem, ``.json``);
        default: the head made for the trunk (``search``'s heads folders, then the shipped one).
        A missing file means the hand-set head."""
        self._head_weights = head_weights
        self.search = tuple(search)

    def setup(self, ctx: SetupContext[Trunk]) -> _Loaded:
        """Load the head made for this trunk (hand-set weights when there is none), embed the answers
        and the detector's class names (cached per trunk version: ``embed_cache``); keep the run's
        detector (None: answer without it)."""
        trunk, detector = ctx.trunk, ctx.detector()
        from core.detector import coco_classes
        from core.detector.phrases import class_prompt_texts, pool_class_prompts
        from plugins.vqa.answerer import Answerer, build_candidates, candidate_texts, class_texts
        from plugins.vqa.embed_cache import cached_embeddings
        from plugins.vqa.head import CARD_FILE, WEIGHTS_FILE, load_head, untrained_head

        if self._head_weights is not None:
            head = load_head(trunk, self._head_weights, self._head_weights.with_suffix(".json"))
        else:
            folder = find_head(self.info.name, trunk, CARD_FILE.name, shipped=CARD_FILE.parent, search=self.search)
            if folder is None:
                log.warning("VQA: no trained head for this trunk; answering with hand-set weights (no-head mode)")
                head = untrained_head(trunk.embed_dim)
            else:
                head = load_head(trunk, folder / WEIGHTS_FILE.name, folder / CARD_FILE.name)
        candidates = build_candidates(head)
        en, ru = candidate_texts(candidates, head.card.get("prompt"))
        class_en, class_ru = class_texts()
        prompts = class_prompt_texts(coco_classes())
        unique = list(dict.fromkeys(en + ru + class_en + class_ru + prompts))
        emb = cached_embeddings(trunk, unique, lambda texts: _embed_in_chunks(trunk, texts))
        row = {t: i for i, t in enumerate(unique)}
        pick = lambda texts: emb[[row[t] for t in texts]]  # noqa: E731
        classes = {"en": pick(class_en), "ru": pick(class_ru)}
        class_prompts = pool_class_prompts(pick(prompts), len(coco_classes()))
        loaded = _Loaded(Answerer(head, candidates, pick(en), pick(ru), classes, class_prompts), detector)
        if detector is None:
            log.warning("VQA: no detector; answering without its evidence")
        log.info("VQA: %d candidate answers, head card %s", len(candidates), head.card.get("heldout_accuracy", "none"))
        return loaded

    def discover(self, input_dir: Path) -> list[VqaSample]:
        """Every question id of ``questions.json``, validated; problems logged, none dropped."""
        task_dir = find_task_dir(input_dir, *self.info.folders())
        if task_dir is None:
            return []
        entries = read_request(task_dir, "questions.json", root=input_dir)
        images_dir = task_dir / "images"
        samples: list[VqaSample] = []
        for qid, entry in entries.items():
            if not isinstance(entry, dict):
                log.warning(
                    "VQA question %s is not an object (%s); it gets the fallback answer", qid, type(entry).__name__
                )
                samples.append(VqaSample(qid, None, "", "en"))
                continue
            question = entry.get("question")
            if not isinstance(question, str) or not question.strip():
                log.warning("VQA question %s has no usable question text (%r)", qid, question)
                question = ""
            lang = detect_language(question) if question else None
            if question and lang is None:
                log.warning("VQA question %s: language unknown (%r); answering in English", qid, question)
            image = _resolve_image(images_dir, entry, qid)
            samples.append(VqaSample(qid, image, question.strip(), lang or "en"))
        # Questions on one image next to each other, so that a batch encodes each picture once
        # (VQA v2 asks about 5 questions per image). The output is keyed by question id.
        samples.sort(key=lambda s: (s.image is None, str(s.image or "")))
        return samples

    def preprocess(self, samples: Sequence[VqaSample], trunk: Trunk, loaded: _Loaded) -> VqaBatch:
        """Parse the questions; load and transform each distinct image of the batch once."""
        import numpy as np
        import torch

        parsed: list[ParsedQuestion | None] = []
        rows: list[int | None] = []
        images: dict[Path, int | None] = {}  # image -> its row of the pixel stack; None: unreadable
        pixels: list[torch.Tensor] = []
        opened: list[Any] = []
        for s in samples:
            parsed.append(parse_question(model_safe_text(s.question), s.lang) if s.question else None)
            if s.image is not None and s.image not in images:
                try:
                    opened.append(load_image(s.image))
                    pixels.append(trunk.image_transform(opened[-1]))
                    images[s.image] = len(pixels) - 1
                except InputError as exc:
                    log.warning("VQA question %s: %s; answering from the question", s.key, exc)
                    images[s.image] = None
            rows.append(None if s.image is None else images[s.image])
        # Only images that some question the detector can answer asks about are kept for it.
        sizes = [detector_size(p) for p in parsed]
        wanted = {r for s, r in zip(sizes, rows, strict=True) if r is not None and s is not None}
        rgb = [np.asarray(image.convert("RGB")) if r in wanted else None for r, image in enumerate(opened)]
        queries = [subject_queries(p) if p is not None else ((), 0) for p in parsed]
        return VqaBatch(parsed, rows, sizes, queries, torch.stack(pixels) if pixels else None, rgb)

    def predict(self, batch: VqaBatch, trunk: Trunk, loaded: _Loaded) -> list[str | None]:
        """Encode the images, detect objects, embed the question texts, answer; None where only the
        fallback fits."""
        import torch

        from plugins.vqa.answerer import Embedded

        answerer = loaded.answerer
        images = encode_regions(trunk, batch.pixels) if batch.pixels is not None else None
        # (input size, image row) -> detections: each image once per size, in one batched call, however
        # many questions ask about it (counting questions have their own size, ``evidence.detector_size``).
        found: dict[tuple[int | None, int | None], Any] = {}
        wanted = {
            (size, r)
            for size, r in zip(batch.sizes, batch.image_rows, strict=True)
            if size is not None and r is not None and batch.rgb[r] is not None
        }
        detector = loaded.detector
        if detector is not None:
            for size in sorted({s for s, _ in wanted}):
                todo_rows = sorted(r for s, r in wanted if s == size)
                rgb_rows = [rgb for r in todo_rows if (rgb := batch.rgb[r]) is not None]  # all: ``wanted`` has RGB
                detected = detector.detect(rgb_rows, input_size=size)
                found.update(((size, r), d) for r, d in zip(todo_rows, detected, strict=True))
        queries = batch.queries
        texts = list(
            dict.fromkeys(
                t
                for p, (asked, _) in zip(batch.parsed, queries, strict=True)
                if p is not None
                for t in (p.text, p.subject or p.text, *p.choices, *asked)
            )
        )
        emb = _embed_in_chunks(trunk, texts)
        row = {t: i for i, t in enumerate(texts)}
        mean = torch.nn.functional.normalize(answerer.head.mean_image, dim=0).expand(N_REGIONS, -1)
        todo: list[int] = []
        parsed: list[ParsedQuestion] = []
        items = []
        for i, (p, image_row) in enumerate(zip(batch.parsed, batch.image_rows, strict=True)):
            if p is None:
                continue
            image = images[image_row] if images is not None and image_row is not None else mean
            choices = emb[[row[c] for c in p.choices]] if p.choices else emb[:0]
            detections = found.get((batch.sizes[i], image_row))
            # detections only for a row of an image (``found``'s keys)
            rgb = (
                batch.rgb[image_row]
                if detections is not None and image_row is not None and p.qtype is QType.COLOR
                else None
            )
            asked, together = queries[i]
            items.append(
                Embedded(
                    image,
                    emb[row[p.text]],
                    emb[row[p.subject or p.text]],
                    choices,
                    detections,
                    rgb,
                    emb[[row[t] for t in asked]],
                    together,
                )
            )
            todo.append(i)
            parsed.append(p)
        answers: list[str | None] = [None] * len(batch.parsed)
        for i, answer in zip(todo, answerer.answer_batch(parsed, items) if items else [], strict=True):
            answers[i] = answer
        return answers

    def postprocess(self, raw: list[str | None], samples: Sequence[VqaSample], loaded: _Loaded) -> list[Prediction]:
        """One answer string per question; the fallback where none was computed."""
        return [self.fallback(s) if a is None else Prediction(s.key, a) for a, s in zip(raw, samples, strict=True)]

    def fallback(self, sample: VqaSample) -> Prediction:
        """ "yes" in the question's language ("да" for Russian)."""
        from plugins.vqa.answerer import fallback_answer

        return Prediction(sample.key, fallback_answer(sample.lang))


def encode_regions(trunk: Trunk, pixels: torch.Tensor) -> torch.Tensor:
    """``[B, 3, S, S]`` -> ``[B, R, D]`` joint embeddings of the whole image and its regions.

    The tower's passes (``TOWER_CHUNK`` images each on one CPU thread, else one): the
    coarsest feature map is pooled over ``region_pool``'s regions and projected with
    ``trunk.project_pooled``, the whole batch at once (row 0 equals ``encode_images``).
    A trunk that cannot project regions gives the whole-image embedding in every row.
    """
    import torch

    if not trunk.can_pool_regions:
        return trunk.encode_images(pixels).unsqueeze(1).expand(-1, N_REGIONS, -1).clone()
    step = TOWER_CHUNK if pixels.device.type == "cpu" and torch.get_num_threads() == 1 else len(pixels)
    coarse = [trunk.image_feature_maps(pixels[i : i + step]).maps[-1] for i in range(0, len(pixels), step)]
    pooled = region_pool(torch.cat(coarse) if len(coarse) > 1 else coarse[0])
    b, r, c = pooled.shape
    return trunk.project_pooled(pooled.reshape(b * r, c)).reshape(b, r, -1)


def region_pool(coarse: torch.Tensor) -> torch.Tensor:
    """``[B, C, H, W]`` coarsest feature map -> ``[B, 6, C]`` pooled regions.

    Row 0 is the whole image (exactly what ``encode_images`` projects), then the
    four overlapping quadrants (each 2/3 of the side) and the centre: a small
    object or a detail a question asks about dominates some region more than the
    whole picture.
    """
    import torch

    _, _, h, w = coarse.shape
    hs, ws = max(1, round(h * 2 / 3)), max(1, round(w * 2 / 3))
    h0, w0 = (h - hs) // 2, (w - ws) // 2
    boxes = [
        (0, 0, h, w),
        (0, 0, hs, ws),
        (0, w - ws, hs, w),
        (h - hs, 0, h, ws),
        (h - hs, w - ws, h, w),
        (h0, w0, h0 + hs, w0 + ws),
    ]
    return torch.stack([coarse[:, :, y0:y1, x0:x1].mean(dim=(2, 3)) for y0, x0, y1, x1 in boxes], 1)


def _embed_in_chunks(trunk: Trunk, texts: Sequence[str], size: int = 256) -> torch.Tensor:
    import torch

    if not texts:
        return torch.zeros(0, trunk.embed_dim)
    return torch.cat([trunk.embed_texts(list(texts[i : i + size])) for i in range(0, len(texts), size)])
