"""Fit the VQA head on frozen trunk features: ``fit_head``, what ``plugins.vqa.train.train_head`` runs.

    python -m plugins.vqa.train [--data NAME=PATH ...] [--heads DIR] [--vqa-cache-dir DIR] [--vqa-synthetic-per-image N]

Data sources (``req.sources`` maps a name to paths; an absent name defaults to the matching sets
under ``req.data_root``, ``../shared/data`` unless ``--data-root`` says otherwise, when present):

* ``challenge``: sets in the challenge layout, ``<set>/input/VQA/questions.json``
  (``{qid: {"question", "file_name"}}``, images in ``<set>/input/VQA/images/``) and
  ``<set>/true/VQA/true_VQA.json`` (``{qid: {"answer": str | [str], "lang"}}``), split:
  the held-out images (below) are scored, the rest trained on. Default: ``vqa_yesno_dev``,
  ``vqa_okvqa_dev``.
* ``challenge_train``: sets in the same layout used whole for training (except any image
  held out in a ``challenge`` set). Default: ``vqa_yesno_train``.
* ``vqa_questions`` + ``vqa_annotations`` + ``vqa_images``: VQA v2 JSONs
  (``{"questions": [{"question_id", "image_id", "question"}]}``, ``{"annotations":
  [{"question_id", "answers": [{"answer"}], "multiple_choice_answer"}]}``) and the folder
  holding their COCO images (``*_<12-digit image_id>.jpg`` or ``<image_id>.jpg``), paired by
  position, used for training like ``challenge_train``. Gold answers: those given by at
  least 2 annotators, else the majority answer.
* ``okvqa_jsonl``: OK-VQA questions as text, one ``{"question", "answers": [...],
  "image_id"}`` a line (no images). Default: ``vqa_okvqa_train_text/qa.jsonl``.
* ``coco_captions`` + ``coco_images``: captions (COCO captions JSON, or ``{file_name:
  [caption, ...]}``) from which, with the detector's output on the images, bilingual yes/no
  questions about its classes are made (``synthetic_yesno``); default ``trunk_pairs/coco_val``.
* ``eval``: challenge-layout sets only scored (default ``fb_sample``), never trained on.

In a ``challenge`` set, every question whose image is held out (``data.is_heldout``:
``sha1(file_name) % 10 < 3``, about 30 % of the images, with all their questions) is left
out of training, and so is any question of the other sources on such an image; the card's
``heldout_accuracy`` is measured on them (and on ``eval``).

What is fitted (all on frozen embeddings, cached per trunk version in ``cache_dir``):

1. the answer vocabulary: English answers of the open questions, normalised as the scorer
   does, kept when given at least twice, plus the hand bilingual vocabulary and ImageNet names;
2. a language model: the probability of each answer given the question's embedding (a
   low-rank bilinear form over question and answer embeddings, fitted on the text questions);
3. the answer-type classifier (yes/no, count, colour, sport, place, other) on question embeddings;
4. the yes/no logistic model over question, image evidence and their products, and the open
   answer scorer mixing language model, answer type, priors and image-answer fit.

Models and penalties are chosen by 5-fold cross-validation grouped by image on the
training questions only. The check against constants: when, on those folds, the model
does not beat both the best constant answer and its own prior-only variant (fitted
without any image feature), the prior-only variant ships instead (the card says so).
"""

from __future__ import annotations

import collections
import json
import logging
import math
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.splits import DEFAULT_DATA_ROOT, fold_of, within_share
from plugins.vqa.answerer import (
    Answerer,
    Embedded,
    answer_type,
    build_candidates,
    candidate_texts,
    class_texts,
)
from plugins.vqa.evidence import N_EVIDENCE, OPEN_EVIDENCE, detector_size
from plugins.vqa.head import (
    ANSWER_TYPES,
    CARD_FILE,
    N_OPEN,
    N_SCALAR,
    OPEN_FEATURES,
    WEIGHTS_FILE,
    open_image_mask,
    untrained_head,
    yesno_width,
)
from plugins.vqa.normalize import normalize_answer
from plugins.vqa.question import ParsedQuestion, QType, parse_question
from plugins.vqa.task import N_REGIONS, VqaTask, region_pool
from plugins.vqa.train.data import HELDOUT_BELOW, HELDOUT_MOD, DevQuestion, is_heldout, load_dev_set
from plugins.vqa.train.detect import detector_key
from plugins.vqa.typed import subject_queries
from training import TrainRequest, challenge_sets

if TYPE_CHECKING:
    import torch

    from core.trunk import Trunk

log = logging.getLogger(__name__)

DEFAULT_CHALLENGE = ("vqa_yesno_dev", "vqa_okvqa_dev")
DEFAULT_CHALLENGE_TRAIN = ("vqa_yesno_train",)
MIN_ANSWER_COUNT = 2  # learned answers given fewer times are left out of the vocabulary
LM_RANK = 64
LM_BATCH = 512
LM_STEPS = 200
FOLDS = 5
YESNO_PENALTIES = (0.1, 1.0, 10.0)  # on standardised weights (weaker ones overfit: CV 0.55 at 1e-3)


# ----------------------------------------------------------------------------- data


@dataclass(frozen=True, slots=True)
class TextQuestion:
    """A question with answers but no image (OK-VQA text)."""

    question: str
    answers: tuple[str, ...]
    group: str  # image id: folds never split one image's questions
    lang: str = "en"


def default_data(root: Path | None = DEFAULT_DATA_ROOT) -> dict[str, list[Path]]:
    """The sources under ``root`` (``../shared/data``) that exist; none for ``root=None``."""
    out: dict[str, list[Path]] = {}
    if root is None:
        return out
    sets = [root / name for name in DEFAULT_CHALLENGE if (root / name / "true" / "VQA").is_dir()]
    if sets:
        out["challenge"] = sets
    train_sets = [root / name for name in DEFAULT_CHALLENGE_TRAIN if (root / name / "true" / "VQA").is_dir()]
    if train_sets:
        out["challenge_train"] = train_sets
    if (root / "vqa_okvqa_train_text" / "qa.jsonl").is_file():
        out["okvqa_jsonl"] = [root / "vqa_okvqa_train_text" / "qa.jsonl"]
    coco = root / "trunk_pairs" / "coco_val"
    if (coco / "captions_en.json").is_file():
        out["coco_captions"] = [coco / "captions_en.json"]
        out["coco_images"] = [coco / "images"]
    if (root / "fb_sample" / "true" / "VQA").is_dir():
        out["eval"] = [root / "fb_sample"]
    return out


def read_vqa_v2(questions: Path, annotations: Path, images: Path) -> list[DevQuestion]:
    """VQA v2 question + annotation JSONs with their image folder -> questions with gold answers."""
    qs = json.loads(questions.read_text(encoding="utf-8"))["questions"]
    anns = {a["question_id"]: a for a in json.loads(annotations.read_text(encoding="utf-8"))["annotations"]}
    by_id: dict[int, Path] = {}
    for path in images.iterdir():
        digits = re.findall(r"\d+", path.stem)
        if digits:
            by_id.setdefault(int(digits[-1]), path)
    out = []
    for q in qs:
        ann = anns.get(q["question_id"])
        image = by_id.get(int(q["image_id"]))
        if ann is None or image is None:
            continue
        given = collections.Counter(normalize_answer(a["answer"], "en") for a in ann.get("answers", []))
        answers = tuple(a for a, n in given.items() if n >= 2) or (
            normalize_answer(ann.get("multiple_choice_answer", ""), "en"),
        )
        out.append(DevQuestion(str(q["question_id"]), image, q["question"], answers, "en"))
    log.info("VQA v2: %d questions with an image and annotations from %s", len(out), questions)
    return out


def read_okvqa_jsonl(path: Path) -> list[TextQuestion]:
    """OK-VQA questions as text: one ``{"question", "answers", "image_id"}`` a line."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            answers = tuple(dict.fromkeys(normalize_answer(a, "en") for a in row["answers"]))
            out.append(TextQuestion(row["question"], answers, f"okvqa{row.get('image_id', row['question'])}"))
    return out


def read_captions(path: Path) -> dict[str, list[str]]:
    """``{file_name: [caption, ...]}`` from a COCO captions JSON or that mapping itself."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(raw, dict) and "annotations" in raw:
        names = {im["id"]: im["file_name"] for im in raw.get("images", [])}
        out: dict[str, list[str]] = collections.defaultdict(list)
        for ann in raw["annotations"]:
            if ann["image_id"] in names:
                out[names[ann["image_id"]]].append(ann["caption"])
        return dict(out)
    return {str(k): list(v) for k, v in raw.items()}


# ----------------------------------------------------------------------------- embeddings


class EmbeddingCache:
    """Pooled region features (per image-tower version) and text embeddings (per text-tower
    version), in memory and on disk: two ``training.FeatureCache`` stores under ``root``
    (``pooled/`` and ``text/``), each saved shard by shard as it is computed (resumable).

    Region features are kept *before* the joint projection, so a new joint space
    (the trunk's learned projection) needs no second pass over the images.
    """

    IMAGE_BATCH, TEXT_BATCH = 32, 256

    def __init__(self, trunk: Trunk, root: Path, *, progress: bool = True, detections: Any = None) -> None:
        """``detections``: a ``detect.DetectionCache`` giving the detector's output for the images
        (None: questions get no detector evidence)."""
        from training import FeatureCache

        self.trunk = trunk
        self.detections = detections
        self.progress = progress
        v = trunk.component_versions
        # Pooled maps depend on the image tower only; final embeddings (no region pooling) on all of it.
        key = v["image"] if trunk.can_pool_regions else trunk.version
        # Shards are whole batches, so the trunk sees the batches it saw before the shared store.
        self.images = FeatureCache(root / "pooled", key, shard_size=16 * self.IMAGE_BATCH)
        self.texts = FeatureCache(root / "text", v["text"], shard_size=16 * self.TEXT_BATCH)
        self.joint: dict[str, torch.Tensor] = {}

    def clear(self) -> None:
        """Forget every cached embedding (``--no-resume``)."""
        self.images.clear()
        self.texts.clear()
        self.joint = {}

    def save(self) -> None:
        """Nothing to do: both stores save each shard as it is computed (kept for callers)."""

    def _pool(self, chunk: list[str]) -> list[torch.Tensor]:
        import torch

        from core.io import load_image

        out: list[torch.Tensor] = []
        for i in range(0, len(chunk), self.IMAGE_BATCH):
            batch = chunk[i : i + self.IMAGE_BATCH]
            with torch.inference_mode():
                pixels = torch.stack([self.trunk.image_transform(load_image(Path(p))) for p in batch])
                if self.trunk.can_pool_regions:
                    pooled = region_pool(self.trunk.image_feature_maps(pixels).maps[-1])
                else:  # attention-pooled towers: the whole-image embedding in every row (as the task does)
                    pooled = self.trunk.encode_images(pixels).unsqueeze(1).expand(-1, N_REGIONS, -1)
            out += [e.clone() for e in pooled]
        return out

    def _embed(self, chunk: list[str]) -> list[torch.Tensor]:
        import torch

        out: list[torch.Tensor] = []
        for i in range(0, len(chunk), self.TEXT_BATCH):
            with torch.inference_mode():
                out += [e.clone() for e in self.trunk.embed_texts(chunk[i : i + self.TEXT_BATCH])]
        return out

    def image(self, paths: Sequence[Path]) -> torch.Tensor:
        """``[N, R, D]`` joint region embeddings of ``paths``."""
        import torch

        todo = sorted({str(p) for p in paths})
        pooled = self.images.fill(todo, self._pool, progress=self.progress, desc="images")
        need = sorted({str(p) for p in paths if str(p) not in self.joint})
        if need:
            with torch.inference_mode():
                stacked = torch.stack([pooled[p] for p in need])
                b, r, c = stacked.shape
                if self.trunk.can_pool_regions:
                    joint = self.trunk.project_pooled(stacked.reshape(b * r, c)).reshape(b, r, -1)
                else:
                    joint = stacked
            self.joint.update({p: e.clone() for p, e in zip(need, joint, strict=True)})
        if not paths:
            return torch.zeros(0, 1, self.trunk.embed_dim)
        return torch.stack([self.joint[str(p)] for p in paths])

    def text(self, texts: Sequence[str]) -> torch.Tensor:
        """``[N, D]`` text embeddings."""
        import torch

        table = self.texts.fill(sorted(set(texts)), self._embed)
        if not texts:
            return torch.zeros(0, self.trunk.embed_dim)
        return torch.stack([table[t] for t in texts])


def embed_questions(cache: EmbeddingCache, qs: Sequence[DevQuestion]) -> tuple[list[ParsedQuestion], list[Embedded]]:
    """Parse and embed questions the way the task does, with the detector's output where the task
    would run it, at the size it would run it at (``evidence.detector_size``), and the pixels colour
    questions need."""
    import numpy as np

    from core.io import load_image

    parsed = [parse_question(q.question, q.lang) for q in qs]
    found: list[Any] = [None] * len(qs)
    if cache.detections is not None:
        sizes = [detector_size(p, cache.detections.sizes) for p in parsed]
        for size in sorted({s for s in sizes if s is not None}):
            want = [i for i, s in enumerate(sizes) if s == size]
            for i, d in zip(want, cache.detections.get([qs[i].image for i in want], size), strict=True):
                found[i] = d
    images = cache.image([q.image for q in qs])
    questions = cache.text([p.text for p in parsed])
    subjects = cache.text([p.subject or p.text for p in parsed])
    choices = cache.text(sorted({c for p in parsed for c in p.choices}))
    row = {c: i for i, c in enumerate(sorted({c for p in parsed for c in p.choices}))}
    queries = [subject_queries(p) for p in parsed]
    query_emb = cache.text(sorted({t for texts, _ in queries for t in texts}))
    query_row = {t: i for i, t in enumerate(sorted({t for texts, _ in queries for t in texts}))}
    items = []
    for i, p in enumerate(parsed):
        rgb = np.asarray(load_image(qs[i].image)) if found[i] is not None and p.qtype is QType.COLOR else None
        texts, together = queries[i]
        items.append(
            Embedded(
                images[i],
                questions[i],
                subjects[i],
                choices[[row[c] for c in p.choices]],
                found[i],
                rgb,
                query_emb[[query_row[t] for t in texts]],
                together,
            )
        )
    return parsed, items


# ----------------------------------------------------------------------------- caption-made questions

_SYN_TEMPLATES = {
    "en": ("Is there a {} in the picture?", "Is there a {}?", "Is there a {} here?", "Is there a {} in this photo?"),
    "ru": ("Есть ли на фото {}?", "На фото есть {}?", "Здесь есть {}?", "Есть ли здесь {}?"),
}
# Caption words that name a detector class besides its own name ("a man riding a horse" names
# ``person``); a class is named when its name, its last word or one of these occurs.
_CAPTION_WORDS: Mapping[str, tuple[str, ...]] = {
    "person": ("man", "men", "woman", "women", "people", "person", "boy", "girl", "child", "children",
               "kid", "kids", "player", "guy", "lady", "skier", "surfer", "skateboarder", "rider"),
    "motorcycle": ("motorbike", "motor bike"), "airplane": ("plane", "jet", "aircraft"),
    "tv": ("television",), "cell phone": ("phone", "cellphone"), "couch": ("sofa",),
    "sports ball": ("ball", "soccer ball", "tennis ball", "baseball"), "dining table": ("table",),
    "laptop": ("computer",), "bicycle": ("bike",), "donut": ("doughnut",), "hot dog": ("hotdog",),
}  # fmt: skip
SYN_PRESENT = 0.3  # a named class the detector also finds this surely is "yes"
SYN_ABSENT = 0.1  # an unnamed class the detector scores below this everywhere is "no"


def _names_class(text: str, name: str) -> bool:
    words = (name, name.split()[-1], *_CAPTION_WORDS.get(name, ()))
    return any(f" {w} " in text or f" {w}s " in text or f" {w}es " in text for w in words)


def synthetic_yesno(
    captions: Mapping[str, Sequence[str]], images: Path, per_image: int, seed: int, detections: Any = None
) -> list[DevQuestion]:
    """Bilingual "is there a ...?" questions about the detector's 80 classes, made from captions and
    the shared detector's output (none of ``trunk_pairs/coco_val``'s images is in a VQA set).

    "Yes" where the human captions name the class and the detector finds it (score >= ``SYN_PRESENT``);
    "no" where no caption names it and the detector gives it below ``SYN_ABSENT``; the two agreeing
    keeps the labels clean (captions alone miss objects, the detector alone hallucinates). Per image
    up to ``per_image // 2`` of each, as many "no" as "yes" (balanced); negatives are drawn from
    classes that some other image holds, so they are plausible. Half the questions are Russian (the
    class's Russian name from ``core.detector``'s table), so the head sees Russian yes/no questions.
    ``detections``: a ``detect.DetectionCache`` (without one, no questions are made).
    """
    import numpy as np

    from core.detector import coco_classes

    if detections is None or per_image < 2:
        return []
    classes = coco_classes()
    rng = random.Random(seed)
    files = [name for name in sorted(captions) if (images / name).is_file()]
    found = detections.get([images / name for name in files])
    labelled: list[tuple[str, list[int], list[int]]] = []
    held: collections.Counter[int] = collections.Counter()
    for name, det in zip(files, found, strict=True):
        text = " " + " ".join(re.findall(r"[a-z]+", " ".join(captions[name]).lower())) + " "
        best = np.zeros(len(classes.en), dtype=np.float32)
        np.maximum.at(best, np.asarray(det.labels, dtype=np.int64), np.asarray(det.scores, dtype=np.float32))
        named = [_names_class(text, c) for c in classes.en]
        pos = [j for j in range(len(classes.en)) if named[j] and best[j] >= SYN_PRESENT]
        neg = [j for j in range(len(classes.en)) if not named[j] and best[j] < SYN_ABSENT]
        labelled.append((name, pos, neg))
        held.update(pos)
    out = []
    for name, pos, neg in labelled:
        neg = [j for j in neg if held[j] >= 5]
        k = min(len(pos), len(neg), per_image // 2)
        for j, label in [(j, True) for j in rng.sample(pos, k)] + [(j, False) for j in rng.sample(neg, k)]:
            lang = rng.choice(("en", "ru"))
            word = classes.en[j] if lang == "en" else classes.ru[j]
            text = rng.choice(_SYN_TEMPLATES[lang]).format(word)
            answer = ("yes" if label else "no") if lang == "en" else ("да" if label else "нет")
            out.append(DevQuestion(f"syn{len(out)}", images / name, text, (answer,), lang))
    log.info("caption and detector questions: %d on %d images (%d yes)", len(out), len(files),
             sum(q.answers[0] in ("yes", "да") for q in out))  # fmt: skip
    return out


# ----------------------------------------------------------------------------- fitting helpers


def group_fold(key: str, k: int = FOLDS) -> int:
    """The cross-validation fold of an image (or other group) name (``core.splits.fold_of``)."""
    return fold_of(key, k)


def fit_logistic(
    x: torch.Tensor, y: torch.Tensor, l2: torch.Tensor, steps: int = 200
) -> tuple[torch.Tensor, torch.Tensor]:
    """L2-regularised logistic regression by L-BFGS on standardised features (per-feature penalty
    ``l2`` on the standardised weights); returns the weights for the raw features.

    Standardising matters: unit-norm 512-d embeddings have entries of about 0.04, so a
    penalty on raw weights would mute them whatever its strength.
    """
    import torch

    mu, sd = x.mean(0), x.std(0).clamp(min=1e-6)
    xs = (x - mu) / sd
    w = torch.zeros(x.shape[1], requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=steps, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(xs @ w + b, y) + (l2 * w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    raw = w.detach() / sd
    return raw, b.detach() - (mu * raw).sum().reshape(1)


def yesno_groups(dim: int) -> dict[str, torch.Tensor]:
    """Feature groups of ``yesno_features`` the cross-validation chooses among."""
    import torch

    width = yesno_width(dim)
    detector = N_SCALAR + 3 * dim  # where the detector's evidence starts
    question = torch.zeros(width)
    question[N_SCALAR : N_SCALAR + dim] = 1.0
    subject = torch.zeros(width)
    subject[:N_SCALAR] = 1.0
    subject[N_SCALAR + dim : N_SCALAR + 2 * dim] = 1.0
    subject[detector:] = 1.0
    without_detector = torch.ones(width)
    without_detector[detector:] = 0.0
    return {
        "question (prior)": question,
        "evidence+subject*image": subject,
        "all without the detector": without_detector,
        "all": torch.ones(width),
    }


def yesno_penalty(dim: int, strength: float) -> torch.Tensor:
    import torch

    l2 = torch.full((yesno_width(dim),), strength)
    l2[:N_SCALAR] = min(strength, 1e-4)  # the evidence scalars: few, strong
    l2[N_SCALAR + 3 * dim : N_SCALAR + 3 * dim + N_EVIDENCE] = min(strength, 1e-4)  # the detector's, likewise
    return l2


@dataclass(slots=True)
class YesNoFit:
    """A fitted yes/no model and its cross-validated accuracy on real questions."""

    w: torch.Tensor
    b: torch.Tensor
    name: str
    cv: float
    bilinear: tuple[torch.Tensor, torch.Tensor] | None = None  # (bil_s, bil_i)


def fit_yesno(
    feats: torch.Tensor,
    labels: torch.Tensor,
    groups: Sequence[str],
    dim: int,
    extra: tuple[torch.Tensor, torch.Tensor, Sequence[str]] | None,
    progress: bool = True,
    pairs: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor] | None = None,
) -> tuple[YesNoFit, YesNoFit, float, list[dict[str, Any]]]:
    """Choose feature group, penalty and whether to add the caption-made questions by 5-fold CV
    (grouped by image) on the real questions; refit on everything.

    Returns the best model, the best question-only (prior) model, the CV accuracy of the best
    constant answer (the training folds' majority) and the whole grid.
    """
    import torch
    from tqdm import tqdm

    folds = torch.tensor([group_fold(g) for g in groups])
    extra_folds = torch.tensor([group_fold(g) for g in extra[2]]) if extra is not None else None
    const_hits = 0
    for k in range(FOLDS):
        tr = folds != k
        majority = float(labels[tr].mean() >= 0.5)
        const_hits += int((labels[~tr] == majority).sum())
    const_cv = const_hits / len(labels)
    grid = []
    options = [
        (name, strength, syn)
        for name in yesno_groups(dim)
        for strength in YESNO_PENALTIES
        for syn in ((False, True) if extra is not None else (False,))
    ]
    for name, strength, syn in tqdm(options, desc="yes/no CV", disable=not progress):
        keep = yesno_groups(dim)[name]
        hits = 0
        for k in range(FOLDS):
            tr = folds != k
            x, y = feats[tr], labels[tr]
            if syn and extra is not None and extra_folds is not None:
                x, y = torch.cat([x, extra[0][extra_folds != k]]), torch.cat([y, extra[1][extra_folds != k]])
            w, b = fit_logistic(x * keep, y, yesno_penalty(dim, strength))
            hits += int((((feats[~tr] * keep @ w + b) > 0).float() == labels[~tr]).sum())
        grid.append({"features": name, "penalty": strength, "captions": syn, "cv": round(hits / len(labels), 4)})
        log.info("yes/no %s, penalty %g, caption questions %s: cv accuracy %.4f", name, strength, syn, grid[-1]["cv"])

    def refit(row: Mapping[str, Any]) -> YesNoFit:
        keep = yesno_groups(dim)[row["features"]]
        x, y = feats, labels
        if row["captions"] and extra is not None:
            x, y = torch.cat([feats, extra[0]]), torch.cat([labels, extra[1]])
        w, b = fit_logistic(x * keep, y, yesno_penalty(dim, row["penalty"]))
        label = f"{row['features']}, penalty {row['penalty']:g}, caption questions {row['captions']}"
        return YesNoFit(w * keep, b, label, row["cv"])

    best = max(grid, key=lambda r: r["cv"])
    best_prior = max((r for r in grid if r["features"] == "question (prior)"), key=lambda r: r["cv"])
    model = refit(best)
    if pairs is not None:
        # The low-rank subject x image term on top of the chosen logistic model, epochs by the same folds.
        keep = yesno_groups(dim)[best["features"]]
        subj, cent = pairs[0], pairs[1]
        use_extra = best["captions"] and extra is not None and extra_folds is not None
        hits: collections.Counter[int] = collections.Counter()
        for k in tqdm(range(FOLDS), desc="yes/no bilinear CV", disable=not progress):
            tr = folds != k
            x, y, s_, c_ = feats[tr], labels[tr], subj[tr], cent[tr]
            if use_extra:
                te = extra_folds != k
                x, y = torch.cat([x, extra[0][te]]), torch.cat([y, extra[1][te]])
                s_, c_ = torch.cat([s_, pairs[2][te]]), torch.cat([c_, pairs[3][te]])
            w, b = fit_logistic(x * keep, y, yesno_penalty(dim, best["penalty"]))
            check = (subj[~tr], cent[~tr], feats[~tr] * keep @ w + b, labels[~tr])
            _, curve = fit_bilinear_residual(s_, c_, y, x * keep @ w + b, k, check)
            for epoch, acc in curve.items():
                hits[epoch] += acc * int((~tr).sum())
        bil_cv = {epoch: round(n / len(labels), 4) for epoch, n in sorted(hits.items())}
        epochs = max(bil_cv, key=bil_cv.__getitem__)
        grid.append({"features": f"{best['features']} + bilinear subject x image", "cv_by_epochs": bil_cv})
        log.info("yes/no bilinear term on the best logistic model: cv by epochs %s", bil_cv)
        if bil_cv[epochs] > model.cv:
            x, y, s_, c_ = feats, labels, subj, cent
            if use_extra:
                x, y = torch.cat([feats, extra[0]]), torch.cat([labels, extra[1]])
                s_, c_ = torch.cat([subj, pairs[2]]), torch.cat([cent, pairs[3]])
            model.bilinear, _ = fit_bilinear_residual(s_, c_, y, x @ model.w + model.b, FOLDS, epochs=epochs)
            model.name += f" + bilinear subject x image (rank {BIL_RANK}, {epochs} epochs)"
            model.cv = bil_cv[epochs]
    return model, refit(best_prior), const_cv, grid


BIL_RANK = 32
BIL_EPOCHS = (2, 4, 8, 16)


def fit_bilinear_residual(
    subject: torch.Tensor,
    centred: torch.Tensor,
    y: torch.Tensor,
    offset: torch.Tensor,
    seed: int,
    check: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor] | None = None,
    epochs: int | None = None,
    decay: float = 1e-4,
) -> tuple[tuple[torch.Tensor, torch.Tensor], dict[int, float]]:
    """The low-rank subject x image term (``head.bilinear``) fitted on top of a fixed logistic
    model (``offset``: its logits) by minibatch Adam.

    ``check`` = (subjects, centred images, offsets, labels) of held-out questions: accuracy
    after each of ``BIL_EPOCHS``.
    """
    import torch

    from plugins.vqa.head import bilinear

    gen = torch.Generator().manual_seed(seed)
    dim = subject.shape[1]
    u = (torch.randn(dim, BIL_RANK, generator=gen) * 0.05).requires_grad_(True)
    v = (torch.randn(dim, BIL_RANK, generator=gen) * 0.05).requires_grad_(True)
    opt = torch.optim.Adam([u, v], lr=3e-3)
    curve: dict[int, float] = {}
    for epoch in range(1, (epochs or BIL_EPOCHS[-1]) + 1):
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(order), 128):
            idx = order[i : i + 128]
            opt.zero_grad()
            logit = offset[idx] + bilinear(subject[idx], centred[idx], u, v)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logit, y[idx])
            (loss + decay * ((u * u).sum() + (v * v).sum())).backward()
            opt.step()
        if check is not None and epoch in BIL_EPOCHS:
            cs, cc, co, cy = check
            with torch.no_grad():
                curve[epoch] = float((((co + bilinear(cs, cc, u, v)) > 0).float() == cy).float().mean())
    return (u.detach(), v.detach()), curve


def fit_types(x: torch.Tensor, targets: torch.Tensor, l2: float = 1e-3) -> tuple[torch.Tensor, torch.Tensor]:
    """Multinomial logistic regression ``[N, D] -> [N, T]`` soft targets (the answer-type step)."""
    import torch

    w = torch.zeros(targets.shape[1], x.shape[1], requires_grad=True)
    b = torch.zeros(targets.shape[1], requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=200, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = -(targets * torch.log_softmax(x @ w.T + b, -1)).sum(-1).mean() + l2 * (w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return w.detach(), b.detach()


def type_targets(answer_sets: Sequence[Sequence[str]]) -> torch.Tensor:
    """``[N, T]`` share of each question's gold answers per answer type."""
    import torch

    out = torch.zeros(len(answer_sets), len(ANSWER_TYPES))
    for i, answers in enumerate(answer_sets):
        for a in answers or ("",):
            out[i, ANSWER_TYPES.index(answer_type(a))] += 1.0 / max(1, len(answers))
    return out


def fit_language_model(
    questions: torch.Tensor,
    targets: torch.Tensor,
    answers: torch.Tensor,
    log_prior: torch.Tensor,
    groups: Sequence[str],
    seed: int,
    progress: bool = True,
) -> tuple[torch.Tensor, torch.Tensor, dict[str, Any]]:
    """Fit ``lm_q``, ``lm_a`` (``[D, r]``): softmax over candidate answers of question-answer affinity.

    :param questions: ``[N, D]``; ``targets``: ``[N, A]`` bool, the gold candidates of each question;
        ``answers``: ``[A, D]`` candidate embeddings; ``log_prior``: ``[A]``.
    The number of Adam steps and the weight decay are chosen on one fold held out by group
    (top-1 accuracy), then the model is refitted on everything.
    """
    import torch
    from tqdm import tqdm

    folds = torch.tensor([group_fold(g) for g in groups])

    def train(x: torch.Tensor, t: torch.Tensor, decay: float, steps: int, check: Callable[..., float] | None):
        gen = torch.Generator().manual_seed(seed)
        dim = x.shape[1]
        u = (torch.randn(dim, LM_RANK, generator=gen) * 0.01).requires_grad_(True)
        v = (torch.randn(dim, LM_RANK, generator=gen) * 0.01).requires_grad_(True)
        opt = torch.optim.Adam([u, v], lr=0.02)
        curve = []
        for step in tqdm(range(steps), desc="language model", disable=not progress):
            opt.zero_grad()
            idx = torch.randint(len(x), (min(LM_BATCH, len(x)),), generator=gen)  # minibatches: 2 cores
            logits = (x[idx] @ u) @ (answers @ v).T + log_prior
            lse = torch.logsumexp(logits, -1)
            gold = torch.logsumexp(logits.masked_fill(~t[idx], float("-inf")), -1)
            loss = (lse - gold).mean() + decay * ((u * u).sum() + (v * v).sum())
            loss.backward()
            opt.step()
            if check is not None and (step + 1) % 25 == 0:
                curve.append((step + 1, check(u.detach(), v.detach())))
        return u.detach(), v.detach(), curve

    val = folds == 0
    xv, tv = questions[val], targets[val]

    def top1(u: torch.Tensor, v: torch.Tensor) -> float:
        pred = ((xv @ u) @ (answers @ v).T + log_prior).argmax(-1)
        return float(tv[torch.arange(len(pred)), pred].float().mean())

    prior_top1 = float(tv[:, int(log_prior.argmax())].float().mean())
    best = (-1.0, 1e-4, 25)
    report: dict[str, Any] = {"prior_only_top1": round(prior_top1, 4), "grid": []}
    for decay in (1e-4, 1e-3):
        _, _, curve = train(questions[~val], targets[~val], decay, LM_STEPS, top1)
        for step, acc in curve:
            report["grid"].append({"decay": decay, "steps": step, "top1": round(acc, 4)})
            if acc > best[0]:
                best = (acc, decay, step)
    acc, decay, steps = best
    report.update(chosen={"decay": decay, "steps": steps, "top1": round(acc, 4)})
    log.info("language model: held-out-fold top-1 %.4f (answer prior alone %.4f), decay %g, %d steps",
             acc, prior_top1, decay, steps)  # fmt: skip
    u, v, _ = train(questions, targets, decay, steps, None)
    return u, v, report


@dataclass(slots=True)
class OpenQuestion:
    """An open training question's candidate features, gold mask and allowed mask."""

    feats: torch.Tensor  # [N, N_OPEN]
    gold: torch.Tensor  # [N] bool
    mask: torch.Tensor  # [N] bool
    group: str
    lang: str


def open_training_rows(
    answerer: Answerer, parsed: Sequence[ParsedQuestion], items: Sequence[Embedded], qs: Sequence[DevQuestion]
) -> list[OpenQuestion]:
    """Features of the open training questions, their own answers' counts left out of the prior."""
    import torch

    counts = answerer.head.answer_counts
    total = sum(counts.values()) or 1
    rows = []
    for p, e, q in zip(parsed, items, qs, strict=True):
        lang = "ru" if p.lang == "ru" else "en"
        texts = [c.ru if lang == "ru" and c.ru else c.en for c in answerer.candidates]
        gold = torch.tensor([t in q.answers for t in texts])
        # Leave-one-out: the question's own answers must not lend it their training counts,
        # and answers only it has seen are not in its vocabulary.
        prior = answerer.log_prior.clone()
        keep = torch.ones(len(texts), dtype=torch.bool)
        for j, c in enumerate(answerer.candidates):
            if c.en in q.answers and counts.get(c.en, 0) > 0:
                if c.category == "learned" and counts[c.en] - 1 < MIN_ANSWER_COUNT:
                    keep[j] = False
                else:
                    prior[j] = math.log(max(math.exp(float(prior[j])) - 1 / total, 1e-6))
        saved = answerer.log_prior
        answerer.log_prior = prior
        try:
            feats, mask = answerer.open_inputs([p], [e])
        finally:
            answerer.log_prior = saved
        rows.append(OpenQuestion(feats[0], gold, mask[0] & keep, q.image.name, lang))
    return rows


def fit_open_weights(rows: Sequence[OpenQuestion], start: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """Maximise the softmax mass on reachable gold candidates (features outside ``keep`` fixed at 0)."""
    import torch

    usable = [r for r in rows if bool((r.gold & r.mask).any())]
    if not usable:
        return start * keep
    f = torch.stack([r.feats for r in usable]) * keep
    t = torch.stack([r.gold & r.mask for r in usable])
    m = torch.stack([r.mask for r in usable])
    w = (start * keep).clone().requires_grad_(True)
    opt = torch.optim.LBFGS([w], max_iter=60, line_search_fn="strong_wolfe")  # convex: converges fast

    def closure() -> torch.Tensor:
        opt.zero_grad()
        logits = (f @ (w * keep)).masked_fill(~m, float("-inf"))
        loss = -(torch.logsumexp(logits.masked_fill(~t, float("-inf")), -1) - torch.logsumexp(logits, -1)).mean()
        loss = loss + 1e-3 * (w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return (w * keep).detach()


def open_accuracy(rows: Sequence[OpenQuestion], w: torch.Tensor) -> int:
    """Hits of the argmax candidate."""
    hits = 0
    for r in rows:
        best = int((r.feats @ w).masked_fill(~r.mask, float("-inf")).argmax())
        hits += bool(r.gold[best])
    return hits


def cross_validate_open(
    rows: Sequence[OpenQuestion], start: torch.Tensor, answer_texts: Sequence[str], questions: Sequence[DevQuestion]
) -> dict[str, float]:
    """5-fold CV (grouped by image) of the open scorer, its prior-only variant and the best constant."""
    import torch

    full, image = torch.ones(N_OPEN), open_image_mask()
    hits = {"model": 0, "prior alone": 0, "constant": 0}
    for k in range(FOLDS):
        tr = [r for r in rows if group_fold(r.group) != k]
        te = [r for r in rows if group_fold(r.group) == k]
        te_q = [q for r, q in zip(rows, questions, strict=True) if group_fold(r.group) == k]
        tr_q = [q for r, q in zip(rows, questions, strict=True) if group_fold(r.group) != k]
        hits["model"] += open_accuracy(te, fit_open_weights(tr, start, full))
        hits["prior alone"] += open_accuracy(te, fit_open_weights(tr, start, full - image))
        majority = collections.Counter(a for q in tr_q for a in set(q.answers)).most_common(1)
        if majority:
            hits["constant"] += sum(majority[0][0] in q.answers for q in te_q)
    return {k: round(v / max(1, len(rows)), 4) for k, v in hits.items()}


def choose_model(model_cv: float, prior_cv: float, constant_cv: float) -> str:
    """What ships: the model only when it beats both its prior-only variant and the best constant
    on the cross-validation folds; else the prior alone when it beats the constant; else the constant."""
    if model_cv > max(prior_cv, constant_cv):
        return "model"
    return "prior alone" if prior_cv > constant_cv else "constant"


def score_answers(answers: Sequence[str], qs: Sequence[DevQuestion]) -> float:
    """Organizers' accuracy: the normalized answer is one of the gold answers."""
    if not qs:
        return float("nan")
    return sum(normalize_answer(a, q.lang) in q.answers for a, q in zip(answers, qs, strict=True)) / len(qs)


# ----------------------------------------------------------------------------- train_head


def _detection_cache(cache_dir: Path, progress: bool) -> Any:
    """The detector's output for the training images (``detect.DetectionCache``), or None (logged)
    when the detector cannot be built: the head is then fitted without its evidence."""
    from core.detector import DEFAULT, WEIGHTS_DIR
    from plugins.vqa.train.detect import DetectionCache

    cache = DetectionCache(cache_dir, progress=progress)
    if not (WEIGHTS_DIR / f"{cache.config.weights or DEFAULT}.safetensors").is_file():
        log.warning("VQA trainer: no detector weights in %s; fitting without its evidence", WEIGHTS_DIR)
        return None
    return cache


def fit_head(
    req: TrainRequest,
    *,
    cache_dir: Path | None = None,
    synthetic_per_image: int = 4,
) -> Path:
    """Fit the VQA head for ``req.trunk`` on ``req.sources`` (see the module docstring) and write it
    to ``req.out_dir``; returns the card path.

    ``req.resume``: reuse the embeddings cached in ``cache_dir`` (default ``req.out_dir/cache``),
    the expensive part; fitting itself takes a few minutes on one core. ``req.device`` is not
    used: everything here runs on CPU (the features are small). ``req.scale`` (train.py's
    ``--scale``) keeps that share of the images of the training-only sources
    (``challenge_train``, VQA v2 JSONs, captioned images), drawn by image name; the
    ``challenge`` sets and the text questions are always used whole.
    """
    trunk, data, out_dir = req.trunk, req.sources.as_dict(), req.out_dir
    seed, device, resume, progress, scale = req.seed, req.device, req.resume, req.progress, req.scale
    data_root = req.data_root
    import torch

    from core.heads import write_card

    del device  # embeddings are cached once; the fits are tiny
    start_time = time.time()
    torch.manual_seed(seed)
    random.seed(seed)
    sources = {**default_data(data_root), **{k: list(v) for k, v in data.items()}}
    cache_dir = cache_dir or out_dir / "cache"
    cache = EmbeddingCache(trunk, cache_dir, progress=progress, detections=_detection_cache(cache_dir, progress))
    if not resume:
        cache.clear()
        if cache.detections is not None:
            cache.detections.clear()

    # Image questions: the dev sets' training parts (held-out images left out), the training-only
    # sets whole except for images held out in a dev set, and the held-out evaluation parts.
    image_qs: dict[str, list[DevQuestion]] = {}
    for root in challenge_sets(sources.get("challenge", []), VqaTask.info):
        image_qs[Path(root).name] = load_dev_set(Path(root))
    heldout = {name: [q for q in qs if is_heldout(q.image.name)] for name, qs in image_qs.items()}
    heldout = {name: qs for name, qs in heldout.items() if qs}
    heldout_images = {q.image.name for qs in heldout.values() for q in qs}
    train_only: dict[str, list[DevQuestion]] = {}
    for root in challenge_sets(sources.get("challenge_train", []), VqaTask.info):
        train_only[Path(root).name] = load_dev_set(Path(root))
    for i, (qf, af, imf) in enumerate(
        zip(
            sources.get("vqa_questions", []),
            sources.get("vqa_annotations", []),
            sources.get("vqa_images", []),
            strict=False,
        )
    ):
        train_only[f"vqa_v2_{i}"] = read_vqa_v2(Path(qf), Path(af), Path(imf))
    if scale < 1.0:
        train_only = {name: [q for q in qs if within_share(q.image.name, scale)] for name, qs in train_only.items()}
    train_qs = [q for qs in image_qs.values() for q in qs if not is_heldout(q.image.name)]
    train_qs += [q for qs in train_only.values() for q in qs if q.image.name not in heldout_images]
    for root in challenge_sets(sources.get("eval", []), VqaTask.info):
        heldout[Path(root).name] = load_dev_set(Path(root))
    text_qs = [q for path in sources.get("okvqa_jsonl", []) for q in read_okvqa_jsonl(Path(path))]
    log.info("image questions: %d for training; text questions: %d", len(train_qs), len(text_qs))

    parsed, items = embed_questions(cache, train_qs)
    cache.save()
    is_yesno = [
        p.qtype.yesno and q.answers[0] in ("yes", "no", "да", "нет") for p, q in zip(parsed, train_qs, strict=True)
    ]
    is_open = [not p.qtype.yesno and p.qtype is not QType.CHOICE for p in parsed]

    # 1. The answer vocabulary and its counts.
    counts: collections.Counter[str] = collections.Counter()
    for q in text_qs:
        counts.update(a for a in set(q.answers) if a and normalize_answer(a, "en") == a)
    for q, op in zip(train_qs, is_open, strict=True):
        if op and q.lang == "en":
            counts.update(a for a in set(q.answers) if a and normalize_answer(a, "en") == a)
    head = untrained_head(trunk.embed_dim, prompt=None)
    head.mean_image = torch.stack([e.image[0] for e in items]).mean(0) if items else head.mean_image
    head.answer_counts = {a: n for a, n in sorted(counts.items()) if n >= MIN_ANSWER_COUNT}
    candidates = build_candidates(head)
    en, ru = candidate_texts(candidates)
    emb_en, emb_ru = cache.text(en), cache.text(ru)
    class_en, class_ru = class_texts()
    class_emb = {"en": cache.text(class_en), "ru": cache.text(class_ru)}
    answerer = Answerer(head, candidates, emb_en, emb_ru, class_emb)
    log.info("answer vocabulary: %d candidates (%d learned answers)", len(candidates), len(head.answer_counts))

    # 2. Answer types (from every question we have) and 3. the language model (text questions).
    type_texts = [q.question for q in text_qs] + [q.question for q in train_qs]
    type_answers = [q.answers for q in text_qs] + [
        ("yes",) if yn else (q.answers if q.lang == "en" else ("",)) for q, yn in zip(train_qs, is_yesno, strict=True)
    ]
    labelled = [i for i, a in enumerate(type_answers) if a != ("",)]
    type_x = cache.text([type_texts[i] for i in labelled])
    head.type_w, head.type_b = fit_types(type_x, type_targets([type_answers[i] for i in labelled]))
    lm_report: dict[str, Any] = {}
    if text_qs:
        texts = [c.en for c in candidates]
        index = {t: j for j, t in enumerate(texts)}
        targets = torch.zeros(len(text_qs), len(texts), dtype=torch.bool)
        for i, q in enumerate(text_qs):
            for a in q.answers:
                if a in index:
                    targets[i, index[a]] = True
        reach = targets.any(-1)
        lm_x = cache.text([q.question for q in text_qs])[reach]
        groups = [q.group for q, r in zip(text_qs, reach.tolist(), strict=True) if r]
        head.lm_q, head.lm_a, lm_report = fit_language_model(
            lm_x, targets[reach], emb_en, answerer.log_prior, groups, seed, progress
        )
    cache.save()

    # 4a. Yes/no.
    yn = [i for i, flag in enumerate(is_yesno) if flag]
    stack = lambda idx, attr: torch.stack([getattr(items[i], attr) for i in idx])  # noqa: E731
    langs = lambda qs: ["ru" if q.lang == "ru" else "en" for q in qs]  # noqa: E731
    feats = answerer.yesno_inputs([items[i] for i in yn], langs([train_qs[i] for i in yn]))
    # What a yes/no question gets when the run has no detector: the training mean of the evidence.
    head.evidence_mean = feats[:, N_SCALAR + 3 * trunk.embed_dim :].mean(0) if len(yn) else None
    labels = torch.tensor([float(train_qs[i].answers[0] in ("yes", "да")) for i in yn])
    pairs = [stack(yn, "subject"), stack(yn, "image")[:, 0] - head.mean_image, torch.zeros(0, 1), torch.zeros(0, 1)]
    extra = None
    syn: list[DevQuestion] = []
    if synthetic_per_image > 0 and sources.get("coco_captions") and sources.get("coco_images"):
        for cap, imgs in zip(sources["coco_captions"], sources["coco_images"], strict=False):
            captions = {k: v for k, v in read_captions(Path(cap)).items() if within_share(k, scale)}
            syn += synthetic_yesno(captions, Path(imgs), synthetic_per_image, seed, cache.detections)
        if syn:
            sparsed, sitems = embed_questions(cache, syn)
            cache.save()
            s_feats = answerer.yesno_inputs(sitems, langs(syn))
            s_labels = torch.tensor([float(q.answers[0] in ("yes", "да")) for q in syn])
            extra = (s_feats, s_labels, [q.image.name for q in syn])
            pairs[2] = torch.stack([e.subject for e in sitems])
            pairs[3] = torch.stack([e.image[0] for e in sitems]) - head.mean_image
    model, prior, const_cv, grid = fit_yesno(
        feats, labels, [train_qs[i].image.name for i in yn], trunk.embed_dim, extra, progress, tuple(pairs)
    )
    head.prior_yesno_w, head.prior_yesno_b = prior.w, prior.b
    yesno_choice = choose_model(model.cv, prior.cv, const_cv)
    if yesno_choice == "model":
        head.yesno_w, head.yesno_b = model.w, model.b
        if model.bilinear is not None:
            head.bil_s, head.bil_i = model.bilinear
    elif yesno_choice == "prior alone":
        head.yesno_w, head.yesno_b = prior.w, prior.b
    else:  # the majority answer, whatever the question and image
        head.yesno_w = torch.zeros_like(prior.w)
        head.yesno_b = torch.tensor([1.0 if float(labels.mean()) >= 0.5 else -1.0])
    log.info("yes/no: model cv %.4f (%s), prior alone %.4f, constant %.4f -> ships %s",
             model.cv, model.name, prior.cv, const_cv, yesno_choice)  # fmt: skip

    # 4b. Open answers.
    op = [i for i, flag in enumerate(is_open) if flag]
    rows = open_training_rows(answerer, [parsed[i] for i in op], [items[i] for i in op], [train_qs[i] for i in op])
    start = torch.tensor([0.0, 1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, 1.0] + [1.0] * len(OPEN_EVIDENCE))
    open_cv = cross_validate_open(rows, start, en, [train_qs[i] for i in op]) if rows else {}
    head.open_w = fit_open_weights(rows, start, torch.ones(N_OPEN))
    head.prior_open_w = fit_open_weights(rows, start, torch.ones(N_OPEN) - open_image_mask())
    open_choice = choose_model(open_cv["model"], open_cv["prior alone"], open_cv["constant"]) if open_cv else "model"
    if open_choice == "prior alone":
        head.open_w = head.prior_open_w
    elif open_choice == "constant":  # the most frequent answer the question-type rules allow
        head.open_w = torch.zeros(N_OPEN)
        head.open_w[OPEN_FEATURES.index("log prior")] = 1.0
    log.info("open: cv %s -> ships %s; weights %s", open_cv, open_choice, [round(float(v), 3) for v in head.open_w])

    # Held-out evaluation (never used for any choice above).
    scores: dict[str, dict[str, float]] = {}
    prior_answerer = Answerer(head.prior_only(), candidates, emb_en, emb_ru, class_emb)
    for name, qs in heldout.items():
        hp, hi = embed_questions(cache, qs)
        scores[name] = {
            "n": len(qs),
            "model": round(score_answers(answerer.answer_batch(hp, hi), qs), 4),
            "prior alone": round(score_answers(prior_answerer.answer_batch(hp, hi), qs), 4),
        }
        log.info("%s: held-out accuracy %s", name, scores[name])
    cache.save()

    head.card = {
        "task": "vqa",
        "trunk": trunk.component_versions,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "seed": seed,
        "data": {
            "image_questions": {
                **{
                    name: {
                        "train": sum(not is_heldout(q.image.name) for q in qs),
                        "heldout": len(heldout.get(name, [])),
                    }
                    for name, qs in image_qs.items()
                },
                **{
                    name: {"train": sum(q.image.name not in heldout_images for q in qs), "heldout": 0}
                    for name, qs in train_only.items()
                },
            },
            "text_questions": len(text_qs),
            "caption_yesno_questions": len(syn),
            "sources": {k: [str(p) for p in v] for k, v in sources.items()},
        },
        "heldout_split": f"sha1(file_name) mod {HELDOUT_MOD} < {HELDOUT_BELOW} (by image); eval sets scored whole",
        "detector": detector_key(cache.detections.config) if cache.detections is not None else None,
        "count_detector_size": cache.detections.sizes.counting if cache.detections is not None else None,
        "train_questions": {
            "yesno": len(yn),
            "open": len(op),
            "open_reachable": sum(bool((r.gold & r.mask).any()) for r in rows),
        },
        "answer_vocabulary": {"candidates": len(candidates), "learned": len(head.answer_counts)},
        "yesno": {
            "ships": yesno_choice,
            "model": model.name,
            "cv": {"model": model.cv, "prior alone": prior.cv, "constant": round(const_cv, 4)},
            "grid": grid,
        },
        "open": {
            "ships": open_choice,
            "cv": open_cv,
            "weights": dict(zip(OPEN_FEATURES, [round(float(v), 4) for v in head.open_w], strict=True)),
        },
        "language_model": lm_report,
        "heldout_accuracy": scores,
        "steps": "L-BFGS (logistic, types), Adam (language model, open scorer); see the CV reports",
        "seconds": round(time.time() - start_time, 1),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    head.save(out_dir / WEIGHTS_FILE.name, out_dir / CARD_FILE.name)
    card = dict(head.card, answer_counts=head.answer_counts)
    write_card(out_dir / CARD_FILE.name, card, weights=(out_dir / WEIGHTS_FILE.name,))
    (out_dir / CARD_FILE.name).chmod(0o644)
    log.info("wrote the VQA head to %s (%d bytes)", out_dir, (out_dir / WEIGHTS_FILE.name).stat().st_size)
    return out_dir / CARD_FILE.name
