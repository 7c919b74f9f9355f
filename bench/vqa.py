"""VQA benchmark: quality against the baselines on every evaluation set, and questions/s on 2 cores.

    python -m bench.vqa [--data ../shared/data] [--cache /work/cache/vqa] [--head FILE] [--threads 1]
                        [--detector-size 256]
    python -m bench.vqa --detector-sizes 256,320,416      # the model with detections made at each size
    python -m bench.vqa --speed [--set ../shared/data/vqa_okvqa_dev] [--ablation random] [--head FILE]
                        [--detector-size 256 | --no-detector]

Quality (default): for each evaluation set (the held-out part of ``vqa_yesno_dev`` and of
``vqa_okvqa_dev``, see ``plugins.vqa.train.data.is_heldout``, and all of ``fb_sample``) it prints

* **model**: the head (the shipped one, or ``--head``) on the embedded trunk;
* **best constant**: the best single answer per language, chosen *on the evaluation set
  itself* (an oracle, so a bar at least as high as any constant a model could learn);
* **prior alone**: the head's question-only model (no image feature; what the wording
  of the question predicts), when the head has one;
* **ablated**: the head on ``--ablate-trunk random`` features (every trunk feature,
  image and text, replaced by seeded noise);
* **no detector**: the head when the run has no detector (``setup(ctx)`` whose ``ctx.detector()`` is None);
* **no head**: the weight-free mode used when no trained head matches the trunk.

Detections come from ``plugins.vqa.train.detect.DetectionCache`` (the shared NanoDet at
``--detector-size``, counting questions at ``evidence.COUNT_DETECTOR_SIZE`` as the task runs them,
cached under ``--cache`` like the embeddings). ``--detector-sizes``
scores the model alone with detections made at each input size (each size's cache is
filled on first use), and times the detector on the held-out images at each size.

Embeddings come from ``plugins.vqa.train.fit.EmbeddingCache`` (the task's own encoding:
region pooling of one tower pass, ``project_pooled``), cached under ``--cache``; the
answers are ``Answerer.answer_batch``'s, exactly what the task emits. ``run.py`` +
``python score.py`` on ``python -m plugins.vqa.train.data SRC DST`` held-out sets gives
the same figures end to end.

``--speed`` runs the task through ``core.runner`` exactly as ``run.py`` does and times it
(trunk construction excluded, task setup included), then once more without setup. Each
batch encodes its distinct images once, so the rate depends on questions per image: the
dev sets have 1.1 (yes/no) and 1.0 (OK-VQA) questions per image, a worst case (VQA v2
averages about 5.4).
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path

import registry

REPO = Path(__file__).resolve().parents[1]

EVAL_SETS = ("vqa_yesno_dev", "vqa_okvqa_dev", "fb_sample")
MIN_SET = 100  # below this many questions a difference of a few answers tells nothing


def accuracy(pred: dict[str, str], true_file: Path) -> float:
    from plugins.vqa.normalize import normalize_answer

    gold = json.loads(true_file.read_text(encoding="utf-8"))
    hits = 0
    for qid, g in gold.items():
        answers = g["answer"] if isinstance(g["answer"], list) else [g["answer"]]
        hits += normalize_answer(str(pred.get(qid, "")), g["lang"]) in answers
    return hits / max(1, len(gold))


def best_constant(questions: list) -> tuple[float, dict[str, str]]:  # list[DevQuestion]
    """The oracle constant: per language, the gold answer that is right most often on this set."""
    by_lang: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for q in questions:
        by_lang[q.lang].update(set(q.answers))
    hits = 0
    best = {}
    for lang, counts in sorted(by_lang.items()):
        answer, n = counts.most_common(1)[0]
        best[lang] = answer
        hits += n
    return hits / max(1, len(questions)), best


def score(answers: list[str], questions: list) -> float:
    """Organizers' accuracy: the normalized answer is one of the gold answers."""
    from plugins.vqa.normalize import normalize_answer

    hits = sum(normalize_answer(a, q.lang) in q.answers for a, q in zip(answers, questions, strict=True))
    return hits / max(1, len(questions))


BUILT = "zsod_coco_dev built"  # count and presence questions made from COCO boxes (bench.vqa_types)


def evaluation_sets(data: Path) -> dict[str, list]:
    from bench.vqa_types import object_questions
    from plugins.vqa.train.data import is_heldout, load_dev_set

    out = {}
    for name in EVAL_SETS:
        qs = load_dev_set(data / name)
        out[name] = qs if name == "fb_sample" else [q for q in qs if is_heldout(q.image.name)]
    out[BUILT] = object_questions(data)
    return out


def quality(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(args.threads)
    from bench.vqa_types import type_report
    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.answerer import make_answerer
    from plugins.vqa.head import CARD_FILE, WEIGHTS_FILE, load_head, untrained_head
    from plugins.vqa.train.detect import DetectionCache
    from plugins.vqa.train.fit import EmbeddingCache, embed_questions

    weights = args.head or WEIGHTS_FILE
    card = weights.with_suffix(".json") if args.head else CARD_FILE
    sets = evaluation_sets(args.data)
    columns: dict[str, dict[str, float]] = collections.defaultdict(dict)
    by_type: dict[tuple[str, str], tuple] = {}
    for ablation in ("none", "random"):
        trunk = load_trunk(TrunkConfig(ablation=ablation), registry.load())
        detections = DetectionCache(args.cache, input_size=args.detector_size)
        cache = EmbeddingCache(trunk, args.cache, detections=detections)
        head = load_head(trunk, weights, card)
        answerers = {"model": make_answerer(head, cache.text)}
        if ablation == "none":
            if head.has_prior:
                answerers["prior alone"] = make_answerer(head, cache.text, mode="prior")
            answerers["no head"] = make_answerer(untrained_head(trunk.embed_dim), cache.text)
        for name, qs in sets.items():
            parsed, items = embed_questions(cache, qs)
            for label, answerer in answerers.items():
                column = "ablated" if ablation == "random" else label
                answers, sources = answerer.answer_sourced(parsed, items)
                columns[column][name] = score(answers, qs)
                if label == "model":
                    by_type[(column, name)] = (parsed, answers, answerer.head_answers(parsed, items), sources)
            if ablation == "none":
                cache.detections = None
                parsed, items = embed_questions(cache, qs)
                cache.detections = detections
                columns["no detector"][name] = score(answerers["model"].answer_batch(parsed, items), qs)
        cache.save()
    print(f"head: {weights} ({weights.stat().st_size if weights.exists() else 0:,} bytes)")
    print(f"detections: NanoDet at input size {args.detector_size}")
    header = (
        f"{'set':<44}{'n':>5}  {'model':>7}{'best const':>11}{'prior alone':>12}{'ablated':>9}{'no detector':>12}"
        f"{'no head':>9}"
    )
    print(header)
    print("-" * len(header))
    for name, qs in sets.items():
        const, answers = best_constant(qs)
        part = "all" if name == "fb_sample" else "held-out"
        cells = [columns["model"].get(name, float("nan"))]
        cells += [const] + [
            columns[c].get(name, float("nan")) for c in ("prior alone", "ablated", "no detector", "no head")
        ]
        part = "all, thresholds fitted on it" if name == BUILT else part
        label = f"{name} ({part})"
        print(
            f"{label:<44}{len(qs):>5}  "
            + "".join(f"{v:>{w}.3f}" for v, w in zip(cells, (7, 11, 12, 9, 12, 9), strict=True))
        )
        note = "too small to tell models apart" if len(qs) < MIN_SET else ""
        print(f"{'':<51}best constant: {answers} {note}")
    print()
    print("Per question type and language (ours: the shipped answerer; head: the learned head alone;")
    print("prior: the type's constant, typed.PRIORS; on the built set the constant chosen on the other")
    print("folds; oracle: the best constant on the subset itself; evid.: share answered from the detector)")
    for column in ("model", "ablated"):
        print(f"{column}:")
        print(f"{'set':<22}{'type':<10}{'lang':<4}{'n':>5}{'ours':>7}{'head':>7}{'prior':>7}{'oracle':>8} "
              f"{'(answer)':<12}{'evid.':>6}")  # fmt: skip
        for name, qs in sets.items():
            parsed, answers, head_answers, sources = by_type[(column, name)]
            type_report(name, qs, parsed, answers, head_answers, sources, cv_prior=name == BUILT)
    return 0


def detector_sizes(args: argparse.Namespace) -> int:
    """The model's accuracy with detections made at each input size, and the detector's time per image."""
    import torch

    torch.set_num_threads(args.threads)
    from core.detector import DetectorConfig
    from core.detector.loader import load_detector
    from core.io import load_image
    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.answerer import make_answerer
    from plugins.vqa.head import CARD_FILE, WEIGHTS_FILE, load_head
    from plugins.vqa.train.detect import DetectionCache
    from plugins.vqa.train.fit import EmbeddingCache, embed_questions

    weights = args.head or WEIGHTS_FILE
    card = weights.with_suffix(".json") if args.head else CARD_FILE
    sets = evaluation_sets(args.data)
    trunk = load_trunk(TrunkConfig(), registry.load())
    head = load_head(trunk, weights, card)
    print(f"head: {weights}; {args.threads} threads")
    sample = [load_image(p) for p in sorted({q.image for q in sets["vqa_yesno_dev"]})[:32]]
    for size in (int(s) for s in args.detector_sizes.split(",")):
        cache = EmbeddingCache(trunk, args.cache, detections=DetectionCache(args.cache, input_size=size))
        answerer = make_answerer(head, cache.text)
        cells = []
        for name, qs in sets.items():
            parsed, items = embed_questions(cache, qs)
            cells.append(f"{name} {score(answerer.answer_batch(parsed, items), qs):.3f}")
        detector = load_detector(DetectorConfig(input_size=size), registry.load())
        detector.detect(sample[:2])
        start = time.perf_counter()
        detector.detect(sample)
        ms = (time.perf_counter() - start) / len(sample) * 1000
        print(f"size {size}: " + ", ".join(cells) + f"; {ms:.0f} ms an image (224 x 224, batches of 8)")
    return 0


def speed(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(args.threads)
    from core.detector import DetectorConfig
    from core.detector.loader import Detectors
    from core.runner import TaskReport, plan, run, setup_task
    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.task import VqaTask

    trunk = load_trunk(TrunkConfig(ablation=args.ablation), registry.load())
    # A head file that does not exist makes the task use the no-head mode (logged).
    task = VqaTask(args.out / "no_head.safetensors" if args.hand_set_head else args.head)
    planned = plan([task], args.set / "input")
    samples = planned[0].samples
    images = {getattr(s, "image", None) for s in samples}
    start = time.perf_counter()
    detector = None if args.no_detector else Detectors(DetectorConfig(input_size=args.detector_size), registry.load())
    run(planned, trunk, args.out, progress=False, detector=detector)
    total = time.perf_counter() - start
    # Second pass over the same batches, set up again (untimed): the per-question cost without setup.
    loaded = setup_task(task, trunk, TaskReport("vqa"), strict=True, detector=detector).loaded
    start = time.perf_counter()
    size = task.info.batch_size
    for i in range(0, len(samples), size):
        batch = samples[i : i + size]
        with torch.inference_mode():
            task.postprocess(task.predict(task.preprocess(batch, trunk, loaded), trunk, loaded), batch, loaded)
    again = time.perf_counter() - start

    print(
        f"set {args.set.name}: {len(samples)} questions, {len(images)} images, {args.threads} threads, "
        f"trunk {trunk.component_versions}, detector {'none' if detector is None else args.detector_size}"
    )
    print(f"end to end:        {len(samples) / total:7.1f} questions/s ({total:.1f} s, setup included)")
    print(f"without setup:     {len(samples) / again:7.1f} questions/s ({again:.1f} s; images encoded per batch)")
    true_file = args.set / "true" / "VQA" / "true_VQA.json"
    if true_file.exists():
        pred = json.loads((args.out / task.info.output).read_text(encoding="utf-8"))
        print(f"accuracy (all questions, incl. training part): {accuracy(pred, true_file):.3f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--cache", type=Path, default=Path("/work/cache/vqa"), help="embedding cache folder")
    parser.add_argument("--head", type=Path, default=None, help="a head's safetensors (default: the shipped one)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--speed", action="store_true", help="time the task through core.runner instead")
    parser.add_argument("--set", type=Path, default=REPO.parent / "shared" / "data" / "vqa_okvqa_dev")
    parser.add_argument("--ablation", default="none", choices=["none", "random"])
    parser.add_argument("--hand-set-head", action="store_true", help="--speed: the no-head mode (no trained head)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/vqa_bench"))
    parser.add_argument("--detector-size", type=int, default=256, help="the detector's input size (default 256)")
    parser.add_argument("--no-detector", action="store_true", help="--speed: run without the detector")
    parser.add_argument("--detector-sizes", default="", help="e.g. 256,320,416: compare detector input sizes")
    args = parser.parse_args()
    if args.detector_sizes:
        return detector_sizes(args)
    return speed(args) if args.speed else quality(args)


if __name__ == "__main__":
    raise SystemExit(main())
