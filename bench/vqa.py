"""VQA benchmark: questions/s on 2 cores, and accuracy when the set has a gold file.

    python bench/vqa.py [--set ../shared/data/vqa_okvqa_dev] [--ablation random]
                        [--threads 2] [--out /tmp/vqa_bench] [--head FILE | --hand-set-head]

Runs the task through ``core.runner`` exactly as ``run.py`` does and times it
(trunk construction excluded, task setup included). Image embeddings are
cached per image, so the rate depends on questions per image: the dev sets
have 1.1 (yes/no) and 1.0 (OK-VQA) questions per image, a worst case; VQA v2
averages about 5.4. The report therefore also gives the rate for questions
whose image is already encoded and the image encoding rate, and the estimate
for the public test (5,446 questions at 5.4 per image).
Accuracy uses ``core.metrics.vqa`` when present, else ``plugins.vqa.normalize``
(the same rules, ../shared/SCORER.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PUBLIC_QUESTIONS = 5446
PUBLIC_PER_IMAGE = 5.4


def accuracy(pred: dict[str, str], true_file: Path) -> float:
    from plugins.vqa.normalize import normalize_answer

    gold = json.loads(true_file.read_text(encoding="utf-8"))
    hits = 0
    for qid, g in gold.items():
        answers = g["answer"] if isinstance(g["answer"], list) else [g["answer"]]
        hits += normalize_answer(str(pred.get(qid, "")), g["lang"]) in answers
    return hits / max(1, len(gold))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, default=REPO.parent / "shared" / "data" / "vqa_okvqa_dev")
    parser.add_argument("--ablation", default="none", choices=["none", "random"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/vqa_bench"))
    parser.add_argument("--head", type=Path, default=None, help="a head's safetensors (default: the shipped one)")
    parser.add_argument(
        "--hand-set-head", action="store_true", help="no trained head: the weight-free rules of head.untrained_head"
    )
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from core.runner import plan, run
    from core.trunk import TrunkConfig, load_trunk
    from plugins.vqa.task import VqaTask

    trunk = load_trunk(TrunkConfig(ablation=args.ablation))
    # A head file that does not exist makes the task fall back to the hand-set weights (logged).
    task = VqaTask(args.out / "no_head.safetensors" if args.hand_set_head else args.head)
    planned = plan([task], args.set / "input")
    samples = planned[0].samples
    images = {getattr(s, "image", None) for s in samples}
    start = time.perf_counter()
    run(planned, trunk, args.out, progress=False)
    total = time.perf_counter() - start
    # Second pass: every image is in the task's cache now (setup is not re-run).
    start = time.perf_counter()
    for i in range(0, len(samples), task.batch_size):
        batch = samples[i : i + task.batch_size]
        with torch.inference_mode():
            task.postprocess(task.predict(task.preprocess(batch, trunk), trunk), batch)
    cached = time.perf_counter() - start
    per_image = max(total - cached, 1e-9) / max(1, len(images))
    public = PUBLIC_QUESTIONS * (cached / len(samples)) + PUBLIC_QUESTIONS / PUBLIC_PER_IMAGE * per_image

    print(
        f"set {args.set.name}: {len(samples)} questions, {len(images)} images, {args.threads} threads, "
        f"trunk {trunk.component_versions}"
    )
    print(f"end to end:        {len(samples) / total:7.1f} questions/s ({total:.1f} s)")
    print(f"images cached:     {len(samples) / cached:7.1f} questions/s")
    print(f"image encoding:    {1 / per_image:7.1f} images/s")
    print(f"public test est.:  {PUBLIC_QUESTIONS / public:7.1f} questions/s ({public:.0f} s for {PUBLIC_QUESTIONS})")
    true_file = args.set / "true" / "VQA" / "true_VQA.json"
    if true_file.exists():
        pred = json.loads((args.out / task.output_name).read_text(encoding="utf-8"))
        print(f"accuracy (all questions, incl. training part): {accuracy(pred, true_file):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
