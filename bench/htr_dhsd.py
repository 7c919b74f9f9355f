"""HTR on real handwritten words by writers no training run sees: DHSD's held-out writers.

    python -m bench.htr_dhsd [--weights DIR ...] [--set DIR] [--json FILE] [--show K]

The set (version ``VERSION``; written into ``--set`` when missing, default
``/work/cache/htr/dhsd_<version>`` or ``$FB_HTR_DHSD``) is every image of the writers in
``plugins.htr.train.dhsd.HELDOUT_WRITERS`` (1,120 German place names by 7 people; the images
come from ``python -m plugins.htr.train.dhsd --git-dir ...``), in two forms, each in the
challenge layout:

* ``scan``: the images as the dataset has them (pen on white paper, 256 x 64);
* ``copybook``: the same ink brought into the challenge's domain by the training code's
  ``dhsd.copybook`` (squared paper, ballpoint colours, polygon cut, tilts), seeded per image.

The gold is the label with umlauts folded (``dhsd.fold``: ``ä`` -> ``a``, ``ß`` -> ``ss``); the
charset has no umlauts, and a reading is folded the same way before scoring. Printed per head
and form: accuracy and CER with open decoding (the head's best free reading by prefix beam
search, no lexicon: most names are in no dictionary) and with the task's own decoder (lexicon
and all, as ``run.py`` answers).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
from collections.abc import Sequence
from pathlib import Path

from core.metrics.htr import accuracy_cer

VERSION = "v1"
FORMS = ("scan", "copybook")
DEFAULT_SET = Path(os.environ.get("FB_HTR_DHSD", f"/work/cache/htr/dhsd_{VERSION}"))


def write_set(path: Path) -> dict[str, str]:
    """Write both forms of the held-out writers' images under ``path``; returns the folded gold."""
    import shutil

    from plugins.htr.train import dhsd

    _, held = dhsd.split(dhsd.read_words())
    gold = {}
    for form in FORMS:
        (path / form / "input" / "HTR" / "images").mkdir(parents=True, exist_ok=True)
        (path / form / "true" / "HTR").mkdir(parents=True, exist_ok=True)
    for i, word in enumerate(held):
        name = f"{i}.png"
        gold[name] = word.folded
        shutil.copyfile(word.path, path / "scan" / "input" / "HTR" / "images" / name)
        rng = random.Random(f"{VERSION}:{word.path.name}")
        dhsd.copybook(dhsd.ink(word.path), rng).save(path / "copybook" / "input" / "HTR" / "images" / name)
    for form in FORMS:
        (path / form / "true" / "HTR" / "true_HTR.json").write_text(
            json.dumps(gold, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    meta = {"version": VERSION, "n": len(gold), "writers": list(dhsd.HELDOUT_WRITERS), "labels_sha256": sha(gold)}
    (path / "dhsd.json").write_text(json.dumps(meta) + "\n")
    return gold


def sha(gold: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(gold, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def ensure_set(path: Path) -> dict[str, str]:
    meta_path = path / "dhsd.json"
    if not meta_path.exists():
        print(f"writing the DHSD held-out writers' set to {path} ...")
        write_set(path)
    gold = json.loads((path / "scan" / "true" / "HTR" / "true_HTR.json").read_text(encoding="utf-8"))
    meta = json.loads(meta_path.read_text())
    if meta["version"] != VERSION or meta["labels_sha256"] != sha(gold):
        raise SystemExit(f"{path} is not the {VERSION} set; delete it to regenerate")
    print(f"set {path}: {len(gold)} crops, writers {meta['writers']}, labels sha256 {meta['labels_sha256'][:16]}")
    return gold


def open_readings(outputs: Sequence[tuple]) -> dict[str, str]:
    """Each crop's best free reading (prefix beam, no lexicon), from the view the task's upright score
    and the beam's score together rank first."""
    import numpy as np

    from plugins.htr.charset import decode
    from plugins.htr.ctc import prefix_beam_search
    from plugins.htr.task import UPRIGHT_WEIGHT

    preds = {}
    for raw, samples in outputs:
        best: dict[int, tuple[float, str]] = {}
        for row, owner in enumerate(raw.owner):
            if owner < 0:
                continue
            ids, logp = prefix_beam_search(raw.log_probs[row])[0]
            score = logp + UPRIGHT_WEIGHT * -np.logaddexp(0.0, -float(raw.upright[row]))
            if owner not in best or score > best[owner][0]:
                best[owner] = (score, decode(ids))
        preds.update({s.key: best[i][1] if i in best else "" for i, s in enumerate(samples)})
    return preds


def main(argv: Sequence[str] | None = None) -> int:
    import torch

    import registry
    from bench.htr_hands import decode_outputs, head_outputs
    from core.trunk import TrunkConfig, load_trunk
    from plugins.htr.lexdecode import LexiconDecoder
    from plugins.htr.lexicon import default_lexicon
    from plugins.htr.train.dhsd import fold

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weights", type=Path, nargs="*", default=[None], help="head folders (default: shipped)")
    parser.add_argument("--set", type=Path, default=DEFAULT_SET)
    parser.add_argument("--forms", nargs="*", default=list(FORMS), choices=FORMS)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--show", type=int, default=0, help="print this many wrong open readings")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    gold = ensure_set(args.set)
    trunk = load_trunk(TrunkConfig(), registry.load())
    decoder = LexiconDecoder(default_lexicon())
    results = {}
    for weights in args.weights:
        name = str(weights or "shipped")
        for form in args.forms:
            outputs = head_outputs(args.set / form / "input", trunk, weights)
            res = {}
            for how, preds in (("open", open_readings(outputs)), ("task", decode_outputs(outputs, decoder))):
                folded = {k: fold(v) for k, v in preds.items()}
                res[how] = accuracy_cer(gold, folded) | {"predictions": folded}
            print(
                f"{name} {form}: open {res['open']['accuracy']:.3f} / CER {res['open']['cer']:.3f}"
                f"  task decoder {res['task']['accuracy']:.3f} / CER {res['task']['cer']:.3f}  (n {len(gold)})"
            )
            wrong = [(k, gold[k], res["open"]["predictions"].get(k, "")) for k in gold]
            for k, g, p in [w for w in wrong if w[1] != w[2]][: args.show]:
                print(f"    {k} {g!r} -> {p!r}")
            results[f"{name}:{form}"] = res
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
