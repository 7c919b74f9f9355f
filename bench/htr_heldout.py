"""HTR on the style-held-out dev set (``plugins.htr.train.heldout``), then on fb_sample.

    python -m bench.htr_heldout [--weights DIR ...] [--set DIR]

The set (writing styles no training run uses; definition and version in
``plugins/htr/train/heldout.py``) is written to ``--set`` (default
``/work/cache/htr/heldout_<version>``, or ``$FB_HTR_HELDOUT``) when it is not there yet,
and its labels' SHA-256 is checked against the recorded one. Each head (the shipped
one when no ``--weights``) is run through the real task runner, and accuracy / CER
are printed for the whole set, for its font half and its pen-stroke half, and for
the 10 real words of ``fb_sample`` (judged second). ``--json`` saves the figures.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import registry
from bench.htr import run_ours
from bench.htr_heldout_set import HELDOUT_SIZE, HELDOUT_VERSION, labels_sha256, write_set
from core.metrics.htr import accuracy_cer

REPO = Path(__file__).resolve().parents[1]

DEFAULT_SET = Path(os.environ.get("FB_HTR_HELDOUT", f"/work/cache/htr/heldout_{HELDOUT_VERSION}"))


def ensure_set(path: Path, n: int) -> tuple[dict[str, str], dict[str, str]]:
    """The set's gold and kinds; written first when missing (deterministic, a minute or so)."""
    gold_path = path / "true" / "HTR" / "true_HTR.json"
    meta_path = path / "heldout.json"
    if not gold_path.exists() or json.loads(meta_path.read_text()).get("n") != n:
        print(f"writing the style-held-out set ({n} crops) to {path} ...")
        write_set(path, n)
    gold = json.loads(gold_path.read_text(encoding="utf-8"))
    meta = json.loads(meta_path.read_text())
    if meta["version"] != HELDOUT_VERSION or meta["labels_sha256"] != labels_sha256(gold):
        raise SystemExit(f"{path} is not the {HELDOUT_VERSION} set; delete it to regenerate")
    return gold, json.loads((path / "kinds.json").read_text())


def score(preds: dict[str, str], gold: dict[str, str], kinds: dict[str, str] | None = None) -> dict[str, dict]:
    out = {"all": accuracy_cer(gold, preds)}
    if kinds:
        for part in ("font", "pen"):
            sub = {k: v for k, v in gold.items() if kinds[k].startswith(part)}
            out[part] = accuracy_cer(sub, preds)
        cyr = {k: v for k, v in gold.items() if any("\u0400" <= c <= "\u04ff" for c in v)}
        out["ru"] = accuracy_cer(cyr, preds)
        out["en"] = accuracy_cer({k: v for k, v in gold.items() if k not in cyr}, preds)
    return out


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weights", type=Path, nargs="*", default=[None], help="head folders (default: shipped)")
    parser.add_argument("--set", type=Path, default=DEFAULT_SET)
    parser.add_argument("-n", type=int, default=HELDOUT_SIZE)
    parser.add_argument("--fb", type=Path, default=REPO.parent / "shared" / "data" / "fb_sample")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from core.trunk import TrunkConfig, load_trunk

    gold, kinds = ensure_set(args.set, args.n)
    trunk = load_trunk(TrunkConfig(), registry.load())
    fb_gold_path = args.fb / "true" / "HTR" / "true_HTR.json"
    fb_gold = json.loads(fb_gold_path.read_text(encoding="utf-8")) if fb_gold_path.exists() else None
    results: dict[str, dict] = {}
    for weights in args.weights:
        name = str(weights or "shipped")
        preds, secs = run_ours(args.set / "input", trunk, weights)
        res = {
            "heldout": score(preds, gold, kinds),
            "heldout_images_per_s": len(gold) / secs,
            "heldout_predictions": preds,
        }
        if fb_gold is not None:
            fb_preds, _ = run_ours(args.fb / "input", trunk, weights)
            res["fb_sample"] = score(fb_preds, fb_gold)
            res["fb_sample_predictions"] = {k: fb_preds.get(k, "") for k in fb_gold}
        results[name] = res
        h = res["heldout"]
        line = (
            f"{name}: held-out {h['all']['accuracy']:.3f} / CER {h['all']['cer']:.3f}"
            f"  [font {h['font']['accuracy']:.3f} / {h['font']['cer']:.3f},"
            f" pen {h['pen']['accuracy']:.3f} / {h['pen']['cer']:.3f};"
            f" ru {h['ru']['accuracy']:.3f}, en {h['en']['accuracy']:.3f}]"
        )
        if "fb_sample" in res:
            fb = res["fb_sample"]["all"]
            line += f"  fb_sample {fb['accuracy']:.2f} / CER {fb['cer']:.3f}"
        print(line)
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
