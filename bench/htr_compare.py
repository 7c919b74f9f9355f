"""Several HTR heads side by side on the four dev sets, from one trunk pass per set.

    python -m bench.htr_compare --heads shipped DIR ... [--blend START ALPHA ...] [--json FILE]

The sets: the style-held-out set (``bench.htr_heldout``), the real-hands proxy
(``bench.htr_hands``), DHSD's held-out writers in both forms (``bench.htr_dhsd``, umlauts
folded in reading and gold) and fb_sample. Each crop is fitted and oriented as the task does
and run through the trunk once (maps kept in memory); then every head reads the maps and the
task's own decoder (``task.pick_readings``) picks its readings, so a head's figures equal its
``run.py`` answers without a trunk pass per head. A head is ``shipped``, a head folder, or a
training ``checkpoint.pt``; ``--blend START A1,A2`` adds each checkpoint/folder blended in weight
space with the head folder START at those shares (``fit.blend_weights``), to choose the share;
``--blend START`` alone (no shares) lets a head name its own share, ``CKPT@0.6``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from core.metrics.htr import accuracy_cer

REPO = Path(__file__).resolve().parents[1]


def set_maps(input_dir: Path, trunk) -> tuple:  # noqa: ANN001
    """``(samples, s8, s16, owner)`` of a set: the task's rows (orientations included), fp16 maps."""
    import torch

    from core.task import SetupContext
    from plugins.htr.preprocess import word_maps
    from plugins.htr.task import HtrTask

    task = HtrTask(None)
    loaded = task.setup(SetupContext(trunk))
    samples = task.discover(input_dir)
    s8, s16, owner = [], [], []
    with torch.inference_mode():
        for i in range(0, len(samples), 64):
            batch = task.preprocess(samples[i : i + 64], trunk, loaded)
            fine, coarse = word_maps(trunk, batch.pixels)
            s8.append(fine.half())
            s16.append(coarse.half())
            owner.extend(o + i if o >= 0 else -1 for o in batch.owner)
    return samples, torch.cat(s8), torch.cat(s16), np.array(owner)


def load_any(spec: str, blend: tuple[str, float] | None = None):  # noqa: ANN201 - HtrHead
    from plugins.htr.head import WEIGHTS_DIR
    from plugins.htr.model import HtrHead
    from plugins.htr.train.fit import blend_weights, load_init

    warm = load_init(WEIGHTS_DIR if spec == "shipped" else Path(spec))
    state = warm["head"] if blend is None else blend_weights(warm["head"], load_init(Path(blend[0]))["head"], blend[1])
    head = HtrHead(**warm["config"])
    head.load_state_dict(state)
    return head.eval()


def read(head, maps, decoder) -> tuple[dict[str, str], dict[str, str]]:  # noqa: ANN001
    """The task decoder's readings and the open readings (``bench.htr_dhsd.open_readings``)."""
    import torch

    from bench.htr_dhsd import open_readings
    from plugins.htr.task import HtrRaw, pick_readings

    samples, s8, s16, owner = maps
    with torch.inference_mode():
        parts = [head(s8[i : i + 256], s16[i : i + 256]) for i in range(0, len(s8), 256)]
    lp = torch.cat([p.log_probs for p in parts]).float().numpy()
    up = torch.cat([p.upright for p in parts]).float().numpy()
    texts = pick_readings(lp, up, tuple(owner.tolist()), len(samples), decoder)
    free = open_readings([(HtrRaw(lp, up, tuple(owner.tolist()), ()), samples)])
    return {s.key: t for s, t in zip(samples, texts, strict=True)}, free


def main(argv: Sequence[str] | None = None) -> int:
    import torch

    import registry
    from bench import htr_dhsd, htr_hands, htr_heldout
    from core.trunk import TrunkConfig, load_trunk
    from plugins.htr.lexdecode import LexiconDecoder
    from plugins.htr.lexicon import default_lexicon
    from plugins.htr.train.dhsd import fold

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--heads", nargs="+", default=["shipped"], help="shipped, head folders, checkpoints")
    parser.add_argument("--blend", nargs="+", default=None, metavar="START [ALPHAS]")
    parser.add_argument("--fb", type=Path, default=REPO.parent / "shared" / "data" / "fb_sample")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--maps", type=Path, default=None, help="keep the sets' trunk maps in this file (reused)")
    args = parser.parse_args(argv)
    if any("@" in h for h in args.heads) and not args.blend:
        parser.error("a head HEAD@ALPHA needs --blend START")
    torch.set_num_threads(1)
    trunk = load_trunk(TrunkConfig(), registry.load())
    held_gold, held_kinds = htr_heldout.ensure_set(htr_heldout.DEFAULT_SET, htr_heldout.HELDOUT_SIZE)
    hands_gold, hands_kinds = htr_hands.ensure_set(htr_hands.DEFAULT_SET, htr_hands.SIZE)
    dhsd_gold = htr_dhsd.ensure_set(htr_dhsd.DEFAULT_SET)
    fb_gold = json.loads((args.fb / "true" / "HTR" / "true_HTR.json").read_text(encoding="utf-8"))
    sets = {
        "heldout": htr_heldout.DEFAULT_SET / "input",
        "hands": htr_hands.DEFAULT_SET / "input",
        "dhsd_scan": htr_dhsd.DEFAULT_SET / "scan" / "input",
        "dhsd_copybook": htr_dhsd.DEFAULT_SET / "copybook" / "input",
        "fb": args.fb / "input",
    }
    if args.maps is not None and args.maps.exists():
        maps = torch.load(args.maps, weights_only=False)
    else:
        maps = {name: set_maps(path, trunk) for name, path in sets.items()}
        if args.maps is not None:
            torch.save(maps, args.maps)
    decoder = LexiconDecoder(default_lexicon())
    heads = [
        (h.rpartition("@")[0], (args.blend[0], float(h.rpartition("@")[2]))) if "@" in h else (h, None)
        for h in args.heads
    ]
    if args.blend and len(args.blend) > 1:
        heads += [
            (h, (args.blend[0], float(a)))
            for h in args.heads
            if h != "shipped" and "@" not in h
            for a in args.blend[1].split(",")
        ]
    results = {}
    for spec, blend in heads:
        head = load_any(spec, blend)
        both = {name: read(head, m, decoder) for name, m in maps.items()}
        preds = {name: task for name, (task, _) in both.items()}
        held = htr_heldout.score(preds["heldout"], held_gold, held_kinds)
        hands = htr_hands.score(preds["hands"], hands_gold, hands_kinds)
        dhsd = {
            f"{form}_{how}": accuracy_cer(dhsd_gold, {k: fold(v) for k, v in both[f"dhsd_{form}"][i].items()})
            for form in ("scan", "copybook")
            for i, how in enumerate(("task", "open"))
        }
        fb = accuracy_cer(fb_gold, preds["fb"])
        name = spec + (f" blended {blend[1]} with {blend[0]}" if blend else "")
        print(
            f"{name}: style-held-out {held['all']['accuracy']:.4f} / {held['all']['cer']:.3f}"
            f" (ru {held['ru']['accuracy']:.3f} en {held['en']['accuracy']:.3f})"
            f" | hands {hands['all']['accuracy']:.3f} / {hands['all']['cer']:.3f}"
            f" (letter words {hands['letter_words']['accuracy']:.3f},"
            f" latin-in-cyrillic {hands['latin_in_cyrillic']['n']})"
            + "".join(
                f" | dhsd {part} {dhsd[part]['accuracy']:.3f} / {dhsd[part]['cer']:.3f}"
                for part in ("scan_open", "scan_task", "copybook_open", "copybook_task")
            )
            + f" | fb {fb['accuracy']:.1f} / {fb['cer']:.3f}",
            flush=True,
        )
        results[name] = {"heldout": held, "hands": hands, "dhsd": dhsd, "fb": fb, "fb_predictions": preds["fb"]}
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
