"""HTR benchmark: our CTC head vs Tesseract 5 (rus+eng), the random-trunk ablation, and speed.

    python -m bench.htr [--data ../shared/data/fb_sample] [--rendered 300] [--speed-words 1497]
    python -m bench.htr --speed-only [--against /tmp/htr_base]      # speed alone (bench.htr_speed)

* Quality on the real words of ``fb_sample`` (string accuracy and CER), ours
  and Tesseract's on the same images. Tesseract is installed here with apt if
  missing (it is not a dependency of the product).
* The same for a freshly rendered, separately seeded set of synthetic crops
  (more samples, so the ablation's drop is measured with less noise), and for
  one whose words are drawn as they occur in running text, like the real ones.
* Ablation: the same head on ``TrunkConfig(ablation="random")`` features.
* Speed (``bench.htr_speed``): words/s end to end and per stage (setup, preprocess,
  predict, postprocess) at 1 and 2 threads, each in a fresh process, on 1,497 words cycled
  from ``--data`` (the HTR share of ``bench.full_run --scale 0.1``); with ``--against TREE``
  side by side with another checkout. Tesseract's images/s on the same real words.
* The per-image time of the decoder alone (lexicon-constrained CTC scoring,
  ``plugins.htr.lexdecode``) on the rendered set.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import registry
from core.metrics.htr import accuracy_cer  # the scorer's own metric
from core.task import SetupContext
from plugins.htr.train.metrics import cer

REPO = Path(__file__).resolve().parents[1]


def run_ours(input_dir: Path, trunk, weights: Path | None) -> tuple[dict[str, str], float]:  # noqa: ANN001
    """Predictions of the HTR task over ``input_dir`` via the real runner, and its wall seconds.

    Also prints the process CPU seconds: on a shared machine the wall time
    depends on the neighbours, CPU time much less.
    """
    from core.runner import plan, run
    from plugins.htr.task import HtrTask

    task = HtrTask(weights)
    task.setup(SetupContext(trunk))  # built once outside the timing, as run.py does before the first batch
    with tempfile.TemporaryDirectory() as out:
        start, cpu = time.perf_counter(), time.process_time()
        reports = run(plan([task], input_dir), trunk, Path(out), progress=False)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        n = len(reports[0].errors) if reports else 0
        print(f"  [{input_dir}: wall {seconds:.1f} s, CPU {cpu:.1f} s, {n} errors]")
        preds = json.loads((Path(out) / task.info.output).read_text(encoding="utf-8"))
    if reports[0].fallbacks:
        print(f"  ({reports[0].fallbacks} fallbacks)")
    return preds, seconds


def ensure_tesseract() -> str | None:
    exe = shutil.which("tesseract")
    if exe is None:
        print("installing tesseract (apt-get) for the comparison ...")
        cmd = "apt-get install -y tesseract-ocr tesseract-ocr-rus tesseract-ocr-eng"
        ok = subprocess.run(cmd.split(), capture_output=True).returncode == 0
        if not ok:
            subprocess.run(["apt-get", "update"], capture_output=True)
            subprocess.run(cmd.split(), capture_output=True)
        exe = shutil.which("tesseract")
    return exe


def run_tesseract(exe: str, images: list[Path]) -> tuple[dict[str, str], float]:
    """One word per image (``--psm 8``), Russian + English models, one process per image."""
    preds = {}
    start = time.perf_counter()
    for path in images:
        out = subprocess.run([exe, str(path), "stdout", "-l", "rus+eng", "--psm", "8"], capture_output=True, text=True)
        preds[path.name] = " ".join(out.stdout.split())
    return preds, time.perf_counter() - start


def render_set(out: Path, n: int, seed: int, *, running_text: bool = False) -> dict[str, str]:
    """``n`` synthetic crops under ``out/HTR/images`` (10 % sideways) and their gold.

    Words come from the training mix, or with ``running_text`` as they occur in
    running text (``words.RunningTextSampler``), as the real crops do.
    """
    from plugins.htr.train.render import WordRenderer, find_fonts
    from plugins.htr.train.words import RunningTextSampler, WordSampler, load_word_lists

    rng = random.Random(seed)
    renderer = WordRenderer(find_fonts())
    sampler = RunningTextSampler() if running_text else WordSampler(load_word_lists())
    images = out / "HTR" / "images"
    images.mkdir(parents=True, exist_ok=True)
    gold = {}
    for i in range(n):
        text = sampler.sample(rng)
        img = renderer.render(text, rng)
        if rng.random() < 0.1:
            img = img.rotate(rng.choice((90, 270)), expand=True)
        img.save(images / f"{i}.png")
        gold[f"{i}.png"] = text
    return gold


def head_outputs(input_dir: Path, trunk, weights: Path | None) -> tuple[list, list, object, object]:  # noqa: ANN001
    """The task's raw outputs for every batch of ``input_dir`` (``(raw, samples)`` pairs), the samples,
    the task and what its setup loaded: what the decoder (``postprocess``) reads."""
    import torch

    from plugins.htr.task import HtrTask

    task = HtrTask(weights)
    loaded = task.setup(SetupContext(trunk))
    samples = task.discover(input_dir)
    raws = []
    for i in range(0, len(samples), task.info.batch_size):
        chunk = samples[i : i + task.info.batch_size]
        with torch.inference_mode():
            raws.append((task.predict(task.preprocess(chunk, trunk, loaded), trunk, loaded), chunk))
    return raws, samples, task, loaded


def decode_time(input_dir: Path, trunk, weights: Path | None) -> float:  # noqa: ANN001
    """Milliseconds per image of the decoder alone (postprocess), on precomputed head outputs."""
    raws, samples, task, loaded = head_outputs(input_dir, trunk, weights)
    start = time.perf_counter()
    for raw, chunk in raws:
        task.postprocess(raw, chunk, loaded)
    ms = 1000 * (time.perf_counter() - start) / max(len(samples), 1)
    print(f"decode only: {ms:.2f} ms/image")
    return ms


def show(name: str, preds: dict[str, str], gold: dict[str, str], seconds: float | None = None) -> dict[str, float]:
    s = accuracy_cer(gold, preds)
    rate = f", {len(gold) / seconds:.1f} img/s" if seconds else ""
    print(f"{name:<34} accuracy {s['accuracy']:.3f}  CER {s['cer']:.3f}  (n={len(gold)}{rate})")
    return s


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "fb_sample")
    parser.add_argument("--weights", type=Path, default=None, help="head folder (default: the shipped one)")
    parser.add_argument("--rendered", type=int, default=300)
    parser.add_argument("--speed-words", type=int, default=1497, help="words in the speed workload")
    parser.add_argument("--speed-only", action="store_true", help="only the speed measurement")
    parser.add_argument("--against", type=Path, default=None, help="speed: another checkout, side by side")
    parser.add_argument("--threads", type=int, default=2, help="threads of the quality runs")
    parser.add_argument("--no-tesseract", action="store_true")
    args = parser.parse_args()
    from bench.htr_speed import compare, summary

    if args.speed_only:
        print(json.dumps(summary(compare(args.data, args.speed_words, (1, 2), against=args.against)), indent=1))
        return 0
    torch.set_num_threads(args.threads)

    from core.trunk import TrunkConfig, load_trunk

    trunk = load_trunk(TrunkConfig(), registry.load())
    random_trunk = load_trunk(TrunkConfig(ablation="random"), registry.load())
    results: dict[str, dict[str, float]] = {}

    gold = json.loads((args.data / "true" / "HTR" / "true_HTR.json").read_text(encoding="utf-8"))
    input_dir = args.data / "input"
    ours, secs = run_ours(input_dir, trunk, args.weights)
    print("\nfb_sample, per image (gold | ours):")
    for key, text in gold.items():
        print(f"  {key:<10} {text!r:<10} | {ours.get(key, '')!r}  cer {cer(ours.get(key, ''), text):.2f}")
    print()
    results["fb_sample/ours"] = show("fb_sample  ours", ours, gold, secs)
    ablated, _ = run_ours(input_dir, random_trunk, args.weights)
    results["fb_sample/ours_random_trunk"] = show("fb_sample  ours, random trunk", ablated, gold)
    exe = None if args.no_tesseract else ensure_tesseract()
    if exe:
        images = sorted((input_dir / "HTR" / "images").iterdir())
        tess, tsecs = run_tesseract(exe, images)
        print("  tesseract:", {k: tess.get(k, "") for k in gold})
        results["fb_sample/tesseract"] = show("fb_sample  tesseract 5 rus+eng", tess, gold, tsecs)

    with tempfile.TemporaryDirectory() as tmp:
        rendered = Path(tmp) / "rendered"
        rgold = render_set(rendered, args.rendered, seed=20211122)
        rours, _ = run_ours(rendered, trunk, args.weights)
        results["rendered/ours"] = show("rendered   ours", rours, rgold)
        rabl, _ = run_ours(rendered, random_trunk, args.weights)
        results["rendered/ours_random_trunk"] = show("rendered   ours, random trunk", rabl, rgold)
        results["rendered/decode_ms_per_image"] = {"lexicon": decode_time(rendered, trunk, args.weights)}
        running = Path(tmp) / "running"
        sgold = render_set(running, args.rendered, seed=20211123, running_text=True)
        sours, _ = run_ours(running, trunk, args.weights)
        results["running_text/ours"] = show("running    ours", sours, sgold)
        if exe:
            some = sorted((rendered / "HTR" / "images").iterdir())[:100]
            rtess, _ = run_tesseract(exe, some)
            results["rendered/tesseract"] = show(
                "rendered   tesseract (first 100)", rtess, {p.name: rgold[p.name] for p in some}
            )

    results["speed"] = summary(compare(args.data, args.speed_words, (1, 2), against=args.against))
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
