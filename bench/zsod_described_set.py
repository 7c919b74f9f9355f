"""Build a dev set of described phrases with known boxes from COCO annotations (English and Russian).

``python -m bench.zsod_described_set --coco DIR --out OUT``

``DIR`` holds COCO128 (github:developer0hye/COCO128: ``train2017/`` and
``annotations/instances_train2017.json``; the first half of it is ``zsod_coco_dev``). Per
image and class, with each phrase in both languages:

* colour: an instance whose mask, in the part asked (the whole object, or a person's upper
  or lower body), is mostly one colour (``attributes.colour_names``, the task's own pixel
  rule, here on the mask's pixels) that no other instance of its class shows;
* position: the leftmost / rightmost / front (lowest bottom edge) / back instance, when it is
  clearly so; height: the top / bottom one (centre), when clearly so; size: the biggest /
  smallest, when clearly so;
* relation: an instance overlapped by one of another class that overlaps no other instance
  of its class ("the person with a kite", "человек с воздушным змеем");
* absent (gold ``[]``): a colour no instance of the class shows in that part, or a relation
  with a class the image does not hold.

Writes the challenge's layout (``OUT/input/zsOD/images``, ``requests.json``,
``OUT/true/zsOD/true_zsOD.json``) and ``OUT/kinds.json`` (image -> phrase -> kind, language).
Images are hard links (the task refuses links that lead outside its input). Nothing of it is committed.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from core.morph import analyzer, first_parse

MIN_AREA = 0.005  # an instance smaller than this share of the image is not described
COUNTED_AREA = 0.001  # smaller ones are not counted as rivals either
DOMINANT = 0.4  # a described colour's least share of the part's mask pixels
RIVAL = 0.12  # another instance showing this much of it makes the colour not unique
ABSENT = 0.03  # an absent colour: every instance shows less than this
CHROMATIC_ABSENT = ("red", "green", "blue", "yellow", "pink", "purple", "orange", "white", "black")
RELATION_OBJECTS = (
    "umbrella",
    "dog",
    "frisbee",
    "handbag",
    "kite",
    "skateboard",
    "surfboard",
    "bicycle",
    "horse",
    "cell phone",
)

EN_COLOUR = {
    c: c for c in ("black", "white", "gray", "red", "orange", "yellow", "green", "blue", "purple", "pink", "brown")
}
RU_COLOUR = {
    "black": "чёрный", "white": "белый", "gray": "серый", "red": "красный", "orange": "оранжевый",
    "yellow": "жёлтый", "green": "зелёный", "blue": "синий", "purple": "фиолетовый", "pink": "розовый",
    "brown": "коричневый",
}  # fmt: skip
PART_WORDS = {"upper": ("shirt", "рубашка"), "lower": ("pants", "брюки")}


def _noun_parse(phrase: str) -> Any:
    for w in phrase.split():
        p = first_parse(w)
        if p.tag.POS == "NOUN":
            return p
    return first_parse(phrase.split()[-1])


def ru_agree(adjective: str, noun_phrase: str, case: str = "nomn") -> str:
    """``adjective`` in the gender, number and ``case`` of ``noun_phrase``'s head noun."""
    noun = _noun_parse(noun_phrase)
    grams = {case}
    if noun.tag.number == "plur" or "Pltm" in noun.tag or noun.tag.gender is None:
        grams.add("plur")
    else:
        grams.add(noun.tag.gender)
    form = first_parse(adjective).inflect(grams)
    return form.word if form else adjective


def ru_case(noun_phrase: str, case: str) -> str:
    """``noun_phrase`` with its words up to the head noun put in ``case`` ("воздушный змей" -> "воздушным змеем")."""
    out, done = [], False
    for w in noun_phrase.split():
        parses = analyzer().parse(w)
        p = next((x for x in parses if "nomn" in x.tag and x.tag.POS in ("NOUN", "ADJF")), parses[0])
        if not done and p.tag.POS in ("NOUN", "ADJF"):
            grams = {case} | ({"plur"} if p.tag.number == "plur" else set())
            form = p.inflect(grams)
            out.append(form.word if form else w)
            done = p.tag.POS == "NOUN"
        else:
            out.append(w)
    return " ".join(out)


def phrases_for(kind: str, value: str, en: str, ru: str, other: tuple[str, str] | None = None) -> tuple[str, str]:
    """The English and Russian phrase of one description of class (``en``, ``ru``)."""
    if kind in ("colour", "absent_colour"):
        part, colour = value.split(":")
        if part == "whole":
            return f"the {EN_COLOUR[colour]} {en}", f"{ru_agree(RU_COLOUR[colour], ru)} {ru}"
        en_part, ru_part = PART_WORDS[part]
        en_art = "a " if part == "upper" else ""
        return (
            f"the {en} in {en_art}{EN_COLOUR[colour]} {en_part}",
            f"{ru} в {ru_agree(RU_COLOUR[colour], ru_part, 'loct')} {ru_case(ru_part, 'loct')}",
        )
    if kind in ("position", "height"):
        en_words = {"left": "on the left", "right": "on the right", "front": "in front", "back": "in the background",
                    "top": "at the top", "bottom": "at the bottom"}  # fmt: skip
        ru_words = {"left": "слева", "right": "справа", "front": "спереди", "back": "позади", "top": "сверху",
                    "bottom": "снизу"}  # fmt: skip
        return f"the {en} {en_words[value]}", f"{ru} {ru_words[value]}"
    if kind == "size":
        en_adj, ru_adj = {"big": ("big", "большой"), "small": ("small", "маленький")}[value]
        return f"the {en_adj} {en}", f"{ru_agree(ru_adj, ru)} {ru}"
    assert other is not None
    article = "an" if other[0][0] in "aeiou" else "a"
    other_ru = ru_case(other[1], "ablt")
    preposition = "со" if other_ru[:2] in ("ск", "сн", "ст", "сл", "см", "сп") else "с"
    return f"the {en} with {article} {other[0]}", f"{ru} {preposition} {other_ru}"


def instance_mask(ann: dict[str, Any], size: tuple[int, int]) -> np.ndarray:
    from PIL import Image, ImageDraw

    canvas = Image.new("L", size, 0)
    draw = ImageDraw.Draw(canvas)
    for poly in ann["segmentation"]:
        if len(poly) >= 6:
            draw.polygon([(poly[i], poly[i + 1]) for i in range(0, len(poly), 2)], fill=1)
    return np.asarray(canvas, dtype=bool)


def part_shares(names: np.ndarray, mask: np.ndarray, box: list[float], part: str) -> np.ndarray:
    """The share of each colour among the mask's pixels in the part's rows of the box."""
    from plugins.zsod.attributes import COLOURS

    x, y, w, h = box
    rows = {"whole": (0.0, 1.0), "upper": (0.18, 0.5), "lower": (0.5, 0.88)}[part]
    band = np.zeros_like(mask)
    band[int(y + rows[0] * h) : int(np.ceil(y + rows[1] * h)), :] = True
    px = names[mask & band]
    if px.size < 50:
        return np.zeros(len(COLOURS))
    return np.bincount(px, minlength=len(COLOURS))[: len(COLOURS)] / px.size


def describe_image(
    image_path: Path, anns: list[dict[str, Any]], cats: dict[int, tuple[str, str]]
) -> list[tuple[str, str, list[list[float]]]]:
    """``(kind, (en, ru) phrases..., gold)`` rows for one image."""
    from PIL import Image

    from plugins.zsod.attributes import COLOURS, colour_names

    image = Image.open(image_path).convert("RGB")
    W, H = image.size
    names = colour_names(np.asarray(image))
    anns = [a for a in anns if not a["iscrowd"] and a["bbox"][2] * a["bbox"][3] >= COUNTED_AREA * W * H]
    by_class: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for a in anns:
        by_class[a["category_id"]].append(a)
    present_classes = {cats[c][0] for c in by_class}
    rows: list[tuple[str, str, tuple[str, str] | None, int, list[list[float]]]] = []
    for cat, inst in by_class.items():
        en, ru = cats[cat]
        big = [a for a in inst if a["bbox"][2] * a["bbox"][3] >= MIN_AREA * W * H]
        if not big:
            continue
        parts = ("upper", "lower") if en == "person" else ("whole",)
        masks = [instance_mask(a, (W, H)) for a in inst]
        for part in parts:
            shares = np.stack([part_shares(names, m, a["bbox"], part) for a, m in zip(inst, masks, strict=True)])
            for i, a in enumerate(inst):
                if a not in big:
                    continue
                top = int(np.argmax(shares[i]))
                others = np.delete(shares[:, top], i)
                if shares[i, top] >= DOMINANT and (others < RIVAL).all():
                    rows.append(("colour", f"{part}:{COLOURS[top]}", None, cat, [a["bbox"]]))
            absent = [c for c in CHROMATIC_ABSENT if (shares[:, COLOURS.index(c)] < ABSENT).all()]
            if absent:
                pick = absent[(cat + len(inst)) % len(absent)]
                rows.append(("absent_colour", f"{part}:{pick}", None, cat, []))
        if len(big) >= 2:
            cx = np.array([a["bbox"][0] + a["bbox"][2] / 2 for a in big]) / W
            bottom = np.array([a["bbox"][1] + a["bbox"][3] for a in big]) / H
            areas = np.array([a["bbox"][2] * a["bbox"][3] for a in big])
            for value, key, gap in (
                ("left", -cx, 0.1),
                ("right", cx, 0.1),
                ("front", bottom, 0.08),
                ("back", -bottom, 0.08),
            ):
                order = np.argsort(-key)
                if key[order[0]] - key[order[1]] >= gap:
                    rows.append(("position", value, None, cat, [big[order[0]]["bbox"]]))
            cy = np.array([a["bbox"][1] + a["bbox"][3] / 2 for a in big]) / H
            for value, key in (("top", -cy), ("bottom", cy)):
                order = np.argsort(-key)
                if key[order[0]] - key[order[1]] >= 0.1:
                    rows.append(("height", value, None, cat, [big[order[0]]["bbox"]]))
            order = np.argsort(-areas)
            if areas[order[0]] >= 2 * areas[order[1]]:
                rows.append(("size", "big", None, cat, [big[order[0]]["bbox"]]))
            if areas[order[-1]] * 2 <= areas[order[-2]]:
                rows.append(("size", "small", None, cat, [big[order[-1]]["bbox"]]))
        for other_cat, other_inst in by_class.items():
            if other_cat == cat:
                continue
            hits = [(a, b) for a in big for b in other_inst if _overlap(a["bbox"], b["bbox"]) >= 0.6]
            if len({id(a) for a, _ in hits}) == 1:
                rows.append(("relation", "with", cats[other_cat], cat, [hits[0][0]["bbox"]]))
        missing = [o for o in RELATION_OBJECTS if o not in present_classes and o != en]
        if missing and cat % 3 == 0:
            other = next(c for c in cats.values() if c[0] == missing[(cat + len(inst)) % len(missing)])
            rows.append(("absent_relation", "with", other, cat, []))
    out = []
    for kind, value, other, cat, gold in rows:
        en_phrase, ru_phrase = phrases_for(kind, value, *cats[cat], other)
        out.append((kind, en_phrase, gold))
        out.append((kind, ru_phrase, gold))
    return out


def _overlap(a: list[float], b: list[float]) -> float:
    """Intersection over the smaller of two ``[x, y, w, h]`` boxes."""
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return ix * iy / max(min(a[2] * a[3], b[2] * b[3]), 1e-9)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--coco", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    from core.detector import coco_classes

    names = coco_classes()
    coco = json.loads((args.coco / "annotations" / "instances_train2017.json").read_text())
    ru_of = dict(zip(names.en, names.ru, strict=True))
    cats = {c["id"]: (c["name"], ru_of[c["name"]]) for c in coco["categories"]}
    anns: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for a in coco["annotations"]:
        anns[a["image_id"]].append(a)
    images_dir = args.out / "input" / "zsOD" / "images"
    images_dir.mkdir(parents=True, exist_ok=True)
    (args.out / "true" / "zsOD").mkdir(parents=True, exist_ok=True)
    requests, true, kinds = {}, {}, {}
    for img in sorted(coco["images"], key=lambda i: i["file_name"]):
        path = args.coco / "train2017" / img["file_name"]
        rows = describe_image(path, anns[img["id"]], cats)
        if not rows:
            continue
        link = images_dir / img["file_name"]
        if not link.exists():
            link.hardlink_to(path.resolve())
        gold = {}
        for kind, phrase, boxes in rows:
            if phrase not in gold:
                gold[phrase] = boxes
                kinds.setdefault(img["file_name"], {})[phrase] = [
                    kind,
                    "ru" if any("а" <= c <= "я" for c in phrase) else "en",
                ]
        requests[img["file_name"]] = list(gold)
        true[img["file_name"]] = gold
    (args.out / "input" / "zsOD" / "requests.json").write_text(json.dumps(requests, ensure_ascii=False, indent=1))
    (args.out / "true" / "zsOD" / "true_zsOD.json").write_text(json.dumps(true, ensure_ascii=False, indent=1))
    (args.out / "kinds.json").write_text(json.dumps(kinds, ensure_ascii=False, indent=1))
    counts: dict[str, int] = defaultdict(int)
    for per in kinds.values():
        for kind, lang in per.values():
            counts[f"{kind}/{lang}"] += 1
    print(f"{len(requests)} images, {sum(counts.values())} phrases:", dict(sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
