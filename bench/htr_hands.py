"""HTR on real people's hands that no training run sees, drawn by a renderer training never uses.

    python -m bench.htr_hands [--weights DIR ...] [--set DIR] [-n N] [--json FILE] [--show K]

What the set is (version ``VERSION``; rebuilt deterministically into ``--set`` when missing,
default ``/work/cache/htr/hands_<version>`` or ``$FB_HTR_HANDS``):

* **Hands**: the held-out real-hand fonts of ``plugins.htr.train.handfonts.HELDOUT_HANDS``
  (seven fonts made from real people's Cyrillic handwriting; ``render.find_fonts`` refuses
  them, so no training run draws with them). Set-up: ``python -m plugins.htr.train.handfonts``.
* **Renderer**: ``draw_hand`` here, a different design from the training renderers
  (``plugins.htr.train.render``, ``pen``): glyph by glyph on a drifting pen baseline (a random
  walk), each glyph scaled and turned a little, letters pushed together or apart, the stroke
  thickened or thinned by blurring and re-thresholding, slanted with PIL's affine transform,
  on copybook paper (two-line ruling with oblique guides, a red margin, or grid), with pen
  pressure, a loose rectangular cut that can catch strokes of the neighbouring lines,
  resampled to a low resolution and saved as JPEG.
* **Labels**: real Russian text: the Russian message catalogues of Debian packages installed
  on every such machine (``CATALOGUES``: program messages and place names, translated by
  people), cut into single words (with their punctuation, as in the text) and two- or
  three-word phrases with spaces; plus numbers and dates in the forms handwriting holds them
  (``numbers_and_dates``: a generator of this bench, with other forms and weights than the
  training sampler's). Only Cyrillic text: the hands have no Latin letters. Labels that a
  hand has no glyph for are drawn with another held-out hand.

Printed per head: accuracy and CER on the whole set, on single words of letters only, on
phrases, on numbers/dates, on the rest of the single words (punctuation, hyphens); the
script mix-ups (answers holding Latin letters where the label holds none); then fb_sample.
The labels' SHA-256 is printed with the set; the catalogues come from the installed Debian
packages, so another machine's versions may give other labels (the hash tells).
"""

from __future__ import annotations

import argparse
import gettext
import json
import math
import os
import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

import registry
from bench.htr_heldout_set import labels_sha256
from core.metrics.htr import accuracy_cer
from core.task import SetupContext
from plugins.htr.train.words import MONTHS_RU

REPO = Path(__file__).resolve().parents[1]
VERSION = "v1"
SEED = 4_2042
SIZE = 420
DEFAULT_SET = Path(os.environ.get("FB_HTR_HANDS", f"/work/cache/htr/hands_{VERSION}"))
LOCALE_DIR = Path("/usr/share/locale/ru/LC_MESSAGES")
CATALOGUES = ("coreutils", "libc", "dpkg", "bash", "glib20", "gtk30", "tar", "apt", "iso_3166-2")
MAX_LABEL = 20
KIND_SHARES = (("word", 0.45), ("phrase", 0.35), ("number", 0.20))
MONTHS = MONTHS_RU  # the genitive month names: data, the same table the training text uses
# Characters a catalogue token may hold (Cyrillic letters and the punctuation of running text).
_TOKEN = re.compile(r"[а-яёА-ЯЁ0-9.,:;!?()\"'-]+")
_CYR = re.compile(r"[а-яёА-ЯЁ]")


def catalogue_text(names: Sequence[str] = CATALOGUES, locale_dir: Path = LOCALE_DIR) -> list[list[str]]:
    """Runs of usable tokens from the Russian translations in the catalogues, in text order.

    A run breaks at anything that is not plain running text: format codes (``%s``), options,
    Latin words, markup, placeholders in capitals, quotes the charset lacks.
    """
    runs: list[list[str]] = []
    for name in names:
        path = locale_dir / f"{name}.mo"
        if not path.exists():
            continue
        with path.open("rb") as fh:
            catalog = gettext.GNUTranslations(fh)._catalog  # noqa: SLF001 - the parsed messages
        for key in sorted(catalog, key=str):
            value = catalog[key]
            if not key or not isinstance(value, str):
                continue
            for line in value.replace("«", "").replace("»", "").splitlines():
                run: list[str] = []
                for token in line.split():
                    ok = _TOKEN.fullmatch(token) and _CYR.search(token) and not (token.isupper() and len(token) > 3)
                    if ok and token[0] not in "-(\"'" and token.count("(") == token.count(")"):
                        run.append(token)
                    else:
                        if run:
                            runs.append(run)
                        run = []
                if run:
                    runs.append(run)
    return runs


def text_pools(runs: Sequence[Sequence[str]]) -> dict[str, list[str]]:
    """Distinct single words and two- or three-word phrases (at most ``MAX_LABEL`` characters), sorted."""
    words, phrases = set(), set()
    for run in runs:
        for i, token in enumerate(run):
            if len(token) <= MAX_LABEL:
                words.add(token)
            for n in (2, 3):
                if i + n <= len(run):
                    phrase = " ".join(run[i : i + n])
                    # a phrase ends a clause or runs on; it never starts with punctuation
                    if len(phrase) <= MAX_LABEL and not any(
                        t.endswith((".", ":", ";", "!", "?")) for t in run[i : i + n - 1]
                    ):
                        phrases.add(phrase)
    return {"word": sorted(words), "phrase": sorted(phrases)}


def running_text_weights(words: Sequence[str]) -> list[float]:
    """Cumulative weights drawing the catalogue's words as often as Russian running text uses them
    (wordfreq), so short common words ("за", "при") come up as often as in written sentences."""
    from itertools import accumulate

    from wordfreq import word_frequency

    return list(accumulate(max(word_frequency(w.strip(".,:;!?()\"'").lower(), "ru"), 1e-7) for w in words))


def numbers_and_dates(rng: random.Random) -> str:
    """A number, date, time, phone number, code or numbered item, as people write them."""
    k = rng.random()
    if k < 0.22:
        return f"{rng.randint(1, 28):02d}.{rng.randint(1, 12):02d}.{rng.randint(1950, 2025)}"
    if k < 0.32:
        return f"{rng.randint(1, 28)} {rng.choice(MONTHS)}"
    if k < 0.42:
        return f"{rng.randint(1900, 2025)} г."
    if k < 0.52:
        return str(rng.randint(2, 9999))
    if k < 0.6:
        return "".join(rng.choice("0123456789") for _ in range(rng.randint(8, 20)))
    if k < 0.68:
        return f"{rng.randint(1, 999)},{rng.randint(0, 99):02d}"
    if k < 0.76:
        return f"{rng.randint(1900, 1990)}-{rng.randint(1991, 2025)}"
    if k < 0.84:
        return f"8-9{rng.randint(10, 99)}-{rng.randint(100, 999)}-{rng.randint(10, 99)}-{rng.randint(10, 99)}"
    if k < 0.92:
        return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
    return f"{rng.randint(1, 100)}%"


def draw_hand(text: str, font_path: str, rng: random.Random) -> "Image.Image":  # noqa: F821, UP037
    """``text`` in the hand of ``font_path``, drawn glyph by glyph as a pen writes it (module docstring)."""
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    nrng = np.random.default_rng(rng.getrandbits(63))
    size = rng.randint(44, 76)
    font = ImageFont.truetype(font_path, size)
    pad = size
    width = int(font.getlength(text) * 1.4) + 3 * pad
    canvas = np.zeros((3 * size + 2 * pad, width), np.float32)
    base = pad + 2 * size  # baseline row
    x, drift = float(pad), 0.0
    squeeze = rng.uniform(-0.12, 0.06)  # letters pushed together (joined) or apart, per hand
    for ch in text:
        advance = font.getlength(ch)
        if ch == " ":
            x += advance * rng.uniform(0.9, 1.8)
            continue
        drift = float(np.clip(drift + nrng.normal(0, 0.025 * size), -0.12 * size, 0.12 * size))
        glyph = Image.new("L", (int(advance + 2 * pad), 3 * size), 0)
        ImageDraw.Draw(glyph).text((pad, 2 * size), ch, font=font, fill=255, anchor="ls")
        scale = rng.uniform(0.92, 1.08)
        glyph = glyph.rotate(rng.gauss(0, 3), resample=Image.BILINEAR, center=(pad, 2 * size))
        if abs(scale - 1) > 0.01:
            glyph = glyph.resize((glyph.width, max(1, int(glyph.height * scale))), Image.BILINEAR)
        g = np.asarray(glyph, np.float32)
        top = int(base + drift - 2 * size * scale)
        left = int(x - pad)
        y0, x0 = max(top, 0), max(left, 0)
        y1, x1 = min(top + g.shape[0], canvas.shape[0]), min(left + g.shape[1], canvas.shape[1])
        if y1 > y0 and x1 > x0:
            canvas[y0:y1, x0:x1] = np.maximum(canvas[y0:y1, x0:x1], g[y0 - top : y1 - top, x0 - left : x1 - left])
        x += advance * (1 + squeeze + rng.uniform(-0.04, 0.04))
    ink = Image.fromarray(canvas.clip(0, 255).astype(np.uint8))
    # stroke width: blur, then a threshold ramp relative to the blurred peak (low: thicker, high: thinner)
    ink = ink.filter(ImageFilter.GaussianBlur(rng.uniform(0.5, 1.3) * size / 60))
    b = np.asarray(ink, np.float32)
    b = b / max(float(b.max()), 1.0)
    a = np.clip((b - rng.uniform(0.06, 0.3)) * rng.uniform(2.5, 4), 0, 1) * 255
    ink = Image.fromarray(a.astype(np.uint8))
    shear = rng.uniform(-0.35, 0.12)
    ink = ink.transform(
        (ink.width + int(abs(shear) * ink.height), ink.height),
        Image.AFFINE,
        (1, shear, -abs(shear) * ink.height if shear < 0 else 0, 0, 1, 0),
        resample=Image.BILINEAR,
    )
    alpha = np.asarray(ink, np.float32) / 255.0
    ys, xs = np.nonzero(alpha > 0.2)
    if len(xs) == 0:
        ys, xs = np.array([base]), np.array([pad])
    h_text = max(int(ys.max() - ys.min()), size // 2)
    y0 = max(int(ys.min() - rng.uniform(0.1, 0.45) * h_text), 0)
    y1 = min(int(ys.max() + rng.uniform(0.1, 0.45) * h_text), alpha.shape[0])
    x0 = max(int(xs.min() - rng.uniform(0.05, 0.5) * h_text), 0)
    x1 = min(int(xs.max() + rng.uniform(0.05, 0.5) * h_text), alpha.shape[1])
    alpha = alpha[y0:y1, x0:x1]
    h, w = alpha.shape
    paper = _copybook(h, w, base - y0 + drift, size, rng)
    pressure = 0.7 + 0.3 * _smooth_noise(h, w, size, nrng)
    if rng.random() < 0.25:  # strokes of the line above or below, caught by the cut
        band = rng.randint(1, max(2, h // 8))
        edge = slice(0, band) if rng.random() < 0.5 else slice(h - band, h)
        alpha[edge] = np.maximum(alpha[edge], (nrng.random((band, w)) < 0.03).astype(np.float32))
    colour = rng.choice(((30, 40, 150), (60, 40, 130), (20, 20, 30), (35, 60, 170)))
    colour = np.array(colour, np.float32) + nrng.uniform(-15, 15, 3)
    a3 = (alpha * pressure)[..., None]
    img = paper * (1 - a3) + colour[None, None] * a3
    gamma = rng.uniform(0.7, 1.4)
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** gamma
    out = Image.fromarray(img.clip(0, 255).astype(np.uint8), "RGB")
    if rng.random() < 0.6:  # cut out along a polygon around the ink, black outside, as the crops are
        out = _cut_out(out, (xs.min() - x0, ys.min() - y0, xs.max() - x0, ys.max() - y0), rng)
    height = rng.randint(32, 96)  # the photo's resolution
    out = out.resize((max(8, round(w * height / h)), height), Image.BILINEAR)
    return out


def _cut_out(img: "Image.Image", box: tuple[int, int, int, int], rng: random.Random) -> "Image.Image":  # noqa: F821, UP037
    """Black outside a polygon around ``box`` (the ink): its corners pushed out and a point beyond each side."""
    from PIL import Image, ImageDraw

    left, top, right, bottom = box
    w, h = img.size

    def out(v: float, limit: int) -> float:
        return min(max(v, 0), limit - 1)

    def m() -> float:
        return rng.uniform(1, 0.15 * (bottom - top) + 3)

    mid_x, mid_y = rng.uniform(left, right), rng.uniform(top, bottom)
    points = [
        (out(left - m(), w), out(top - m(), h)),
        (mid_x, out(top - 2 * m(), h)),
        (out(right + m(), w), out(top - m(), h)),
        (out(right + 2 * m(), w), mid_y),
        (out(right + m(), w), out(bottom + m(), h)),
        (rng.uniform(left, right), out(bottom + 2 * m(), h)),
        (out(left - m(), w), out(bottom + m(), h)),
        (out(left - 2 * m(), w), rng.uniform(top, bottom)),
    ]
    mask = Image.new("L", img.size, 0)
    ImageDraw.Draw(mask).polygon(points, fill=255)
    return Image.composite(img, Image.new("RGB", img.size, (0, 0, 0)), mask)


def _copybook(h: int, w: int, baseline: float, size: int, rng: random.Random) -> np.ndarray:
    """Paper: plain, a Russian copybook's two-line ruling with oblique guides, or grid; maybe a red margin."""
    tone = rng.uniform(200, 250)
    paper = np.empty((h, w, 3), np.float32)
    paper[:] = (tone - rng.uniform(0, 10), tone - rng.uniform(0, 6), tone)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    line = np.array((rng.uniform(120, 170), rng.uniform(150, 190), rng.uniform(200, 235)), np.float32)
    k = rng.random()
    mask = np.zeros((h, w), bool)
    if k < 0.45:  # two-line ruling at the baseline and the x-height, oblique guides
        for y in (baseline, baseline - 0.5 * size, baseline + 1.4 * size, baseline - 1.9 * size):
            mask |= np.abs(ys - y) < 0.8
        if rng.random() < 0.6:
            mask |= np.mod(xs + ys * math.tan(math.radians(25)), rng.uniform(1.0, 2.0) * size) < 1.0
    elif k < 0.75:
        cell = rng.uniform(0.45, 0.7) * size
        mask |= (np.mod(ys + rng.uniform(0, cell), cell) < 1.0) | (np.mod(xs + rng.uniform(0, cell), cell) < 1.0)
    paper[mask] = paper[mask] * 0.35 + line * 0.65
    if rng.random() < 0.1:
        x = rng.randrange(w)
        paper[:, max(0, x - 1) : x + 1] = (210, 90, 100)
    return paper


def _smooth_noise(h: int, w: int, size: int, nrng: np.random.Generator) -> np.ndarray:
    from PIL import Image

    coarse = nrng.random((max(2, h // size + 2), max(2, w // size + 2))).astype(np.float32)
    return np.asarray(Image.fromarray(coarse).resize((w, h), Image.BICUBIC), np.float32).clip(0, 1)


def generate(n: int = SIZE, seed: int = SEED) -> Iterator[tuple["Image.Image", str, str, str]]:  # noqa: F821, UP037
    """``(image, label, kind, font file)`` for the set's ``n`` crops, deterministically."""
    from fontTools.ttLib import TTFont

    from plugins.htr.train.handfonts import HELDOUT_HANDS, hand_fonts

    fonts = hand_fonts(heldout=True)
    if len(fonts) != len(HELDOUT_HANDS):
        raise SystemExit("the held-out hands are missing: run python -m plugins.htr.train.handfonts")
    glyphs = {str(p): {chr(c) for c in (TTFont(str(p), lazy=True).getBestCmap() or {})} for p in fonts}
    pools = text_pools(catalogue_text())
    if not pools["word"]:
        raise SystemExit(f"no Russian message catalogues in {LOCALE_DIR}")
    word_weights = running_text_weights(pools["word"])
    rng = random.Random(seed)
    kinds, shares = zip(*KIND_SHARES, strict=True)
    for i in range(n):
        kind = rng.choices(kinds, weights=shares)[0]
        font = str(fonts[i % len(fonts)])
        for _ in range(50):
            if kind == "number":
                text = numbers_and_dates(rng)
            elif kind == "word":
                text = rng.choices(pools["word"], cum_weights=word_weights)[0]
            else:
                text = rng.choice(pools[kind])
            usable = [f for f in map(str, fonts) if set(text) <= glyphs[f]]
            if usable:
                break
        if font not in usable:
            font = usable[rng.randrange(len(usable))]
        yield draw_hand(text, font, rng), text, kind, Path(font).name


def write_set(out: Path, n: int = SIZE, seed: int = SEED) -> dict[str, str]:
    """The set in the challenge layout, with ``kinds.json``, ``fonts.json`` and ``hands.json`` (version, sha)."""
    images = out / "input" / "HTR" / "images"
    images.mkdir(parents=True, exist_ok=True)
    gold, kinds, fonts = {}, {}, {}
    for i, (img, text, kind, font) in enumerate(generate(n, seed)):
        name = f"{i:04d}.jpg"
        img.save(images / name, quality=random.Random(seed + i).randint(45, 92))
        gold[name], kinds[name], fonts[name] = text, kind, font
    (out / "true" / "HTR").mkdir(parents=True, exist_ok=True)
    (out / "true" / "HTR" / "true_HTR.json").write_text(
        json.dumps(gold, ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
    )
    (out / "kinds.json").write_text(json.dumps(kinds, indent=0) + "\n")
    (out / "fonts.json").write_text(json.dumps(fonts, indent=0) + "\n")
    meta = {"version": VERSION, "seed": seed, "n": n, "labels_sha256": labels_sha256(gold)}
    (out / "hands.json").write_text(json.dumps(meta, indent=1) + "\n")
    return gold


def ensure_set(path: Path, n: int) -> tuple[dict[str, str], dict[str, str]]:
    meta_path = path / "hands.json"
    if not meta_path.exists() or json.loads(meta_path.read_text()).get("n") != n:
        print(f"writing the real-hands set ({n} crops) to {path} ...")
        write_set(path, n)
    gold = json.loads((path / "true" / "HTR" / "true_HTR.json").read_text(encoding="utf-8"))
    meta = json.loads(meta_path.read_text())
    if meta["version"] != VERSION or meta["labels_sha256"] != labels_sha256(gold):
        raise SystemExit(f"{path} is not the {VERSION} set; delete it to regenerate")
    print(f"set {path}: {len(gold)} crops, labels sha256 {meta['labels_sha256'][:16]}")
    return gold, json.loads((path / "kinds.json").read_text())


def is_letter_word(text: str) -> bool:
    return text.isalpha()


def has_latin(text: str) -> bool:
    return any(ch.isascii() and ch.isalpha() for ch in text)


def score(preds: dict[str, str], gold: dict[str, str], kinds: dict[str, str]) -> dict[str, dict]:
    """Accuracy / CER overall and per part, and the script mix-ups."""
    parts = {
        "all": gold,
        "letter_words": {k: v for k, v in gold.items() if kinds[k] == "word" and is_letter_word(v)},
        "other_words": {k: v for k, v in gold.items() if kinds[k] == "word" and not is_letter_word(v)},
        "phrases": {k: v for k, v in gold.items() if kinds[k] == "phrase"},
        "numbers": {k: v for k, v in gold.items() if kinds[k] == "number"},
    }
    out = {name: accuracy_cer(sub, preds) | {"n": len(sub)} for name, sub in parts.items()}
    mixed = [k for k, v in gold.items() if not has_latin(v) and has_latin(preds.get(k, ""))]
    out["latin_in_cyrillic"] = {"n": len(mixed), "share": len(mixed) / max(len(gold), 1)}
    return out


def head_outputs(input_dir: Path, trunk, weights: Path | None) -> list[tuple]:  # noqa: ANN001
    """The task's head outputs over ``input_dir``, batch by batch: ``[(HtrRaw, samples)]`` (decoded later)."""
    import torch

    from plugins.htr.task import HtrTask

    task = HtrTask(weights)
    loaded = task.setup(SetupContext(trunk))
    samples = task.discover(input_dir)
    size = task.info.batch_size
    with torch.inference_mode():
        return [
            (task.predict(task.preprocess(samples[i : i + size], trunk, loaded), trunk, loaded), samples[i : i + size])
            for i in range(0, len(samples), size)
        ]


def decode_outputs(outputs: Sequence[tuple], decoder) -> dict[str, str]:  # noqa: ANN001
    """Readings of ``head_outputs`` by ``decoder`` (a ``LexiconDecoder``), as the task picks them."""
    from plugins.htr.task import pick_readings

    preds = {}
    for raw, samples in outputs:
        texts = pick_readings(raw.log_probs, raw.upright, raw.owner, len(samples), decoder)
        preds.update({s.key: t for s, t in zip(samples, texts, strict=True)})
    return preds


def script_grid(args: argparse.Namespace, trunk, gold: dict[str, str], kinds: dict[str, str]) -> None:  # noqa: ANN001
    """Decoder script weights side by side on this set and on the style-held-out set (ru and en halves)."""
    from bench.htr_heldout import DEFAULT_SET as HELDOUT_SET
    from bench.htr_heldout import ensure_set as ensure_heldout
    from bench.htr_heldout import score as heldout_score
    from plugins.htr.lexdecode import LexiconDecoder
    from plugins.htr.lexicon import default_lexicon

    held_gold, held_kinds = ensure_heldout(HELDOUT_SET, 400)
    for weights in args.weights:
        ours = head_outputs(args.set / "input", trunk, weights)
        held = head_outputs(HELDOUT_SET / "input", trunk, weights)
        for w in args.script_weights:
            decoder = LexiconDecoder(default_lexicon(), script_weight=w)
            h = score(decode_outputs(ours, decoder), gold, kinds)
            s = heldout_score(decode_outputs(held, decoder), held_gold, held_kinds)
            print(
                f"{weights or 'shipped'} script_weight {w}: hands {h['all']['accuracy']:.3f} / {h['all']['cer']:.3f}"
                f" letter words {h['letter_words']['accuracy']:.3f} latin-in-cyrillic {h['latin_in_cyrillic']['n']}"
                f" | style-held-out {s['all']['accuracy']:.3f} / {s['all']['cer']:.3f}"
                f" (ru {s['ru']['accuracy']:.3f}, en {s['en']['accuracy']:.3f})"
            )


def main() -> int:
    import torch

    from bench.htr import run_ours

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--weights", type=Path, nargs="*", default=[None], help="head folders (default: shipped)")
    parser.add_argument("--set", type=Path, default=DEFAULT_SET)
    parser.add_argument("-n", type=int, default=SIZE)
    parser.add_argument("--fb", type=Path, default=REPO.parent / "shared" / "data" / "fb_sample")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--show", type=int, default=0, help="print this many wrong readings")
    parser.add_argument(
        "--script-weights",
        type=lambda v: [float(x) for x in v.split(",")],
        default=None,
        help="instead: decode the head outputs once per decoder script weight (comma-separated), here and on"
        " the style-held-out set",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from core.trunk import TrunkConfig, load_trunk

    gold, kinds = ensure_set(args.set, args.n)
    trunk = load_trunk(TrunkConfig(), registry.load())
    if args.script_weights:
        script_grid(args, trunk, gold, kinds)
        return 0
    fb_gold_path = args.fb / "true" / "HTR" / "true_HTR.json"
    fb_gold = json.loads(fb_gold_path.read_text(encoding="utf-8")) if fb_gold_path.exists() else None
    results = {}
    for weights in args.weights:
        name = str(weights or "shipped")
        preds, _ = run_ours(args.set / "input", trunk, weights)
        res = {"hands": score(preds, gold, kinds), "predictions": preds}
        h = res["hands"]
        line = f"{name}: hands {h['all']['accuracy']:.3f} / CER {h['all']['cer']:.3f}" + "".join(
            f"  {part} {h[part]['accuracy']:.3f} / {h[part]['cer']:.3f} (n {h[part]['n']})"
            for part in ("letter_words", "other_words", "phrases", "numbers")
        )
        line += f"  latin-in-cyrillic {h['latin_in_cyrillic']['n']}"
        if fb_gold is not None:
            fb_preds, _ = run_ours(args.fb / "input", trunk, weights)
            fb = accuracy_cer(fb_gold, fb_preds)
            res["fb_sample"] = fb | {"predictions": {k: fb_preds.get(k, "") for k in fb_gold}}
            line += f"  | fb_sample {fb['accuracy']:.2f} / CER {fb['cer']:.3f}"
        print(line)
        wrong = [(k, gold[k], preds.get(k, "")) for k in gold if preds.get(k, "") != gold[k]]
        for k, g, p in wrong[: args.show]:
            print(f"    {k} [{kinds[k]}] {g!r} -> {p!r}")
        results[name] = res
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
