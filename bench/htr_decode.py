"""The HTR decoder alone, on cached head outputs: accuracy, script and case errors, decoding CPU-seconds.

    python -m bench.htr_decode SET [SET ...] [--weights DIR] [--cache DIR] [--repeat 3]
                               [--against TREE] [--decoder JSON] [--case-posteriors] [--show K] [--json FILE]

``SET`` is a folder in the challenge layout (``input/HTR/...`` and ``true/HTR/true_HTR.json``):
the style-held-out set (``bench.htr_heldout``), the hands proxy (``bench.htr_hands``),
``fb_sample``. The head (the shipped one, or ``--weights``) reads every crop once through the
task's own ``preprocess`` and ``predict``; its outputs are cached in ``--cache`` (default
``/work/cache/htr/decode`` or ``$FB_HTR_DECODE_CACHE``), keyed by the set's files and the
head's weights, so decoders are compared on the very same log-probabilities.

Each tree (this checkout, and ``--against TREE`` when given: e.g. a worktree of main) decodes
the cached outputs in a fresh process with its own ``task.pick_readings`` and
``lexdecode.shared_decoder``, as ``postprocess`` does (this tree's with other options with
``--decoder JSON``: ``LexiconDecoder``'s keyword arguments, to measure a calibration); the trees
take turns for ``--repeat`` rounds, and each keeps its least decoding CPU time (one thread).

Printed per set and tree:

* accuracy and CER (the scorer's ``accuracy_cer``);
* script: ``latin_in_cyrillic`` (readings of labels written in Cyrillic letters only that hold
  Latin letters), ``cyrillic_in_latin`` (the reverse), ``mixed`` (readings with a word that holds
  letters of both alphabets);
* case: ``case_errors`` (readings equal to the label ignoring case but not exactly), of which
  ``capital_lost`` (the label's first letter is a capital, the reading's is not) and
  ``capital_invented`` (the reverse);
* decoding CPU-seconds and words per CPU-second;
* with ``--case-posteriors``, how the head itself weighs a capital against a small first letter
  (``case_posteriors``): what any casing rule of the decoder has to work with.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from core.metrics.htr import accuracy_cer

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CACHE = Path(os.environ.get("FB_HTR_DECODE_CACHE", "/work/cache/htr/decode"))

# Run in a fresh process inside a tree (its own modules): decode the cached outputs, print JSON.
_DECODE = """
import json, sys, time
import numpy as np
from plugins.htr.lexdecode import shared_decoder
from plugins.htr.task import pick_readings
data = np.load(sys.argv[1], allow_pickle=False)
keys = json.loads(str(data["keys"]))
if len(sys.argv) > 2:
    from plugins.htr.lexdecode import LexiconDecoder
    decoder = LexiconDecoder(**json.loads(sys.argv[2]))
else:
    decoder = shared_decoder()
cpu = time.process_time()
texts = []
for b in range(int(data["batches"])):
    owner = tuple(int(i) for i in data[f"owner_{b}"])
    n = int(data[f"n_{b}"])
    texts += pick_readings(data[f"log_probs_{b}"], data[f"upright_{b}"], owner, n, decoder)
cpu = time.process_time() - cpu
print(json.dumps({"cpu": cpu, "preds": dict(zip(keys, texts, strict=True))}, ensure_ascii=False))
"""


def _is_cyr(ch: str) -> bool:
    return "\u0400" <= ch <= "\u04ff"


def _is_lat(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def script_case(gold: Mapping[str, str], preds: Mapping[str, str]) -> dict[str, int]:
    """The script and case error counts of the module docstring."""
    out = dict.fromkeys(
        ("cyrillic_labels", "latin_in_cyrillic", "latin_labels", "cyrillic_in_latin", "mixed"), 0
    ) | dict.fromkeys(("capitalised_labels", "case_errors", "capital_lost", "capital_invented"), 0)
    for key, truth in gold.items():
        guess = preds.get(key, "")
        cyr, lat = any(map(_is_cyr, truth)), any(map(_is_lat, truth))
        if cyr and not lat:
            out["cyrillic_labels"] += 1
            out["latin_in_cyrillic"] += any(map(_is_lat, guess))
        if lat and not cyr:
            out["latin_labels"] += 1
            out["cyrillic_in_latin"] += any(map(_is_cyr, guess))
        out["mixed"] += any(any(map(_is_cyr, w)) and any(map(_is_lat, w)) for w in guess.split())
        out["capitalised_labels"] += truth[:1].isupper()
        if guess != truth and guess.lower() == truth.lower():
            out["case_errors"] += 1
        if guess[:1].lower() == truth[:1].lower() and guess[:1] != truth[:1]:
            out["capital_lost" if truth[:1].isupper() else "capital_invented"] += 1
    return out


def _set_files(input_dir: Path) -> list[Path]:
    return sorted(p for p in input_dir.rglob("*") if p.is_file())


def cached_outputs(set_dir: Path, weights: Path | None, cache: Path) -> Path:
    """The head's outputs over ``set_dir/input`` as an ``.npz`` in ``cache`` (computed on first use)."""
    from plugins.htr.head import WEIGHTS_DIR, WEIGHTS_NAME

    head_file = (weights or WEIGHTS_DIR) / WEIGHTS_NAME
    digest = hashlib.sha256(head_file.read_bytes())
    for path in _set_files(set_dir / "input"):
        digest.update(f"{path.relative_to(set_dir)}:{path.stat().st_size}\n".encode())
    out = cache / f"{set_dir.name}-{digest.hexdigest()[:16]}.npz"
    if out.exists():
        return out
    import torch

    import registry
    from bench.htr import head_outputs
    from core.trunk import TrunkConfig, load_trunk

    print(f"  computing the head outputs of {set_dir} -> {out}", flush=True)
    raws, samples, _, _ = head_outputs(set_dir / "input", load_trunk(TrunkConfig(), registry.load()), weights)
    del torch
    arrays: dict[str, np.ndarray] = {"batches": np.array(len(raws))}
    for b, (raw, chunk) in enumerate(raws):
        arrays |= {
            f"log_probs_{b}": raw.log_probs,
            f"upright_{b}": raw.upright,
            f"owner_{b}": np.array(raw.owner, dtype=np.int64),
            f"n_{b}": np.array(len(chunk)),
        }
    arrays["keys"] = np.array(json.dumps([s.key for s in samples], ensure_ascii=False))
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=cache, suffix=".npz", delete=False) as tmp:
        np.savez(tmp, **arrays)
    Path(tmp.name).replace(out)
    return out


def case_posteriors(outputs: Path, gold: Mapping[str, str]) -> dict[str, dict[str, float]]:
    """How the head's posteriors weigh a capital against a small letter where the label's first letter is
    written: per label whose first letter has both cases, log (P(capital) / P(small)) summed over the frames
    that the label's CTC Viterbi alignment gives its first letter, in the crop's first view; the median and
    the share above 0, split by the label's case."""
    from plugins.htr.charset import CHARSET, encode
    from plugins.htr.lexdecode import align

    data = np.load(outputs, allow_pickle=False)
    keys = json.loads(str(data["keys"]))
    ratios: dict[str, list[float]] = {"capital": [], "small": []}
    offset = 0
    for b in range(int(data["batches"])):
        log_probs, owner, seen = data[f"log_probs_{b}"], data[f"owner_{b}"], set()
        for row, i in enumerate(owner):
            if i < 0 or i in seen:
                continue
            seen.add(i)
            label = gold.get(keys[offset + int(i)], "")
            first = label[:1]
            if (
                not first.isalpha()
                or first.upper() == first.lower()
                or not {first.upper(), first.lower()} <= set(CHARSET)
            ):
                continue
            labels = encode(label)
            if len(labels) != len(label) or len(labels) > len(log_probs[row]):
                continue
            frames = np.flatnonzero(align(log_probs[row], labels) == 0)
            probs = np.exp(log_probs[row][frames])
            cap, small = (probs[:, CHARSET.index(c) + 1].sum() + 1e-9 for c in (first.upper(), first.lower()))
            ratios["capital" if first.isupper() else "small"].append(float(np.log(cap / small)))
        offset += int(data[f"n_{b}"])
    return {
        case: {
            "n": len(v),
            "median": float(np.median(v)) if v else float("nan"),
            "capital_wins": float(np.mean(np.array(v) > 0)) if v else float("nan"),
        }
        for case, v in ratios.items()
    }


def decode_in(tree: Path, outputs: Path, decoder: str | None = None) -> tuple[dict[str, str], float]:
    """The readings of the cached ``outputs`` by ``tree``'s decoder (``LexiconDecoder(**json.loads(decoder))``
    when given), and its decoding CPU-seconds."""
    env = os.environ | {"PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _DECODE, str(outputs), *([decoder] if decoder else [])],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"decoding in {tree} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["preds"], float(result["cpu"])


def report(name: str, gold: Mapping[str, str], preds: Mapping[str, str], cpu: float) -> dict:
    s = accuracy_cer(gold, preds) | script_case(gold, preds) | {"cpu_s": cpu}
    print(
        f"  {name:<10} accuracy {s['accuracy']:.4f} CER {s['cer']:.4f} | latin-in-cyrillic"
        f" {s['latin_in_cyrillic']}/{s['cyrillic_labels']} cyrillic-in-latin"
        f" {s['cyrillic_in_latin']}/{s['latin_labels']}"
        f" mixed {s['mixed']} | case errors {s['case_errors']} (capital lost {s['capital_lost']}, invented"
        f" {s['capital_invented']}; {s['capitalised_labels']} capitalised labels) | decoding {cpu:.2f} CPU-s,"
        f" {len(gold) / max(cpu, 1e-9):.0f} words/CPU-s"
    )
    return s


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", type=Path, nargs="+", help="folders in the challenge layout")
    parser.add_argument("--weights", type=Path, default=None, help="head folder (default: the shipped one)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--against", type=Path, default=None, help="another checkout to decode the same outputs")
    parser.add_argument(
        "--decoder",
        default=None,
        help="this tree's decoder options as JSON, e.g. '{\"oov\": -16}' (default: as shipped)",
    )
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--show", type=int, default=0, help="print this many differing readings per set")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--case-posteriors", action="store_true", help="also: the head's capital against small letter posteriors"
    )
    args = parser.parse_args(argv)
    trees = {"this tree": REPO} | ({"against": args.against.resolve()} if args.against else {})
    results: dict[str, dict] = {}
    for set_dir in args.sets:
        gold = json.loads((set_dir / "true" / "HTR" / "true_HTR.json").read_text(encoding="utf-8"))
        outputs = cached_outputs(set_dir, args.weights, args.cache)
        best: dict[str, tuple[dict[str, str], float]] = {}
        for _ in range(max(args.repeat, 1)):
            for name, tree in trees.items():
                preds, cpu = decode_in(tree, outputs, args.decoder if name == "this tree" else None)
                if name not in best or cpu < best[name][1]:
                    best[name] = (preds, cpu)
        print(f"{set_dir} ({len(gold)} crops)")
        results[str(set_dir)] = {name: report(name, gold, *best[name]) for name in trees}
        if args.case_posteriors:
            stats = case_posteriors(outputs, gold)
            results[str(set_dir)]["case_posteriors"] = stats
            print(
                "  head, first letter, log P(capital) / P(small): "
                + "; ".join(
                    f"{case} labels (n {v['n']}): median {v['median']:.2f}, capital likelier in {v['capital_wins']:.0%}"
                    for case, v in stats.items()
                )
            )
        if args.show and "against" in best:
            ours, theirs = best["this tree"][0], best["against"][0]
            changed = [k for k in gold if ours.get(k) != theirs.get(k)]
            for k in changed[: args.show]:
                mark = "+" if ours.get(k) == gold[k] else "-" if theirs.get(k) == gold[k] else " "
                print(f"    {mark} {k}: {gold[k]!r}: {theirs.get(k)!r} -> {ours.get(k)!r}")
            print(f"    ({len(changed)} readings differ)")
        elif args.show:
            wrong = [k for k in gold if best["this tree"][0].get(k) != gold[k]]
            for k in wrong[: args.show]:
                print(f"    {k}: {gold[k]!r} -> {best['this tree'][0].get(k)!r}")
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
